"""The project's declared mutants, mirroring ``witnesses/`` room for room, file for file.

The mutants of witness ``W`` of room ``R`` are in ``mutation/R/W.py`` (found by that name
alone: see :mod:`mutation.plugin`); the ledgers ``debt.toml`` and ``equivalent.toml`` and the survey
floors ``floors.toml`` sit beside them. The engine that runs them is the built-in plugin
:mod:`plugins.mutate`; this package re-exports what a mutant module needs::

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
    from plugins.mutate import ForcedFailure, Mutant, combined, mutant

__all__ = ["ForcedFailure", "Mutant", "combined", "mutant"]


def __getattr__(name: str) -> Any:
    """Import on first use: loading the plugin (``mutation.plugin``) must not load the engine."""
    if name in ("ForcedFailure", "Mutant", "combined", "mutant"):
        return getattr(importlib.import_module("plugins.mutate"), name)
    raise AttributeError(f"module 'mutation' has no attribute {name!r}")
