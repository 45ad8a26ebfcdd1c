"""A survey stopped early (``--stop-after``, Ctrl-C, SIGTERM, SIGHUP) reports what it judged:
the pool stops where it is, the report is written and says so, it holds no floor, no merge
takes it, and a later ``--reuse`` of it takes the cells it judged. A second signal ends the
survey at once."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plugins.mutate.generated.command import Ticker
from plugins.mutate.generated.survey import SurveyRequest
from plugins.mutate.generated.workers import Launch, MutantResult, Pool, Survey
from tests.fakes_mutation.support import REPO, copy_project, run_generated

MUTANTS = ("planner.x.f__mutmut_1", "planner.x.f__mutmut_2", "planner.x.g__mutmut_1")


def _pool(tmp_path: Path, progress: Any = None) -> Pool[str]:
    launch = Launch(
        "tests.fakes_mutation.leaky_worker",
        REPO,
        tmp_path,
        {**os.environ, "PYTHONPATH": str(REPO)},
    )
    base = SurveyRequest(witnesses=("fake_door",), mutants=(), project_root=str(REPO))
    survey: Survey[str] = Survey()
    shown = progress or (lambda s, n: None)
    return Pool(tmp_path, base, {m: m for m in MUTANTS}, survey, shown, launch=launch)


def _ended(pool: Pool[str]) -> bool:
    return all(w.process.poll() is not None for w in pool.workers)


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C as Python takes it in a foreground process (KeyboardInterrupt): a test run in
    the background (CI's may be) inherits SIGINT ignored, and the pool leaves an ignored
    signal ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_stop_after_zero_seconds_judges_nothing_and_says_why(tmp_path: Path) -> None:
    pool = _pool(tmp_path)
    pool.stop_after = 0.0
    pool.run_all(jobs=2)
    assert pool.survey.results == {}
    assert pool.survey.stopped == "--stop-after 0 s: 0 of 3 mutants judged"
    assert pool.survey.signal is None and _ended(pool)


def test_a_deadline_passed_once_every_mutant_is_judged_stops_nothing(tmp_path: Path) -> None:
    """What is left then (the last canary) runs: the report is whole, not partial."""
    pool = _pool(tmp_path)
    pool.stop_after = 1.0
    passed = time.monotonic() - 1
    pool.survey.results = {m: MutantResult(m, "Killed") for m in MUTANTS[:2]}
    assert pool._stopping(passed)
    assert pool.survey.stopped == "--stop-after 1 s: 2 of 3 mutants judged"
    pool.survey.stopped = ""
    pool.survey.results[MUTANTS[2]] = MutantResult(MUTANTS[2], "Survived")
    assert not pool._stopping(passed) and pool.survey.stopped == ""


@pytest.mark.usefixtures("ctrl_c")
def test_a_signal_stops_the_pool_after_the_event_it_arrived_on(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGINT)

    def interrupt(survey: Survey[str], total: int) -> None:
        if survey.results and pool.received is None:
            os.kill(os.getpid(), signal.SIGINT)

    pool = _pool(tmp_path, interrupt)
    pool.run_all(jobs=1)
    assert len(pool.survey.results) == 1  # judged before the signal, and kept
    assert [r.status for r in pool.survey.results.values()] == ["Killed"]
    assert pool.survey.stopped == "interrupted by SIGINT: 1 of 3 mutants judged"
    assert pool.survey.signal == signal.SIGINT and _ended(pool)
    assert signal.getsignal(signal.SIGINT) is before  # the caller's handler is back


@pytest.mark.usefixtures("ctrl_c")
def test_a_second_signal_ends_the_survey_at_once(tmp_path: Path) -> None:
    def interrupt(survey: Survey[str], total: int) -> None:
        if survey.results:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)

    pool = _pool(tmp_path, interrupt)
    with pytest.raises(KeyboardInterrupt):
        pool.run_all(jobs=1)
    assert _ended(pool)  # the workers do not outlive it


# --- the command, on the fake gate project ----------------------------------------------------

INTERRUPTING_CLAIM = '''

import os as _os
import signal as _signal


@claim(ClaimKind.PLANNED_SHAPE)
def a_name_pairs_with_its_shout() -> Verdict:
    """pairs(["cd"]) pairs cd with CD; under the first mutant of pairs that reaches it, the
    survey is sent SIGTERM (once: INTERRUPT_ONCE names a file only one worker can create)."""
    if "x_pairs__mutmut_" in _os.environ.get("MUTANT_UNDER_TEST", ""):
        try:
            _os.close(_os.open(_os.environ["INTERRUPT_ONCE"], _os.O_CREAT | _os.O_EXCL))
        except FileExistsError:
            pass
        else:
            _os.kill(_os.getppid(), _signal.SIGTERM)
    return expect_equal([("cd", "CD")], pairs(["cd"]), "pairs(['cd'])")
'''


def _mutants(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for entry in report["files"].values() for m in entry["mutants"]}


def test_a_terminated_survey_reports_what_it_judged_and_a_reuse_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project(tmp_path)
    witness = project / "gate_witness.py"
    witness.write_text(witness.read_text(encoding="utf-8") + INTERRUPTING_CLAIM, "utf-8")
    monkeypatch.setenv("INTERRUPT_ONCE", str(tmp_path / "interrupted"))
    stopped_path = project / "stopped.json"
    done = run_generated(project, "--keys", "--report", str(stopped_path))
    out = done.stdout + done.stderr
    assert done.returncode == -signal.SIGTERM, out  # it ends as the signal says, report first
    stopped = json.loads(stopped_path.read_text(encoding="utf-8"))
    why = stopped["config"]["stopped"]
    assert f"stopped early, {why}: the report holds those" in out
    assert "verdict audit" not in out  # a signal wants the report at once
    judged = _mutants(stopped)
    assert why == f"interrupted by SIGTERM: {len(judged)} of 26 mutants judged"
    assert len(judged) < 26  # the interrupting worker had mutants of pairs and unused left
    assert stopped["config"]["chosen"] == {"gate/rules.py": 26}  # how many it was asked
    taken = {m: judged[m] for m in judged if judged[m]["status"] in {"Killed", "Survived"}}
    assert any(m["status"] == "Killed" for m in taken.values())

    merged = run_generated(project, "--merge-reports", str(stopped_path))
    assert merged.returncode == 2 and "stopped early" in merged.stdout + merged.stderr

    again = project / "again.json"
    done = run_generated(
        project, "--reuse", str(stopped_path), "--audit", "0", "--report", str(again)
    )
    assert done.returncode == 6, done.stdout + done.stderr  # guard's first mutant crashes
    whole = _mutants(json.loads(again.read_text(encoding="utf-8")))
    assert len(whole) == 26
    for name, m in taken.items():  # the same verdicts, their cells taken, not run again
        assert (whole[name]["status"], whole[name]["killedBy"]) == (m["status"], m["killedBy"])
        assert whole[name]["testsCompleted"] == 0, name


def test_stop_after_is_checked_before_any_work(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    done = run_generated(project, "--stop-after", "-1")
    assert done.returncode == 2 and "--stop-after -1.0: give seconds" in done.stderr
    assert not (project / "mutants").exists()


def test_the_progress_line_says_how_long_is_left_once_it_can(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ticker = Ticker()
    survey: Survey[str] = Survey()
    ticker.start = ticker.last = time.monotonic() - 60  # a minute in, nothing judged yet
    ticker(survey, 3)
    assert capsys.readouterr().err == ""  # nothing judged and no baseline news: nothing to say
    survey.results["a"] = MutantResult("a", "Killed")
    ticker.last -= 60
    ticker(survey, 3)
    line = capsys.readouterr().err
    assert line.startswith("[1/3] Killed 1 (0.0") and line.endswith(" min left)\n")
    survey.first_ready = time.monotonic()  # a worker just ready: mutants decided without
    survey.results["b"] = MutantResult("b", "Survived")  # a run would make a rate of them
    ticker.last -= 60
    ticker(survey, 3)
    assert capsys.readouterr().err.splitlines()[-1] == "[2/3] Killed 1, Survived 1"
