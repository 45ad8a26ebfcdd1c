"""The apply journal: what a transaction ran on which host, synced to disk as it goes.

Every real ``planner apply`` appends, one record a line, to its journal (default
``target/ARM-apply.journal``, the arm with dashes; ``--journal PATH``):

1. ``plan``: the whole :class:`~planner.transaction.TransactionPlan` (every host's address
   and preserve dir — where its backup is —, every step's stage, rank, container and
   script) with each script's sha256, the ssh settings the run used and its commit
   attempts: a resume needs none of the planning inputs;
2. per step ``started`` (stage, rank, attempt) *before* it is sent, and ``answered`` (exit
   status — null: no answer in time —, the size and sha256 of what it printed on stdout and
   stderr, and its one-line outcome, bounded) once it came back;
3. ``decided`` at the commit point, before the first commit is sent;
4. ``resumed`` each time ``--resume`` or ``--rollback`` takes it up;
5. ``finished``: the exit code and what each host was left in.

**A line.** ``{"sha256":"HEX","body":BODY}`` and ``\\n``, ASCII only: ``BODY`` is the record
as JSON (``seq``, counting from 0 with no gap, and ``kind``, then its fields) and ``HEX`` is
the sha256 of ``BODY``'s exact bytes. Each line is appended with one ``write()`` on an
``O_APPEND`` descriptor and then ``fsync``'d (the directory too, once the file is made).

**A torn last line is ignored**, and cut off before anything more is appended: a record
whose write never reached the disk whole was the last thing the coordinator did, and every
record is synced before the coordinator acts on it — a ``started`` record that is torn
means its step was never sent; a torn ``decided`` means no commit was sent; a torn
``answered`` leaves its step started with no answer, which counts as a change of unknown
effect (exactly what it was). Anything else that does not read — a whole line whose sha256
differs, a sequence gap, a record that contradicts the ones before it — is corrupt: a
located input error, never a guess.

**The lock.** The journal is held with ``flock`` (exclusive, not waiting) by the coordinator
writing it and by a resume: a second one is refused while the first runs.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter, ValidationError

from filerules import make_parents
from planner.apply import Stage, script_sha256
from planner.refusal import PlannerInputError
from planner.transaction import (
    CHANGING_STAGES,
    HostFinal,
    JournalEvent,
    RunStep,
    StepAnswered,
    StepRecord,
    StepResult,
    StepStarted,
    TransactionPlan,
    TransactionReport,
    TransactionStep,
    announced,
    commit_host,
    parse_hosts,
    roll_back,
    rollback_order,
)
from planner.values import Frozen, JsonProblem, printable, safe_name, safe_path, strict_json

FORMAT = "gunbc-apply-journal/1"
SUMMARY_CHARS = 400
"""What an ``answered`` record keeps of a step's outcome line (the whole output is not kept:
its size and sha256 are)."""
_PREFIX = '{"sha256":"'
_MIDDLE = '","body":'
_BODY_AT = len(_PREFIX) + 64 + len(_MIDDLE)


class PlanRecord(Frozen):
    seq: int
    kind: Literal["plan"]
    format: Literal["gunbc-apply-journal/1"]
    transaction: TransactionPlan
    script_sha256: tuple[str, ...]
    ssh: dict[str, str | int | None]
    commit_attempts: int


class StartedRecord(Frozen):
    seq: int
    kind: Literal["started"]
    stage: Stage
    rank: int
    attempt: int


class AnsweredRecord(Frozen):
    seq: int
    kind: Literal["answered"]
    stage: Stage
    rank: int
    attempt: int
    exit_code: int | None
    stdout_bytes: int
    stdout_sha256: str
    stderr_bytes: int
    stderr_sha256: str
    summary: str


class DecidedRecord(Frozen):
    seq: int
    kind: Literal["decided"]


class ResumedRecord(Frozen):
    seq: int
    kind: Literal["resumed"]
    mode: Literal["resume", "rollback"]


class FinishedRecord(Frozen):
    seq: int
    kind: Literal["finished"]
    exit_code: int
    finals: tuple[HostFinal, ...]


Record = Annotated[
    PlanRecord | StartedRecord | AnsweredRecord | DecidedRecord | ResumedRecord | FinishedRecord,
    Field(discriminator="kind"),
]
_RECORD: TypeAdapter[Record] = TypeAdapter(Record)


def steps_of(plan: TransactionPlan) -> tuple[TransactionStep, ...]:
    return (*plan.forward, *plan.rollbacks, *plan.cleanups)


def script_digests(plan: TransactionPlan) -> tuple[str, ...]:
    """The sha256 of every step's script: forward, then rollbacks, then cleanups."""
    return tuple(script_sha256(s) for s in steps_of(plan))


