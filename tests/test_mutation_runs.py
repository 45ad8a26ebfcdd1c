"""The forked runs of the declared harness: the reach shortcut and isolation.

The shortcut (a run executes only the claims that call one of its patched targets) is checked
against running every claim of the scope under every declared mutant and forced failure of
two real witnesses: the red sets must be identical. A crash and a hang through the real CLI
are in ``tests/test_mutation_cli.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import planner.engram
from claims import Session
from plugins.mutate.declared.harness import Planner
from plugins.mutate.declared.loading import claim_book, load
from plugins.mutate.declared.runs import PatchSpec, Runner, RunRequest, RunStatus
from plugins.mutate.profile import verdict_profile

SCOPE = ("engram_staging", "authority_admission")


@pytest.fixture(scope="module")
def planned() -> Iterator[tuple[Planner, Runner]]:
    session = Session.start()
    book = claim_book(session, SCOPE)
    harness = Planner(SCOPE, book, load(session, SCOPE, book), ())
    with verdict_profile():
        runner = Runner((), SCOPE)
        targets = [p.target for e in harness.plan() for p in e.request.patches]
        baseline = runner.baseline(harness.baseline(), targets, 120.0)
        assert baseline.ok and not baseline.red, baseline.detail
        yield harness, runner


def test_the_shortcut_gives_the_red_sets_of_running_every_claim(
    planned: tuple[Planner, Runner],
) -> None:
    harness, runner = planned
    requests = [e.request for e in harness.plan()]
    short = runner.run_all(requests, 60.0, 2)
    reach, runner.reach = runner.reach, None  # no reach known: every asked claim runs
    try:
        full = runner.run_all(requests, 60.0, 2)
    finally:
        runner.reach = reach
    assert [r.status for r in full] == [RunStatus.OK] * len(requests)
    assert [(r.request.label, r.red) for r in short] == [(r.request.label, r.red) for r in full]
    skipped = sum(len(r.unreached) for r in short)
    ran = sum(len(r.outcomes) for r in short)
    assert skipped > 0 and ran > 0  # the shortcut did leave claims out
    assert all(not r.unreached for r in full)


def test_every_claim_reaches_the_targets_it_calls_and_setup_counts_for_all(
    planned: tuple[Planner, Runner],
) -> None:
    _, runner = planned
    assert runner.reach is not None
    staged = "engram_staging.every_host_stages_the_supplied_manifest_alike"
    assert "planner.engram.engram_staging_steps" in runner.reach[staged]
    lease = "authority_admission.a_lease_is_live_strictly_before_its_expiry"
    assert not any(t.startswith("planner.engram.") for t in runner.reach[lease])


def test_a_patch_stays_in_its_child(planned: tuple[Planner, Runner]) -> None:
    _, runner = planned
    before = planner.engram.engram_staging_steps
    request = RunRequest(
        label="forced",
        witnesses=SCOPE,
        patches=(PatchSpec(target="planner.engram.engram_staging_steps"),),
    )
    [result] = runner.run_all([request], 60.0, 1)
    assert result.ok and result.red
    assert planner.engram.engram_staging_steps is before


def test_the_baseline_times_every_claim_and_every_setup(planned: tuple[Planner, Runner]) -> None:
    harness, runner = planned
    claims = {c.id for c in harness.book.of(SCOPE)}
    assert claims | {f"setup:{w}" for w in SCOPE} >= set(runner.seconds) >= claims
    assert all(wall >= 0 and cpu >= 0 for wall, cpu in runner.seconds.values())


def test_a_run_that_mostly_waited_in_the_baseline_is_waiting(
    planned: tuple[Planner, Runner],
) -> None:
    """Its kind decides only which slots it takes (``jobs`` each), never its verdict."""
    _, runner = planned
    saved = dict(runner.seconds)
    lease = "authority_admission.a_lease_is_live_strictly_before_its_expiry"
    staged = "engram_staging.every_host_stages_the_supplied_manifest_alike"
    try:
        runner.seconds.clear()
        runner.seconds.update(
            {lease: (3.0, 0.2), staged: (3.0, 2.9), "setup:engram_staging": (0.5, 0.5)}
        )
        assert runner.waits({lease}) and not runner.waits({staged})
        assert runner.estimate({staged}) == (3.5, 3.4)  # its witness's setup counts
        assert not runner.waits({lease, staged})  # 6.5 s, 3.6 s of it computing
        runner.seconds[lease] = (0.5, 0.0)
        assert not runner.waits({lease})  # too short to matter
    finally:
        runner.seconds.clear()
        runner.seconds.update(saved)
