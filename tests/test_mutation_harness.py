"""The harness's verdicts on made-up run results: the plan, each wrong way, the exit code."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from claims import Session
from claims.exits import Exit
from plugins.mutate.declared.harness import (
    Expectation,
    Findings,
    Planner,
    RunKind,
    judge,
    timeout_for,
)
from plugins.mutate.declared.loading import ClaimBook, Declared, check, claim_book, load
from plugins.mutate.declared.model import Mutant, MutantModule
from plugins.mutate.declared.runs import RunRequest, RunResult, RunStatus
from plugins.mutate.declared.tables import witness_line

W = "fake_door"
ALL = (
    "the_right_key_opens_by_day",
    "a_wrong_key_is_refused",
    "night_is_refused",
    "a_key_fits_its_own_lock",
    "the_sign_is_bracketed_and_calm",
    "a_revoked_badge_is_refused",
)


@pytest.fixture(scope="module")
def planner() -> Planner:
    session = Session.start(["tests.fakes_mutation.plugin"], autoload=False)
    book = claim_book(session, (W,))
    return Planner((W,), book, load(session, (W,), book), ("tests.fakes_mutation.plugin",))


def _result(request: RunRequest, red: Iterable[str], status: RunStatus = RunStatus.OK) -> RunResult:
    red = {f"{W}.{c}" for c in red}
    outcomes = {f"{W}.{c}": ("fail" if f"{W}.{c}" in red else "pass") for c in ALL}
    if request.claims is not None:
        outcomes = {c: o for c, o in outcomes.items() if c in request.claims}
    return RunResult(request, status, 0.1, outcomes if status is RunStatus.OK else {})


def _findings(planner: Planner, reds: Mapping[str, Iterable[str]], **kw: object) -> Findings:
    plan = planner.plan()
    baseline = _result(planner.baseline(), ())
    judged = tuple(
        judge(e, _result(e.request, reds.get(e.label, e_default(e))), planner.book) for e in plan
    )
    return Findings(planner.scope, planner.book, planner.declared, baseline, 10.0, judged, **kw)  # type: ignore[arg-type]


def e_default(e: Expectation) -> list[str]:
    """Exactly what the expectation declares (every run exact)."""
    return [c.removeprefix(f"{W}.") for c in e.expected]


def test_the_plan_has_sanity_solo_combined_and_control_runs(planner: Planner) -> None:
    kinds = [e.kind for e in planner.plan()]
    assert kinds.count(RunKind.SANITY) == 5
    assert kinds.count(RunKind.SOLO) == 6
    assert kinds.count(RunKind.COMBINED) == 1
    assert kinds.count(RunKind.CONTROL) == 1
    combined = next(e for e in planner.plan() if e.kind is RunKind.COMBINED)
    assert {m.name for m in combined.mutants} == {
        "key_check_removed",
        "the_door_never_closes",
        "the_sign_loses_its_brackets",
        "every_sign_shouts",
        "badges_are_not_checked",
    }


def test_sanity_runs_ask_only_for_the_declared_claims(planner: Planner) -> None:
    sanity = [e for e in planner.plan() if e.kind is RunKind.SANITY]
    key = next(e for e in sanity if e.label.endswith("door.key_fits"))
    assert set(key.request.claims or ()) == {
        f"{W}.a_wrong_key_is_refused",
        f"{W}.the_right_key_opens_by_day",
        f"{W}.a_key_fits_its_own_lock",
    }
    assert key.request.patches[0].mutant is None


def test_every_run_exact_exits_zero_with_every_claim_witnessed(planner: Planner) -> None:
    findings = _findings(planner, {})
    assert findings.exit_code() is Exit.EXACT
    assert findings.unwitnessed == frozenset()


def test_a_declared_claim_left_green_is_a_survivor(planner: Planner) -> None:
    findings = _findings(planner, {f"{W}.the_door_never_closes": []})
    solo = next(j for j in findings.judgements if j.expectation.label.endswith("never_closes"))
    assert solo.missing == {f"{W}.night_is_refused"} and not solo.exact
    assert findings.exit_code() is Exit.SURVIVOR


def test_an_undeclared_red_claim_is_collateral(planner: Planner) -> None:
    findings = _findings(
        planner, {f"{W}.key_check_removed": ["a_wrong_key_is_refused", "night_is_refused"]}
    )
    assert findings.exit_code() is Exit.COLLATERAL


def test_the_witness_line_names_the_claims_a_combined_run_got_wrong(planner: Planner) -> None:
    """The witness line is often all a CI log keeps: a combined run that is not exact names
    the claims it left green and those it turned red beyond its members' sets."""
    combined = next(e for e in planner.plan() if e.kind is RunKind.COMBINED)
    red = [c for c in e_default(combined) if c != "night_is_refused"]
    beyond = next(
        c for c in ALL if f"{W}.{c}" not in combined.expected and c != "the_right_key_opens_by_day"
    )
    findings = _findings(planner, {combined.label: [*red, beyond]})
    run = f"[combined] {W}: 5 independent mutants together"
    assert witness_line(findings, W) == (
        f"{W}: 6/6 mutants exact, combined NOT exact (survived: {run} "
        f"[green: {W}.night_is_refused]; collateral: {run} [red: {W}.{beyond}]), "
        "positive controls green, claims witnessed 6/6"
    )


