"""Witness: the cross-host transaction, run by the coordinator over real sshd, with faults.

Every claim reads what the coordinator (:mod:`planner.transaction`, :mod:`planner.coordinator`)
did to a fleet of four real sshd hosts on this machine (:mod:`fixtures.fleet`): each host's
own root with stand-in docker and systemctl keeping their state on disk, read back byte for
byte before and after each run. The V4.1 plan (supplied inputs) runs once per *case*: no
fault, or one fault injected at one host's session — a stage that refuses before it runs,
one that fails after its changes, a connection that drops in the middle of a stage, a script
cut short in transit, a session the host never answers, a host that never answers at all,
and a commit refused once. Three more runs interrupt ``planner apply``'s coordinator in a
process of its own (:func:`fixtures.fleet.run_interrupted`): SIGTERM while a follower's apply
runs, SIGTERM at the commit point, and a rollback whose connection drops.

This is a representative set: a fault at every stage kind, on the head and on followers, for
every fault kind. ``make transaction`` (``python -m fixtures.transaction_table``) runs the
full matrix — every (host, stage) pair for ``refuse``, ``fail_after`` and ``drop``, ``hang`` and
``truncate`` at every stage of one host, and each host ``down``; SIGTERM at every (host, stage)
at the boundary and mid-step, SIGINT and SIGHUP at a subset, signals while connecting and
during rollback, hung exit requests — and prints the fault table.

Expected values come from the plan and the transaction contract, not from the coordinator
(:mod:`fixtures.transaction_cases`): the forward order is each stage on every host, head
first; a host is touched once its preserve was started; rollback runs on every touched host,
last changed first, then cleanup; a commit is retried; the planned state of a host is its
planned container, unit text and unit active and enabled, beside whatever else it held.

**Where the fleet runs.** The plan is rendered once, when the witness is imported (before
any declared mutant is installed), and ``setup()`` runs every case once per process
(:func:`fixtures.fleet.run` remembers each run, also on disk for the processes of one command,
keyed by every byte that decides it); the claims read what it left. So a declared mutant of
the coordinator — whose child process runs ``setup()`` under the mutant — is judged on the
real fleet; a mutant of the stage scripts or of the plan is ``executed_apply``'s and the other
witnesses' (this one reuses its remembered runs); and the generated and value surveys, which
switch mutants after ``setup()``, see these claims reach only the report's own methods (a
token mutant of the coordinator would otherwise cost a whole fleet run;
``transaction_plan`` covers the coordinator's decisions for them without a fleet). One more
run kills the coordinator (SIGKILL) mid-apply and finishes it with ``planner apply
--resume`` (:mod:`fixtures.transaction_kill`: both forked from this process, so a declared
mutant is the code they run). Measured once (``claims run transaction_fleet``, December
2026): the whole setup, 15 fleets two at a time, takes 24 s on 2 idle cores, most of it
waiting (8 s of CPU); the hung apply alone waits out its timeouts for 13 s.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from claims import ClaimKind, Verdict, claim, difference, holds_unless
from fixtures import fleet, transaction_kill
from fixtures.builders import rendered, v41_dry_run
from fixtures.fleet import Case, CoordinatorRun, FleetRun, Interrupted
from fixtures.sandbox import HostSeed
from fixtures.transaction_cases import (
    ARM,
    EXIT_OF,
    HOSTS,
    Injected,
    Rank,
    expected_state,
    fails_forward,
    fault_index,
    hazard_rows,
    planned_order,
    ranks,
    seed,
    signal_at,
    size,
    state,
    touched,
)
from planner import journal

CASES: dict[str, Injected | None] = {
    "no fault": None,
    "preflight refused on srv7": Injected("refuse", 2, "preflight"),
    "preserve refused on srv7": Injected("refuse", 2, "preserve"),
    "apply failed after its changes on srv6": Injected("fail_after", 1, "apply"),
    "readback refused on srv8": Injected("refuse", 3, "readback"),
    "front door failed after it ran on srv5": Injected("fail_after", 0, "front_door"),
    "commit refused once on srv7": Injected("refuse", 2, "commit"),
    "connection dropped during preserve on srv6": Injected("drop", 1, "preserve"),
    "apply script cut short on srv5": Injected("truncate", 0, "apply"),
    "apply never answered on srv8": Injected("hang", 3, "apply"),
    "srv6 never answers": Injected("down", 1, "preflight"),
}


INTERRUPTED = (
    "SIGTERM mid apply on srv6",
    "SIGTERM at commit on srv7",
    "dropped rollback on srv6",
)
"""The coordinator interrupted, each in a process of its own (forked from this one, so a
declared mutant installed here is what runs): a signal while a follower's apply runs, one
at the commit point, and a rollback whose connection drops."""


def _interrupted(seeds: tuple[HostSeed, ...]) -> dict[str, tuple[Injected, Interrupted]]:
    return dict(
        zip(
            INTERRUPTED,
            (
                signal_at("SIGTERM", "mid", "apply", 1, seeds),
                signal_at("SIGTERM", "boundary", "commit", 2, seeds),
                hazard_rows(seeds)["dropped rollback on srv6"],
            ),
            strict=True,
        )
    )


@dataclass(frozen=True)
class _Executed:
    ranks: tuple[Rank, ...]
    runs: dict[str, FleetRun]
    interrupted: dict[str, tuple[Injected, CoordinatorRun]]


_EXECUTED: list[_Executed] = []
_KILLED: list[transaction_kill.KillRun] = []
KILLED_AT = (1, "apply")
"""The kill row: the coordinator killed while apply runs on srv6 (every host preserved, the
head applied)."""
_RENDERED = v41_dry_run("supplied")
"""The plan, rendered when this witness is imported: before a declared mutant is installed,
so the stage scripts are the planner's own and only the coordinator is under test here."""


