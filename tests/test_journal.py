"""The apply journal (:mod:`planner.journal`): real files, real locks, a real child killed."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fixtures import fleet, transaction_kill
from fixtures.builders import v41_dry_run
from fixtures.transaction_cases import Injected, expected_state, ranks, seed, state
from planner import journal
from planner.transaction import (
    StepResult,
    TransactionPlan,
    TransactionStep,
    parse_hosts,
    plan_transaction,
)

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"
ROOT = Path(__file__).resolve().parent.parent


def _plan() -> TransactionPlan:
    return plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))


KILLED = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from fixtures.builders import v41_dry_run
    from planner import journal
    from planner.transaction import StepResult, coordinate, parse_hosts, plan_transaction
    plan = plan_transaction(v41_dry_run("supplied"), parse_hosts(sys.argv[2]))
    stop = int(sys.argv[3])
    ran = []
    def run_step(step):
        ran.append(step.label)
        if len(ran) == stop:
            print(step.label, flush=True)  # the step is "on its host": wait to be killed
            time.sleep(60)
        return StepResult(exit_code=0)
    with journal.create(Path(sys.argv[1]), plan, {}, 3) as j:
        coordinate(plan, run_step, 3, on_event=j.record)
    """
)


@pytest.mark.parametrize("stop", [1, 6, 8, 21, 24])
def test_a_coordinator_killed_mid_step_left_that_steps_start_on_disk(
    tmp_path: Path, stop: int
) -> None:
    """The child is killed (SIGKILL) while its ``stop``-th step runs: the journal already
    holds that step's start, whole, and nothing after it; the resume then finishes it."""
    path = tmp_path / "j"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(path), HOSTS, str(stop)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    assert child.stdout is not None
    label = child.stdout.readline().decode().strip()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    child.stdout.close()
    state = journal.parse(path.read_bytes(), str(path))
    assert not state.torn and state.finished is None
    last = state.records[-1]
    assert isinstance(last, journal.StartedRecord)
    assert f"{last.stage.value}@srv{5 + last.rank}" == label
    assert len(journal.history(state)) == stop
    calls: list[str] = []

    def run_step(step: TransactionStep) -> StepResult:
        calls.append(step.label)
        return StepResult(exit_code=0)

    report = journal.finish(state, run_step, 3)
    if stop > 20:  # a commit was running: decided, so every host not yet committed commits
        assert calls == [f"commit@srv{n}" for n in range(5 + stop - 21, 9)]
        assert report.exit_code == 0
    else:  # rolled back: every host whose preserve (or apply) started, last first
        touched = {1: [], 6: [5, 6], 8: [5, 6, 7, 8]}[stop]
        back = [f"srv{n}" for n in reversed(touched)]
        assert calls == [f"rollback@{h}" for h in back] + [f"cleanup@{h}" for h in back]
        assert report.exit_code == 10


@pytest.mark.skipif(fleet.unavailable() is not None, reason=str(fleet.unavailable()))
def test_a_coordinator_killed_mid_commit_on_the_fleet_is_resumed_to_every_host_committed() -> None:
    """The real fleet: ``planner apply`` killed (SIGKILL) while srv7's commit runs, past the
    commit point; ``--resume`` commits srv7 and srv8 (srv5 and srv6 committed before the
    kill), and every host is at its planned state byte for byte."""
    run = v41_dry_run("supplied")
    planned = ranks(run)
    out = transaction_kill.run_killed(run, tuple(seed(r) for r in planned), 2, "commit")
    assert out.killed_status == -9
    assert out.kinds_at_kill[-3:] == ("started", "answered", "started")
    assert out.resume_exit == 0, out.resume_out
    assert out.resume_out.splitlines()[-1] == "apply v41_group_a: resumed: COMMITTED on every host"
    killed = Injected("hang", 2, "commit")
    for r, before, after in zip(planned, out.before, out.after, strict=True):
        assert state(after) == expected_state(r, killed, before)
    forward = ["preflight", "preserve", "apply", "readback", "front_door"]
    sessions = [[shlex.split(c)[5] for c in host] for host in out.commands]
    # srv7's hung commit, then the resume's commit of srv7 and of srv8
    assert sessions == [[*forward, "commit"]] * 2 + [[*forward, "commit", "commit"]] + [
        [*forward, "commit"]
    ]


@pytest.mark.skipif(fleet.unavailable() is not None, reason=str(fleet.unavailable()))
def test_a_coordinator_killed_while_its_stage_runs_on_is_resumed_once_the_stage_ends() -> None:
    """The real fleet: ``planner apply`` killed (SIGKILL) while apply on srv6 is paused at its
    first call, holding srv6's apply lock; the stage then goes on without its coordinator.
    ``--resume`` rolls back all four hosts (srv6's rollback waits for the lock until that
    stage ended) and every host is back byte for byte."""
    run = v41_dry_run("supplied")
    planned = ranks(run)
    seeds = tuple(seed(r) for r in planned)
    out = transaction_kill.run_killed(run, seeds, 1, "apply", kind="pause_mid")
    assert out.killed_status == -9 and out.kinds_at_kill[-1] == "started"
    assert out.resume_exit == 10, out.resume_out
    assert "rollback, last changed first: srv8 srv7 srv6 srv5" in out.resume_out.splitlines()
    went_on = Injected("drop", 1, "apply")  # its stage ran to its end on its host
    for r, before, after in zip(planned, out.before, out.after, strict=True):
        assert state(after) == expected_state(r, went_on, before)
    # the orphaned apply's every call on srv6 came before the rollback's
    calls = [c.step for c in out.after[1].calls]
    assert calls == sorted(calls) and 3 in calls
