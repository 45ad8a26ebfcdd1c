"""Tests of claims.frontiers: every status, every failing rule, one row per frontier."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from claims.frontiers import (
    Frontier,
    FrontierStatus,
    LedgerError,
    PrRecord,
    PrState,
    classify,
    ledger_from_json,
    ledger_to_json,
)

CLAIM = "v41_group_a_launch.occupied_host_refuses_launch"


def frontier(fid: str = "occupancy", pr: int = 12351, claim: str | None = CLAIM) -> Frontier:
    return Frontier(
        id=fid,
        input="occupancy conjunct",
        owner_pr=pr,
        today="not yet a conjunct",
        trigger=f"#{pr} merges",
        sufficient_for="a host whose V4 unit or any GPU process is live refuses this launch",
        sufficient_for_claim=claim,
    )


def prs(state: PrState, number: int = 12351) -> dict[int, PrRecord]:
    merged_at = "2026-03-14T09:21:37Z" if state is PrState.MERGED else None
    record = PrRecord(number=number, state=state, merged_at=merged_at, source="test")
    return {number: record}


# (pr state, declared now, declared at base, claim verdict) -> (status, fails, message part)
CASES = [
    (PrState.OPEN, True, True, False, FrontierStatus.OPEN, False, "red as expected"),
    (PrState.OPEN, True, True, None, FrontierStatus.OPEN, False, "not evaluated"),
    (PrState.OPEN, True, False, True, FrontierStatus.OPEN, True, "obsolete or the claim is hollow"),
    (PrState.OPEN, False, True, False, FrontierStatus.DROPPED_EARLY, True, "#12351 is open"),
    (PrState.MERGED, True, True, True, FrontierStatus.STALE, True, "still declared"),
    (PrState.MERGED, True, False, False, FrontierStatus.STALE, True, "still declared"),
    (PrState.MERGED, False, True, True, FrontierStatus.LANDED, False, "is green"),
    (PrState.MERGED, False, True, None, FrontierStatus.LANDED, False, "not evaluated"),
    (PrState.MERGED, False, True, False, FrontierStatus.LANDED, True, "is red"),
    (PrState.CLOSED_UNMERGED, True, True, False, FrontierStatus.ABANDONED, False, "new owner"),
    (PrState.CLOSED_UNMERGED, False, True, False, FrontierStatus.DROPPED_EARLY, True, "not a"),
    (PrState.REVERTED, True, True, False, FrontierStatus.OPEN, False, "reverted"),
    (PrState.REVERTED, True, True, True, FrontierStatus.OPEN, True, "hollow"),
    (PrState.REVERTED, False, True, False, FrontierStatus.DROPPED_EARLY, True, "reverted"),
    (PrState.UNKNOWN, True, True, False, FrontierStatus.UNKNOWN, True, "could not be read"),
    (PrState.UNKNOWN, False, True, True, FrontierStatus.UNKNOWN, True, "could not be read"),
]


@pytest.mark.parametrize(
    ("state", "declared", "at_base", "passed", "status", "fails", "says"), CASES
)
def test_classification_table(
    state: PrState,
    declared: bool,
    at_base: bool,
    passed: bool | None,
    status: FrontierStatus,
    fails: bool,
    says: str,
) -> None:
    ledger = [frontier()] if declared else []
    base = [frontier()] if at_base else []
    known = {} if state is PrState.UNKNOWN else prs(state)
    verdicts = {} if passed is None else {CLAIM: passed}
    (row,) = classify(ledger, base, known, verdicts)
    assert (row.frontier, row.pr, row.pr_state) == ("occupancy", 12351, state)
    assert (row.status, row.fails) == (status, fails)
    assert says in row.message


def test_every_status_is_covered_by_the_table() -> None:
    assert {case[4] for case in CASES} == set(FrontierStatus)


@pytest.mark.parametrize(
    ("status", "fails"),
    [
        (FrontierStatus.OPEN, False),
        (FrontierStatus.LANDED, False),
        (FrontierStatus.STALE, True),
        (FrontierStatus.DROPPED_EARLY, True),
        (FrontierStatus.ABANDONED, False),
        (FrontierStatus.UNKNOWN, True),
    ],
)
def test_status_fails_by_itself(status: FrontierStatus, fails: bool) -> None:
    assert status.fails is fails


def test_unknown_state_is_never_read_as_merged() -> None:
    (row,) = classify([], [frontier()], {}, {CLAIM: True})
    assert row.status is FrontierStatus.UNKNOWN
    assert row.fails


def test_without_a_base_nothing_can_be_dropped() -> None:
    (row,) = classify([frontier()], None, prs(PrState.OPEN), {})
    assert row.status is FrontierStatus.OPEN


def test_without_a_claim_an_open_frontier_is_only_reported() -> None:
    (row,) = classify([frontier(claim=None)], None, prs(PrState.OPEN), {})
    assert (row.status, row.fails) == (FrontierStatus.OPEN, False)
    assert "no sufficient-for claim" in row.message


def test_every_frontier_of_either_ledger_appears_exactly_once_in_ledger_order() -> None:
    ledger = [frontier("shape", 12371), frontier("occupancy", 12351), frontier("image", 12353)]
    base = [frontier("manifest", 12359), frontier("occupancy", 12351), frontier("auth", 12370)]
    known = {**prs(PrState.OPEN, 12371), **prs(PrState.MERGED, 12359)}
    rows = classify(ledger, base, known, {})
    assert [r.frontier for r in rows] == ["shape", "occupancy", "image", "manifest", "auth"]
    assert [r.pr for r in rows] == [12371, 12351, 12353, 12359, 12370]
    assert [r.status for r in rows] == [
        FrontierStatus.OPEN,
        FrontierStatus.UNKNOWN,
        FrontierStatus.UNKNOWN,
        FrontierStatus.LANDED,
        FrontierStatus.UNKNOWN,
    ]


def test_a_frontier_declared_twice_is_refused_naming_it() -> None:
    with pytest.raises(LedgerError, match="'occupancy' is declared twice"):
        classify([frontier(), frontier(pr=12399)], None, {}, {})


@pytest.mark.parametrize(
    ("field", "value"),
    [("id", "Not A Slug"), ("owner_pr", 0), ("sufficient_for_claim", "no_witness")],
)
def test_frontier_fields_are_validated(field: str, value: object) -> None:
    fields = frontier().model_dump()
    fields[field] = value
    with pytest.raises(ValidationError, match=field):
        Frontier(**fields)


def test_ledger_json_round_trips() -> None:
    ledger = (frontier(), frontier("shape", 12371, None))
    assert ledger_from_json(ledger_to_json(ledger)) == ledger


# ----------------------------------------------------------------------------- the command
# `claims frontiers` runs for real in a subprocess, in a throwaway git project whose ledger
# plugin and witness change between a tagged base and the working tree.

PRS = Path(__file__).resolve().parents[1] / "fixtures" / "prs"
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}

LEDGER_PLUGIN = """\
from claims import hookimpl
from claims.frontiers import Frontier

