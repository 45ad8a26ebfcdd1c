"""The cross-host transaction: which stage runs on which host, in what order, what undoes it.

The coordinator runs each host's stage scripts (:mod:`planner.apply`) from a control machine,
one step at a time, in the planner's own order (:func:`planner.apply.apply_steps`: each stage
on every host, head first):

1. **Forward**: preflight, preserve, apply, readback and front door, each on every host, head
   first. The first step that fails stops the run.
2. **Decision and commit**: once every forward step succeeded, the gate (when given: the
   coordinator's admission, asked again) is asked once; a reason it gives stops the run
   there and every touched host is rolled back, as after a failed step. Otherwise the
   transaction is decided and commit runs on every host, head first. Commit is idempotent
   (enable the unit, drop the backup), so a commit that fails is tried again, up to
   ``commit_attempts`` times in all; a decided transaction is never rolled back. A host
   whose commit failed every attempt runs the planned arm and keeps its backup (*commit
   pending*).
3. **Rollback**: after a forward failure, rollback runs on every *touched* host — a host on
   which a stage that may change it (preserve, apply) was *started*, whatever came back — in
   the reverse order of their first change, then cleanup on each host whose rollback
   succeeded. A failing rollback does not stop the others (each host's restore is its own).
   A rollback or cleanup that failed without an answer (its connection dropped, or no answer
   in time) may have finished on its host: it runs again, up to ``UNDO_ATTEMPTS`` in all
   (both are idempotent: rollback marks its preserve dir once restored and restores nothing
   more after that); one its host answered with a failure is final, and that host keeps
   its backup in its preserve dir.

A step's outcome is its exit status. A connection that failed or dropped (ssh's 255) or a
host that did not answer in time is a failure whose effect is unknown, so the host counts as
touched when the step was preserve or apply; the rollback that follows waits on the host's
apply lock for a stage still running there (:mod:`planner.coordinator`). Rollback on a host
whose preserve changed nothing restores nothing (see :mod:`planner.apply`).

Everything here is pure: the steps are run by a ``RunStep`` callable (the ssh transport of
:mod:`planner.coordinator`, or anything else that runs a script on a host).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from enum import StrEnum

from planner.apply import FORWARD_STAGES, ApplyStep, Stage, preserve_dir
from planner.arm_launch import DryRun
from planner.refusal import PlannerInputError
from planner.values import Frozen, printable

EXIT_COMMITTED = 0
"""Every host committed: each runs its planned arm, unit enabled, backup dropped."""
EXIT_ROLLED_BACK = 10
"""A step failed before the decision; every touched host was rolled back and cleaned up."""
EXIT_NOT_RESTORED = 11
"""A step failed before the decision, and a touched host's rollback or cleanup failed."""
EXIT_COMMIT_PENDING = 12
"""Decided and committed, but a host's commit failed every attempt (it keeps its backup)."""

COMMIT_ATTEMPTS = 3
UNDO_ATTEMPTS = 3
"""Runs of a rollback or cleanup that failed without an answer (no answer, ssh's 255)."""
CHANGING_STAGES = frozenset({Stage.PRESERVE, Stage.APPLY})
"""The forward stages that may change a host: once one is started there, the host is
touched. Preflight, readback and front door only read."""

_USER = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
_HOSTNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?")
_ZONE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_DOTTED = re.compile(r"[0-9.]+")


class HostAddress(Frozen):
    """How the control machine reaches one planned host: ``user@address``, port ``port``."""

    host_name: str
    user: str
    address: str
    port: int = 22

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.address}"

    def spec(self) -> str:
        """The ``--hosts`` item that names this address."""
        address = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.host_name}={self.user}@{address}:{self.port}"

    @property
    def machine(self) -> tuple[str, int]:
        """The machine this reaches, whoever logs in: the address in one spelling (an IPv6
        address compressed, a name in lower case: DNS names are caseless) and the port."""
        if ":" in self.address:
            return ipaddress.IPv6Address(self.address).compressed, self.port
        return self.address.lower(), self.port


