"""Witness: the transaction's plan, decisions, report and ssh commands, without a fleet.

``planner.transaction.coordinate`` takes the function that runs a step as its input; these
claims give it one that answers each step from a table (exit 0, or the statuses listed for
that stage and rank), and read what it decided: which steps ran, in which order, what it
rolled back and cleaned up, what it reports. They reach every failure point — every forward
step of the V4.1 plan, every commit attempt, a failing rollback or cleanup — in milliseconds;
``transaction_fleet`` proves the same decisions on real sshd hosts with faults. The ssh
commands are compared whole, as ``planner apply`` would run them.

Expected values come from the transaction contract (see :mod:`planner.transaction`), the
plan's own order (each stage on every host, head first) and ssh's options as documented.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path

from claims import ClaimKind, Verdict, claim, difference, fails, holds_unless
from fixtures.builders import v41_dry_run
from planner import journal
from planner.coordinator import (
    REMOTE_SCRIPT,
    SshSettings,
    exit_argv,
    master_argv,
    render_dry_run,
    session_argv,
)
from planner.refusal import PlannerInputError
from planner.transaction import (
    OnEvent,
    StepResult,
    TransactionPlan,
    TransactionReport,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
)

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6:2222,srv7=ops@[fd00::7],srv8=root@srv8.lan"
NAMES = ("srv5", "srv6", "srv7", "srv8")
FORWARD = ("preflight", "preserve", "apply", "readback", "front_door")
PRESERVE = "/var/lib/gunbc/preserve/v41_group_a/gunbc-v41-tp4"


def _plan() -> TransactionPlan:
    return plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))


Codes = dict[tuple[str, int], list[int | None]]
"""The statuses a step runner answers, in turn, for a (stage, rank); 0 when none is left."""


def _calls(
    plan: TransactionPlan, codes: Codes, attempts: int = 3, on_event: OnEvent | None = None
) -> tuple[list[tuple[TransactionStep, StepResult]], TransactionReport]:
    """Run ``plan`` with a step runner that answers 0 unless ``codes`` lists the next
    statuses of that (stage, rank); every call it answered (the step, the answer) and the
    report. Each answer is its own: it names its call's number above its last line
    (``done``, and ``no`` on stderr for a failure), which is what the report quotes."""
    calls: list[tuple[TransactionStep, StepResult]] = []
    left = {key: list(value) for key, value in codes.items()}

    def run_step(step: TransactionStep) -> StepResult:
        queue = left.get((step.stage.value, step.rank), [])
        code = queue.pop(0) if queue else 0
        n = len(calls) + 1
        err = "" if code == 0 else f"call {n}\nno\n"
        calls.append((step, StepResult(exit_code=code, stdout=f"call {n}\ndone\n", stderr=err)))
        return calls[-1][1]

    if on_event is None:
        return calls, coordinate(plan, run_step, attempts)
    return calls, coordinate(plan, run_step, attempts, on_event=on_event)


def _answering(
    plan: TransactionPlan, codes: Codes, attempts: int = 3
) -> tuple[list[str], TransactionReport]:
    """:func:`_calls`, with the steps it ran as ``stage@host``."""
    calls, report = _calls(plan, codes, attempts)
    return [step.label for step, _ in calls], report


def _forward() -> list[tuple[str, int]]:
    return [(stage, rank) for stage in FORWARD for rank in range(4)]


@claim(ClaimKind.PLANNED_SHAPE)
def the_plan_is_the_planners_order_with_commit_last() -> Verdict:
    """The coordinator's forward steps are the planner's own order — each stage on every
    host, head first — with commit last on every host, each the planner's script byte for
    byte; rollback and cleanup are one step per rank, and each host's preserve dir is its
    unit's under /var/lib/gunbc/preserve/<arm>."""
    run = v41_dry_run("supplied")
    plan = _plan()
    problems = []
    want = [(s, r) for s in (*FORWARD, "commit") for r in range(4)]
    problems += difference("forward", want, [(s.stage.value, s.rank) for s in plan.forward])
    scripts = {(s.stage.value, s.rank): s.script for s in run.apply_order}
    steps = (*plan.forward, *plan.rollbacks, *plan.cleanups)
    wrong = [s.label for s in steps if s.script != scripts[(s.stage.value, s.rank)]]
    problems += difference("scripts that differ from the plan's", [], wrong)
    problems += difference(
        "undo",
        [("rollback", r) for r in range(4)] + [("cleanup", r) for r in range(4)],
        [(s.stage.value, s.rank) for s in (*plan.rollbacks, *plan.cleanups)],
    )
    problems += difference("containers", {"gunbc-v41-tp4"}, {s.container_name for s in steps})
    problems += difference(
        "preserve dirs",
        (f"{PRESERVE}-head", f"{PRESERVE}-rank", f"{PRESERVE}-rank", f"{PRESERVE}-rank"),
        plan.preserve_dirs,
    )
    return holds_unless(problems, "24 forward steps in the planner's order, commit last")


