"""planner.arms: what adding an arm takes.

Each arm's values and dry run are stated by its witness (witnesses/v41_group_a_launch.py,
witnesses/glm_group_b_launch.py); the registry's names and its misnamed-module error by
witnesses/arm_registry.py. This file keeps what no claim runs: a copy of the package with a
third arm module added.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planner import data

PLANNER = Path(sys.executable).parent / "planner"
PACKAGE = Path(__file__).resolve().parents[1] / "planner"

THIRD_ARM = '''"""A third arm, for the test: GLM's values planned over Group A."""

from planner.arm_launch import ArmCall, DryRun, plan_arm
from planner.arms import Arm, ArmSources
from planner.arms.glm_group_b import GLM_NATIVE_IMAGE, GLM_ROUTE, GLM_RUNTIME_KEY, MANIFEST
from planner.checkpoint import glm_row
from planner.identity import GLM_NATIVE_CONTAINER, GLM_NATIVE_UNITS
from planner.profile import GLM_GROUP_B_PROFILE


def _dry_run(sources: ArmSources) -> DryRun:
    call = ArmCall(
        arm="glm_group_a",
        group=sources.fabric.group("group_a"),
        row=glm_row(sources.manifest(MANIFEST)),
        container=GLM_NATIVE_CONTAINER,
        units=GLM_NATIVE_UNITS,
        route=GLM_ROUTE,
        runtime_key=GLM_RUNTIME_KEY,
        profile=GLM_GROUP_B_PROFILE,
        image=GLM_NATIVE_IMAGE,
    )
    return plan_arm(call, sources.state)


ARM = Arm(
    name="glm_group_a",
    group="group_a",
    report="target/glm-group-a-launch-dry-run.txt",
    uses_inputs=False,
    plan=_dry_run,
)
'''


@pytest.mark.skipif(not PLANNER.is_file(), reason="planner is not installed")
def test_adding_an_arm_is_adding_its_module(tmp_path: Path) -> None:
    """A copy of the planner with one more module in planner/arms/ and no other edit: the
    command line offers the arm, plans it over its group and writes its own report."""
    shutil.copytree(PACKAGE, tmp_path / "planner", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "planner" / "arms" / "glm_group_a.py").write_text(THIRD_ARM, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        data.DATA_ENV: str(data.default_data_root()),
    }

    def planner(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PLANNER), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    assert "{glm_group_a,glm_group_b,v41_group_a}" in planner("dry-run", "--help").stdout
    assert "{glm_group_a,glm_group_b,v41_group_a}" in planner("apply", "--help").stdout
    ran = planner("dry-run", "glm_group_a", "--scenario", "supplied")
    lines = ran.stdout.splitlines()
    assert lines[0] == (
        "glm_group_a: report written to target/glm-group-a-launch-dry-run-supplied.txt "
        "(4 hosts rendered)"
    ), ran.stderr
    report = (tmp_path / "target/glm-group-a-launch-dry-run-supplied.txt").read_text("utf-8")
    assert [h for h in ("srv5", "srv6", "srv7", "srv8", "srv1") if f"host {h}" in report] == [
        "srv5",
        "srv6",
        "srv7",
        "srv8",
    ]
    # Group A is suspended for V4.1's successor in this scenario: admission refuses it.
    assert (ran.returncode, lines[-1]) == (1, "glm_group_a: REFUSED")