def ipv6_host(item: str, text: str) -> tuple[str, str]:
    """``[ipv6]`` and what follows it: a real IPv6 address (``ipaddress`` decides, so ``[:]``
    and ``[1:2:3]`` are not), an optional zone of letters, digits, ``_.-`` only."""
    address, bracket, rest = text[1:].partition("]")
    base, percent, zone = address.partition("%")
    try:
        ipaddress.IPv6Address(base)
        valid = bracket and (not percent or _ZONE.fullmatch(zone) is not None)
    except ValueError:
        valid = False
    if not valid:
        raise PlannerInputError("--hosts", item, f"{text!r} is not a bracketed IPv6 address")
    return address, rest


def _address(item: str, text: str) -> tuple[str, int]:
    """``address[:port]`` or ``[ipv6][:port]`` of one ``--hosts`` item."""
    if text.startswith("["):
        address, rest = ipv6_host(item, text)
        if rest and not rest.startswith(":"):
            raise PlannerInputError("--hosts", item, f"expected ':PORT' after ]: {rest!r}")
        colon, port_text = rest[:1], rest[1:]
    else:
        address, colon, port_text = _unbracketed(item, text)
    if colon and not port_text:
        raise PlannerInputError("--hosts", item, "a ':' with no port after it")
    if not port_text:
        return address, 22
    if not port_text.isascii() or not port_text.isdigit() or len(port_text) > 5:
        raise PlannerInputError("--hosts", item, f"port {port_text!r} is not a number")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise PlannerInputError("--hosts", item, f"port {port} is outside 1..65535")
    return address, port


def _unbracketed(item: str, text: str) -> tuple[str, str, str]:
    """``name[:port]`` or ``ipv4[:port]``, as (address, ``:`` or nothing, port text). A
    second ``:`` is an IPv6 address without its brackets (read as a name and a port, ``::1``
    would be "port ':1'")."""
    address, colon, port_text = text.partition(":")
    if ":" in port_text:
        raise PlannerInputError(
            "--hosts",
            item,
            f"{text!r} holds more than one ':': an IPv6 address must be in brackets, "
            "as in root@[::1]:22",
        )
    if not _HOSTNAME.fullmatch(address):
        raise PlannerInputError(
            "--hosts",
            item,
            f"{address!r} is not a host name or IPv4 address "
            "(letters, digits, '.' and '-'; no leading '-')",
        )
    if _DOTTED.fullmatch(address) and not _is_ipv4(address):
        raise PlannerInputError("--hosts", item, f"{address!r} is not an IPv4 address")
    return address, colon, port_text


def _is_ipv4(text: str) -> bool:
    """Digits and dots are an IPv4 address or nothing (ssh would look ``999.0.0.1`` up as a
    name)."""
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def parse_hosts(text: str) -> tuple[HostAddress, ...]:
    """``srv5=root@10.0.0.5,srv6=root@10.0.0.6:2222,…``: each planned host's ssh address.
    Every problem is a located :class:`PlannerInputError` naming the item; two hosts on one
    machine (the same address and port, whichever user) are one: each rank's stages would
    run on the other's host."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise PlannerInputError(
            "--hosts", text, "give HOST=USER@ADDRESS[:PORT] items, comma-separated"
        )
    hosts: list[HostAddress] = []
    for item in items:
        host = _host(item)
        if any(h.host_name == host.host_name for h in hosts):
            raise PlannerInputError("--hosts", item, f"host {host.host_name} is named twice")
        same = next((h for h in hosts if h.machine == host.machine), None)
        if same is not None:
            address, port = host.machine
            raise PlannerInputError(
                "--hosts",
                item,
                f"{host.host_name} and {same.host_name} are one ssh destination "
                f"({address} port {port}): every planned host is its own machine",
            )
        hosts.append(host)
    return tuple(hosts)


def _host(item: str) -> HostAddress:
    name, equals, target = item.partition("=")
    if not equals or not name:
        raise PlannerInputError("--hosts", item, "expected HOST=USER@ADDRESS[:PORT]")
    user, at, where = target.partition("@")
    if not at:
        raise PlannerInputError("--hosts", item, "name the ssh user: HOST=USER@ADDRESS")
    if not _USER.fullmatch(user):
        raise PlannerInputError("--hosts", item, f"{user!r} is not a user name")
    address, port = _address(item, where)
    return HostAddress(host_name=name, user=user, address=address, port=port)


class TransactionStep(Frozen):
    """One stage script to run on one host, with the container name it takes as ``$1``."""

    stage: Stage
    rank: int
    host_name: str
    container_name: str
    script: str

    @property
    def label(self) -> str:
        return f"{self.stage.value}@{self.host_name}"


class TransactionPlan(Frozen):
    """What the coordinator runs: the forward steps (commit last), and per rank its rollback
    and cleanup, with every host's address and preserve dir (by rank)."""

    arm: str
    hosts: tuple[HostAddress, ...]
    preserve_dirs: tuple[str, ...]
    forward: tuple[TransactionStep, ...]
    rollbacks: tuple[TransactionStep, ...]
    cleanups: tuple[TransactionStep, ...]

    def host(self, rank: int) -> HostAddress:
        return self.hosts[rank]


