"""``claims mutate --generated --first-kill`` on the fake gate project: the same verdict per
mutant as the full matrix, one killer each, and a report every matrix reader marks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from claims import ClaimKind
from claims.witness import Claim
from plugins.mutate.explain import first_kill_line
from plugins.mutate.generated.first_kill import by_function, ordered
from plugins.mutate.html_report import render_html
from plugins.mutate.stryker import FIRST_KILL_NOTE, is_first_kill
from tests.fakes_mutation.support import CLAIMS_EXE, copy_project, run_generated, run_mutate

Report = dict[str, Any]
DETECTED = frozenset({"Killed", "Timeout"})


def verdicts(report: Mapping[str, Any]) -> dict[str, str]:
    """Mutant id -> detected, or its status when not (a timeout and a kill both detect)."""
    return {
        m["id"]: "detected" if m["status"] in DETECTED else m["status"]
        for entry in report["files"].values()
        for m in entry["mutants"]
    }


def mutants(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for entry in report["files"].values() for m in entry["mutants"]}


def _survey(project: Path, name: str, *args: str) -> tuple[Report, str]:
    report = project / f"{name}.json"
    done = run_generated(project, "--report", str(report), *args)
    body: Report = json.loads(report.read_text())
    crashed = "gate.rules.x_guard__mutmut_1" in mutants(body)  # it kills its worker: exit 6
    assert done.returncode == (6 if crashed else 0), done.stdout + done.stderr
    return body, done.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("gate"))


@pytest.fixture(scope="module")
def full(project: Path) -> Report:
    return _survey(project, "full", "--audit", "0")[0]  # the audit is test_mutation_generated's


@pytest.fixture(scope="module")
def fastest_first(project: Path) -> tuple[Report, str]:
    return _survey(project, "first", "--first-kill", "--audit", "0")


@pytest.fixture(scope="module")
def ordered_by_past(project: Path, full: Report) -> Report:
    past = str(project / "full.json")
    # audited: no sampled cell may be one the first red left undecided (ordered by the past
    # kills, each killer runs first, so every other covering claim of a killed mutant is)
    return _survey(project, "past", "--first-kill", "--order-from", past)[0]


def test_first_kill_judges_every_mutant_as_the_full_matrix(
    full: Report, fastest_first: tuple[Report, str], ordered_by_past: Report
) -> None:
    assert verdicts(fastest_first[0]) == verdicts(full)
    assert verdicts(ordered_by_past) == verdicts(full)
    assert sorted(set(verdicts(full).values())) == [
        "NoCoverage",
        "RuntimeError",
        "Survived",
        "detected",
    ]


def test_each_kill_is_one_claim_of_the_full_matrix_reached_with_no_more_runs(
    full: Report, fastest_first: tuple[Report, str], ordered_by_past: Report
) -> None:
    matrix = mutants(full)
    for report in (fastest_first[0], ordered_by_past):
        for name, m in mutants(report).items():
            assert len(m["killedBy"]) <= 1
            assert set(m["killedBy"]) <= set(matrix[name]["killedBy"])
            assert m["testsCompleted"] <= matrix[name]["testsCompleted"]
    admits = "gate.rules.x_admits__mutmut_1"  # only the adult claim kills it
    assert mutants(ordered_by_past)[admits]["testsCompleted"] == 1


def test_the_report_says_first_kill_and_no_reader_shows_a_matrix(
    full: Report, fastest_first: tuple[Report, str]
) -> None:
    report, out = fastest_first
    assert is_first_kill(report) and not is_first_kill(full)
    assert report["framework"]["name"].startswith("claims mutate --generated --first-kill")
    assert FIRST_KILL_NOTE in out and "killed by it" not in out
    page = render_html(report)
    assert "first-kill report" in page and "<th>only it kills</th>" not in page
    assert first_kill_line(report) == [f"note: {FIRST_KILL_NOTE}"] and not first_kill_line(full)


def test_a_first_kill_shard_does_not_merge_with_a_full_one(project: Path) -> None:
    _survey(project, "fk-shard1", "--first-kill", "--shard", "1/2", "--audit", "0")
    _survey(project, "full-shard2", "--shard", "2/2", "--audit", "0")
    done = run_mutate(
        "--merge-reports",
        str(project / "fk-shard1.json"),
        str(project / "full-shard2.json"),
        "--report",
        str(project / "mixed.json"),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "shard 1/2 stopped at the first kill" in done.stdout + done.stderr


def test_order_from_needs_first_kill_and_a_readable_report(project: Path) -> None:
    alone = run_generated(project, "--order-from", str(project / "full.json"))
    assert alone.returncode == 2 and "it orders a --first-kill run only" in alone.stderr
    missing = run_generated(project, "--first-kill", "--order-from", "nowhere.json")
    assert missing.returncode == 2 and "nowhere.json" in missing.stdout + missing.stderr
    waiting = run_generated(project, "--first-kill", "--waiting-workers", "1")
    assert waiting.returncode == 2 and "--waiting-workers 1: a first-kill" in waiting.stderr


def _claim(name: str) -> Claim:
    return Claim("w", name, ClaimKind.PLANNED_SHAPE, name, lambda: None, "w", 1)


def test_the_order_puts_past_killers_first_then_cost_per_past_kill() -> None:
    slow, fast, killer = _claim("slow"), _claim("fast"), _claim("killer")
    seconds = {"w.slow": 4.0, "w.fast": 1.0, "w.killer": 9.0}
    assert ordered([slow, fast, killer], (), {}, seconds) == [fast, slow, killer]
    past = {
        "m.x_f__mutmut_1": ("w.killer",),
        "m.x_f__mutmut_2": ("w.slow",),
        "m.x_f__mutmut_3": ("w.slow",),
        "m.x_g__mutmut_1": ("w.fast",),
    }
    kills = by_function(past)["m.x_f"]
    assert kills == {"w.slow": 2, "w.killer": 1}
    # the claim that killed this very mutant goes first; fast (1 s / 1) still beats
    # slow (4 s / 3); with five past kills slow (4 s / 6) would go before fast
    assert ordered([slow, fast, killer], ("w.killer",), kills, seconds) == [killer, fast, slow]
    assert ordered([slow, fast], (), {"w.slow": 5}, seconds) == [slow, fast]


# --- one small planner file ------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]
PLANNER_FILE = "planner/refusal.py"
PLANNER_SCOPE = ("v41_group_a_launch", "serving_fit")


def _checkout(target: Path) -> Path:
    """The checkout's tracked files, with mutmut told to mutate only ``PLANNER_FILE`` (its
    ``only_mutate``: the rest of the planner is copied as written, so generating takes
    seconds, not minutes)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)
    pyproject = target / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(
        text.replace("[tool.mutmut]\n", f'[tool.mutmut]\nonly_mutate = ["{PLANNER_FILE}"]\n', 1),
        encoding="utf-8",
    )
    return target


