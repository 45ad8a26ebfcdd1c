"""Survey workers: output a mutant leaks, even bytes that are not UTF-8, never stops the
survey; the worker keeps it out of the event stream, and the pool passes over what gets in.
The mutants whose claims mostly wait get workers of their own, with the same verdicts."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from plugins.mutate.generated.command import PROGRESS_EVERY_SECONDS, Ticker
from plugins.mutate.generated.survey import (
    HUNG_SECONDS,
    MutantTimeout,
    ProcessState,
    SurveyRequest,
    budget,
    claim_budgets,
    mutant_budget,
)
from plugins.mutate.generated.workers import (
    Launch,
    MutantResult,
    Pool,
    Survey,
    event_of,
    merged_setup,
    waiting_mutants,
)
from tests.fakes_mutation.leaky_worker import LEAK
from tests.fakes_mutation.support import REPO, copy_project, run_generated, with_witness

MUTANTS = ("planner.x.f__mutmut_1", "planner.x.f__mutmut_2", "planner.x.g__mutmut_1")


def _survey(tmp_path: Path, **env: str) -> tuple[Survey[str], Path]:
    launch = Launch(
        "tests.fakes_mutation.leaky_worker",
        REPO,
        tmp_path,
        {**os.environ, "PYTHONPATH": str(REPO), **env},
    )
    base = SurveyRequest(witnesses=("fake_door",), mutants=(), project_root=str(REPO))
    survey: Survey[str] = Survey()
    pool = Pool(tmp_path, base, {m: m for m in MUTANTS}, survey, lambda s, n: None, launch=launch)
    pool.run_all(jobs=2)
    return survey, tmp_path


@pytest.mark.parametrize("env", [{}, {"LEAK_PAST_STREAM": "1"}], ids=["kept-out", "leaked-in"])
def test_non_utf8_output_a_mutant_leaks_does_not_stop_the_survey(
    tmp_path: Path, env: dict[str, str]
) -> None:
    survey, scratch = _survey(tmp_path, **env)
    assert {m: r.status for m, r in survey.results.items()} == dict.fromkeys(MUTANTS, "Killed")
    assert survey.restarts == 0
    logs = "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in scratch.glob(".survey/*.log")
    )
    assert "leaked by a mutant" in logs
    assert (survey.baseline_done, survey.baseline_total) == (1, 1)
    assert survey.started is not None and survey.ended is not None
    assert 0 <= survey.start_seconds <= survey.ended - survey.started


def test_progress_shows_the_baseline_then_the_rate_since_the_first_worker_was_ready(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ticker, survey = Ticker(), Survey[str]()
    survey.baseline_done, survey.baseline_total = 40, 319
    ticker.last -= PROGRESS_EVERY_SECONDS
    ticker(survey, 3)
    assert capsys.readouterr().err.startswith("[baseline] 40/319 claims (")
    survey.baseline_seconds = {"a.c": 1.0, "b.c": 2.0}
    survey.first_ready = time.monotonic() - 50.0  # a baseline of minutes is no mutant's time
    survey.results = {"m": MutantResult("m", "Killed")}
    ticker.last -= PROGRESS_EVERY_SECONDS
    ticker(survey, 3)
    head, line = capsys.readouterr().err.splitlines()
    assert head.startswith("baseline and forced fail done after ") and "(2 claims)" in head
    assert line.startswith("[1/3] Killed 1 (0.02 mutants/s, about 2 min left)"), line


def test_what_a_mutant_leaves_changed_in_the_worker_is_put_back(tmp_path: Path) -> None:
    # a mutant of a cleanup that forgets to restore a handler left SIGTERM raising in the
    # worker: the next mutant's claims (and the pool's own SIGTERM) met it
    kept = ProcessState.now()
    before = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    os.environ["LEFT_BY_A_MUTANT"] = "1"
    os.chdir(tmp_path)
    kept.restore()
    assert signal.getsignal(signal.SIGTERM) is before
    assert "LEFT_BY_A_MUTANT" not in os.environ and os.getcwd() == kept.cwd


def test_a_line_that_is_no_event_is_none() -> None:
    assert event_of('{"event": "done"}\n') == {"event": "done"}
    assert event_of(LEAK.decode("utf-8", errors="replace")) is None
    assert event_of('["event"]') is None
    assert event_of('{"event": 3}') is None


def test_mutants_whose_claims_together_mostly_waited_are_waiting() -> None:
    seconds = {"slow": 3.0, "fast": 0.2, "settled": 5.0}
    cpu = {"slow": 0.1, "fast": 0.2}
    claims = {"a": ["slow"], "b": ["slow", "fast"], "c": ["fast"], "d": ["settled"], "e": []}
    assert waiting_mutants(list(claims), claims.__getitem__, seconds, cpu) == ["a", "b"]
    cpu["slow"] = 2.0  # past half a core: computing
    assert waiting_mutants(list(claims), claims.__getitem__, seconds, cpu) == []


def test_each_setup_is_merged_over_the_workers_that_saw_it() -> None:
    """The audit's start-up allowance for a witness is the longest setup any worker saw (one
    that read a run another remembered was quicker than a fresh process); what was called
    or spawned in any worker counts."""
    first = {
        "(import)": {"functions": ["p.f"], "spawned": False, "seconds": 0.5},
        "fleet": {"functions": [], "spawned": True, "seconds": 2.0},
    }
    second = {
        "(import)": {"functions": ["p.g"], "spawned": False, "seconds": 0.75},
        "fleet": {"functions": ["p.h"], "spawned": False, "seconds": 24.0},
        "plain": {"functions": [], "spawned": False, "seconds": 0.1},
    }
    merged = merged_setup(merged_setup({}, first), second)
    assert merged == {
        "(import)": {"functions": ("p.f", "p.g"), "spawned": False, "seconds": 0.75},
        "fleet": {"functions": ("p.h",), "spawned": True, "seconds": 24.0},
        "plain": {"functions": (), "spawned": False, "seconds": 0.1},
    }
    assert merged_setup(merged, first) == merged  # a worker seen twice changes nothing


WAITING_WITNESS = '''"""Witness ``gate_wait``: one claim waits on a process, one computes."""

import subprocess

from gate.rules import admits, pairs

from claims import ClaimKind, Verdict, claim, expect


@claim(ClaimKind.POSITIVE_CONTROL)
def an_adult_is_admitted_after_a_wait() -> Verdict:
    """After a second spent waiting on a process, an 18-year-old is admitted."""
    subprocess.run(["sleep", "1.2"], check=True)
    return expect(admits(18), "admitted", "an adult refused")


@claim(ClaimKind.POSITIVE_CONTROL)
def a_name_is_paired_with_its_shout() -> Verdict:
    """A name is paired with its shout."""
    return expect(pairs(["ada"]) == [("ada", "ADA")], "paired", "not paired with its shout")
'''


def _matrix(report: dict[str, Any]) -> dict[str, tuple[str, list[str], list[str]]]:
    return {
        m["id"]: (m["status"], m["killedBy"], m["coveredBy"])
        for f in report["files"].values()
        for m in f["mutants"]
    }


def test_waiting_workers_judge_the_waiting_mutants_with_the_same_verdicts(
    tmp_path: Path,
) -> None:
    """The mutant of ``admits``, covered by a claim that sleeps, goes to a waiting worker;
    those of ``pairs`` stay with the first; the matrix is the one a survey without waiting
    workers finds."""
    root = copy_project(tmp_path)
    plugin = with_witness(root, "gate_wait", WAITING_WITNESS)
    reports, said = {}, {}
    for name, extra in (
        ("waiting", ("--waiting-workers", "1")),
        ("plain", ("--waiting-workers", "0")),
    ):
        path = root / f"{name}.json"
        args = ("gate_wait", "--jobs", "1", "--audit", "0", "--report", str(path), *extra)
        done = run_generated(root, *args, plugins=(plugin,))
        assert done.returncode == 0, done.stdout + done.stderr
        reports[name], said[name] = json.loads(path.read_text()), done.stdout
    waiting, plain = reports["waiting"], reports["plain"]
    admits = sorted(m for m in _matrix(waiting) if m.startswith("gate.rules.x_admits__mutmut_"))
    assert admits
    assert waiting["config"]["waiting"] == {"workers": 1, "mutants": len(admits)}
    assert plain["config"]["waiting"] == {"workers": 0, "mutants": 0}
    assert _matrix(waiting) == _matrix(plain)
    judged = [m for m, (status, _, _) in _matrix(waiting).items() if status != "NoCoverage"]
    assert len(judged) > len(admits)
    assert "judged by 1 waiting worker(s) of their own" in said["waiting"]
    assert "waiting worker" not in said["plain"]


def test_a_claim_gets_its_own_budget_or_the_floor_and_never_more_than_its_mutants() -> None:
    """Without the floor, fast ssh claims a mutant made wait on a 4 s timeout read as hung
    (12 timeouts of 132 on a coordinator shard against 2); without the cap, a hung fast claim
    beside slow ones held its worker for the slow ones' 10 minutes."""
    fast, slow = 0.1, 60.0
    assert mutant_budget([fast]) < HUNG_SECONDS < mutant_budget([slow])
    whole = mutant_budget([fast, slow])
    assert claim_budgets([fast, slow]) == [HUNG_SECONDS, mutant_budget([slow])] != [whole] * 2
    assert claim_budgets([fast]) == [mutant_budget([fast])]  # alone: the mutant's budget
    pair = mutant_budget([fast, fast])
    assert pair < HUNG_SECONDS and claim_budgets([fast, fast]) == [pair, pair]


def test_code_that_swallows_a_timeout_and_waits_on_is_stopped_again() -> None:
    """A mutant's claim that catches the first timeout (or hangs in a ``finally`` it runs)
    gets another one a second later: the worker is not left waiting for the pool to kill it."""
    with pytest.raises(MutantTimeout), budget(0.05):
        try:
            time.sleep(30)
        except MutantTimeout:
            pass
        time.sleep(30)