def forward_order(apply_order: tuple[ApplyStep, ...]) -> tuple[ApplyStep, ...]:
    """The forward steps in the planner's order (each stage on every host, head first),
    which puts commit after every readback and front door."""
    return tuple(step for step in apply_order if step.stage in FORWARD_STAGES)


def _step(step: ApplyStep, container: str) -> TransactionStep:
    return TransactionStep(
        stage=step.stage,
        rank=step.rank,
        host_name=step.host_name,
        container_name=container,
        script=step.script,
    )


def plan_transaction(run: DryRun, hosts: tuple[HostAddress, ...]) -> TransactionPlan:
    """The coordinator's plan for a rendered dry run; ``hosts`` must name every planned host
    exactly once (a located :class:`PlannerInputError` otherwise)."""
    if run.launch is None:
        raise PlannerInputError("plan", run.arm, "the plan did not render: nothing to apply")
    reals = [h.realization for h in run.hosts]
    planned = [r.host_name for r in reals]
    given = {h.host_name: h for h in hosts}
    unknown = [h.host_name for h in hosts if h.host_name not in planned]
    missing = [name for name in planned if name not in given]
    if unknown or missing:
        problems = []
        if missing:
            problems.append(f"no address for {', '.join(missing)}")
        if unknown:
            problems.append(f"{', '.join(unknown)} not in the plan")
        raise PlannerInputError(
            "--hosts",
            ",".join(h.spec() for h in hosts),
            f"{'; '.join(problems)} (the plan's hosts: {', '.join(planned)})",
        )
    containers = {r.rank: r.container_name for r in reals}
    by_stage = {
        stage: tuple(_step(s, containers[s.rank]) for s in run.apply_order if s.stage is stage)
        for stage in (Stage.ROLLBACK, Stage.CLEANUP)
    }
    return TransactionPlan(
        arm=run.arm,
        hosts=tuple(given[name] for name in planned),
        preserve_dirs=tuple(preserve_dir(run.arm, r.unit_name) for r in reals),
        forward=tuple(_step(s, containers[s.rank]) for s in forward_order(run.apply_order)),
        rollbacks=tuple(sorted(by_stage[Stage.ROLLBACK], key=lambda s: s.rank)),
        cleanups=tuple(sorted(by_stage[Stage.CLEANUP], key=lambda s: s.rank)),
    )


class StepResult(Frozen):
    """What running one step returned: its exit status (None: no answer in time, so the
    coordinator stopped waiting) and what it printed."""

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    started: bool = True
    """False when the coordinator never started the step (it was interrupted first): the
    step changed nothing, so it touches no host."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def describe(self) -> str:
        """The outcome in words, then the step's last line of output."""
        if self.exit_code is None and not self.started:
            what = "never sent"
        elif self.exit_code is None:
            what = "no answer in time (its effect is unknown)"
        elif self.exit_code == 0:
            what = "ok"
        elif self.exit_code == 255:
            what = "exit 255: the connection failed or dropped (its effect is unknown)"
        else:
            what = f"exit {self.exit_code}"
        text = self.stderr if self.exit_code != 0 and self.stderr.strip() else self.stdout
        # lines end at \n only: a \r or a form feed the host printed is shown, not obeyed
        lines = [line for line in text.split("\n") if line.strip()]
        # what a host printed reaches the operator's terminal escaped (ESC, C0/C1, DEL, bidi)
        return f"{what}: {printable(lines[-1].strip())}" if lines else what