def test_a_red_positive_control_is_named_as_such(planner: Planner) -> None:
    red = ["a_wrong_key_is_refused", "the_right_key_opens_by_day"]
    findings = _findings(planner, {f"{W}.key_check_removed": red})
    solo = next(j for j in findings.judgements if j.expectation.label.endswith("check_removed"))
    assert solo.positive_red == {f"{W}.the_right_key_opens_by_day"}
    assert findings.exit_code() is Exit.COLLATERAL


def test_a_sanity_run_that_leaves_a_declared_claim_green_is_unreached(planner: Planner) -> None:
    label = "forced-fail tests.fakes_mutation.door.within_hours"
    findings = _findings(planner, {label: [], f"{W}.the_door_never_closes": []})
    assert findings.exit_code() is Exit.UNREACHED


def test_a_timeout_outranks_every_verdict_but_the_baseline(planner: Planner) -> None:
    plan = planner.plan()
    judged = [judge(e, _result(e.request, e_default(e)), planner.book) for e in plan]
    first = plan[-1]
    judged[-1] = judge(first, _result(first.request, (), RunStatus.TIMEOUT), planner.book)
    findings = Findings(
        planner.scope,
        planner.book,
        planner.declared,
        _result(planner.baseline(), ()),
        10.0,
        tuple(judged),
    )
    assert findings.exit_code() is Exit.TIMEOUT


def test_a_red_baseline_stops_everything(planner: Planner) -> None:
    findings = Findings(
        planner.scope,
        planner.book,
        planner.declared,
        _result(planner.baseline(), ["night_is_refused"]),
        10.0,
    )
    assert findings.baseline_red == {f"{W}.night_is_refused"}
    assert findings.exit_code() is Exit.BASELINE


def test_a_claim_no_mutant_turns_red_is_unwitnessed_unless_owed(planner: Planner) -> None:
    silent: dict[str, list[str]] = {
        f"{W}.the_sign_loses_its_brackets": [],
        f"{W}.every_sign_shouts": [],
    }
    findings = _findings(planner, silent)
    assert findings.unwitnessed == {f"{W}.the_sign_is_bracketed_and_calm"}
    owed = _findings(planner, silent, debt={f"{W}.the_sign_is_bracketed_and_calm": "later"})
    assert owed.unwitnessed == frozenset()
    stale = _findings(planner, {}, debt={f"{W}.night_is_refused": "no longer owed"})
    assert stale.stale_debt == {f"{W}.night_is_refused"}
    assert stale.exit_code() is Exit.UNWITNESSED


def test_the_timeout_is_five_baselines_but_never_under_ten_seconds() -> None:
    assert timeout_for(0.4) == 10.0
    assert timeout_for(3.0) == 15.0


def _declared_mutant(name: str, replaces: str, independent: bool = True) -> Mutant:
    return Mutant(
        witness=W,
        name=name,
        module="m",
        statement=f"{name}.",
        replaces=replaces,
        turns_red=frozenset({f"{W}.{name}"}),
        independent=independent,
        lineno=1,
        function=lambda: None,
    )


def test_of_mutants_sharing_a_target_only_the_first_is_combined_and_none_needs_a_flag() -> None:
    found = [
        _declared_mutant("a", "pkg.f"),
        _declared_mutant("b", "pkg.g"),
        _declared_mutant("c", "pkg.f"),  # another edit of f, with its own red set: run alone
        _declared_mutant("d", "pkg.h", independent=False),
    ]
    declared = Declared((MutantModule(W, "m", tuple(found), ()),))
    assert [m.name for m in declared.combinable(W)] == ["a", "b"]
    rules = {v.rule for v in check(declared, ClaimBook(frozenset(), {}))}
    assert rules <= {"target", "claim-id"}, rules  # nothing of here is importable or registered
