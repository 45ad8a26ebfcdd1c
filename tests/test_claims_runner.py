"""The runner's verdicts: returned, failed assertions (with notes), errors, non-verdicts."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from claims import (
    Claim,
    ClaimResult,
    Outcome,
    PassThrough,
    RunReport,
    Selection,
    Verdict,
    difference,
    expect_equal,
    holds,
    holds_unless,
    hookimpl,
)
from claims.runner import DEBUG_ENV, execute, run_setup
from tests.fakes import witness_green, witness_setup_error
from tests.fakes.support import FAKES, fake_session


@pytest.fixture(scope="module")
def red() -> dict[str, ClaimResult]:
    report = fake_session().run(["fake_red"])
    return {r.name: r for r in report.results}


def test_a_returned_verdict_is_used(red: dict[str, ClaimResult]) -> None:
    assert red["this_one_passes"].verdict == holds("held")
    assert red["fails_by_verdict"].verdict.reason == "sum: expected 5, got 4"


def test_an_assertion_error_is_a_failure_with_its_message(red: dict[str, ClaimResult]) -> None:
    verdict = red["fails_by_assert"].verdict
    assert verdict.outcome is Outcome.FAIL
    assert verdict.reason == "refusal code: expected 'fit_wall', got 'lease_expired'"


def test_a_bare_assert_says_where_it_failed(red: dict[str, ClaimResult]) -> None:
    reason = red["fails_by_bare_assert"].verdict.reason
    assert reason.startswith("assertion failed at witness_red.py:")
    assert reason.endswith("assert hosts == 4")


def test_a_failing_property_carries_the_falsifying_example(
    red: dict[str, ClaimResult],
) -> None:
    verdict = red["every_rank_is_below_ten"].verdict
    assert verdict.outcome is Outcome.FAIL
    first, *notes = verdict.reason.splitlines()
    assert first == "rank 10 is not below ten"
    assert "every_rank_is_below_ten(" in notes[0]
    assert "rank=10" in "\n".join(notes)


def test_any_other_exception_is_an_error_naming_where_it_was_raised(
    red: dict[str, ClaimResult],
) -> None:
    verdict = red["raises_an_error"].verdict
    source = (FAKES / "witness_red.py").read_text(encoding="utf-8").splitlines()
    line = source.index('    return holds(str(hosts["srv9"]))') + 1
    assert (verdict.outcome, verdict.reason) == (
        Outcome.ERROR,
        f"KeyError: 'srv9' (raised at tests/fakes/witness_red.py:{line} in raises_an_error)",
    )
    assert isinstance(verdict.raised, KeyError)  # for the pytest bridge, never serialized
    assert set(verdict.model_dump()) == {"outcome", "evidence", "reason"}


def _lookup(key: str) -> int:
    return {"a": 1}[key]


def test_an_error_below_the_claim_names_both_places_and_debug_adds_the_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def deep() -> Verdict:
        return holds(str(_lookup("boom")))

    here = "tests/test_claims_runner.py"
    found = execute(deep).reason
    assert found.startswith(f"KeyError: 'boom' (raised at {here}:"), found
    assert f" in _lookup, reached from the claim at {here}:" in found
    assert found.endswith(" in deep)")
    assert "Traceback" not in found
    monkeypatch.setenv(DEBUG_ENV, "1")
    debugged = execute(deep).reason
    first, traceback_text = debugged.split("\n", 1)
    assert first == found
    assert traceback_text.startswith("Traceback (most recent call last):\n")
    assert "in execute" not in traceback_text  # it starts in the claim
    assert 'return holds(str(_lookup("boom")))' in traceback_text
    assert traceback_text.endswith("KeyError: 'boom'")


def test_returning_a_non_verdict_is_an_error(red: dict[str, ClaimResult]) -> None:
    verdict = red["returns_no_verdict"].verdict
    assert verdict.outcome is Outcome.ERROR
    assert "returned 'identical' (str), not a Verdict" in verdict.reason


def test_a_passing_given_property_passes() -> None:
    report = fake_session().run(["fake_green"])
    assert [r.outcome for r in report.results] == [Outcome.PASS] * 4


def test_results_carry_ids_kinds_statements_and_durations(red: dict[str, ClaimResult]) -> None:
    result = red["fails_by_assert"]
    assert (result.id, result.witness, result.kind.value) == (
        "fake_red.fails_by_assert",
        "fake_red",
        "refusal",
    )
    assert result.statement == "The refusal code is fit_wall."
    assert all(r.duration_ms >= 0 for r in red.values())


def test_execute_never_raises_for_an_exception() -> None:
    def boom() -> Verdict:
        raise ValueError("bad input")

    verdict = execute(boom)
    assert verdict.outcome is Outcome.ERROR
    assert verdict.reason.startswith("ValueError: bad input (raised at tests/test_claims_")


def test_a_claim_that_exits_is_red_and_the_run_goes_on() -> None:
    # argparse exits on a usage error: the code under a claim may, and a survey worker that
    # let the exit through would die instead of counting the claim red
    def exits() -> Verdict:
        raise SystemExit(2)

    assert execute(exits) == Verdict(
        outcome=Outcome.ERROR, reason="the claim exited: SystemExit(2)"
    )
    with pytest.raises(KeyboardInterrupt):
        execute(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))


def test_a_base_exception_the_code_raises_is_red_but_a_pass_through_is_not() -> None:
    # code under test with its own BaseException (a signal turned into one, as the writer's
    # SIGTERM unwinding does): a claim it escapes is red, and a survey worker lives on
    class Unwound(BaseException):
        pass

    def unwound() -> Verdict:
        raise Unwound("15")

    verdict = execute(unwound)
    assert verdict.outcome is Outcome.ERROR
    assert verdict.reason.startswith("Unwound: 15 (raised at tests/test_claims_runner.py:")
    assert verdict.reason.endswith("(a BaseException, not an Exception)")

    class Budget(PassThrough):
        pass

    def over_budget() -> Verdict:
        raise Budget()

    with pytest.raises(Budget):
        execute(over_budget)


def test_a_setup_that_exits_leaves_the_witness_unresolved() -> None:
    def exits() -> None:
        raise SystemExit("no config")

    assert run_setup(exits) == "setup() failed: it exited: SystemExit('no config')"


def test_a_failing_setup_makes_the_witness_unresolved_and_runs_nothing() -> None:
    witness_setup_error.RAN.clear()
    report = fake_session().run(["fake_setup_error"])
    only = report.witnesses[0]
    assert only.unresolved == "setup() failed: RuntimeError: authority log fixture is empty"
    assert only.results == ()
    assert witness_setup_error.RAN == []
    assert report.exit_code == 1


def test_an_import_failure_is_reported_apart_from_failing_claims() -> None:
    report = fake_session().run(["fake_import_error", "fake_green"])
    assert report.summary_lines()[0].startswith("fake_import_error: unresolved: import of")
    assert report.summary_lines()[1] == "fake_green: 4/4 PASS"
    assert report.exit_code == 1


def test_setup_runs_once_per_session() -> None:
    session = fake_session()
    before = len(witness_green.SETUP_CALLS)
    session.run(["fake_green"])
    session.run(["fake_green"], Selection(pattern="rank"))
    assert len(witness_green.SETUP_CALLS) == before + 1


def test_the_summary_lines_and_exit_codes() -> None:
    report = fake_session().run(["fake_green", "fake_red"])
    assert report.summary_lines() == ("fake_green: 4/4 PASS", "fake_red: 1/7 FAIL")
    assert report.exit_code == 1
    assert RunReport(witnesses=report.witnesses[:1]).exit_code == 0


class _Override:
    @hookimpl
    def claims_run_claim(self, claim: Claim) -> Verdict:
        return holds(f"overridden {claim.name}")


class _Wrapper:
    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl(wrapper=True)
    def claims_run_claim(self, claim: Claim) -> Generator[None, Verdict, Verdict]:
        self.seen.append(claim.id)
        verdict = yield
        return verdict


def test_a_plugin_may_run_claims_before_the_builtin_runner() -> None:
    session = fake_session()
    session.pm.adopt(_Override(), "override", "test")
    report = session.run(["fake_red"], Selection(pattern="passes"))
    assert [r.verdict.evidence for r in report.results] == ["overridden this_one_passes"]


def test_a_wrapper_surrounds_every_claim() -> None:
    session = fake_session()
    wrapper = _Wrapper()
    session.pm.adopt(wrapper, "wrapper", "test")
    report = session.run(["fake_green"])
    assert wrapper.seen == [r.id for r in report.results]


def test_differences_gathered_fail_together_and_none_holds() -> None:
    problems = difference("port", 8000, 8000) + difference("rank", 0, 1)
    problems += difference("host", "srv5", "srv6")
    assert problems == ["rank: expected 0, got 1", "host: expected 'srv5', got 'srv6'"]
    assert holds_unless(problems, "all equal") == Verdict(
        outcome=Outcome.FAIL,
        reason="2 differences; rank: expected 0, got 1; host: expected 'srv5', got 'srv6'",
    )
    assert holds_unless([], "all equal") == holds("all equal")
    many = [f"p{i}: " + "x" * 700 for i in range(6)]
    reason = holds_unless(many, "").reason
    assert reason.startswith("6 differences; p0: ") and reason.count("; p") == 4  # the first 4
    assert "p4:" not in reason
    assert all(len(part) <= 600 for part in reason.split("; ")[1:])


def test_long_values_that_differ_are_shown_by_where_they_first_differ() -> None:
    """As pytest's comparison does: the first differing index, key or character, not two
    whole reprs a reader must diff by eye; short values are still shown whole."""
    argv = [f"--flag-{i}" for i in range(40)]
    changed = [*argv[:17], "--other", *argv[18:]]
    assert difference("argv", argv, changed) == ["argv: [17]: expected '--flag-17', got '--other'"]
    assert difference("argv", argv, argv[:30]) == [
        "argv: sequence: 30 items, expected 40; first missing at index 30: '--flag-30'"
    ]
    units = {"srv5": {"ExecStart": "x" * 200, "Restart": "always"}}
    other = {"srv5": {"ExecStart": "x" * 200, "Restart": "no"}}
    assert difference("units", units, other) == [
        "units: ['srv5']['Restart']: expected 'always', got 'no'"
    ]
    text = "a" * 150 + "\nsecond line: b"
    assert difference("unit", text, text.replace("b", "c")) == [
        "unit: text differs at index 164 (line 2): expected 'b', got 'c'"
    ]
    assert "keys missing ['srv6']" in difference("hosts", units | {"srv6": 1}, units)[0]
    verdict = expect_equal(argv, changed, "argv")
    assert verdict.reason == "argv: [17]: expected '--flag-17', got '--other'"
    assert difference("rank", 0, 1) == ["rank: expected 0, got 1"]
