"""Declared mutants of the arm registry (witness ``arm_registry``)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import planner.arms
from mutation import mutant
from planner.arms import Arm, arms

W = "arm_registry"
NOT_AN_ARM = f"{W}.a_module_that_is_not_an_arm_is_named_as_a_bug"
PLANNED = f"{W}.every_module_of_planner_arms_is_an_arm_the_command_line_plans"


@mutant(replaces="planner.arms._arm_of", turns_red={NOT_AN_ARM})
def an_arm_named_for_another_module_is_taken(module: ModuleType, name: str) -> Arm:
    """Any Arm a module exposes is taken, whatever its name: a copied module plans the arm it
    was copied from under a second name."""
    value = getattr(module, "ARM", None)
    if isinstance(value, Arm):
        return value
    raise TypeError(f"{module.__name__}: ARM must be an Arm named {name!r}")


@mutant(
    replaces="planner.arms.arms",
    turns_red={NOT_AN_ARM},
)
def a_module_without_an_arm_is_skipped() -> dict[str, Arm]:
    """A module whose ARM is missing or is not an Arm is silently left out, so a mistyped
    arm is simply not offered instead of being named."""
    found: dict[str, Arm] = {}
    for info in pkgutil.iter_modules(planner.arms.__path__):
        value = getattr(importlib.import_module(f"planner.arms.{info.name}"), "ARM", None)
        if isinstance(value, Arm) and value.name == info.name:
            found[info.name] = value
    return found


@mutant(
    replaces="planner.arms.arm",
    turns_red={PLANNED},
)
def every_arm_reports_to_the_first_arms_path(name: str) -> Arm:
    """Every arm's default report is the first arm's path: one dry run overwrites another's."""
    known = arms()
    first = known[min(known)]
    return known[name].model_copy(update={"report": first.report})