def line_of(body: Mapping[str, object]) -> bytes:
    """One journal line: the body as ASCII JSON behind the sha256 of its bytes."""
    text = json.dumps(body, ensure_ascii=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode("ascii")).hexdigest()
    return f"{_PREFIX}{digest}{_MIDDLE}{text}}}\n".encode("ascii")


def _digest(text: str) -> tuple[int, str]:
    data = text.encode("utf-8", errors="surrogateescape")
    return len(data), hashlib.sha256(data).hexdigest()


def event_body(event: JournalEvent) -> dict[str, object]:
    """The record of one event of :func:`planner.transaction.coordinate` (``seq`` aside)."""
    if isinstance(event, StepStarted):
        step = event.step
        return {"kind": "started", "stage": step.stage.value, "rank": step.rank,
                "attempt": event.attempt}  # fmt: skip
    if isinstance(event, StepAnswered):
        result = event.result
        out_bytes, out_sum = _digest(result.stdout)
        err_bytes, err_sum = _digest(result.stderr)
        return {
            "kind": "answered",
            "stage": event.step.stage.value,
            "rank": event.step.rank,
            "attempt": event.attempt,
            "exit_code": result.exit_code,
            "stdout_bytes": out_bytes,
            "stdout_sha256": out_sum,
            "stderr_bytes": err_bytes,
            "stderr_sha256": err_sum,
            "summary": printable(result.describe())[:SUMMARY_CHARS],
        }
    return {"kind": "decided"}


def plan_body(
    plan: TransactionPlan, ssh: Mapping[str, str | int | None], commit_attempts: int
) -> dict[str, object]:
    return {
        "kind": "plan",
        "format": FORMAT,
        "transaction": plan.model_dump(mode="json"),
        "script_sha256": list(script_digests(plan)),
        "ssh": dict(ssh),
        "commit_attempts": commit_attempts,
    }


class JournalError(OSError):
    """The journal could not be written (an ``OSError`` naming the journal's path)."""


class Journal:
    """An open journal, locked, appended to record by record (each write synced). Its
    method is ``write_record``, not ``append``: the survey's purity guard resolves a method
    call by name alone, and a project ``append`` would stand for every ``list.append``."""

    def __init__(self, path: Path, fd: int, next_seq: int) -> None:
        self.path = path
        self.fd = fd
        self.next_seq = next_seq

    def write_record(self, body: Mapping[str, object]) -> None:
        """Append one record (numbered here) with one write, then fsync."""
        line = line_of({"seq": self.next_seq, **body})
        try:
            written = os.write(self.fd, line)
            if written != len(line):
                raise OSError(errno.EIO, f"short write: {written} of {len(line)} bytes")
            os.fsync(self.fd)
        except OSError as exc:
            raise JournalError(exc.errno, f"cannot append record {self.next_seq}: "
                               f"{exc.strerror or exc}", str(self.path)) from None  # fmt: skip
        self.next_seq += 1

    def record(self, event: JournalEvent) -> None:
        """:func:`planner.transaction.coordinate`'s ``on_event``."""
        self.write_record(event_body(event))

    def finish(self, report: TransactionReport) -> None:
        finals = [f.value for f in report.finals]
        self.write_record({"kind": "finished", "exit_code": report.exit_code, "finals": finals})

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # the lock goes with the descriptor
            self.fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise PlannerInputError(
            str(path), "lock", "another coordinator holds this journal (it is running or "
            "resuming this transaction): wait for it to end"
        ) from None  # fmt: skip


