"""planner.arm_launch: two rules of the shared launcher no arm's claim can reach.

The plan, its rendering, staging, apply order, fit and admission through the launcher are
the claims of witnesses/arms/arm_launch.py and v41_group_a_launch.py; the report of a
dry run (planner.report) is witnesses/surfaces/dry_run_cli.py's.
"""

from __future__ import annotations

from planner import data
from planner.arm_launch import ArmCall, plan_arm
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_call
from planner.authority import AuthorityState, fold, read_log
from planner.scenarios import load_inputs, load_scenario

ROOT = data.default_data_root()


def state(name: str = "supplied") -> AuthorityState:
    scenario = load_scenario(ROOT, name)
    return fold(read_log(scenario.authority), scenario.now)


def v41_call(name: str = "supplied") -> ArmCall:
    inputs = load_inputs(load_scenario(ROOT, name).inputs)
    return v41_group_a_call(data.fabric(ROOT), data.manifest(V41_MANIFEST, ROOT), inputs)


def test_an_unrendered_plan_is_never_admitted_even_without_refusals() -> None:
    run = plan_arm(v41_call().model_copy(update={"image": None}), state())
    assert run.refusals == ()
    assert not run.admitted


def test_plan_refusals_come_before_admission_refusals() -> None:
    run = plan_arm(v41_call("unprobed_image"), state("host_not_held"))
    assert [r.code for r in run.refusals] == ["runtime.unprobed_image", "admission.host_not_held"]
