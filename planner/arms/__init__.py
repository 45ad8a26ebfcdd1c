"""The arms the planner knows: one module per arm in this package, found by its name.

Decision: an arm is a module ``planner/arms/<name>.py`` that holds its call site and every
value of the arm (its names, route, runtime key, checkpoint row and parsers, profile, image,
Engram placement, frontiers, bets) and exposes one typed value, ``ARM`` (an :class:`Arm`
whose ``name`` is the module's name): its fabric group, its default report path, whether it
uses the inputs file's values, and how it plans its dry run from what the command line read
(:class:`ArmSources`). The shared modules keep the types and the rules those values are
given to, a rule taking the arm's values as parameters; they never import an arm, so no
shared module changes when an arm is added. The modules are discovered by name, as the
witnesses are by file name, so nothing keeps a list of arms: the command line's arm choices
(``planner dry-run``, ``planner apply``), the group each arm must find in the inventory and
its default report path all come from :func:`arms`. The claims every arm must satisfy run
over :func:`arms` (witness ``arm_launch``), against the arm's expected values in
``witnesses/arms/expected/<name>.py``, and its floors are two lines of ``mutation/floors.toml``.
Adding an arm is adding this module, its expected values and those two lines.

A recipe (:mod:`planner.recipe_launch`) is not an arm module and takes no arm's value.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from planner import data
from planner.arm_launch import DryRun
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest
from planner.fabric import Fabric
from planner.frontiers import PlanInputs
from planner.values import Frozen

__all__ = ["Arm", "ArmSources", "arm", "arms"]


class ArmSources(Frozen):
    """What the command line read for a dry run, handed to the arm that plans it."""

    fabric: Fabric
    root: Path
    inputs: PlanInputs
    inputs_source: str
    """The inputs file's name, for errors about its content (``inputs`` when none was given)."""
    state: AuthorityState

    def manifest(self, relative: str) -> CheckpointManifest:
        """The checkpoint manifest at ``relative`` under the data root."""
        return data.manifest(relative, self.root)


class Arm(Frozen):
    """One arm, as the command line sees it."""

    name: str
    group: str
    """The fabric group it plans over: the inventory must hold it."""
    report: str
    """The dry run's default report path."""
    uses_inputs: bool
    """Whether the inputs file's values reach its plan (the file is read and checked anyway)."""
    plan: Callable[[ArmSources], DryRun]


def arms() -> dict[str, Arm]:
    """Every module of this package is an arm: its ``ARM``, by the module's name. Not
    cached: each module is imported once anyway, and the listing is cheap."""
    return {
        info.name: _arm_of(importlib.import_module(f"{__name__}.{info.name}"), info.name)
        for info in pkgutil.iter_modules(__path__)
    }


def _arm_of(module: ModuleType, name: str) -> Arm:
    """A module's ``ARM``; anything else there is a bug in that module, named as such."""
    value = getattr(module, "ARM", None)
    if isinstance(value, Arm) and value.name == name:
        return value
    found = f"an Arm named {value.name!r}" if isinstance(value, Arm) else type(value).__name__
    raise TypeError(f"{module.__name__}: ARM must be an Arm named {name!r}, not {found}")


def arm(name: str) -> Arm:
    """The arm called ``name`` (a name :func:`arms` lists)."""
    return arms()[name]