@claim(ClaimKind.PLANNED_SHAPE)
def a_failure_anywhere_rolls_back_exactly_the_touched_hosts_in_reverse() -> Verdict:
    """For a failure at each of the 20 forward steps (exit 1): the steps before it and the
    failed one ran, nothing else forward; rollback then cleanup ran on every host whose
    preserve was started, the last changed first; those hosts are restored and the others
    untouched; the exit code is 10 and the verdict names the failed step; with no failure,
    all 24 steps run and it exits 0."""
    plan = _plan()
    problems = []
    for k, (stage, rank) in enumerate(_forward()):
        ran, report = _answering(plan, {(stage, rank): [1]})
        touched = [r for s, r in _forward()[: k + 1] if s == "preserve"]
        back = list(reversed(touched))
        want = [f"{s}@{NAMES[r]}" for s, r in _forward()[: k + 1]]
        want += [f"rollback@{NAMES[r]}" for r in back] + [f"cleanup@{NAMES[r]}" for r in back]
        label = f"{stage}@{NAMES[rank]}"
        problems += difference(f"{label}: ran", want, ran)
        finals = ["restored" if r in touched else "untouched" for r in range(4)]
        problems += difference(f"{label}: finals", finals, [f.value for f in report.finals])
        problems += difference(f"{label}: exit", 10, report.exit_code)
        failed = f"{label} failed (exit 1: no)"
        end = "every touched host restored" if touched else "no host was changed"
        head = "ROLLED BACK" if touched else "STOPPED"
        problems += difference(
            f"{label}: verdict", f"apply v41_group_a: {head}: {failed}; {end}", report.verdict()
        )
    ran, report = _answering(plan, {})
    problems += difference("clean: ran", [s.label for s in plan.forward], ran)
    problems += difference(
        "clean: exit",
        (0, "apply v41_group_a: COMMITTED on every host"),
        (report.exit_code, report.verdict()),
    )
    return holds_unless(problems, "20 failure points and a clean run decided as the contract says")


@claim(ClaimKind.PLANNED_SHAPE)
def a_commit_is_retried_and_left_pending_only_after_every_attempt() -> Verdict:
    """After the decision a failed commit runs again, up to its attempts (3): failing twice
    then succeeding leaves the host committed; failing every attempt (exit 1, 255, no answer)
    leaves it commit pending, the others committed, nothing rolled back, exit 12, and the
    report says where its backup stays."""
    plan = _plan()
    problems = []
    ran, report = _answering(plan, {("commit", 1): [1, 255]})
    problems += difference(
        "twice: commits",
        ["commit@srv5"] + ["commit@srv6"] * 3 + ["commit@srv7", "commit@srv8"],
        ran[20:],
    )
    problems += difference("twice: exit", 0, report.exit_code)
    ran, report = _answering(plan, {("commit", 2): [1, 255, None]})
    problems += difference(
        "always: ran",
        [s.label for s in plan.forward[:22]] + ["commit@srv7"] * 3 + ["commit@srv8"],
        ran,
    )
    problems += difference(
        "always: finals",
        ["committed", "committed", "commit pending", "committed"],
        [f.value for f in report.finals],
    )
    problems += difference("always: exit", 12, report.exit_code)
    problems += difference(
        "always: verdict", "apply v41_group_a: COMMITTED, commit pending on srv7", report.verdict()
    )
    line = (
        f"  srv7 (rank 2): commit pending: it runs its planned arm, but its unit is not enabled "
        f"and its backup stays in {PRESERVE}-rank; ran: preflight, preserve, apply, readback, "
        "front_door, commit, commit, commit"
    )
    problems += difference("always: host line", True, line in report.lines())
    ran, report = _answering(plan, {("commit", 3): [1, 1]}, attempts=2)
    problems += difference("two attempts", ["commit@srv8"] * 2, ran[23:])
    return holds_unless(problems, "commit retried up to its attempts, then left pending")


@claim(ClaimKind.PLANNED_SHAPE)
def an_unanswered_undo_runs_again_and_an_answered_failure_is_final() -> Verdict:
    """After apply@srv6 fails (every host's preserve started), a rollback or cleanup that got
    no answer (ssh's 255, or none in time) runs again, up to 3 runs in all, since undoing is
    idempotent: a rollback dropped then unanswered, then done, restores its host; one
    dropped 3 times leaves it 'rollback failed' and gets no cleanup; one the host answered
    with exit 1 runs once; a cleanup unanswered once, then done, restores its host."""
    plan = _plan()
    back = ["srv8", "srv7", "srv6", "srv5"]
    cases: dict[str, tuple[Codes, list[str], list[str]]] = {
        "rollback 255, none, done": (
            {("rollback", 1): [255, None]},
            ["srv8", "srv7", "srv6", "srv6", "srv6", "srv5"],
            back,
        ),
        "rollback 255 three times": (
            {("rollback", 1): [255, 255, 255]},
            ["srv8", "srv7", "srv6", "srv6", "srv6", "srv5"],
            ["srv8", "srv7", "srv5"],
        ),
        "rollback answered 1": ({("rollback", 1): [1]}, back, ["srv8", "srv7", "srv5"]),
        "cleanup none, done": ({("cleanup", 0): [None]}, back, [*back, "srv5"]),
    }
    finals = {
        "rollback 255 three times": ["restored", "rollback failed", "restored", "restored"],
        "rollback answered 1": ["restored", "rollback failed", "restored", "restored"],
    }
    problems = []
    for label, (codes, rollbacks, cleanups) in cases.items():
        ran, report = _answering(plan, {("apply", 1): [1], **codes})
        want = [f"rollback@{h}" for h in rollbacks] + [f"cleanup@{h}" for h in cleanups]
        problems += difference(f"{label}: undo ran", want, ran[10:])
        final = finals.get(label, ["restored"] * 4)
        problems += difference(f"{label}: finals", final, [f.value for f in report.finals])
    return holds_unless(problems, f"{len(cases)} undo answers, each run again or final")


