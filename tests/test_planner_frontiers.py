"""planner.frontiers: the ledger as written, one missing input at a time, the inputs' bounds.

The obligations the live inputs raise (each naming its owner, what happens today and its
trigger) and that supplied inputs raise none are witnesses/arms/v41_group_a_launch.py's claims.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner import data
from planner.arms.v41_group_a import V41_FRONTIERS
from planner.frontiers import (
    DeclaredFrontier,
    InputName,
    LaunchShape,
    PlanInputs,
    unmet_obligations,
)
from planner.scenarios import load_inputs, load_scenario

SUPPLIED = load_inputs(load_scenario(data.default_data_root(), "supplied").inputs)
BLOCKING: tuple[InputName, ...] = ("produced_image", "launch_shape", "engram_manifest")


@pytest.mark.parametrize("missing", BLOCKING)
def test_each_missing_input_raises_only_its_own(missing: InputName) -> None:
    inputs = SUPPLIED.model_copy(update={missing: None})
    assert [r.code for r in unmet_obligations(V41_FRONTIERS, inputs)] == [f"frontier.{missing}"]


def test_the_ledger_holds_five_frontiers() -> None:
    assert [(f.id, f.owner_pr) for f in V41_FRONTIERS] == [
        ("produced_image", 12353),
        ("launch_shape", 12371),
        ("engram_manifest", 12359),
        ("host_occupancy", 12351),
        ("authority_transition", 12370),
    ]
    assert len({f.id for f in V41_FRONTIERS}) == 5


def test_occupancy_frontier_declares_its_trigger_and_sufficiency() -> None:
    (occupancy,) = [f for f in V41_FRONTIERS if f.owner_pr == 12351]
    assert occupancy.trigger == "#12351 merges"
    assert occupancy.sufficient_for == (
        "a host whose V4 unit or any GPU process is live, or whose available memory is short, "
        "refuses this launch"
    )
    assert occupancy.today == "not yet a conjunct"
    assert occupancy.blocks_input is None


def test_authority_transition_is_declared_but_blocks_no_input() -> None:
    (transition,) = [f for f in V41_FRONTIERS if f.owner_pr == 12370]
    assert transition.blocks_input is None
    assert "SuspendedForAuthorizedSuccessor" in transition.today


def test_every_frontier_has_a_trigger_naming_its_pr() -> None:
    for frontier in V41_FRONTIERS:
        assert frontier.trigger == f"#{frontier.owner_pr} merges"
        assert frontier.sufficient_for


@pytest.mark.parametrize(
    "fields",
    [
        {"gpu_memory_utilization_bp": 0, "max_num_batched_tokens": 8192, "prefix_caching": False},
        {"gpu_memory_utilization_bp": 10001, "max_num_batched_tokens": 1, "prefix_caching": False},
        {"gpu_memory_utilization_bp": 8000, "max_num_batched_tokens": 0, "prefix_caching": False},
        {"gpu_memory_utilization_bp": 8000, "max_num_batched_tokens": 8192},
    ],
)
def test_launch_shape_validation(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        LaunchShape.model_validate(fields)


def test_plan_inputs_forbid_unknown_inputs() -> None:
    with pytest.raises(ValidationError):
        PlanInputs.model_validate({"occupancy": True})


def test_a_frontier_is_a_frozen_value() -> None:
    with pytest.raises(ValidationError):
        V41_FRONTIERS[0].owner_pr = 1  # type: ignore[misc]
    assert isinstance(V41_FRONTIERS[0], DeclaredFrontier)