RunStep = Callable[[TransactionStep], StepResult]


class StepStarted(Frozen):
    """A step is about to be sent to its host (its ``attempt``-th run)."""

    step: TransactionStep
    attempt: int


class StepAnswered(Frozen):
    """A step's host answered (or the coordinator stopped waiting): what came back."""

    step: TransactionStep
    attempt: int
    result: StepResult


class Decided(Frozen):
    """The commit point: every forward step succeeded; from here on, only commits run."""


JournalEvent = StepStarted | StepAnswered | Decided
OnEvent = Callable[[JournalEvent], None]
"""Told of each step before it is sent and after it answered, and of the decision
(:mod:`planner.journal` appends each to the journal, synced, before the run goes on)."""


def announced(run_step: RunStep, on_event: OnEvent) -> RunStep:
    """``run_step`` telling ``on_event`` of each step before it starts and once it
    answered, its attempts counted per step from 1."""
    counts: dict[tuple[Stage, int], int] = {}

    def run(step: TransactionStep) -> StepResult:
        key = (step.stage, step.rank)
        counts[key] = attempt = counts.get(key, 0) + 1
        on_event(StepStarted(step=step, attempt=attempt))
        result = run_step(step)
        on_event(StepAnswered(step=step, attempt=attempt, result=result))
        return result

    return run


class StepRecord(Frozen):
    """One run of one step (commit may run more than once: ``attempt`` counts from 1)."""

    step: TransactionStep
    attempt: int
    result: StepResult


class HostFinal(StrEnum):
    """What the transaction left a host in."""

    UNTOUCHED = "untouched"
    COMMITTED = "committed"
    COMMIT_PENDING = "commit pending"
    RESTORED = "restored"
    ROLLBACK_FAILED = "rollback failed"
    CLEANUP_FAILED = "cleanup failed"


_FINAL_TEXT = {
    HostFinal.UNTOUCHED: "no stage that changes it was started there",
    HostFinal.COMMITTED: "it runs its planned arm; unit enabled, backup dropped",
    HostFinal.COMMIT_PENDING: (
        "it runs its planned arm, but its unit is not enabled and its backup stays in {dir}"
    ),
    HostFinal.RESTORED: "rolled back and cleaned up, back to its state before the transaction",
    HostFinal.ROLLBACK_FAILED: "its state is unknown; what preserve saved stays in {dir}",
    HostFinal.CLEANUP_FAILED: "rolled back, but {dir} remains",
}