@claim(ClaimKind.PLANNED_SHAPE)
def a_rollback_or_cleanup_that_fails_is_named_and_the_rest_go_on() -> Verdict:
    """A rollback that fails does not stop the other hosts' rollbacks, and its host gets no
    cleanup; a cleanup that fails is reported too; either makes the exit code 11 and the
    verdict names the host not restored and where its backup stays."""
    plan = _plan()
    problems = []
    ran, report = _answering(plan, {("apply", 3): [1], ("rollback", 1): [1], ("cleanup", 0): [1]})
    undo = ["rollback@srv8", "rollback@srv7", "rollback@srv6", "rollback@srv5"]
    undo += ["cleanup@srv8", "cleanup@srv7", "cleanup@srv5"]
    problems += difference("ran", undo, ran[12:])
    finals = ["cleanup failed", "rollback failed", "restored", "restored"]
    problems += difference("finals", finals, [f.value for f in report.finals])
    problems += difference("exit", 11, report.exit_code)
    problems += difference(
        "verdict",
        "apply v41_group_a: NOT RESTORED: apply@srv8 failed (exit 1: no); srv5, srv6 not restored",
        report.verdict(),
    )
    lines = report.lines()
    for want in (
        f"  srv5 (rank 0): cleanup failed: rolled back, but {PRESERVE}-head remains; "
        "ran: preflight, preserve, apply, rollback, cleanup",
        f"  srv6 (rank 1): rollback failed: its state is unknown; what preserve saved stays in "
        f"{PRESERVE}-rank; ran: preflight, preserve, apply, rollback",
        "rollback, last changed first: srv8 srv7 srv6 srv5",
    ):
        problems += difference("line", True, want in lines)
    return holds_unless(problems, "failed rollback and cleanup reported; the others restored")


def _settings() -> SshSettings:
    return SshSettings(
        config="/etc/gunbc/ssh_config",
        identity="/keys/id",
        known_hosts="/keys/known",
        connect_timeout=7,
        stage_timeout=60,
        kill_after=3,
    )


OPTIONS = [
    "-F", "/etc/gunbc/ssh_config", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
    "-o", "UserKnownHostsFile=/keys/known", "-i", "/keys/id", "-o", "IdentitiesOnly=yes",
    "-o", "ConnectTimeout=7", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
]  # fmt: skip


@claim(ClaimKind.PLANNED_SHAPE)
def every_ssh_command_is_strict_and_sends_the_script_with_its_sha256() -> Verdict:
    """Each host's connection, each session and the closing command carry BatchMode, strict
    host key checking, the known hosts, the identity (and only it), the timeouts and the
    host's port, and name the host after ``--``; a session runs the fixed remote command under
    ``sh -c`` with the stage, the script's sha256, the stage timeout, the kill grace and the
    container name."""
    plan = _plan()
    settings = _settings()
    srv6 = plan.host(1)
    step = plan.forward[5]
    problems = []
    port = ["-p", "2222"]
    problems += difference(
        "master",
        ["ssh", *OPTIONS, *port, "-M", "-N", "-f", "-o", "ControlPath=/c/srv6",
         "-o", "ControlPersist=60", "--", "root@10.0.0.6"],
        list(master_argv(settings, srv6, "/c")),
    )  # fmt: skip
    problems += difference(
        "exit",
        ["ssh", *OPTIONS, *port, "-o", "ControlPath=/c/srv6", "-O", "exit", "--", "root@10.0.0.6"],
        list(exit_argv(settings, srv6, "/c")),
    )
    digest = hashlib.sha256(step.script.encode()).hexdigest()
    remote = f"exec sh -c '{REMOTE_SCRIPT}' gunbc-apply preserve {digest} 60 3 gunbc-v41-tp4"
    problems += difference(
        "session",
        ["ssh", *OPTIONS, *port, "-o", "ControlMaster=no", "-o", "ControlPath=/c/srv6",
         "--", "root@10.0.0.6", remote],
        list(session_argv(settings, srv6, "/c", step)),
    )  # fmt: skip
    plain = session_argv(SshSettings(), plan.host(0), "/c", plan.forward[0])
    problems += difference(
        "defaults",
        ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=10",
         "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3", "-p", "22",
         "-o", "ControlMaster=no", "-o", "ControlPath=/c/srv5", "--", "root@10.0.0.5"],
        list(plain[:-1]),
    )  # fmt: skip
    for check in ("sha256sum --check", "timeout --kill-after=", "flock --wait", "</dev/null"):
        problems += difference(f"remote script has {check}", True, check in REMOTE_SCRIPT)
    return holds_unless(problems, "connection, session and close commands exact")


