"""Declared mutants of the apply journal's rules (witness ``apply_journal``): each is an edit
a careless change to :mod:`planner.journal` (or to what ``planner apply --resume`` says of a
journal that leaves nothing to run) could make. What they turn red in other
witnesses is recorded in ``mutation/red_sets.lock``."""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from mutation import mutant
from planner import coordinator, journal
from planner import journal as planner_journal
from planner.journal import (
    AnsweredRecord,
    Journal,
    JournalError,
    JournalState,
    Record,
    create,
    take_up,
)
from planner.refusal import PlannerInputError
from planner.transaction import (
    RunStep,
    StepRecord,
    StepResult,
    TransactionPlan,
    TransactionReport,
    TransactionStep,
    announced,
    step_line,
)
from planner.values import printable

W = "apply_journal"
DISK = f"{W}.a_record_the_disk_cannot_take_stops_the_run_before_its_step"
SETTLED = f"{W}.a_journal_that_leaves_nothing_to_run_is_said_so_before_anything_connects"
FINISHED = f"{W}.a_resume_finishes_the_run_through_the_ssh_client_it_is_given"
STOPPED = f"{W}.a_resume_the_disk_stops_sends_nothing_and_is_resumed_later"


@mutant(
    replaces="planner.journal._body",
    turns_red={f"{W}.a_line_that_is_not_a_sealed_record_is_refused_with_its_reason"},
)
def the_seal_is_read_in_any_case(text: bytes, source: str, line: int) -> Record:
    """A seal in capitals is read as the same hex (the contract's is lowercase)."""
    at = len(b'{"sha256":"')
    return journal._body(text[:at] + text[at : at + 64].lower() + text[at + 64 :], source, line)


@mutant(
    replaces="planner.journal._check_order",
    turns_red={f"{W}.a_record_that_does_not_follow_from_the_ones_before_is_refused_located"},
)
def what_follows_the_finish_is_not_read(
    plan: TransactionPlan, records: list[Record], source: str
) -> None:
    """The order is checked up to the finished record, and what follows it is let be."""
    kinds = [r.kind for r in records]
    end = kinds.index("finished") + 1 if "finished" in kinds else len(records)
    journal._check_order(plan, records[:end], source)


@mutant(
    replaces="planner.journal._shape_problem",
    turns_red={f"{W}.a_plan_record_no_planner_would_write_is_refused"},
)
def the_plan_records_steps_are_taken_as_written(plan: TransactionPlan) -> str | None:
    """Only the preserve dirs are counted; the steps are taken as the record lists them."""
    problem = journal._shape_problem(plan)
    return problem if problem is not None and "preserve dir" in problem else None


@mutant(
    replaces="planner.journal._open_existing",
    turns_red={f"{W}.a_journal_is_taken_up_only_as_its_owner_left_it"},
)
def any_file_is_taken_up(path: Path) -> int:
    """The journal is opened and locked, whatever it is and whoever can write it."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
    journal._lock(fd, path)
    return fd


@mutant(
    replaces="planner.journal._lock",
    turns_red={f"{W}.one_coordinator_at_a_time_holds_a_journal"},
)
def a_taken_up_journal_is_not_locked(fd: int, path: Path) -> None:
    """A resume takes the journal up without its lock (a new journal is still locked)."""


@mutant(
    replaces="planner.journal.Journal.close",
    turns_red={
        f"{W}.one_coordinator_at_a_time_holds_a_journal",
        f"{W}.a_journal_is_taken_up_only_as_its_owner_left_it",
        f"{W}.a_new_journal_replaces_only_a_finished_one_whole",
        f"{W}.a_torn_last_line_is_cut_off_before_a_resume_appends",
        DISK,
        SETTLED,
        FINISHED,
        STOPPED,
    },
)
def a_closed_journal_keeps_its_descriptor(self: Journal) -> None:
    """Closing a journal forgets its descriptor without closing it: the lock stays held, so
    whatever takes the journal up next in that process is refused."""
    self.fd = -1


@mutant(
    replaces="planner.journal.create",
    turns_red={
        f"{W}.a_new_journal_replaces_only_a_finished_one_whole",
        f"{W}.one_coordinator_at_a_time_holds_a_journal",
    },
)
def a_new_journal_replaces_any_old_one(
    path: Path, plan: TransactionPlan, ssh: dict[str, str | int | None], commit_attempts: int
) -> Journal:
    """A new apply removes the journal at its path first, finished or not."""
    if path.is_file():
        path.unlink()
    return create(path, plan, ssh, commit_attempts)


@mutant(
    replaces="planner.journal.take_up",
    turns_red={
        f"{W}.a_torn_last_line_is_cut_off_before_a_resume_appends",
        DISK,
    },
)
def the_torn_fragment_is_left_in_place(path: Path) -> tuple[Journal, JournalState]:
    """The journal is taken up with its torn fragment left where it was (records are then
    appended after it)."""
    data = path.read_bytes() if path.is_file() else b""
    held, state = take_up(path)
    os.write(held.fd, data[state.length :])
    return held, state


@mutant(
    replaces="planner.journal._digest",
    turns_red={f"{W}.an_answer_records_the_size_and_sha256_of_each_stream_and_a_bounded_summary"},
)
def a_streams_size_is_counted_in_characters(text: str) -> tuple[int, str]:
    """What a step printed is measured in characters, not in the bytes the host sent."""
    data = text.encode("utf-8", errors="surrogateescape")
    return len(text), hashlib.sha256(data).hexdigest()


@mutant(
    replaces="planner.journal._answered",
    turns_red={f"{W}.a_resume_says_what_it_finished_from_where_the_run_stopped"},
)
def a_recorded_outcome_is_described_again(record: AnsweredRecord) -> StepResult:
    """The answer's summary, already an outcome, is described a second time when quoted
    (``exit 1: exit 1: …``)."""
    return StepResult(exit_code=record.exit_code, stderr=printable(record.summary))


@mutant(
    replaces="planner.journal.interrupted",
    turns_red={f"{W}.a_resume_says_what_it_finished_from_where_the_run_stopped"},
)
def a_step_never_sent_is_said_to_be_unanswered(
    plan: TransactionPlan, past: tuple[StepRecord, ...]
) -> StepRecord:
    """A run lost before its first step is said to have stopped at a step that got no answer
    in time, its effect unknown: the operator goes looking for an effect that cannot be."""
    stop = journal.interrupted(plan, past)
    return stop.model_copy(update={"result": stop.result.model_copy(update={"started": True})})


@mutant(replaces="planner.journal.Journal.write_record", turns_red={DISK})
def a_short_write_is_taken_as_whole(self: Journal, body: Mapping[str, object]) -> None:
    """A record the disk took only part of is counted as written: the step it announces is
    sent, and the next record is appended after the torn part."""
    try:
        os.write(self.fd, journal.line_of({"seq": self.next_seq, **body}))
        os.fsync(self.fd)
    except OSError as exc:
        raise JournalError(exc.errno, f"cannot append record {self.next_seq}: {exc.strerror}",
                           str(self.path)) from None  # fmt: skip
    self.next_seq += 1


@mutant(replaces="planner.journal._write_new", turns_red={DISK})
def a_new_journal_that_failed_leaves_its_part(path: Path, body: dict[str, object]) -> Journal:
    """A new journal the disk could not take is refused, and the part written is left
    beside its path."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        written = Journal(path, fd, 0)
        written.write_record(body)
        os.replace(temp, path)
        journal._sync_dir(path)
    except OSError as exc:
        os.close(fd)
        raise PlannerInputError(str(path), "create", exc.strerror or str(exc)) from None
    return written