def setup() -> None:
    """The fleet runs here (root, sshd, the namespace tools), or the witness is unresolved;
    then every case runs, once (see the module docstring)."""
    fleet.require()
    run = rendered(_RENDERED, "the supplied inputs", HOSTS)
    planned = ranks(run)
    seeds = tuple(seed(r) for r in planned)
    cases = [Case(seeds, (f.fault(),) if f else ()) for f in CASES.values()]
    runs = dict(zip(CASES, fleet.run(run, cases), strict=True))
    rows = _interrupted(seeds)
    outs = fleet.run_interrupted(run, [case for _, case in rows.values()])
    interrupted = {k: (f, out) for (k, (f, _)), out in zip(rows.items(), outs, strict=True)}
    _EXECUTED[:] = [_Executed(planned, runs, interrupted)]
    _KILLED[:] = [transaction_kill.run_killed(run, seeds, *KILLED_AT)]


def _executed() -> _Executed:
    if not _EXECUTED:
        raise AssertionError("the fleet did not run: setup() did not complete")
    return _EXECUTED[0]


def _session_stage(command: str) -> str:
    """The stage a session ran: the coordinator names it after the remote script."""
    words = shlex.split(command)
    return words[5] if len(words) > 5 else command


def _steps(out: FleetRun) -> list[tuple[str, int, int | None]]:
    return [(r.step.stage.value, r.step.rank, r.result.exit_code) for r in out.report.records]


@claim(ClaimKind.PLANNED_SHAPE)
def a_clean_run_commits_every_host_to_its_plan() -> Verdict:
    """With no fault, the coordinator runs preflight, preserve, apply, readback, front door
    and commit, each on every host head first, all 24 steps succeed and it exits 0; with a
    commit refused once on srv7, that commit runs again and succeeds, and it exits 0."""
    ex = _executed()
    problems = []
    clean = [(s, r, 0) for s, r in planned_order()]
    out = ex.runs["no fault"]
    problems += difference("no fault: steps", clean, _steps(out))
    problems += difference("no fault: exit", 0, out.report.exit_code)
    retried = ex.runs["commit refused once on srv7"]
    want = [*clean[:22], ("commit", 2, 1), ("commit", 2, 0), clean[23]]
    problems += difference("commit refused once: steps", want, _steps(retried))
    problems += difference("commit refused once: exit", 0, retried.report.exit_code)
    return holds_unless(problems, "24 steps in the planned order; a refused commit runs again")