@claim(ClaimKind.PLANNED_SHAPE)
def the_dry_run_lists_every_command_in_the_order_it_would_run() -> Verdict:
    """``planner apply --dry-run`` lists one connection and one closing command per host, the
    20 forward steps in the planner's order, then the 4 commits, then the rollbacks and
    cleanups last host first, each step an ssh command reading its script from
    SCRIPTS/HOST/STAGE.sh."""
    plan = _plan()
    settings = _settings()
    lines = render_dry_run(plan, settings, Path("/s"), 3)
    problems = []
    steps = [line for line in lines if "@" in line.split(": ", 1)[0] and not line.startswith("ssh")]
    labels = [line.split(": ", 1)[0].split(". ", 1)[-1] for line in steps]
    want = [f"{s}@{NAMES[r]}" for s, r in _forward()]
    want += [f"commit@{n}" for n in NAMES]
    want += [f"rollback@{n}" for n in reversed(NAMES)] + [f"cleanup@{n}" for n in reversed(NAMES)]
    problems += difference("steps", want, labels)
    for line, step in zip(
        steps, [*plan.forward, *reversed(plan.rollbacks), *reversed(plan.cleanups)], strict=False
    ):
        host = plan.host(step.rank)
        command = shlex.join(session_argv(settings, host, "CONTROL", step))
        tail = f"{command} < /s/{step.host_name}/{step.stage.value}.sh"
        problems += difference(f"{step.label}", True, line.endswith(tail))
    connections = [line for line in lines if line.startswith("ssh ")]
    problems += difference("connections", 8, len(connections))
    numbered = [line.split(". ", 1)[0] for line in steps[:24]]
    problems += difference("numbers", [str(n) for n in range(1, 25)], numbered)
    return holds_unless(problems, f"{len(steps)} steps and 8 connection commands in order")


WIDTH = len("front_door")
"""The stage column of a step line is as wide as the longest stage name."""


def _step_line(n: int, stage: str, host: str, outcome: str, attempt: int = 1) -> str:
    again = f" (attempt {attempt})" if attempt > 1 else ""
    return f"{n:3} {stage:<{WIDTH}} {host}{again}: {outcome}"


def _host_line(rank: int, final: str, ran: str) -> str:
    texts = {
        "restored": "rolled back and cleaned up, back to its state before the transaction",
        "untouched": "no stage that changes it was started there",
        "committed": "it runs its planned arm; unit enabled, backup dropped",
    }
    return f"  {NAMES[rank]} (rank {rank}): {final}: {texts[final]}; ran: {ran}"


@claim(ClaimKind.PLANNED_SHAPE)
def the_report_lists_every_step_then_every_host_then_the_verdict() -> Verdict:
    """The report the operator reads is: ``apply ARM: 4 hosts (srv5, srv6, srv7, srv8)``;
    each step that ran, numbered from 1, with its stage, its host, its attempt when a
    commit ran again, and its outcome (``ok`` or ``exit N`` and the step's last line); after
    a failure, the rollback order (or ``(no host was touched)``); ``hosts:`` and per host
    what it was left in and the stages that ran there (``nothing`` when none did); and the
    verdict."""
    plan = _plan()
    problems = []
    header = "apply v41_group_a: 4 hosts (srv5, srv6, srv7, srv8)"
    _, report = _answering(plan, {("preserve", 1): [1]})
    ran = [(s, r) for s, r in _forward()[:6]] + [("rollback", 1), ("rollback", 0)]
    ran += [("cleanup", 1), ("cleanup", 0)]
    steps = [
        _step_line(n, s, NAMES[r], "exit 1: no" if (s, r) == ("preserve", 1) else "ok: done")
        for n, (s, r) in enumerate(ran, 1)
    ]
    both = "preflight, preserve, rollback, cleanup"
    want = [
        header,
        *steps,
        "rollback, last changed first: srv6 srv5",
        "hosts:",
        _host_line(0, "restored", both),
        _host_line(1, "restored", both),
        _host_line(2, "untouched", "preflight"),
        _host_line(3, "untouched", "preflight"),
        "apply v41_group_a: ROLLED BACK: preserve@srv6 failed (exit 1: no); every touched "
        "host restored",
    ]
    problems += difference("rolled back", want, report.lines())
    _, report = _answering(plan, {("preflight", 0): [3]})
    want = [
        header,
        _step_line(1, "preflight", "srv5", "exit 3: no"),
        "rollback, last changed first: (no host was touched)",
        "hosts:",
        _host_line(0, "untouched", "preflight"),
        *(_host_line(r, "untouched", "nothing") for r in (1, 2, 3)),
        "apply v41_group_a: STOPPED: preflight@srv5 failed (exit 3: no); no host was changed",
    ]
    problems += difference("stopped at once", want, report.lines())
    _, report = _answering(plan, {("commit", 1): [1, 1], ("commit", 3): [255, 1, 1]})
    commits = [
        _step_line(21, "commit", "srv5", "ok: done"),
        _step_line(22, "commit", "srv6", "exit 1: no"),
        _step_line(23, "commit", "srv6", "exit 1: no", attempt=2),
        _step_line(24, "commit", "srv6", "ok: done", attempt=3),
        _step_line(25, "commit", "srv7", "ok: done"),
        _step_line(26, "commit", "srv8", EXIT_255 + ": no"),
        _step_line(27, "commit", "srv8", "exit 1: no", attempt=2),
        _step_line(28, "commit", "srv8", "exit 1: no", attempt=3),
    ]
    lines = report.lines()
    problems += difference("commits", commits, lines[21:29])
    problems += difference("pending", "hosts:", lines[29])
    problems += difference(
        "verdict", "apply v41_group_a: COMMITTED, commit pending on srv8", lines[-1]
    )
    _, report = _answering(plan, {("commit", 0): [1, 1, 1], ("commit", 2): [1, 1, 1]})
    problems += difference(
        "two pending",
        "apply v41_group_a: COMMITTED, commit pending on srv5, srv7",
        report.verdict(),
    )
    return holds_unless(problems, "rolled back, stopped, retried and pending reports line by line")