class TransactionReport(Frozen):
    """Every step that ran (in order), the failure that stopped the run (None when it was
    decided), the rollback order, and what each host was left in (by rank). ``refused`` is
    why admission no longer held when it was asked again before the commit point (the
    gate of :func:`coordinate`): the run stopped there with no step failed."""

    plan: TransactionPlan
    records: tuple[StepRecord, ...]
    failure: StepRecord | None
    rollback: tuple[int, ...]
    finals: tuple[HostFinal, ...]
    refused: str | None = None

    @property
    def stopped(self) -> bool:
        """Whether the run stopped before the decision (a step failed, or the gate refused)."""
        return self.failure is not None or self.refused is not None

    @property
    def exit_code(self) -> int:
        if not self.stopped:
            pending = HostFinal.COMMIT_PENDING in self.finals
            return EXIT_COMMIT_PENDING if pending else EXIT_COMMITTED
        restored = {HostFinal.RESTORED, HostFinal.UNTOUCHED}
        return EXIT_ROLLED_BACK if set(self.finals) <= restored else EXIT_NOT_RESTORED

    def stages_on(self, rank: int) -> tuple[str, ...]:
        """The stages run on host ``rank``, in order (a retried commit once per attempt; a
        step the coordinator never started is not one)."""
        return tuple(
            r.step.stage.value for r in self.records if r.step.rank == rank and r.result.started
        )

    def verdict(self) -> str:
        return printable(self._verdict())

    def _verdict(self) -> str:
        arm = self.plan.arm
        if not self.stopped:
            if self.exit_code == EXIT_COMMITTED:
                return f"apply {arm}: COMMITTED on every host"
            pending = [
                self.plan.hosts[i].host_name
                for i, f in enumerate(self.finals)
                if f is HostFinal.COMMIT_PENDING
            ]
            return f"apply {arm}: COMMITTED, commit pending on {', '.join(pending)}"
        if self.failure is not None:
            failed = f"{self.failure.step.label} failed ({self.failure.result.describe()})"
        else:
            failed = f"admission no longer holds before the commit point ({self.refused})"
        if not self.rollback:
            return f"apply {arm}: STOPPED: {failed}; no host was changed"
        if self.exit_code == EXIT_ROLLED_BACK:
            return f"apply {arm}: ROLLED BACK: {failed}; every touched host restored"
        left = [
            self.plan.hosts[i].host_name
            for i, f in enumerate(self.finals)
            if f not in (HostFinal.RESTORED, HostFinal.UNTOUCHED)
        ]
        return f"apply {arm}: NOT RESTORED: {failed}; {', '.join(left)} not restored"

    def host_lines(self) -> list[str]:
        """Per host: what the transaction left it in, and the stages that ran there."""
        names = [h.host_name for h in self.plan.hosts]
        out = []
        if self.stopped:
            order = " ".join(names[r] for r in self.rollback) or "(no host was touched)"
            out.append(f"rollback, last changed first: {order}")
        out.append("hosts:")
        for rank, final in enumerate(self.finals):
            ran = ", ".join(self.stages_on(rank)) or "nothing"
            text = _FINAL_TEXT[final].format(dir=self.plan.preserve_dirs[rank])
            out.append(f"  {names[rank]} (rank {rank}): {final.value}: {text}; ran: {ran}")
        return [printable(line) for line in out]

    def lines(self) -> list[str]:
        """The report as the operator reads it: each step, each host, the verdict."""
        names = [h.host_name for h in self.plan.hosts]
        out = [printable(f"apply {self.plan.arm}: {len(names)} hosts ({', '.join(names)})")]
        out += [step_line(n, r) for n, r in enumerate(self.records, 1)]
        return [*out, *self.host_lines(), self.verdict()]


def step_line(n: int, record: StepRecord) -> str:
    """One step of the report: its number, stage, host (and attempt), and outcome."""
    step = record.step
    width = max(len(s.value) for s in Stage)
    again = f" (attempt {record.attempt})" if record.attempt > 1 else ""
    line = f"{n:3} {step.stage.value:<{width}} {step.host_name}{again}: {record.result.describe()}"
    return printable(line)


def touched_after(
    touched: tuple[int, ...], step: TransactionStep, result: StepResult
) -> tuple[int, ...]:
    """The touched hosts in order of first change, once ``step`` ran: a stage that may change
    its host touches it when it starts, whatever it returned (a failed or cut-off preserve
    may have changed the host). A step the coordinator never started touches nothing."""
    if step.stage in CHANGING_STAGES and result.started and step.rank not in touched:
        return (*touched, step.rank)
    return touched


def stops_the_run(result: StepResult, decided: bool) -> bool:
    """Whether a step's result ends the forward run: any failure before the decision."""
    return not result.ok and not decided


def rollback_order(touched: tuple[int, ...]) -> tuple[int, ...]:
    """Every touched host, the last one changed first."""
    return tuple(reversed(touched))


def commit_host(step: TransactionStep, run_step: RunStep, attempts: int) -> tuple[StepRecord, ...]:
    """Commit one host, trying again after a failure (commit is idempotent) until it
    succeeds or ``attempts`` runs have failed."""
    records: list[StepRecord] = []
    for attempt in range(1, attempts + 1):
        records.append(StepRecord(step=step, attempt=attempt, result=run_step(step)))
        if records[-1].result.ok:
            break
    return tuple(records)


def unanswered(result: StepResult) -> bool:
    """Whether a step failed without an answer (no exit status in time, or ssh's 255): it
    may have finished on its host."""
    return result.exit_code is None or result.exit_code == 255


