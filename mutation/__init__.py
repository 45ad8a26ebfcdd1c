"""Mutation harness: declared mutants with exact kill sets, and the mutmut survey.

A declared mutant, in ``mutation/<witness>.py``::

    from mutation import mutant

    @mutant(
        replaces="planner.admission.hosts_held_by_subject",
        turns_red={"v41_group_a_launch.host_not_held_by_the_subject_is_refused"},
    )
    def held_host_conjunct_removed(state, group):
        \"\"\"Admission no longer checks that every host is held by the group's subject.\"\"\"
        return ()

``claims mutate W`` checks that each mutant turns exactly its declared claims red.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mutation.model import Mutant, combined, mutant
    from mutation.patching import ForcedFailure

__all__ = ["ForcedFailure", "Mutant", "combined", "mutant"]

_WHERE = {
    "ForcedFailure": "mutation.patching",
    "Mutant": "mutation.model",
    "combined": "mutation.model",
    "mutant": "mutation.model",
}


def __getattr__(name: str) -> Any:
    """Import on first use: loading the plugin (``mutation.plugin``) must not load the engine."""
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'mutation' has no attribute {name!r}")
