"""The hypothesis profile mutation runs load before any witness is imported.

A mutation run only needs red or green, not the smallest falsifying example, so shrinking is
skipped: a property a mutant breaks fails as soon as it is found. The kernel's own
deterministic profile inherits these phases, because it is registered while this one is loaded.
"""

from __future__ import annotations

import importlib

PROFILE = "mutation-verdicts"


def load_verdict_profile() -> None:
    """Load a profile without the shrink phase, if hypothesis is installed."""
    try:
        hypothesis = importlib.import_module("hypothesis")
    except ImportError:
        return
    phases = [hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.generate]
    hypothesis.settings.register_profile(PROFILE, phases=phases, database=None, deadline=None)
    hypothesis.settings.load_profile(PROFILE)
