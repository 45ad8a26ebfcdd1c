"""planner.scenarios: which refused plans still render, and a scenario time without a zone.

What each named scenario yields (its refusals, in order, or its admission), the scenario
names and an unknown one, and a scenario in a copied data root are the claims of
witnesses/arms/v41_group_a_launch.py, glm_group_b_launch.py and dry_run_cli.py; the inputs'
bounds are tests/test_planner_frontiers.py's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner import data
from planner.arm_launch import DryRun
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_launch_dry_run
from planner.authority import fold, read_log
from planner.refusal import PlannerInputError
from planner.scenarios import load_inputs, load_scenario

ROOT = data.default_data_root()


def v41_run(name: str, root: Path = ROOT) -> DryRun:
    scenario = load_scenario(root, name)
    return v41_group_a_launch_dry_run(
        data.fabric(root),
        data.manifest(V41_MANIFEST, root),
        load_inputs(scenario.inputs),
        fold(read_log(scenario.authority), scenario.now),
    )


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


def _copy_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def test_a_scenario_time_without_a_zone_names_the_file_and_field(tmp_path: Path) -> None:
    root = _copy_root(tmp_path)
    meta = root / "scenarios" / "supplied" / "scenario.json"
    meta.write_text(json.dumps({"now": "2026-11-29T12:00:00", "description": "d"}), "utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_scenario(root, "supplied")
    assert (info.value.source, info.value.where) == (str(meta), "now")