def undo_host(step: TransactionStep, run_step: RunStep, attempts: int) -> tuple[StepRecord, ...]:
    """Run a rollback or cleanup, and again while it failed without an answer, up to
    ``attempts`` runs: both are idempotent (a rollback that already restored its host
    restores nothing more), so a run whose connection dropped is safe to repeat. A failure
    the host answered is final."""
    records = [StepRecord(step=step, attempt=1, result=run_step(step))]
    while unanswered(records[-1].result) and len(records) < attempts:
        records.append(StepRecord(step=step, attempt=len(records) + 1, result=run_step(step)))
    return tuple(records)


def roll_back(
    plan: TransactionPlan, order: tuple[int, ...], run_step: RunStep
) -> tuple[tuple[StepRecord, ...], dict[int, HostFinal]]:
    """Rollback on each host of ``order`` (a failure does not stop the others), then cleanup
    on each host whose rollback succeeded, in the same order; each run again after a
    failure without an answer (:func:`undo_host`)."""
    records: list[StepRecord] = []
    finals: dict[int, HostFinal] = {}
    for rank in order:
        records += undo_host(plan.rollbacks[rank], run_step, UNDO_ATTEMPTS)
        finals[rank] = HostFinal.RESTORED if records[-1].result.ok else HostFinal.ROLLBACK_FAILED
    for rank in order:
        if finals[rank] is not HostFinal.RESTORED:
            continue
        records += undo_host(plan.cleanups[rank], run_step, UNDO_ATTEMPTS)
        if not records[-1].result.ok:
            finals[rank] = HostFinal.CLEANUP_FAILED
    return tuple(records), finals


Gate = Callable[[], str | None]
"""Asked once at the commit point: None lets the transaction commit; a reason stops it."""


def ask_gate(gate: Gate) -> str | None:
    """The gate's answer; a gate that cannot answer (it raised) refuses, since an admission
    that cannot be checked does not hold, and an exception here would skip the rollback."""
    try:
        return gate()
    except Exception as exc:
        return f"it could not be checked: {type(exc).__name__}: {exc}"


def coordinate(
    plan: TransactionPlan,
    run_step: RunStep,
    commit_attempts: int = COMMIT_ATTEMPTS,
    *,
    gate: Gate | None = None,
    on_event: OnEvent | None = None,
) -> TransactionReport:
    """Run the transaction of ``plan`` through ``run_step`` and report what it left.
    ``gate`` is asked once, after every forward step succeeded and before the first commit;
    a reason it gives stops the run there, and every touched host is rolled back.
    ``on_event`` (the journal) is told of each step and of the decision as they happen."""
    if on_event is not None:
        run_step = announced(run_step, on_event)
    records: list[StepRecord] = []
    touched: tuple[int, ...] = ()
    decided = False
    failure: StepRecord | None = None
    refused: str | None = None
    pending: set[int] = set()
    for step in plan.forward:
        if step.stage is Stage.COMMIT:
            # the commit point: the one place admission is asked again (before any commit);
            # a refusal writes no decision, so a resume of its journal rolls back
            if not decided and gate is not None:
                refused = ask_gate(gate)
                if refused is not None:
                    break
            if not decided and on_event is not None:
                on_event(Decided())
            decided = True
            tries = commit_host(step, run_step, commit_attempts)
            records += tries
            if not tries[-1].result.ok:
                pending.add(step.rank)
            continue
        result = run_step(step)
        records.append(StepRecord(step=step, attempt=1, result=result))
        touched = touched_after(touched, step, result)
        if stops_the_run(result, decided):
            failure = records[-1]
            break
    ranks = range(len(plan.hosts))
    if failure is None and refused is None:
        finals = tuple(
            HostFinal.COMMIT_PENDING if r in pending else HostFinal.COMMITTED for r in ranks
        )
        return TransactionReport(
            plan=plan, records=tuple(records), failure=None, rollback=(), finals=finals
        )
    order = rollback_order(touched)
    undone, restored = roll_back(plan, order, run_step)
    return TransactionReport(
        plan=plan,
        records=(*records, *undone),
        failure=failure,
        rollback=order,
        finals=tuple(restored.get(r, HostFinal.UNTOUCHED) for r in ranks),
        refused=refused,
    )
