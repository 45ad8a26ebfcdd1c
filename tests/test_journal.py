"""The apply journal (:mod:`planner.journal`): real files, real locks, a real child killed."""

from __future__ import annotations

import json
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
from planner.refusal import PlannerInputError
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


def _bodies(path: Path) -> list[dict[str, object]]:
    return [json.loads(line)["body"] for line in path.read_text().splitlines()]


def test_a_step_record_holds_its_attempt_and_summary_and_the_file_is_ascii(
    tmp_path: Path,
) -> None:
    """The records' order and the plan record are transaction_plan's
    ``a_journal_holds_each_step_on_disk_before_it_is_sent``."""
    path = tmp_path / "j"
    _journaled(path)
    bodies = _bodies(path)
    assert bodies[1] == {"seq": 1, "kind": "started", "stage": "preflight", "rank": 0,
                         "attempt": 1}  # fmt: skip
    assert bodies[2]["exit_code"] == 0 and bodies[2]["summary"] == "ok: preflight@srv5"
    assert path.read_bytes().isascii()


def test_a_torn_last_line_is_ignored_cut_off_and_the_journal_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    whole = b"".join(lines[:12])  # plan + 11 records: the 6th step (preserve@srv6) started
    path.write_bytes(whole + lines[12][:40])
    state = journal.parse(path.read_bytes(), str(path))
    assert state.torn and state.length == len(whole) and state.next_seq == 12
    held, state = journal.take_up(path)
    with held:
        assert path.read_bytes() == whole  # the torn fragment is gone before any append
        calls: list[str] = []

        def run_step(step: TransactionStep) -> StepResult:
            calls.append(step.label)
            return StepResult(exit_code=0)

        report = journal.resume(held, state, run_step, 3)
    # the 6th step, preserve@srv6, started with no answer: srv6 counts as touched
    assert calls == ["rollback@srv6", "rollback@srv5", "cleanup@srv6", "cleanup@srv5"]
    assert report.exit_code == 10
    again = journal.parse(path.read_bytes(), str(path))
    assert not again.torn and again.finished is not None
    assert [b["kind"] for b in _bodies(path)][12] == "resumed"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: lines.__setitem__(4, lines[4].replace(b'"rank":1', b'"rank":2')),
         "line 5: its sha256 does not match its body: corrupt"),
        (lambda lines: lines.pop(4), "line 5: record 5 where 4 was due: corrupt"),
        (lambda lines: lines.__setitem__(4, b"garbage\n"),
         'line 5: not a journal line {"sha256":"…","body":…}: corrupt'),
    ],
)  # fmt: skip
def test_a_corrupt_line_before_the_last_is_refused_located_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: object, message: str
) -> None:
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    lines = path.read_bytes().splitlines(keepends=True)[:14]
    edit(lines)  # type: ignore[operator]
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()
    with pytest.raises(PlannerInputError) as raised:
        journal.parse(before, str(path))
    assert f"{raised.value.where}: {raised.value.message}" == message
    code = main(["apply", "--resume", str(path), "--ssh", "/nonexistent/ssh"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"planner: error: {path}: {message}\n"
    assert path.read_bytes() == before


def test_a_whole_last_line_that_does_not_read_is_corrupt_not_torn(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _journaled(path)
    lines = path.read_bytes().splitlines(keepends=True)[:6]
    lines[-1] = lines[-1][:30] + b"\n"
    with pytest.raises(PlannerInputError, match="line 6: not a journal line"):
        journal.parse(b"".join(lines), "j")


def test_records_out_of_order_are_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _journaled(path)
    bodies = _bodies(path)
    swapped = [bodies[0], bodies[2], bodies[1]]
    for n, body in enumerate(swapped):
        body["seq"] = n
    data = b"".join(journal.line_of(b) for b in swapped)
    with pytest.raises(PlannerInputError, match="line 2: an answer to a step that was not"):
        journal.parse(data, "j")
    early = [bodies[0], {"seq": 1, "kind": "started", "stage": "commit", "rank": 0, "attempt": 1}]
    with pytest.raises(PlannerInputError, match="line 2: a commit started before the decision"):
        journal.parse(b"".join(journal.line_of(b) for b in early), "j")


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from planner import journal
    held, _ = journal.take_up(Path(sys.argv[1]))
    print("held", flush=True)
    time.sleep(60)
    """
)


def _unfinished(path: Path) -> bytes:
    """A journal at ``path`` of a run lost after its 6th step started (the plan and 11
    records, no end); its bytes."""
    _journaled(path, fail=("apply", 1))
    cut = b"".join(path.read_bytes().splitlines(keepends=True)[:12])
    path.write_bytes(cut)
    return cut


def test_a_second_coordinator_is_refused_by_the_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j"
    unfinished = _unfinished(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, cwd=ROOT
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        code = main(["apply", "--resume", str(path), "--ssh", "/nonexistent/ssh"])
        err = capsys.readouterr().err
        assert code == 2
        assert err == (
            f"planner: error: {path}: lock: another coordinator holds this journal (it is "
            "running or resuming this transaction): wait for it to end\n"
        )
        with pytest.raises(PlannerInputError, match="another coordinator"):
            journal.create(path, _plan(), {}, 3)
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert path.read_bytes() == unfinished


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


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["v41_group_a"], "arm"),
        (["--scenario", "supplied", "--dry-run"], "--scenario, --dry-run"),
        (["--journal", "x"], "--journal"),
    ],
)
def test_resume_takes_no_planning_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], named: str
) -> None:
    code = main(["apply", *extra, "--resume", str(tmp_path / "j")])
    assert code == 2
    assert capsys.readouterr().err == (
        f"planner: error: --resume takes no planning inputs (the journal holds the plan): {named}\n"
    )


def test_resume_and_hosts_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    """That one of them is required is coordinator_cli's
    ``the_help_says_what_each_option_does_and_what_each_exit_code_means``."""
    with pytest.raises(SystemExit) as raised:
        main(["apply", "--resume", "j", "--hosts", HOSTS])
    assert raised.value.code == 2
    assert "argument --hosts: not allowed with argument --resume" in capsys.readouterr().err


def test_a_missing_journal_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["apply", "--resume", str(tmp_path / "none")])
    assert code == 2
    assert capsys.readouterr().err == (
        f"planner: error: {tmp_path / 'none'}: open: No such file or directory\n"
    )


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


def test_a_new_apply_replaces_a_finished_journal_whole(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    _journaled(path)
    assert [b["kind"] for b in _bodies(path)][-1] == "finished"
    assert _bodies(path)[-1]["finals"] == ["committed"] * 4
    assert [p.name for p in tmp_path.iterdir()] == ["j"]  # no temp file left beside it


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


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("host_name", "../../tmp/x", "transaction: '../../tmp/x' is not a safe name"),
        ("address", "-oProxyCommand=x", "transaction: --hosts: srv5=root@-oProxyCommand=x:22:"),
        ("user", "r;m", "transaction: --hosts: srv5=r;m@10.0.0.5:22: 'r;m' is not a user name"),
    ],
)
def test_a_plan_record_whose_hosts_would_not_pass_hosts_is_refused(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    """A journal whose seals are whole but whose plan names a host ``--hosts`` would refuse
    (a control socket outside its directory, an ssh option for an address) is corrupt."""
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    bodies = _bodies(path)[:12]
    hosts = bodies[0]["transaction"]["hosts"]  # type: ignore[index]
    hosts[0][field] = value
    data = b"".join(journal.line_of(b) for b in bodies)
    with pytest.raises(PlannerInputError) as raised:
        journal.parse(data, "j")
    assert raised.value.where == "line 1"
    assert raised.value.message.startswith(message)
    assert raised.value.message.endswith(": corrupt")


def test_a_journal_others_can_write_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:12]))
    path.chmod(0o666)
    before = path.read_bytes()
    code = main(["apply", "--resume", str(path)])
    assert code == 2
    assert path.read_bytes() == before
    assert capsys.readouterr().err == (
        f"planner: error: {path}: open: writable by others (mode 666)\n"
    )


def test_what_a_journal_quotes_of_a_host_reaches_the_report_escaped(tmp_path: Path) -> None:
    """A journal's answer summary (what a host printed) is quoted by the resume's verdict:
    a control character in it is escaped, never sent to the terminal raw."""
    path = tmp_path / "j"
    _journaled(path, fail=("apply", 1))
    bodies = _bodies(path)[:21]  # apply@srv6 answered (failed); rollback not yet started
    assert bodies[-1]["kind"] == "answered" and bodies[-1]["exit_code"] == 1
    bodies[-1]["summary"] = "exit 1: \x1b[2Jgone"
    state = journal.parse(b"".join(journal.line_of(b) for b in bodies), "j")
    report = journal.finish(state, lambda step: StepResult(exit_code=0), 3)
    said = journal.verdict(state, report)
    assert "\x1b" not in said and "\\x1b[2Jgone" in said


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
