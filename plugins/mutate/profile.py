"""The hypothesis profile mutation runs load before any witness is imported.

A mutation run only needs red or green, not the smallest falsifying example, so shrinking is
skipped: a property a mutant breaks fails as soon as it is found. The kernel's own
deterministic profile inherits these phases, because it is registered while this one is loaded.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

PROFILE = "mutation-verdicts"


@contextmanager
def verdict_profile() -> Iterator[None]:
    """:func:`load_verdict_profile` for the duration of the block, then the profile that was
    loaded before: a harness run inside a longer process (a test run, a plugin) leaves
    hypothesis shrinking for whatever runs after it."""
    try:
        hypothesis = importlib.import_module("hypothesis")
    except ImportError:
        yield
        return
    previous = hypothesis.settings.get_current_profile_name()
    load_verdict_profile()
    try:
        yield
    finally:
        hypothesis.settings.load_profile(previous)


def load_verdict_profile() -> None:
    """Load a profile without the shrink phase, if hypothesis is installed."""
    try:
        hypothesis = importlib.import_module("hypothesis")
    except ImportError:
        return
    phases = [hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.generate]
    hypothesis.settings.register_profile(PROFILE, phases=phases, database=None, deadline=None)
    hypothesis.settings.load_profile(PROFILE)
