"""planner.cli: the real ``planner`` executable, run in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planner import data
from planner.cli import main

PLANNER = Path(sys.executable).parent / "planner"
ROOT = data.default_data_root()
DEFAULT_OUT = Path("target/v41-group-a-launch-dry-run.txt")
"""The arm's default report: a live read's (--authority)."""
SUPPLIED_OUT = Path("target/v41-group-a-launch-dry-run-supplied.txt")
"""``--scenario supplied``'s default report: the scenario's name before the suffix."""

pytestmark = pytest.mark.skipif(not PLANNER.is_file(), reason="planner is not installed")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != data.DATA_ENV}
    return subprocess.run(
        [str(PLANNER), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_supplied_exits_0_and_writes_the_default_report_under_cwd(tmp_path: Path) -> None:
    result = run("dry-run", "v41_group_a", "--scenario", "supplied", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = tmp_path / SUPPLIED_OUT
    assert report.is_file()
    assert f"report written to {SUPPLIED_OUT} (4 hosts rendered)" in result.stdout
    assert result.stdout.rstrip().endswith("v41_group_a: ADMITTED")
    assert "refused:" not in result.stdout
    text = report.read_text(encoding="utf-8")
    assert text.count("## docker create") == 4
    assert text.rstrip().endswith("result: ADMITTED")
    assert [p.name for p in report.parent.iterdir()] == [report.name]


def test_live_exits_1_naming_the_three_frontiers(tmp_path: Path) -> None:
    out = tmp_path / "live.txt"
    result = run("dry-run", "v41_group_a", "--scenario", "live", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    frontier_lines = [ln for ln in result.stdout.splitlines() if ln.startswith("refused: frontier")]
    assert [ln.split()[1] for ln in frontier_lines] == [
        "frontier.produced_image",
        "frontier.launch_shape",
        "frontier.engram_manifest",
    ]
    for pr in ("#12353", "#12371", "#12359"):
        assert pr in result.stdout
    assert result.stdout.rstrip().endswith("v41_group_a: REFUSED")
    assert out.is_file()


@pytest.mark.parametrize("scenario", ["active_incumbent", "host_not_held", "low_utilization"])
def test_refusal_scenarios_exit_1(tmp_path: Path, scenario: str) -> None:
    out = tmp_path / "r.txt"
    result = run("dry-run", "v41_group_a", "--scenario", scenario, "--out", str(out), cwd=tmp_path)
    assert result.returncode == 1
    assert "refused: " in result.stdout


def test_glm_supplied_exits_0_with_its_own_default_path(tmp_path: Path) -> None:
    result = run("dry-run", "glm_group_b", "--scenario", "supplied", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "target" / "glm-group-b-launch-dry-run-supplied.txt").is_file()
    assert not (tmp_path / SUPPLIED_OUT).exists()


def test_an_unknown_scenario_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    result = run("dry-run", "v41_group_a", "--scenario", "nope", cwd=tmp_path)
    assert result.returncode == 2
    assert "planner: error: --scenario: nope: no such scenario" in result.stderr
    assert not (tmp_path / "target").exists()


def _copied_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def test_a_corrupt_authority_file_exits_2_naming_it_and_writes_no_report(tmp_path: Path) -> None:
    root = _copied_root(tmp_path)
    log = root / "scenarios" / "supplied" / "authority.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"event":"host_held"', '"event":"host_hold"')
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "report.txt"
    result = run(
        "dry-run",
        "v41_group_a",
        "--scenario",
        "supplied",
        "--data",
        str(root),
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert f"{log}: line 3, field event:" in result.stderr
    assert not out.exists()
    assert not out.parent.exists()


def test_authority_and_inputs_files_instead_of_a_scenario(tmp_path: Path) -> None:
    scenario = ROOT / "scenarios" / "supplied"
    result = run(
        "dry-run",
        "v41_group_a",
        "--authority",
        str(scenario / "authority.jsonl"),
        "--inputs",
        str(scenario / "inputs.json"),
        "--now",
        "2026-11-29T12:00:00Z",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / DEFAULT_OUT).is_file()


def test_now_after_the_lease_turns_supplied_into_a_refusal(tmp_path: Path) -> None:
    result = run(
        "dry-run",
        "v41_group_a",
        "--scenario",
        "supplied",
        "--now",
        "2026-11-29T18:00:00+00:00",
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert "refused: admission.lease_expired" in result.stdout


def test_a_bad_manifest_in_the_inputs_file_names_that_file(tmp_path: Path) -> None:
    inputs = json.loads((ROOT / "scenarios" / "supplied" / "inputs.json").read_text("utf-8"))
    inputs["engram_manifest"] = json.dumps({"row_stores": [{"path": "/etc/passwd"}]})
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps(inputs), encoding="utf-8")
    result = run(
        "dry-run",
        "v41_group_a",
        "--authority",
        str(ROOT / "scenarios" / "supplied" / "authority.jsonl"),
        "--inputs",
        str(path),
        "--now",
        "2026-11-29T12:00:00Z",
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert f"{path}: engram_manifest.row_stores[0].path:" in result.stderr


@pytest.mark.parametrize("now", ["2026-11-29T12:00:00", "tomorrow"])
def test_now_without_a_time_zone_or_unparseable_exits_2(tmp_path: Path, now: str) -> None:
    result = run("dry-run", "v41_group_a", "--scenario", "supplied", "--now", now, cwd=tmp_path)
    assert result.returncode == 2
    assert "--now" in result.stderr
    assert not (tmp_path / "target").exists()


def test_scenario_and_authority_together_exit_2(tmp_path: Path) -> None:
    result = run(
        "dry-run", "v41_group_a", "--scenario", "supplied", "--authority", "x", cwd=tmp_path
    )
    assert result.returncode == 2


def test_neither_scenario_nor_authority_exits_2(tmp_path: Path) -> None:
    result = run("dry-run", "v41_group_a", cwd=tmp_path)
    assert result.returncode == 2
    assert "--authority" in result.stderr


def test_unknown_arm_is_a_usage_error(tmp_path: Path) -> None:
    result = run("dry-run", "v5_group_c", "--scenario", "supplied", cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


@pytest.mark.parametrize("args", [("--help",), ("dry-run", "--help")])
def test_help_shows_examples_and_exit_codes(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 0
    assert "examples:" in result.stdout
    assert "planner dry-run v41_group_a --scenario supplied" in result.stdout
    assert "exit codes: 0" in result.stdout


def test_scenarios_lists_every_name_with_its_description(tmp_path: Path) -> None:
    result = run("scenarios", cwd=tmp_path)
    assert result.returncode == 0
    names = [line.split(":", 1)[0] for line in result.stdout.splitlines()]
    assert names == sorted(p.name for p in (ROOT / "scenarios").iterdir() if p.is_dir())


def test_main_in_process_matches_the_executable(tmp_path: Path) -> None:
    out = tmp_path / "in-process.txt"
    assert main(["dry-run", "v41_group_a", "--scenario", "supplied", "--out", str(out)]) == 0
    assert main(["dry-run", "v41_group_a", "--scenario", "live", "--out", str(out)]) == 1
    assert main(["dry-run", "v41_group_a", "--scenario", "nope", "--out", str(out)]) == 2


def test_an_out_path_that_is_a_directory_is_a_located_error(tmp_path: Path) -> None:
    result = run(
        "dry-run", "v41_group_a", "--scenario", "supplied", "--out", str(tmp_path), cwd=tmp_path
    )
    assert result.returncode == 2
    assert f"--out {tmp_path}: cannot write the report" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_data_root_that_does_not_exist_is_a_located_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = run(
        "dry-run", "v41_group_a", "--scenario", "supplied", "--data", str(missing), cwd=tmp_path
    )
    assert result.returncode == 2
    assert f"{missing}/scenarios" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b'{"seq":1,"at":"2026-11-29T09:00:00Z","event":"group_active"}\n', "line 1"),
        (b"\xff\xfe{}\n", "<file>: cannot read authority log"),
    ],
    ids=["corrupt-line", "not-utf8"],
)
def test_a_bad_authority_file_given_directly_exits_2(
    tmp_path: Path, content: bytes, named: str
) -> None:
    log = tmp_path / "authority.jsonl"
    log.write_bytes(content)
    now = ("--now", "2026-11-29T12:00:00Z")
    result = run("dry-run", "v41_group_a", "--authority", str(log), *now, cwd=tmp_path)
    assert result.returncode == 2
    assert str(log) in result.stderr and named in result.stderr
    assert not (tmp_path / "target").exists()


def test_a_reader_that_stops_early_is_no_error(tmp_path: Path) -> None:
    done = subprocess.run(
        f"{PLANNER} scenarios | head -n 1",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr
