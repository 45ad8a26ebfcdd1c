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

WITNESSES: tuple[str, ...] = tuple(
    sorted(
        module.name
        for module in pkgutil.iter_modules([str(Path(__file__).parent)])
        if module.name not in ("plugin", PENDING)
        and not module.name.startswith("_")
        and not module.ispkg
    )
)
"""Every public module of this package is a witness of that name: adding a witness is adding
its file (and its mutants' file, ``mutation/<name>.py``). A package (``arms/``: each arm's
expected values) is data the witnesses read, not a witness."""

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
        register(name, f"witnesses.{name}")
    register(PENDING, f"witnesses.{PENDING}", pending=True)


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
