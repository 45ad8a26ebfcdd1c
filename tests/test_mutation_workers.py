"""Survey workers: output a mutant leaks, even bytes that are not UTF-8, never stops the
survey; the worker keeps it out of the event stream, and the pool passes over what gets in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from plugins.mutate.generated.survey import SurveyRequest
from plugins.mutate.generated.workers import Launch, Pool, Survey, event_of
from tests.fakes_mutation.leaky_worker import LEAK
from tests.fakes_mutation.support import REPO

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
        p.read_text(encoding="utf-8", errors="replace") for p in scratch.glob(".survey-*.log")
    )
    assert "leaked by a mutant" in logs


def test_a_line_that_is_no_event_is_none() -> None:
    assert event_of('{"event": "done"}\n') == {"event": "done"}
    assert event_of(LEAK.decode("utf-8", errors="replace")) is None
    assert event_of('["event"]') is None
    assert event_of('{"event": 3}') is None