@mutant(replaces="planner.coordinator._nothing_to_run", turns_red={SETTLED, FINISHED})
def a_finished_journal_exits_as_its_run_did(
    journal: Journal, state: JournalState, mode: Literal["resume", "rollback"]
) -> int | None:
    """A finished transaction is said so, and the resume exits with the run's own code (10
    for one that rolled back), as though it had run again."""
    code = coordinator._nothing_to_run(journal, state, mode)
    return state.finished.exit_code if code == 0 and state.finished is not None else code


@mutant(replaces="planner.coordinator._nothing_to_run", turns_red={SETTLED})
def a_finished_journal_is_said_so_before_a_rollback_is_refused(
    journal: Journal, state: JournalState, mode: Literal["resume", "rollback"]
) -> int | None:
    """The two checks in the other order: ``--rollback`` of a journal that committed says it
    finished, exit 0, instead of refusing the rollback it asked for."""
    return coordinator._nothing_to_run(journal, state, "resume" if state.finished else mode)


@mutant(replaces="planner.coordinator._finish", turns_red={FINISHED})
def a_resume_numbers_its_steps_from_1(
    journal: Journal,
    state: JournalState,
    mode: Literal["resume", "rollback"],
    args: argparse.Namespace,
) -> int:
    """``planner apply --resume`` counts its step lines without the journal's own steps: the
    resumed run's lines start again at 1, as though nothing had run before."""
    plan = state.plan.transaction
    where = printable(str(journal.path))
    names = ", ".join(h.host_name for h in plan.hosts)
    point = "past the commit point" if state.decided else "before the commit point"
    say = coordinator._say
    say(f"apply {plan.arm}: {mode} {where}: {len(plan.hosts)} hosts ({names}), {point}")
    done: list[StepRecord] = []

    def run_step(step: TransactionStep) -> StepResult:
        result = transport(step)
        attempt = 1 + sum(r.step == step for r in done)
        done.append(StepRecord(step=step, attempt=attempt, result=result))
        say(step_line(len(done), done[-1]))
        return result

    with coordinator.caught() as interruptions:
        settings = coordinator.settings_of(args)
        progress = coordinator.progress_of(args)
        with coordinator.SshTransport(plan, settings, interruptions, say, progress) as transport:
            try:
                report = planner_journal.resume(
                    journal, state, run_step, args.commit_attempts, mode
                )
            except JournalError as exc:
                return coordinator._journal_failed(exc)
        for text in [
            *report.host_lines(),
            *coordinator.signal_lines(report, interruptions.received),
        ]:
            say(text)
        say(planner_journal.verdict(state, report))
    return report.exit_code


@mutant(replaces="planner.journal.resume", turns_red={FINISHED})
def a_resume_does_not_journal_its_finish(
    journal: Journal,
    state: JournalState,
    run_step: RunStep,
    attempts: int,
    mode: Literal["resume", "rollback"] = "resume",
) -> TransactionReport:
    """A resume journals each step it runs but not that it finished: the next ``--resume``
    of the same journal takes the run up again."""
    journal.write_record({"kind": "resumed", "mode": mode})
    return planner_journal.finish(state, announced(run_step, journal.record), attempts)


@mutant(replaces="planner.coordinator._journal_failed", turns_red={STOPPED})
def a_run_the_journal_stopped_exits_as_rolled_back(exc: JournalError) -> int:
    """A run the journal stopped says so, but exits 10, as though every host were restored:
    a script gating on the exit code takes hosts that may be changed for restored ones."""
    coordinator._journal_failed(exc)
    return 10
