"""planner.scenarios: named scenarios, their inputs, and what each one yields."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planner import data
from planner.arm_launch import DryRun
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.glm_group_b import glm_group_b_launch_dry_run
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_launch_dry_run
from planner.authority import fold, read_log
from planner.refusal import PlannerInputError
from planner.scenarios import load_inputs, load_scenario, scenario_names

ROOT = data.default_data_root()

REFUSAL_SCENARIOS: dict[str, tuple[tuple[str, str], ...]] = {
    "live": (
        ("frontier.produced_image", "inputs.produced_image"),
        ("frontier.launch_shape", "inputs.launch_shape"),
        ("frontier.engram_manifest", "inputs.engram_manifest"),
        ("fit.allowance_unknown", "plan.profile"),
    ),
    "active_incumbent": (("admission.active_incumbent", "authority.groups.group_a"),),
    "expired_lease": (("admission.lease_expired", "authority.groups.group_a.lease_expires_at"),),
    "other_successor": (("admission.other_successor", "authority.groups.group_a.candidate"),),
    "image_other_runtime": (
        (
            "admission.image_not_admitted",
            "authority.admitted_images.gunbc-deepseek-v41-engram-produced",
        ),
    ),
    "host_not_held": (("admission.host_not_held", "authority.holdings.srv7"),),
    "low_utilization": (("fit.exceeds_pool", "plan.fit"),),
    "no_profile": (
        ("frontier.launch_shape", "inputs.launch_shape"),
        ("fit.allowance_unknown", "plan.profile"),
    ),
    "unprobed_image": (("runtime.unprobed_image", "inputs.produced_image.registry_reading"),),
}
ALL_NAMES = ("supplied", *REFUSAL_SCENARIOS)


def v41_run(name: str, root: Path = ROOT) -> DryRun:
    scenario = load_scenario(root, name)
    return v41_group_a_launch_dry_run(
        data.fabric(root),
        data.manifest(V41_MANIFEST, root),
        load_inputs(scenario.inputs),
        fold(read_log(scenario.authority), scenario.now),
    )


def test_scenario_names_are_the_stable_contract() -> None:
    names = scenario_names(ROOT)
    assert names == tuple(sorted(names))
    assert set(ALL_NAMES) <= set(names)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_each_named_scenario_loads(name: str) -> None:
    scenario = load_scenario(ROOT, name)
    assert scenario.name == name
    assert scenario.directory == ROOT / "scenarios" / name
    assert scenario.now == datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert scenario.description
    assert scenario.authority.is_file()
    assert scenario.inputs.is_file()
    load_inputs(scenario.inputs)


def test_supplied_admits() -> None:
    run = v41_run("supplied")
    assert run.admitted
    assert run.refusals == ()


@pytest.mark.parametrize(("name", "expected"), sorted(REFUSAL_SCENARIOS.items()))
def test_each_refusal_scenario_yields_exactly_its_codes(
    name: str, expected: tuple[tuple[str, str], ...]
) -> None:
    run = v41_run(name)
    assert not run.admitted
    assert tuple((r.code, r.where) for r in run.refusals) == expected


@pytest.mark.parametrize(
    ("name", "rendered"),
    [
        ("live", False),
        ("no_profile", False),
        ("low_utilization", True),
        ("unprobed_image", True),
        ("host_not_held", True),
    ],
)
def test_which_refusals_still_render_the_plan(name: str, rendered: bool) -> None:
    run = v41_run(name)
    assert run.rendered is rendered
    assert (len(run.hosts) == 4) is rendered


def test_low_utilization_names_the_declared_allowance() -> None:
    (refused,) = v41_run("low_utilization").refusals
    assert "declared allowance 242 GiB" in refused.message


def test_glm_supplied_admits() -> None:
    scenario = load_scenario(ROOT, "supplied")
    run = glm_group_b_launch_dry_run(
        data.fabric(ROOT),
        data.manifest(GLM_MANIFEST, ROOT),
        fold(read_log(scenario.authority), scenario.now),
    )
    assert run.admitted


@pytest.mark.parametrize("name", ["nope", "../supplied", "supplied/..", "", "sup plied"])
def test_unknown_scenarios_are_refused_naming_the_known_ones(name: str) -> None:
    with pytest.raises(PlannerInputError) as info:
        load_scenario(ROOT, name)
    assert info.value.source == "--scenario"
    assert "no such scenario" in info.value.message
    assert "supplied" in info.value.message


def _copy_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def test_a_scenario_written_into_a_copied_root_runs(tmp_path: Path) -> None:
    root = _copy_root(tmp_path)
    shutil.copytree(root / "scenarios" / "supplied", root / "scenarios" / "mine")
    assert "mine" in scenario_names(root)
    assert v41_run("mine", root).admitted


def test_a_scenario_time_without_a_zone_names_the_file_and_field(tmp_path: Path) -> None:
    root = _copy_root(tmp_path)
    meta = root / "scenarios" / "supplied" / "scenario.json"
    meta.write_text(json.dumps({"now": "2026-11-29T12:00:00", "description": "d"}), "utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_scenario(root, "supplied")
    assert (info.value.source, info.value.where) == (str(meta), "now")


def test_a_bad_inputs_file_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "inputs.json"
    path.write_text(
        json.dumps(
            {
                "launch_shape": {
                    "gpu_memory_utilization_bp": 0,
                    "max_num_batched_tokens": 1,
                    "prefix_caching": False,
                }
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(PlannerInputError) as info:
        load_inputs(path)
    assert info.value.source == str(path)
    assert info.value.where == "launch_shape.gpu_memory_utilization_bp"


def test_an_unknown_input_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps({"occupancy": "free"}), encoding="utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_inputs(path)
    assert info.value.where == "occupancy"