EXIT_255 = "exit 255: the connection failed or dropped (its effect is unknown)"


@claim(ClaimKind.PLANNED_SHAPE)
def the_report_records_every_call_as_it_was_made_and_answered() -> Verdict:
    """The report is the record of what ran, not a summary of it: its plan is the plan it
    was given; its records are, in order, every call the coordinator made, each with the
    step it passed and everything the runner answered for that call (status, all of stdout
    and stderr); a step run again counts its attempts 1, 2, …; the failure is the record of
    the forward step that stopped the run; the rollback order is the order of the rollback
    records. Checked on a clean run, a failure with a failing rollback and cleanup, retried
    and pending commits, and a step that never answered."""
    plan = _plan()
    scenarios: dict[str, tuple[Codes, tuple[str, int] | None]] = {
        "clean": ({}, None),
        "apply failed, rollback and cleanup failed": (
            {("apply", 3): [1], ("rollback", 1): [1], ("cleanup", 0): [1]},
            ("apply", 3),
        ),
        "commits retried and pending": ({("commit", 1): [1, 255], ("commit", 3): [1, 1, 1]}, None),
        "preserve never answered": ({("preserve", 2): [None]}, ("preserve", 2)),
    }
    problems = []
    for label, (codes, stops) in scenarios.items():
        calls, report = _calls(plan, codes)
        records = report.records
        problems += difference(f"{label}: plan", True, report.plan == plan)
        problems += difference(f"{label}: records", calls, [(r.step, r.result) for r in records])
        attempts = [1 + sum(e.step == r.step for e in records[:k]) for k, r in enumerate(records)]
        problems += difference(f"{label}: attempts", attempts, [r.attempt for r in records])
        failed = [r for r in records if (r.step.stage.value, r.step.rank) == stops]
        problems += difference(f"{label}: failure", failed[0] if failed else None, report.failure)
        undone = tuple(r.step.rank for r in records if r.step.stage.value == "rollback")
        problems += difference(f"{label}: rollback order", undone, report.rollback)
    return holds_unless(problems, f"{len(scenarios)} runs recorded call by call")


@claim(ClaimKind.PLANNED_SHAPE)
def a_steps_outcome_reads_as_its_status_and_its_last_line() -> Verdict:
    """A step's outcome reads ``ok``, ``exit N``, ``exit 255: the connection failed or
    dropped (its effect is unknown)`` or ``no answer in time (its effect is unknown)``,
    followed by the last non-blank line it printed: on stderr when it failed and said
    something there, on stdout otherwise."""
    cases = [
        (StepResult(exit_code=0, stdout="one\ntwo  \n\n", stderr="warn\n"), "ok: two"),
        (StepResult(exit_code=0), "ok"),
        (StepResult(exit_code=3, stdout="out\n", stderr="first\nlast\n"), "exit 3: last"),
        (StepResult(exit_code=3, stdout="out\n", stderr=" \n"), "exit 3: out"),
        (StepResult(exit_code=255, stderr="ssh: refused\n"), f"{EXIT_255}: ssh: refused"),
        (StepResult(exit_code=256), "exit 256"),
        (
            StepResult(exit_code=None, stderr="\ncoordinator: no answer\n"),
            "no answer in time (its effect is unknown): coordinator: no answer",
        ),
    ]
    problems = [
        f"{r!r}: expected {w!r}, got {r.describe()!r}" for r, w in cases if r.describe() != w
    ]
    return holds_unless(problems, f"{len(cases)} outcomes read as the report words them")


@claim(ClaimKind.REFUSAL)
def a_plan_that_did_not_render_is_not_applied() -> Verdict:
    """A dry run whose launch did not render has nothing to apply: the coordinator's plan is
    refused, naming the arm (``plan: v41_group_a: the plan did not render: nothing to
    apply``)."""
    unrendered = v41_dry_run("supplied").model_copy(update={"launch": None})
    try:
        plan_transaction(unrendered, parse_hosts(HOSTS))
    except PlannerInputError as error:
        got = (error.source, error.where, error.message)
        want = ("plan", "v41_group_a", "the plan did not render: nothing to apply")
        return holds_unless(difference("refusal", want, got), "an unrendered plan is refused")
    return fails("a plan was made from a dry run that rendered no launch")


def _gated(
    plan: TransactionPlan, codes: Codes, answer: Callable[[], str | None]
) -> tuple[list[str], TransactionReport]:
    """:func:`_answering` with a gate: ``gate`` appears among the steps where it was asked."""
    ran: list[str] = []

    def gate() -> str | None:
        ran.append("gate")
        return answer()

    left = {key: list(value) for key, value in codes.items()}

    def run_step(step: TransactionStep) -> StepResult:
        queue = left.get((step.stage.value, step.rank), [])
        code = queue.pop(0) if queue else 0
        ran.append(step.label)
        return StepResult(exit_code=code, stdout="done\n", stderr="" if code == 0 else "no\n")

    return ran, coordinate(plan, run_step, 3, gate=gate)