@claim(ClaimKind.PLANNED_SHAPE)
def the_run_stops_at_the_first_failure() -> Verdict:
    """After a failure in any forward stage (refused, failed after its changes, connection
    dropped, script cut short, no answer, host down), the coordinator has run exactly the
    planned steps up to the failed one — nothing after it but rollback and cleanup — and
    every session each fleet host saw is a step the report names, in the same order."""
    ex = _executed()
    problems = []
    for label, f in CASES.items():
        out = ex.runs[label]
        if fails_forward(f):
            assert f is not None
            planned = planned_order()[: fault_index(f) + 1]
            forward = [(s, r) for s, r, _ in _steps(out) if s not in ("rollback", "cleanup")]
            problems += difference(f"{label}: forward steps", planned, forward)
        for rank in range(HOSTS):
            if f is not None and f.kind == "down" and rank == f.rank:
                continue  # its one step never reached it (see the next claim)
            names = [_session_stage(c) for c in out.commands[rank]]
            problems += difference(
                f"{label}: sessions on rank {rank}", list(out.report.stages_on(rank)), names
            )
    return holds_unless(problems, f"{len(CASES)} runs stop at their first failure")


@claim(ClaimKind.PLANNED_SHAPE)
def rollback_reaches_every_touched_host_last_changed_first() -> Verdict:
    """After a forward failure, rollback runs once on every host whose preserve was started
    (also where it refused, failed or lost its connection), the last changed first, then
    cleanup on each in the same order; a host whose preserve never started gets neither."""
    ex = _executed()
    problems = []
    for label, f in CASES.items():
        if not fails_forward(f):
            continue
        assert f is not None
        order = list(reversed(touched(f)))
        after = [(s, r) for s, r, _ in _steps(ex.runs[label]) if s in ("rollback", "cleanup")]
        want = [("rollback", r) for r in order] + [("cleanup", r) for r in order]
        problems += difference(f"{label}: rollback and cleanup", want, after)
    return holds_unless(problems, "rollback then cleanup on exactly the touched hosts, reversed")


@claim(ClaimKind.PLANNED_SHAPE)
def every_host_ends_restored_or_planned_byte_for_byte() -> Verdict:
    """After every run, each host is exactly as before it, byte for byte — every file and
    directory under /etc and /var, the containers with their whole config, images, loaded,
    active and enabled units, another arm's containers and its pending backup — save the
    empty preserve root that preserve's ``mkdir -p`` leaves where it ran; or, after a commit,
    exactly at its planned state. The evidence is the fault table."""
    ex = _executed()
    problems = []
    restored = planned = compared = 0
    for label, f in CASES.items():
        out = ex.runs[label]
        for r, before, after in zip(ex.ranks, out.before, out.after, strict=True):
            want = expected_state(r, f, before)
            good = want == state(after)
            if fails_forward(f):
                restored += good
            else:
                planned += good
            problems += difference(f"{label}: rank {r.rank}", want, state(after))
            compared += size(before) + size(after)
    faults = sum(f is not None for f in CASES.values())
    table = (
        f"{faults} faults injected in {len(CASES)} runs; hosts restored {restored}, "
        f"at their plan {planned}, of {len(CASES) * HOSTS}; {compared} bytes compared; "
        f"nothing lost"
    )
    return holds_unless(problems, table)