def _open_existing(path: Path) -> int:
    """The journal at ``path`` opened for appending and locked; a located error when it is
    missing, not a regular file, or held by another coordinator."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise PlannerInputError(str(path), "open", exc.strerror or str(exc)) from None
    except ValueError as exc:
        raise PlannerInputError(str(path), "open", str(exc)) from None
    found = os.fstat(fd)
    why = None
    if not stat.S_ISREG(found.st_mode):
        why = "not a regular file"
    elif found.st_uid != os.geteuid():
        # the journal says what runs on every host as its ssh user: only its owner writes it
        why = f"owned by uid {found.st_uid}, not by this user (uid {os.geteuid()})"
    elif found.st_mode & 0o022:
        why = f"writable by others (mode {found.st_mode & 0o777:o})"
    if why is not None:
        os.close(fd)
        raise PlannerInputError(str(path), "open", why)
    _lock(fd, path)
    return fd


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _sync_dir(path: Path) -> None:
    fd = os.open(path.parent if str(path.parent) else Path("."), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def create(
    path: Path,
    plan: TransactionPlan,
    ssh: Mapping[str, str | int | None],
    commit_attempts: int,
) -> Journal:
    """A new journal at ``path`` holding the plan record, synced and locked, made whole
    beside it and renamed into place (the directory synced). A journal already at ``path``
    is replaced only when its transaction finished: an unfinished one is a located error
    (resume it or roll it back first), and so is one another coordinator holds."""
    try:
        make_parents(path)
        old = _open_existing(path) if os.path.lexists(path) else None
    except OSError as exc:
        raise PlannerInputError(str(path), "create", exc.strerror or str(exc)) from None
    try:
        if old is not None:
            state = parse(_read_all(old), str(path))
            if state.finished is None:
                raise PlannerInputError(
                    str(path), "create", "holds a transaction that did not finish: "
                    f"finish it first (planner apply --resume {path}, or --rollback)"
                )  # fmt: skip
        return _write_new(path, plan_body(plan, ssh, commit_attempts))
    finally:
        if old is not None:
            os.close(old)


def _write_new(path: Path, body: dict[str, object]) -> Journal:
    fd, temp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_APPEND)
        journal = Journal(path, fd, 0)
        journal.write_record(body)
        os.replace(temp, path)
        _sync_dir(path)
    except OSError as exc:
        os.close(fd)
        Path(temp).unlink(missing_ok=True)
        raise PlannerInputError(str(path), "create", exc.strerror or str(exc)) from None
    return journal


def take_up(path: Path) -> tuple[Journal, JournalState]:
    """The journal at ``path`` locked and read, its torn last line (if any) cut off and
    synced, ready to be appended to; a located error when it is corrupt."""
    fd = _open_existing(path)
    try:
        state = parse(_read_all(fd), str(path))
        if state.torn:
            os.ftruncate(fd, state.length)
            os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        raise PlannerInputError(str(path), "read", exc.strerror or str(exc)) from None
    except BaseException:
        os.close(fd)
        raise
    return Journal(path, fd, state.next_seq), state


@dataclass(frozen=True)
class JournalState:
    """A journal as read: its plan record, every record after it, and where its whole lines
    end (``torn``: a torn last line followed and was ignored)."""

    plan: PlanRecord
    records: tuple[Record, ...]
    length: int
    torn: bool

    @property
    def next_seq(self) -> int:
        return 1 + len(self.records)

    @property
    def decided(self) -> bool:
        return any(isinstance(r, DecidedRecord) for r in self.records)

    @property
    def finished(self) -> FinishedRecord | None:
        last = self.records[-1] if self.records else None
        return last if isinstance(last, FinishedRecord) else None


def _problem(source: str, line: int, message: str) -> PlannerInputError:
    return PlannerInputError(source, f"line {line}", message)


def _body(text: bytes, source: str, line: int) -> Record:
    """One whole line's record, or a located error saying why it is corrupt."""
    try:
        decoded = text.decode("ascii")
    except UnicodeDecodeError:
        raise _problem(source, line, "not ASCII: corrupt") from None
    digest = decoded[len(_PREFIX) : len(_PREFIX) + 64]
    shaped = (
        decoded.startswith(_PREFIX)
        and decoded[len(_PREFIX) + 64 : _BODY_AT] == _MIDDLE
        and decoded.endswith("}")
        and all(c in "0123456789abcdef" for c in digest)
    )
    if not shaped:  # shaped, a line is longer than _BODY_AT: its "}" follows the middle's ":"
        raise _problem(source, line, 'not a journal line {"sha256":"…","body":…}: corrupt')
    body = decoded[_BODY_AT:-1]
    if hashlib.sha256(body.encode("ascii")).hexdigest() != digest:
        raise _problem(source, line, "its sha256 does not match its body: corrupt")
    try:
        return _record(body)
    except json.JSONDecodeError as exc:
        raise _problem(source, line, f"not JSON ({exc.msg}): corrupt") from None
    except JsonProblem as exc:
        raise _problem(source, line, f"{exc.where}: {exc.message}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise _problem(source, line, f"{printable(where)}: {first['msg']}") from None


@functools.lru_cache(maxsize=256)
def _record(body: str) -> Record:
    """A record read strictly. Kept: a resume, a claim or a test reads the same lines (the
    plan line above all, the largest) again and again; a record is a frozen value."""
    strict_json(body)
    return _RECORD.validate_json(body, strict=True)


def parse(data: bytes, source: str) -> JournalState:
    """Every record of a journal's bytes, checked line by line and against each other;
    ``source`` names it in errors. A last line without its line end is torn: ignored."""
    lines = data.split(b"\n")
    torn = lines.pop() != b""  # what follows the last line end: b"" unless a line is torn
    length = data.rfind(b"\n") + 1 if torn else len(data)
    if not lines:
        raise PlannerInputError(
            source, "line 1", "no whole record (its plan record never reached the disk whole, "
            "so no step was sent): nothing to resume"
        )  # fmt: skip
    records = [_body(text, source, n) for n, text in enumerate(lines, 1)]
    for n, record in enumerate(records):
        if record.seq != n:
            raise _problem(source, n + 1, f"record {record.seq} where {n} was due: corrupt")
    first = records[0]
    if not isinstance(first, PlanRecord):
        raise _problem(source, 1, f"a {first.kind} record where the plan was due: corrupt")
    if first.script_sha256 != script_digests(first.transaction):
        raise _problem(source, 1, "a script's sha256 differs from its record: corrupt")
    _check_plan(first.transaction, source)
    _check_order(first.transaction, records[1:], source)
    return JournalState(plan=first, records=tuple(records[1:]), length=length, torn=torn)


def _check_plan(plan: TransactionPlan, source: str) -> None:
    """What a resume hands to ssh is held to the rules ``--hosts`` and the planner are: each
    address reads back as itself through :func:`parse_hosts`, and every host and container
    name is a safe name (a control socket is named after its host)."""
    try:
        again = parse_hosts(",".join(h.spec() for h in plan.hosts))
        names = (plan.arm, *(h.host_name for h in plan.hosts))
        for name in (*names, *(s.container_name for s in steps_of(plan))):
            safe_name(name)
        for path in plan.preserve_dirs:
            safe_path(path)
    except (PlannerInputError, ValueError) as exc:
        raise _problem(source, 1, f"transaction: {printable(str(exc))}: corrupt") from None
    if again != plan.hosts:
        raise _problem(source, 1, "transaction.hosts: not as --hosts reads them: corrupt")
    why = _shape_problem(plan)
    if why is not None:
        raise _problem(source, 1, f"transaction: {why}: corrupt")


def _shape_problem(plan: TransactionPlan) -> str | None:
    """What makes ``plan`` not one :func:`planner.transaction.plan_transaction` makes: per
    rank one preserve dir, rollback and cleanup; each forward step once, on a planned host."""
    ranks = len(plan.hosts)
    undo = (plan.rollbacks, Stage.ROLLBACK), (plan.cleanups, Stage.CLEANUP)
    if len(plan.preserve_dirs) != ranks or any(len(steps) != ranks for steps, _ in undo):
        return "not one preserve dir, rollback and cleanup per host"
    for steps, stage in undo:
        if any((s.stage, s.rank) != (stage, rank) for rank, s in enumerate(steps)):
            return f"the {stage.value} steps are not one per rank, in rank order"
    seen = [(s.stage, s.rank) for s in plan.forward]
    if len(set(seen)) != len(seen) or any(
        s.stage in (Stage.ROLLBACK, Stage.CLEANUP) or not 0 <= s.rank < ranks for s in plan.forward
    ):
        return "a forward step twice, an undo step among them, or one on no planned host"
    if any(s.host_name != plan.hosts[s.rank].host_name for s in steps_of(plan)):
        return "a step names another host than its rank's"
    return None


def _check_order(plan: TransactionPlan, records: list[Record], source: str) -> None:
    """Each record follows from the ones before it, as a coordinator writes them."""
    steps = {(s.stage, s.rank) for s in steps_of(plan)}
    pending: StartedRecord | None = None
    decided = finished = False
    for n, record in enumerate(records, 2):
        why = None
        if finished:
            why = "a record after the transaction finished"
        elif isinstance(record, PlanRecord):
            why = "a second plan record"
        elif isinstance(record, StartedRecord | AnsweredRecord) and (
            (record.stage, record.rank) not in steps
        ):
            why = f"{record.stage.value} on rank {record.rank} is not a step of the plan"
        elif isinstance(record, StartedRecord) and pending is not None:
            why = "a step started before the one before it answered"
        elif isinstance(record, StartedRecord) and record.stage is Stage.COMMIT and not decided:
            why = "a commit started before the decision"
        elif isinstance(record, AnsweredRecord) and (
            pending is None
            or (pending.stage, pending.rank, pending.attempt)
            != (record.stage, record.rank, record.attempt)
        ):
            why = "an answer to a step that was not started"
        elif isinstance(record, DecidedRecord) and (decided or pending is not None):
            why = "a decision out of place"
        elif isinstance(record, FinishedRecord) and len(record.finals) != len(plan.hosts):
            why = "a finished record without every host's final state"
        if why is not None:
            raise _problem(source, n, f"{why}: corrupt")
        pending = record if isinstance(record, StartedRecord) else None
        decided = decided or isinstance(record, DecidedRecord)
        finished = isinstance(record, FinishedRecord)


def _step_of(plan: TransactionPlan, stage: Stage, rank: int) -> TransactionStep:
    return next(s for s in steps_of(plan) if (s.stage, s.rank) == (stage, rank))


def history(state: JournalState) -> tuple[StepRecord, ...]:
    """Every step the journal says was started, with its answer (a step with none: no
    answer, its effect unknown)."""
    plan = state.plan.transaction
    out: list[StepRecord] = []
    lost = StepResult(exit_code=None, stderr="no answer recorded: the coordinator was lost")
    for k, record in enumerate(state.records):
        if not isinstance(record, StartedRecord):
            continue
        nxt = state.records[k + 1] if k + 1 < len(state.records) else None
        result = lost if not isinstance(nxt, AnsweredRecord) else _answered(nxt)
        step = _step_of(plan, record.stage, record.rank)
        out.append(StepRecord(step=step, attempt=record.attempt, result=result))
    return tuple(out)


def _answered(record: AnsweredRecord) -> StepResult:
    """A result whose outcome reads as ``record``'s summary: the summary is already an
    outcome (``exit 1: LINE``), so its line is given back as what the step printed, not
    described a second time."""
    summary = printable(record.summary)
    bare = StepResult(exit_code=record.exit_code).describe()
    line = summary.removeprefix(f"{bare}: ") if summary != bare else ""
    return StepResult(exit_code=record.exit_code, stdout=line, stderr=line)


def touched_hosts(past: tuple[StepRecord, ...]) -> tuple[int, ...]:
    """The hosts a stage that may change them was *started* on, in order of first change,
    whatever came back (a started preserve with no answer may have changed its host)."""
    touched: list[int] = []
    for record in past:
        if record.step.stage in CHANGING_STAGES and record.step.rank not in touched:
            touched.append(record.step.rank)
    return tuple(touched)


def _succeeded(past: tuple[StepRecord, ...], stage: Stage) -> set[int]:
    return {r.step.rank for r in past if r.step.stage is stage and r.result.ok}


def interrupted(plan: TransactionPlan, past: tuple[StepRecord, ...]) -> StepRecord:
    """Where the forward run stopped: its last forward step started, as answered (or not);
    with none started, the first forward step, never sent."""
    forward = [r for r in past if r.step.stage not in (Stage.ROLLBACK, Stage.CLEANUP)]
    if forward:
        return forward[-1]
    never = StepResult(exit_code=None, stderr="the coordinator was lost before it", started=False)
    return StepRecord(step=plan.forward[0], attempt=1, result=never)


def finish(state: JournalState, run_step: RunStep, attempts: int) -> TransactionReport:
    """Finish the journal's transaction through ``run_step``: past the commit point, commit
    every host whose commit never succeeded (retried as :func:`commit_host` does); before
    it, roll back every touched host not yet cleaned up, the last changed first, then clean
    each up (:func:`roll_back`). The report holds the journal's steps, then these."""
    plan = state.plan.transaction
    past = history(state)
    ranks = range(len(plan.hosts))
    if state.decided:
        done = _succeeded(past, Stage.COMMIT)
        records: list[StepRecord] = []
        pending: set[int] = set()
        for step in (s for s in plan.forward if s.stage is Stage.COMMIT and s.rank not in done):
            records += commit_host(step, run_step, attempts)
            if not records[-1].result.ok:
                pending.add(step.rank)
        finals = tuple(
            HostFinal.COMMIT_PENDING if r in pending else HostFinal.COMMITTED for r in ranks
        )
        return TransactionReport(
            plan=plan, records=(*past, *records), failure=None, rollback=(), finals=finals
        )
    order = rollback_order(touched_hosts(past))
    clean = _succeeded(past, Stage.CLEANUP)
    undone, restored = roll_back(plan, tuple(r for r in order if r not in clean), run_step)
    for rank in order:
        restored.setdefault(rank, HostFinal.RESTORED)
    return TransactionReport(
        plan=plan,
        records=(*past, *undone),
        failure=interrupted(plan, past),
        rollback=order,
        finals=tuple(restored.get(r, HostFinal.UNTOUCHED) for r in ranks),
    )


def resume(
    journal: Journal,
    state: JournalState,
    run_step: RunStep,
    attempts: int,
    mode: Literal["resume", "rollback"] = "resume",
) -> TransactionReport:
    """:func:`finish`, each step journaled (started, answered), then ``finished``."""
    journal.write_record({"kind": "resumed", "mode": mode})
    report = finish(state, announced(run_step, journal.record), attempts)
    journal.finish(report)
    return report


def verdict(state: JournalState, report: TransactionReport) -> str:
    """The resume's verdict: what it finished, from where the coordinator was lost."""
    arm = report.plan.arm
    if report.failure is None:
        return report.verdict().replace(f"apply {arm}: ", f"apply {arm}: resumed: ", 1)
    stop = report.failure
    at = f"the run stopped at {stop.step.label} ({stop.result.describe()})"
    if not report.rollback:
        return f"apply {arm}: resumed: ROLLED BACK: {at}; no host was changed"
    left = [
        report.plan.hosts[i].host_name
        for i, f in enumerate(report.finals)
        if f not in (HostFinal.RESTORED, HostFinal.UNTOUCHED)
    ]
    if not left:
        return f"apply {arm}: resumed: ROLLED BACK: {at}; every touched host restored"
    return f"apply {arm}: resumed: NOT RESTORED: {at}; {', '.join(left)} not restored"