def _cannot_answer() -> str | None:
    raise RuntimeError("the log is gone")


@claim(ClaimKind.PLANNED_SHAPE)
def admission_is_asked_again_at_the_commit_point_and_a_refusal_rolls_back() -> Verdict:
    """The coordinator asks its gate (admission, asked again) exactly once: after the 20
    forward steps all succeeded and before the first commit. A gate that admits (None) lets
    all 4 commits run (exit 0); a gate that refuses — or cannot answer (it raised: an
    admission that cannot be checked does not hold) — runs no commit: rollback then cleanup
    on every host, the last changed first (srv8 srv7 srv6 srv5), every host restored, exit
    10, the report keeping the reason and its verdict naming it (``ROLLED BACK: admission
    no longer holds before the commit point (REASON); every touched host restored``). After
    a forward failure the gate is never asked."""
    plan = _plan()
    forward = [f"{s}@{NAMES[r]}" for s, r in _forward()]
    commits = [f"commit@{n}" for n in NAMES]
    undo = [f"{stage}@{NAMES[r]}" for stage in ("rollback", "cleanup") for r in (3, 2, 1, 0)]
    problems = []
    ran, report = _gated(plan, {}, lambda: None)
    problems += difference("admitted: ran", [*forward, "gate", *commits], ran)
    problems += difference("admitted: exit", (0, None), (report.exit_code, report.refused))
    lapsed = "refused: admission.lease_expired at authority.groups.group_a.lease_expires_at: x"
    raised = "it could not be checked: RuntimeError: the log is gone"
    for label, answer, reason in (
        ("refused", lambda: lapsed, lapsed),
        ("cannot answer", _cannot_answer, raised),
    ):
        ran, report = _gated(plan, {}, answer)
        problems += difference(f"{label}: ran", [*forward, "gate", *undo], ran)
        problems += difference(f"{label}: refused", reason, report.refused)
        problems += difference(f"{label}: rollback", (3, 2, 1, 0), report.rollback)
        problems += difference(
            f"{label}: finals", ["restored"] * 4, [f.value for f in report.finals]
        )
        problems += difference(f"{label}: exit", 10, report.exit_code)
        verdict = (
            f"apply v41_group_a: ROLLED BACK: admission no longer holds before the commit "
            f"point ({reason}); every touched host restored"
        )
        problems += difference(f"{label}: verdict", verdict, report.verdict())
        problems += difference(
            f"{label}: order line",
            "rollback, last changed first: srv8 srv7 srv6 srv5",
            report.host_lines()[0],
        )
    ran, report = _gated(plan, {("front_door", 3): [1]}, lambda: "never asked")
    problems += difference("forward failure: gate asked", False, "gate" in ran)
    problems += difference("forward failure: refused", None, report.refused)
    return holds_unless(problems, "asked once before commit; refused or unanswered rolls back")


HOSTILE = "\x1b]0;pwned\x07 \x1b[2J \u202egnp.exe \x9b31m \x7f\r\x0cend"
ESCAPED = "\\x1b]0;pwned\\x07 \\x1b[2J \\u202egnp.exe \\x9b31m \\x7f\\r\\x0cend"


def _printing_at(stage: str, rank: int, fails: bool) -> Callable[[TransactionStep], StepResult]:
    """A step runner whose (stage, rank) prints :data:`HOSTILE` (and fails, if ``fails``)."""

    def run_step(step: TransactionStep) -> StepResult:
        hit = (step.stage.value, step.rank) == (stage, rank)
        said = f"{HOSTILE}\n" if hit else "done\n"
        return StepResult(exit_code=1 if hit and fails else 0, stdout=said)

    return run_step


@claim(ClaimKind.REFUSAL)
def what_a_host_prints_reaches_the_report_escaped() -> Verdict:
    """A step's output reaches the report's lines (each step, each host, the verdict) with
    every character a terminal would obey escaped — ESC (an OSC title, a screen clear), BEL,
    a C1 CSI, DEL, a bidi override, a carriage return and a form feed, which no longer end
    the quoted line — as ``\\xNN``/``\\uNNNN`` (the step's outcome itself is escaped); no
    line holds a non-printable character."""
    plan = _plan()
    said = StepResult(exit_code=1, stdout="out\n", stderr=f"{HOSTILE}\n")
    problems = difference("the outcome", f"exit 1: {ESCAPED}", said.describe())
    for stage, rank, failing in (("readback", 2, True), ("front_door", 0, False)):
        lines = coordinate(plan, _printing_at(stage, rank, failing)).lines()
        raw = [line for line in lines if not line.isprintable()]
        problems += difference(f"{stage}: raw lines", [], raw)
        quoted = [line for line in lines if ESCAPED in line]
        want = 2 if failing else 1  # the step, and the verdict naming the failed one
        problems += difference(f"{stage}: lines quoting it escaped", want, len(quoted))
    return holds_unless(problems, "control, C1, DEL and bidi characters escaped in every line")


# The journal (planner/journal.py): what a run appends as it goes, and what --resume makes
# of it wherever the coordinator was lost. Expected values come from the journal's contract:
# a host is touched once a preserve or apply *started* there; past the decision every host
# commits; before it, every touched host not yet cleaned up is rolled back, last first.


SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None
"""Where the claims' journals are written: memory where it can be (each record is synced,
and a claim journals a whole transaction in milliseconds)."""


def _journaled(codes: Codes, check: Callable[[Path], None] | None = None) -> bytes:
    """A whole transaction journaled in a real file (steps answered from ``codes``); its
    bytes. ``check`` reads the file from inside each step, as the host would run it."""
    plan = _plan()
    with tempfile.TemporaryDirectory(prefix="gunbc-journal-", dir=SCRATCH) as directory:
        path = Path(directory) / "apply.journal"
        with journal.create(path, plan, {"ssh": "ssh"}, 3) as written:
            runner = _table_runner(codes, [], check and (lambda: check(path)))
            written.finish(coordinate(plan, runner, 3, on_event=written.record))
        return path.read_bytes()


def _table_runner(
    codes: Codes, calls: list[str], check: Callable[[], None] | None = None
) -> Callable[[TransactionStep], StepResult]:
    left = {key: list(value) for key, value in codes.items()}

    def run_step(step: TransactionStep) -> StepResult:
        if check is not None:
            check()
        calls.append(step.label)
        queue = left.get((step.stage.value, step.rank), [])
        code = queue.pop(0) if queue else 0
        return StepResult(exit_code=code, stdout=f"{step.label}\n")

    return run_step


def _bodies(data: bytes) -> list[dict[str, object]]:
    return [json.loads(line)["body"] for line in data.splitlines()]


def _owed(bodies: list[dict[str, object]]) -> tuple[list[str], int, list[str]]:
    """What a resume of a journal holding ``bodies`` must run, exit with and leave each host
    in, from the records alone (the contract, not planner.journal)."""
    starts = [b for b in bodies if b["kind"] == "started"]
    answers = {(b["stage"], b["rank"], b["attempt"]): b["exit_code"] for b in bodies
               if b["kind"] == "answered"}  # fmt: skip

    def ok(stage: str) -> set[object]:
        return {k[1] for k, code in answers.items() if k[0] == stage and code == 0}

    if any(b["kind"] == "decided" for b in bodies):
        todo = [r for r in range(4) if r not in ok("commit")]
        return [f"commit@{NAMES[r]}" for r in todo], 0, ["committed"] * 4
    touched: list[int] = []
    for b in starts:
        rank = b["rank"]
        if b["stage"] in ("preserve", "apply") and isinstance(rank, int) and rank not in touched:
            touched.append(rank)
    back = [r for r in reversed(touched) if r not in ok("cleanup")]
    calls = [f"rollback@{NAMES[r]}" for r in back] + [f"cleanup@{NAMES[r]}" for r in back]
    return calls, 10, ["restored" if r in touched else "untouched" for r in range(4)]


def _resumed(data: bytes, codes: Codes) -> tuple[list[str], TransactionReport]:
    calls: list[str] = []
    state = journal.parse(data, "journal")
    return calls, journal.finish(state, _table_runner(codes, calls), 3)


Cut = tuple[bytes, list[dict[str, object]]]


def _cuts(data: bytes) -> list[Cut]:
    """The journal as it stood after each record (the plan record at least), unfinished:
    its bytes and its records."""
    lines = data.splitlines(keepends=True)
    bodies = _bodies(data)
    return [(b"".join(lines[:k]), bodies[:k]) for k in range(1, len(lines))]


def _resume_problems(label: str, at: Cut, codes: Codes) -> list[str]:
    cut, bodies = at
    where = f"{label}, cut after {bodies[-1]['kind']} (line {len(bodies)})"
    calls, report = _resumed(cut, codes)
    want_calls, want_exit, want_finals = _owed(bodies)
    return (
        difference(f"{where}: ran", want_calls, calls)
        + difference(f"{where}: exit", want_exit, report.exit_code)
        + difference(f"{where}: finals", want_finals, [f.value for f in report.finals])
    )


def _decided_at(data: bytes) -> int:
    return next(k for k, b in enumerate(_bodies(data), 1) if b["kind"] == "decided")


@claim(ClaimKind.PLANNED_SHAPE)
def a_journal_holds_each_step_on_disk_before_it_is_sent() -> Verdict:
    """Every apply journals, in a real file and in order: the plan record (the transaction
    whole, each script's sha256); for each step, its ``started`` record — already on disk,
    whole, when the step is sent — and its ``answered`` record (exit status, outcome) once
    it came back; ``decided`` after every forward step and before the first commit; and
    ``finished`` with the exit code and every host's final state. Records count from 0."""
    problems: list[str] = []
    seen: list[tuple[object, ...]] = []

    def on_disk(path: Path) -> None:
        last = json.loads(path.read_bytes().splitlines()[-1])["body"]
        seen.append((last["kind"], last.get("stage"), last.get("rank")))

    data = _journaled({("commit", 1): [1]}, on_disk)
    bodies = _bodies(data)
    plan = _plan()
    problems += difference("seq", list(range(len(bodies))), [b["seq"] for b in bodies])
    first = bodies[0]
    problems += difference("plan", plan.model_dump(mode="json"), first.get("transaction"))
    digests = [hashlib.sha256(s.script.encode()).hexdigest()
               for s in (*plan.forward, *plan.rollbacks, *plan.cleanups)]  # fmt: skip
    problems += difference("script sha256", digests, first.get("script_sha256"))
    steps = [(s.stage.value, s.rank) for s in plan.forward]
    sent = [*steps[:21], steps[21], *steps[21:]]  # commit@srv6 refused once, then again
    problems += difference("on disk as each step was sent", [("started", *s) for s in sent], seen)
    kinds = [b["kind"] for b in bodies[1:]]
    want = ["started", "answered"] * 20 + ["decided"] + ["started", "answered"] * 5
    problems += difference("kinds", [*want, "finished"], kinds)
    answered = [b for b in bodies if b["kind"] == "answered"]
    problems += difference(
        "answers",
        [(*s, 1 if s == ("commit", 1) and n == 21 else 0) for n, s in enumerate(sent)],
        [(b["stage"], b["rank"], b["exit_code"]) for b in answered],
    )
    problems += difference(
        "finished", (0, ["committed"] * 4), (bodies[-1].get("exit_code"), bodies[-1].get("finals"))
    )
    return holds_unless(problems, f"{len(bodies)} records, each step's start on disk first")