@claim(ClaimKind.PLANNED_SHAPE)
def lost_connections_and_silent_hosts_fail_their_step() -> Verdict:
    """A dropped connection fails its step with ssh's 255 while the stage goes on on its host,
    and the rollback that follows waits for it (the host's lock): every call the orphaned
    stage made comes before the rollback's; a session the host never answers fails with no
    exit status once the stage timeout passes; a host that never answers fails its first
    step with 255 and nothing else runs there; a script cut short in transit exits 97 and
    runs nothing on its host."""
    ex = _executed()
    problems = []
    for label, f in CASES.items():
        if f is None or f.stage == "commit":
            continue
        out = ex.runs[label]
        failed = out.report.failure
        got = None if failed is None else (failed.step.stage.value, failed.step.rank)
        problems += difference(f"{label}: failed step", (f.stage, f.rank), got)
        code = None if failed is None else failed.result.exit_code
        problems += difference(f"{label}: exit status", EXIT_OF[f.kind], code)
    dropped = ex.runs["connection dropped during preserve on srv6"].after[1]
    sessions = [c.step for c in dropped.calls]
    problems += difference(
        "dropped: calls of preserve before rollback's", sorted(sessions), sessions
    )
    problems += difference("dropped: preserve went on", True, 2 in sessions)
    cut = ex.runs["apply script cut short on srv5"]
    problems += difference("cut short: calls of the apply session", [], cut.after[0].calls_of(3))
    message = (
        "gunbc-apply: the apply script arrived incomplete (its sha256 differs): it did not run\n"
    )
    failure = cut.report.failure
    problems += difference(
        "cut short: message", message, failure.result.stderr if failure else None
    )
    down = ex.runs["srv6 never answers"]
    problems += difference("down: sessions on srv6", (), down.commands[1])
    return holds_unless(problems, "drop, cut short, no answer and down each fail their step")


@claim(ClaimKind.PLANNED_SHAPE)
def the_report_names_what_ran_and_what_each_host_was_left_in() -> Verdict:
    """The coordinator's report gives each host's final state — committed, restored (rolled
    back and cleaned up) or untouched — its exit code (0 committed, 10 rolled back) and a
    verdict naming the failed step."""
    ex = _executed()
    problems = []
    for label, f in CASES.items():
        report = ex.runs[label].report
        if not fails_forward(f):
            want_finals = ["committed"] * HOSTS
            want = (0, f"apply {ARM}: COMMITTED on every host")
        else:
            assert f is not None
            changed = touched(f)
            want_finals = ["restored" if r in changed else "untouched" for r in range(HOSTS)]
            step = f"{f.stage}@{ex.ranks[f.rank].host}"
            want = (10, step)
        problems += difference(f"{label}: finals", want_finals, [h.value for h in report.finals])
        verdict = report.verdict()
        problems += difference(f"{label}: exit", want[0], report.exit_code)
        if want[1] not in verdict:
            problems.append(f"{label}: verdict {verdict!r} does not name {want[1]!r}")
    return holds_unless(problems, f"{len(CASES)} reports: finals, exit codes and verdicts")


def _hosts_as_expected(ex: _Executed, label: str) -> list[str]:
    f, out = ex.interrupted[label]
    problems = []
    for r, before, after in zip(ex.ranks, out.before, out.after, strict=True):
        problems += difference(
            f"{label}: rank {r.rank}", expected_state(r, f, before), state(after)
        )
    return problems


def _forward_sessions(out: CoordinatorRun, rank: int) -> list[str]:
    stages = [_session_stage(c) for c in out.commands[rank]]
    return [s for s in stages if s not in ("rollback", "cleanup")]


@claim(ClaimKind.PLANNED_SHAPE)
def a_signal_before_the_decision_abandons_the_step_and_restores_every_host() -> Verdict:
    """A SIGTERM while srv6's apply runs (held at its first docker call) abandons that step
    (exit 130, ``interrupted by SIGTERM``), starts no other forward step anywhere, rolls
    back every touched host, waiting for the abandoned stage to let go of srv6's lock, and
    leaves every host byte for byte as before; the report says so (exit 10) and names the
    signal."""
    ex = _executed()
    label = INTERRUPTED[0]
    _, out = ex.interrupted[label]
    verdict = (
        f"apply {ARM}: ROLLED BACK: apply@srv6 failed (exit 130: coordinator: interrupted by "
        "SIGTERM); every touched host restored"
    )
    problems = difference("exit", 10, out.exit_code)
    problems += difference("verdict", verdict, out.lines[-1] if out.lines else None)
    said = "signals received: SIGTERM: the first stopped the forward run; rollback went on"
    problems += difference("names the signal", True, said in out.lines)
    forward = [["preflight", "preserve", "apply"]] * 2 + [["preflight", "preserve"]] * 2
    problems += difference(
        "forward sessions", forward, [_forward_sessions(out, r) for r in range(HOSTS)]
    )
    problems += _hosts_as_expected(ex, label)
    return holds_unless(problems, "SIGTERM mid-apply: abandoned, 4 hosts restored byte for byte")


