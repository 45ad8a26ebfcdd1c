"""Registers this project's witness batches and declared frontiers with the framework."""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from claims import hookimpl

if TYPE_CHECKING:
    from claims.frontiers import Frontier

PENDING = "frontier_sufficiency"


def modules_by_room(package: str, directory: Path) -> dict[str, str]:
    """Every public module in the rooms of ``package`` (its subpackages, one level down), by
    name: ``{"serving_fit": "witnesses.rules.serving_fit", ...}``. A subpackage of a room
    (``arms/expected/``) is data the modules read, not a module of the room. A name found in
    two rooms raises ``ValueError`` naming both: a witness is known by its name alone."""
    found: dict[str, str] = {}
    for room in sorted(pkgutil.iter_modules([str(directory)]), key=lambda m: m.name):
        if not room.ispkg or room.name.startswith("_"):
            continue
        for module in sorted(
            pkgutil.iter_modules([str(directory / room.name)]), key=lambda m: m.name
        ):
            if module.ispkg or module.name.startswith("_"):
                continue
            dotted = f"{package}.{room.name}.{module.name}"
            if module.name in found:
                raise ValueError(f"{module.name} is in two rooms: {found[module.name]}, {dotted}")
            found[module.name] = dotted
    return found


MODULES: dict[str, str] = modules_by_room(__package__ or "witnesses", Path(__file__).parent)
"""Each witness's module: a witness is a public module of a room (``witnesses/<room>/``), by
its name; rooms group witnesses by axis (``arms``, ``rules``, ``surfaces``, ``transaction``)."""

WITNESSES: tuple[str, ...] = tuple(sorted(name for name in MODULES if name != PENDING))
"""Every witness but the pending one: adding a witness is adding its file to a room (and its
mutants' file, ``mutation/<room>/<name>.py``)."""

SUFFICIENT_FOR: dict[str, str] = {
    "produced_image": "the_live_plan_runs_the_produced_image",
    "launch_shape": "the_live_profile_carries_the_measurement_axes",
    "engram_manifest": "every_live_host_stages_the_manifest",
    "host_occupancy": "an_occupied_host_refuses_the_launch",
    "authority_transition": "the_live_log_suspends_group_a_for_this_candidate",
}
"""Each declared frontier's SUFFICIENT FOR claim in the pending witness."""


@hookimpl
def claims_register_witnesses(register: Callable[..., None]) -> None:
    for name in WITNESSES:
        register(name, MODULES[name])
    register(PENDING, MODULES[PENDING], pending=True)


@hookimpl
def claims_register_frontiers(register: Callable[[Frontier], None]) -> None:
    # Imported here: only the frontier commands collect frontiers, never ``claims run``.
    from claims.frontiers import Frontier
    from planner.arms.v41_group_a import V41_FRONTIERS

    for declared in V41_FRONTIERS:
        register(
            Frontier(
                id=declared.id,
                input=declared.input,
                owner_pr=declared.owner_pr,
                owner=declared.owner,
                today=declared.today,
                trigger=declared.trigger,
                sufficient_for=declared.sufficient_for,
                sufficient_for_claim=f"{PENDING}.{SUFFICIENT_FOR[declared.id]}",
            )
        )
