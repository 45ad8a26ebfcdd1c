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
from planner.cli import main
from planner.transaction import (
    StepResult,
    TransactionPlan,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
)

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"
ROOT = Path(__file__).resolve().parent.parent


def _plan() -> TransactionPlan:
    return plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))


def _journaled(path: Path, fail: tuple[str, int] | None = None) -> None:
    """A whole transaction journaled at ``path``, each step answered 0 but ``fail``'s (1)."""

    def run_step(step: TransactionStep) -> StepResult:
        code = 1 if (step.stage.value, step.rank) == fail else 0
        return StepResult(exit_code=code, stdout=f"{step.label}\n")

    with journal.create(path, _plan(), {"ssh": "ssh"}, 3) as written:
        written.finish(coordinate(_plan(), run_step, 3, on_event=written.record))


def test_a_corrupt_journal_is_refused_by_resume_located_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the journal module refuses, and why, is witness ``apply_journal``'s; here, that
    ``planner apply --resume`` says it as a located error, exits 2 and sends nothing."""
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    lines = path.read_bytes().splitlines(keepends=True)[:14]
    lines[4] = b"garbage\n"
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()
    code = main(["apply", "--resume", str(path), "--ssh", "/nonexistent/ssh"])
    err = capsys.readouterr().err
    assert code == 2
    shape = 'not a journal line {"sha256":"…","body":…}'
    assert err == f"planner: error: {path}: line 5: {shape}: corrupt\n"
    assert path.read_bytes() == before


def _unfinished(path: Path) -> bytes:
    """A journal at ``path`` of a run lost after its 6th step started (the plan and 11
    records, no end); its bytes."""
    _journaled(path, fail=("apply", 1))
    cut = b"".join(path.read_bytes().splitlines(keepends=True)[:12])
    path.write_bytes(cut)
    return cut


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


def test_a_finished_journal_is_said_so_and_nothing_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    before = path.read_bytes()
    code = main(["apply", "--resume", str(path), "--ssh", "/nonexistent/ssh"])
    assert code == 0
    assert capsys.readouterr().out == (
        f"apply v41_group_a: {path}: the transaction already finished (exit 10); nothing to do\n"
    )
    assert path.read_bytes() == before


def test_rollback_is_refused_past_the_commit_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j"
    _journaled(path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:43]))  # decided, then the first commit started
    code = main(["apply", "--rollback", str(path), "--ssh", "/nonexistent/ssh"])
    assert code == 2
    assert capsys.readouterr().err == (
        f"planner: error: --rollback {path}: the commit point was passed (the journal records "
        "the decision): the transaction commits; finish it with --resume\n"
    )
    assert path.read_bytes() == b"".join(lines[:43])


def test_resume_and_hosts_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    """That one of them is required is coordinator_cli's
    ``the_help_says_what_each_option_does_and_what_each_exit_code_means``; that a resume takes
    no planning input, and names a journal that is not there, is its
    ``a_resume_takes_its_plan_from_the_journal_alone``."""
    with pytest.raises(SystemExit) as raised:
        main(["apply", "--resume", "j", "--hosts", HOSTS])
    assert raised.value.code == 2
    assert "argument --hosts: not allowed with argument --resume" in capsys.readouterr().err


def test_a_new_apply_refuses_a_journal_that_did_not_finish_and_sends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j"
    unfinished = _unfinished(path)
    client, called = tmp_path / "ssh", tmp_path / "called"
    client.write_text(f"#!/bin/sh\n: >{called}\nexit 255\n")
    client.chmod(0o755)
    code = main(
        ["apply", "v41_group_a", "--scenario", "supplied", "--for-testing",
         "--hosts", HOSTS,
         "--journal", str(path), "--ssh", str(client)]
    )  # fmt: skip
    assert code == 2
    out = capsys.readouterr()
    assert out.err == (
        f"planner: error: {path}: create: holds a transaction that did not finish: finish it "
        f"first (planner apply --resume {path}, or --rollback)\n"
    )
    assert out.out == ""  # nothing planned to run was printed
    assert not called.exists()  # the ssh client never ran: nothing sent
    assert path.read_bytes() == unfinished


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