@claim(ClaimKind.PLANNED_SHAPE)
def a_signal_after_the_decision_lets_every_host_commit() -> Verdict:
    """A SIGTERM while srv7's commit is about to run (the decision taken) stops nothing:
    every commit runs, every host ends at its planned state, and the report says so (exit 0)
    and that the signal came after the decision."""
    ex = _executed()
    label = INTERRUPTED[1]
    _, out = ex.interrupted[label]
    problems = difference("exit", 0, out.exit_code)
    verdict = f"apply {ARM}: COMMITTED on every host"
    problems += difference("verdict", verdict, out.lines[-1] if out.lines else None)
    said = "signals received: SIGTERM: after the decision, so commit went on everywhere"
    problems += difference("names the signal", True, said in out.lines)
    problems += _hosts_as_expected(ex, label)
    return holds_unless(problems, "SIGTERM at the commit point: committed on every host")


@claim(ClaimKind.PLANNED_SHAPE)
def a_rollback_whose_connection_dropped_runs_again_and_restores_its_host() -> Verdict:
    """After readback fails on srv8, srv6's rollback loses its connection (255) while it goes
    on on its host; the coordinator runs it again, which waits for the first on the host's
    lock, finds srv6 restored and restores nothing more; every host ends byte for byte as
    before (exit 10)."""
    ex = _executed()
    label = INTERRUPTED[2]
    _, out = ex.interrupted[label]
    problems = difference("exit", 10, out.exit_code)
    first = " rollback   srv6: exit 255: the connection failed or dropped"
    problems += difference("the first rollback dropped", True, any(first in x for x in out.lines))
    again = "rollback   srv6 (attempt 2): ok: rolled back: an earlier rollback restored it"
    problems += difference("run again", True, any(x.endswith(again) for x in out.lines))
    problems += _hosts_as_expected(ex, label)
    return holds_unless(problems, "a dropped rollback run again; every host restored")


@claim(ClaimKind.PLANNED_SHAPE)
def a_coordinator_killed_mid_apply_is_resumed_to_every_host_restored() -> Verdict:
    """Killed with SIGKILL while apply runs on srv6 (its start journaled, no answer; no
    rollback, no report), the coordinator leaves every host preserved and the head applied,
    and its journal names all four touched; ``planner apply --resume JOURNAL`` then rolls
    back every host whose preserve started —
    all four, the last changed first — and cleans each up, exits 10, and every host is back
    byte for byte (save the empty preserve root preserve leaves); each host saw its forward
    sessions up to the kill, then exactly its rollback and cleanup."""
    ex = _executed()
    if not _KILLED:
        raise AssertionError("the kill row did not run: setup() did not complete")
    out = _KILLED[0]
    rank, stage = KILLED_AT
    problems = difference("killed by", -9, out.killed_status)
    problems += difference("journal at the kill", "started", out.kinds_at_kill[-1])
    # what the resume reads of it: every host a preserve or apply was started on, in order
    at_kill = journal.parse(out.journal_at_kill, "journal")
    named = journal.touched_hosts(journal.history(at_kill))
    problems += difference("touched, per the journal at the kill", (0, 1, 2, 3), named)
    problems += difference("resume exit", 10, out.resume_exit)
    head = "rollback, last changed first: "
    order = [line for line in out.resume_out.splitlines() if line.startswith(head)]
    problems += difference("rollback order", [head + "srv8 srv7 srv6 srv5"], order)
    f = Injected("hang", rank, stage)
    for r, before, after in zip(ex.ranks, out.before, out.after, strict=True):
        problems += difference(f"rank {r.rank}", expected_state(r, f, before), state(after))
    for host in range(HOSTS):
        forward = ["preflight", "preserve", *(["apply"] if host <= rank else [])]
        names = [_session_stage(c) for c in out.commands[host]]
        want = [*forward, "rollback", "cleanup"]
        problems += difference(f"sessions on rank {host}", want, names)
    restored = sum(
        expected_state(r, f, b) == state(a)
        for r, b, a in zip(ex.ranks, out.before, out.after, strict=True)
    )
    return holds_unless(problems, f"killed mid-apply@srv6, resumed: {restored}/4 hosts restored")
