"""planner.report: the dry-run report's content and its atomic write."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from planner import data
from planner.arm_launch import DryRun
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.glm_group_b import glm_group_b_launch_dry_run
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_launch_dry_run
from planner.authority import fold, read_log
from planner.report import APPLY_ORDER, RULE, render_report, write_atomically
from planner.scenarios import load_inputs, load_scenario

ROOT = data.default_data_root()


def v41_run(name: str) -> DryRun:
    scenario = load_scenario(ROOT, name)
    return v41_group_a_launch_dry_run(
        data.fabric(ROOT),
        data.manifest(V41_MANIFEST, ROOT),
        load_inputs(scenario.inputs),
        fold(read_log(scenario.authority), scenario.now),
    )


SUPPLIED = v41_run("supplied")
REPORT = render_report(SUPPLIED)


def section(host: str) -> str:
    start = REPORT.index(f"host {host} — node rank")
    ends = [REPORT.find(f"{RULE}\nhost ", start), REPORT.find(f"{RULE}\nverdict", start)]
    return REPORT[start : min(e for e in ends if e != -1)]


def test_header_says_nothing_has_run() -> None:
    assert REPORT.startswith(
        "dry run: v41_group_a — a modeled launch; nothing here has run on any host\n"
    )


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_each_host_has_create_unit_staging_preflight_and_apply(index: int) -> None:
    host = SUPPLIED.hosts[index]
    real = host.realization
    text = section(real.host_name)
    assert f"## docker create\n{shlex.join(real.create_argv)}\n" in text
    assert f"## unit {real.unit_name}\n{real.unit_text.rstrip()}" in text
    assert "## engram staging\n1. run mkdir -p -- /var/lib/gunbc/engram/v41/manifest\n" in text
    assert "2. run mkdir -p -- /var/lib/gunbc/engram/v41/receipts\n" in text
    assert "3. write-file /var/lib/gunbc/engram/v41/manifest/row-store-manifest.json" in text
    for step in host.steps:
        header = f"## {step.stage.value} ({shlex.join(step.invocation)})"
        assert header in text
        assert step.script.rstrip("\n") in text
    assert "## preflight (bash preflight.sh gunbc-v41-tp4)" in text
    assert "## apply (bash apply.sh gunbc-v41-tp4)" in text


def test_the_head_is_marked() -> None:
    assert "host srv5 — node rank 0 (head)" in REPORT
    assert "host srv6 — node rank 1\n" in REPORT


def test_the_staging_has_no_shell_temp_file_of_the_old_script() -> None:
    assert ".next" not in REPORT


def test_the_verdict_of_an_admitted_plan() -> None:
    verdict = REPORT[REPORT.index(f"{RULE}\nverdict") :]
    assert "candidate: v41_group_a:deepseek-ai/DeepSeek-V4.1-Flash@dba1be0a:" in verdict
    assert "authority read at: 2026-11-29T12:00:00+00:00" in verdict
    assert "fit: (287 weights + 97 allowance) x 5/4 = 480 GiB vs pool 484 GiB: fits by 4" in verdict
    assert f"apply order (each stage head first): {APPLY_ORDER}" in verdict
    assert "admission: admitted (all four conjuncts hold)" in verdict
    assert verdict.rstrip().endswith("result: ADMITTED")


def test_the_report_of_a_plan_that_did_not_render() -> None:
    text = render_report(v41_run("live"))
    assert "(no host artifacts: the plan did not render; see the refusals below)" in text
    assert "admission: not evaluated (the plan did not render)" in text
    assert "docker create" not in text
    for code in ("frontier.produced_image", "frontier.launch_shape", "frontier.engram_manifest"):
        assert f"refused: {code} at inputs." in text
    assert text.rstrip().endswith("result: REFUSED (4)")


def test_a_refused_but_rendered_plan_lists_hosts_and_refusals() -> None:
    run = v41_run("host_not_held")
    text = render_report(run)
    assert text.count("## docker create") == 4
    assert "refused: admission.host_not_held at authority.holdings.srv7:" in text
    assert "result: REFUSED (1)" in text


def test_glm_report_has_no_staging() -> None:
    scenario = load_scenario(ROOT, "supplied")
    run = glm_group_b_launch_dry_run(
        data.fabric(ROOT),
        data.manifest(GLM_MANIFEST, ROOT),
        fold(read_log(scenario.authority), scenario.now),
    )
    text = render_report(run)
    assert text.count("## engram staging\n(none)") == 4
    assert "glm-native-tp4" in text


def test_rendering_is_deterministic() -> None:
    assert render_report(v41_run("supplied")) == REPORT


# --- atomic write ---------------------------------------------------------------------


def test_write_atomically_creates_parents_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "target" / "v41-group-a-launch-dry-run.txt"
    write_atomically(path, REPORT)
    assert path.read_text(encoding="utf-8") == REPORT
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_write_atomically_replaces_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    path.write_text("old", encoding="utf-8")
    write_atomically(path, "new\n")
    assert path.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_a_failing_write_leaves_the_old_file_intact_and_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    path.write_text("old report\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "half a report \ud800 never lands")
    assert path.read_text(encoding="utf-8") == "old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_a_failing_write_with_no_old_file_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "\udfff")
    assert list(tmp_path.iterdir()) == []