def _options(report: Path, args: tuple[str, ...]) -> list[str]:
    # no verdict audit: this compares two engines' verdicts, and the audit has its own tests
    return ["--file", PLANNER_FILE, "--report", str(report), "--jobs", "1", "--audit", "0", *args]


def _planner_survey(tree: Path, name: str, *args: str) -> Report:
    report = tree / f"{name}.json"
    done = subprocess.run(
        [str(CLAIMS_EXE), "mutate", "--generated", *PLANNER_SCOPE, *_options(report, args)],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    body: Report = json.loads(report.read_text())
    return body


def test_first_kill_judges_a_planner_file_as_the_full_matrix(tmp_path: Path) -> None:
    tree = _checkout(tmp_path)
    full = _planner_survey(tree, "full")
    first = _planner_survey(tree, "first", "--first-kill")
    assert verdicts(first) == verdicts(full)
    assert {"detected", "Survived"} <= set(verdicts(full).values())
    runs = [sum(m["testsCompleted"] for m in mutants(r).values()) for r in (full, first)]
    assert runs[1] < runs[0]


def test_the_audit_samples_only_cells_first_kill_decided(
    full: Report, ordered_by_past: Report
) -> None:
    """A covering claim after the first red was never run: a fresh run of it may well be red,
    so it is no cell of the first-kill matrix, and the audit of that matrix agrees."""
    audit = ordered_by_past["audit"]
    assert audit["sampled"] > 0 and audit["agreed"] == audit["sampled"]
    assert audit["cells"] < full["audit"]["cells"]