def _frontier(fid, pr, claim=None):
    return Frontier(id=fid, input=fid, owner_pr=pr, today="obligation naming #%d" % pr,
                    trigger="#%d merges" % pr, sufficient_for="it refuses",
                    sufficient_for_claim=claim)

LEDGER = [{ledger}]

@hookimpl
def claims_register_frontiers(register):
    for frontier in LEDGER:
        register(frontier)

@hookimpl
def claims_register_witnesses(register):
    register("probe", "probe_witness")
"""

PROBE_WITNESS = '''\
"""A witness standing in for the planner's occupancy conjunct."""
from claims import ClaimKind, Verdict, claim, expect

LANDED = {landed}

@claim(ClaimKind.REFUSAL)
def occupied_host_refuses_launch() -> Verdict:
    """A host whose V4 unit is live refuses this launch."""
    return expect(LANDED, "refused host_occupied", "the occupancy conjunct is absent")
'''

OCCUPANCY = '_frontier("occupancy", 12351, "probe.occupied_host_refuses_launch")'
OTHERS = '_frontier("image", 12353), _frontier("shape", 12371)'


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=GIT_ENV)


def _write_project(repo: Path, ledger: str, landed: bool) -> None:
    (repo / "ledger_plugin.py").write_text(LEDGER_PLUGIN.format(ledger=ledger))
    (repo / "probe_witness.py").write_text(PROBE_WITNESS.format(landed=landed))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project whose base revision declares occupancy, image and shape."""
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _write_project(repo, f"{OCCUPANCY}, {OTHERS}", landed=False)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "Ledger")
    _git(repo, "tag", "base")
    return repo


def claims_frontiers(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(repo), "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    plugins = ["-p", "plugins.frontier_commands", "-p", "ledger_plugin"]
    argv = [sys.executable, "-m", "claims.cli", *plugins, "frontiers", *args]
    return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=False)


def test_all_open_ledger_is_green_while_its_claim_is_red(project: Path) -> None:
    done = claims_frontiers(project, "--prs", str(PRS / "all_open.json"), "--base", "base")
    assert done.returncode == 0, done.stderr
    assert "occupancy   #12351  open" in done.stdout
    assert "probe.occupied_host_refuses_launch is red as expected" in done.stdout
    assert done.stdout.rstrip().endswith("frontiers: 3 tracked, 0 red")


def test_landing_removes_the_frontier_and_turns_its_claim_green(project: Path) -> None:
    _write_project(project, OTHERS, landed=True)
    done = claims_frontiers(project, "--prs", str(PRS / "occupancy_merged.json"), "--base", "base")
    assert done.returncode == 0, done.stderr
    assert "landed" in done.stdout and "is green" in done.stdout


def test_landed_but_claim_still_red_fails(project: Path) -> None:
    _write_project(project, OTHERS, landed=False)
    done = claims_frontiers(project, "--prs", str(PRS / "occupancy_merged.json"), "--base", "base")
    assert done.returncode == 1
    assert "sufficient-for claim probe.occupied_host_refuses_launch is red" in done.stdout


def test_merged_but_still_declared_is_stale(project: Path) -> None:
    done = claims_frontiers(project, "--prs", str(PRS / "occupancy_merged.json"))
    assert done.returncode == 1
    assert "stale" in done.stdout and "frontiers: 3 tracked, 1 red" in done.stdout


def test_dropped_while_open_fails_against_the_base(project: Path) -> None:
    _write_project(project, OTHERS, landed=True)
    done = claims_frontiers(
        project, "--prs", str(PRS / "all_open.json"), "--base", "base", "--format", "json"
    )
    assert done.returncode == 1
    document = json.loads(done.stdout)
    statuses = {row["frontier"]: row["status"] for row in document["rows"]}
    assert statuses == {"image": "open", "shape": "open", "occupancy": "dropped_early"}
    assert document["ok"] is False


def test_open_frontier_whose_claim_passes_is_hollow(project: Path) -> None:
    _write_project(project, f"{OCCUPANCY}, {OTHERS}", landed=True)
    done = claims_frontiers(project, "--prs", str(PRS / "all_open.json"))
    assert done.returncode == 1
    assert "the obligation is obsolete or the claim is hollow" in done.stdout


def test_git_history_is_a_source(project: Path) -> None:
    _git(
        project,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "admit_spark_host_unoccupied (#12351)",
    )
    done = claims_frontiers(project, "--git-log", str(project), "--format", "json")
    rows = {row["frontier"]: row for row in json.loads(done.stdout)["rows"]}
    assert rows["occupancy"]["status"] == "stale"
    assert rows["image"]["status"] == "unknown"


def test_a_malformed_pr_file_is_an_input_error(project: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[{"mergedAt":null,"number":12351,"state":"DRAFT","title":"x"}]')
    done = claims_frontiers(project, "--prs", str(bad))
    assert done.returncode == 2
    assert f"{bad}: cannot read PR states" in done.stderr
    assert '[0].state: expected OPEN/CLOSED/MERGED, got "DRAFT"' in done.stderr


def test_a_base_that_is_not_a_commit_is_an_input_error(project: Path) -> None:
    done = claims_frontiers(project, "--prs", str(PRS / "all_open.json"), "--base", "nope")
    assert done.returncode == 2
    assert "cannot read the ledger at 'nope'" in done.stderr


def test_ledger_json_prints_the_registered_ledger(project: Path) -> None:
    done = claims_frontiers(project, "--ledger-json")
    assert done.returncode == 0, done.stderr
    ids = [f.id for f in ledger_from_json(done.stdout)]
    assert ids == ["occupancy", "image", "shape"]