@claim(ClaimKind.PLANNED_SHAPE)
def a_journal_cut_before_the_decision_resumes_to_every_touched_host_rolled_back() -> Verdict:
    """A journal whose coordinator was lost after any record before the decision — during
    the forward run, mid-step (a ``started`` with no answer) or mid-rollback — resumes to a
    rollback of exactly the hosts a preserve or apply was *started* on, whatever came back,
    the last changed first, skipping hosts already cleaned up, then their cleanups; exit
    10. A resume itself lost after any of its own records resumes the same way."""
    problems: list[str] = []
    failed = _journaled({("apply", 3): [1]})
    clean = _journaled({})
    cuts = [("apply@srv8 failed", c) for c in _cuts(failed)]
    cuts += [("clean", c) for c in _cuts(clean)[: _decided_at(clean) - 1]]
    for label, cut in cuts:
        problems += _resume_problems(label, cut, {})
    lost, lost_bodies = _cuts(failed)[10]  # preserve@srv7 started, no answer
    with tempfile.TemporaryDirectory(prefix="gunbc-journal-", dir=SCRATCH) as directory:
        path = Path(directory) / "apply.journal"
        path.write_bytes(lost)
        held, state = journal.take_up(path)
        with held:
            journal.resume(held, state, _table_runner({}, []), 3)
        again = path.read_bytes()
    resumed = _cuts(again)[len(lost_bodies) :]
    for cut in resumed:
        problems += _resume_problems("a resume lost", cut, {})
    count = len(cuts) + len(resumed)
    return holds_unless(problems, f"{count} cuts resumed to their touched hosts rolled back")


@claim(ClaimKind.PLANNED_SHAPE)
def a_journal_cut_after_the_decision_resumes_to_commit_on_every_host() -> Verdict:
    """A journal whose coordinator was lost after the decision — before any commit, mid-
    commit, between commits, in a commit's retries — resumes to a commit on every host whose
    commit did not succeed, head first, retried as a live commit is (a commit failing once
    runs again), and nothing else; exit 0, every host committed."""
    problems: list[str] = []
    data = _journaled({("commit", 1): [1, 255]})
    cuts = _cuts(data)[_decided_at(data) - 1 :]
    for cut in cuts:
        problems += _resume_problems("commit@srv6 retried", cut, {})
    calls, report = _resumed(cuts[0][0], {("commit", 2): [1]})
    want = ["commit@srv5", "commit@srv6", "commit@srv7", "commit@srv7", "commit@srv8"]
    problems += difference("a commit failing once in the resume: ran", want, calls)
    problems += difference("a commit failing once in the resume: exit", 0, report.exit_code)
    return holds_unless(problems, f"{len(cuts)} cuts after the decision resumed to commits")


@claim(ClaimKind.REFUSAL)
def a_torn_last_line_is_ignored_and_a_corrupt_line_refused_located() -> Verdict:
    """A journal whose last line was cut short (no line end: its write never reached the
    disk whole) reads as the records before it, marked torn, its whole lines' length
    kept; any line before the last with one byte changed is a located error
    (``journal: line N: … corrupt``), never a guess."""
    problems: list[str] = []
    data = _journaled({("apply", 3): [1]})
    lines = data.splitlines(keepends=True)
    for k in range(1, len(lines)):
        whole = b"".join(lines[:k])
        state = journal.parse(whole + lines[k][: len(lines[k]) // 2], "journal")
        problems += difference(
            f"torn line {k + 1}",
            (True, len(whole), k - 1),
            (state.torn, state.length, len(state.records)),
        )
    for k in range(0, len(lines) - 1, 3):
        changed = list(lines)
        at = len(changed[k]) // 3
        changed[k] = changed[k][:at] + bytes([changed[k][at] ^ 1]) + changed[k][at + 1 :]
        try:
            journal.parse(b"".join(changed), "journal")
            problems.append(f"line {k + 1} changed: read")
        except PlannerInputError as error:
            got = (error.source, error.where, error.message.endswith("corrupt"))
            problems += difference(f"line {k + 1} changed", ("journal", f"line {k + 1}", True), got)
    return holds_unless(problems, f"{len(lines) - 1} torn ends ignored; changed lines refused")
