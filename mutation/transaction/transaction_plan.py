"""Declared mutants of the transaction's inputs and commands, caught without a fleet
(witness ``transaction_plan``); the coordinator's decision mutants live in
``mutation/transaction/transaction_fleet.py``, and what they turn red here is recorded in
``mutation/red_sets.lock``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mutation import mutant
from planner.apply import ApplyStep, Stage
from planner.arm_launch import DryRun
from planner.coordinator import SshSettings, common_options, render_dry_run
from planner.journal import DecidedRecord, JournalState, finish, parse, touched_hosts
from planner.transaction import (
    COMMIT_ATTEMPTS,
    Gate,
    HostAddress,
    JournalEvent,
    OnEvent,
    RunStep,
    StepRecord,
    StepResult,
    StepStarted,
    TransactionPlan,
    TransactionReport,
    TransactionStep,
    announced,
    ask_gate,
    coordinate,
    forward_order,
    plan_transaction,
    step_line,
    undo_host,
)
from planner.values import printable

W = "transaction_plan"
REPORT = f"{W}.the_report_lists_every_step_then_every_host_then_the_verdict"
COMMIT_ADMISSION = f"{W}.admission_is_asked_again_at_the_commit_point_and_a_refusal_rolls_back"
DRY_RUN_ORDER = f"{W}.the_dry_run_lists_every_command_in_the_order_it_would_run"
ROLLBACK = f"{W}.a_failure_anywhere_rolls_back_exactly_the_touched_hosts_in_reverse"
ESCAPED = f"{W}.what_a_host_prints_reaches_the_report_escaped"
JOURNAL = f"{W}.a_journal_holds_each_step_on_disk_before_it_is_sent"
UNDO_AGAIN = f"{W}.an_unanswered_undo_runs_again_and_an_answered_failure_is_final"


@mutant(
    replaces="planner.coordinator.common_options",
    turns_red={f"{W}.every_ssh_command_is_strict_and_sends_the_script_with_its_sha256"},
)
def unknown_host_keys_are_accepted(settings: SshSettings, host: HostAddress) -> list[str]:
    """ssh accepts and records a host key it has never seen (accept-new), so the first
    connection to an impostor at a host's address runs the stages there."""
    options = common_options(settings, host)
    return [
        o.replace("StrictHostKeyChecking=yes", "StrictHostKeyChecking=accept-new") for o in options
    ]


@mutant(replaces="planner.coordinator.render_dry_run", turns_red={DRY_RUN_ORDER})
def the_dry_run_lists_rollback_head_first(
    plan: TransactionPlan, settings: SshSettings, scripts: Path, attempts: int
) -> list[str]:
    """The dry run lists the rollbacks and cleanups head first, the reverse of the order the
    coordinator runs them, so an operator reading it to undo by hand undoes the head first."""
    lines = render_dry_run(plan, settings, scripts, attempts)
    undo = [line for line in lines if line.startswith(("rollback@", "cleanup@"))]
    kept = [line for line in lines if line not in undo]
    rollbacks = [line for line in undo if line.startswith("rollback@")][::-1]
    cleanups = [line for line in undo if line.startswith("cleanup@")][::-1]
    return [*kept, *rollbacks, *cleanups]


@mutant(replaces="planner.transaction.step_line", turns_red={REPORT})
def steps_numbered_from_0(n: int, record: StepRecord) -> str:
    """The report numbers the steps from 0, so the count of steps that ran is one off
    wherever an operator reads it from the last number."""
    return step_line(n - 1, record)


@mutant(
    replaces="planner.transaction.StepResult.describe",
    turns_red={
        f"{W}.a_steps_outcome_reads_as_its_status_and_its_last_line",
        ROLLBACK,
        f"{W}.a_rollback_or_cleanup_that_fails_is_named_and_the_rest_go_on",
        REPORT,
    },
)
def first_line_of_the_output(self: StepResult) -> str:
    """A step's outcome quotes the first line it printed, not the last, so a stage that
    logs its progress is reported by its opening line instead of its reason for failing."""
    full = self.describe()  # the dispatcher runs the original from here
    text = self.stderr if self.exit_code != 0 and self.stderr.strip() else self.stdout
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return full
    return full.removesuffix(printable(lines[-1].strip())) + printable(lines[0].strip())


@mutant(
    replaces="planner.transaction.plan_transaction",
    turns_red={f"{W}.a_plan_that_did_not_render_is_not_applied"},
)
def unrendered_plan_applied_as_nothing(
    run: DryRun, hosts: tuple[HostAddress, ...]
) -> TransactionPlan:
    """A dry run whose launch did not render becomes an empty transaction, which commits
    nothing and exits 0 as if every host had been applied."""
    if run.launch is None:
        return TransactionPlan(
            arm=run.arm, hosts=hosts, preserve_dirs=(), forward=(), rollbacks=(), cleanups=()
        )
    return plan_transaction(run, hosts)


@mutant(
    replaces="planner.transaction.coordinate",
    turns_red={f"{W}.the_report_records_every_call_as_it_was_made_and_answered"},
    # not combined: with only the last line kept, first_line_of_the_output quotes the last
    # line again, and the two defects hide each other from the report's lines
    independent=False,
)
def the_report_keeps_only_each_steps_last_line(
    plan: TransactionPlan,
    run_step: RunStep,
    commit_attempts: int = COMMIT_ATTEMPTS,
    *,
    gate: Gate | None = None,
    on_event: OnEvent | None = None,
) -> TransactionReport:
    """The report keeps of each step's answer only the line it quotes (the last one of
    stdout and of stderr): the operator's summary reads the same, but whoever reads the
    report for what a stage printed before it failed finds one line."""

    def last_lines(step: TransactionStep) -> StepResult:
        said = run_step(step)
        return said.model_copy(
            update={"stdout": _last_line(said.stdout), "stderr": _last_line(said.stderr)}
        )

    # the dispatcher runs the original
    return coordinate(plan, last_lines, commit_attempts, gate=gate, on_event=on_event)


def _last_line(text: str) -> str:
    lines = [line for line in text.split("\n") if line.strip()]
    return f"{lines[-1]}\n" if lines else text


@mutant(replaces="planner.transaction.coordinate", turns_red={COMMIT_ADMISSION})
def the_gate_is_never_asked(
    plan: TransactionPlan,
    run_step: RunStep,
    commit_attempts: int = COMMIT_ATTEMPTS,
    *,
    gate: Gate | None = None,
    on_event: OnEvent | None = None,
) -> TransactionReport:
    """Admission is decided once, before preflight, and never asked again: a lease that
    lapsed, or a host released, during a half-hour transaction still commits everywhere."""
    # the dispatcher runs the original
    return coordinate(plan, run_step, commit_attempts, on_event=on_event)


@mutant(replaces="planner.transaction.ask_gate", turns_red={COMMIT_ADMISSION})
def a_gate_that_cannot_answer_admits(gate: Gate) -> str | None:
    """A gate that raised (the log unreadable, a bug) counts as admitting: the transaction
    commits on an admission nobody could check."""
    answer = ask_gate(gate)
    return None if answer is not None and answer.startswith("it could not be checked") else answer


@mutant(
    replaces="planner.transaction.StepResult.describe",
    turns_red={ESCAPED},
    independent=False,  # first_line_of_the_output replaces describe too
)
def what_a_host_prints_is_quoted_raw(self: StepResult) -> str:
    """A step's last line is quoted as the host printed it: an escape sequence in a stage's
    output retitles, clears or recolours the operator's terminal, and a bidi override
    reverses what the report says."""
    full = self.describe()  # the dispatcher runs the original from here
    text = self.stderr if self.exit_code != 0 and self.stderr.strip() else self.stdout
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return full
    return full.removesuffix(printable(lines[-1].strip())) + lines[-1].strip()


# Dependent: it also breaks transaction_fleet's kill claim, whose coordinator runs in a process
# forked from the claim's; the harness records which targets a claim calls in the claim's own
# process only, so alone this mutant never runs that claim (not reached), and in the combined
# run another member that reaches it would show a red no member's solo run recorded.
@mutant(replaces="planner.transaction.announced", turns_red={JOURNAL}, independent=False)
def the_start_is_journaled_once_the_step_answered(run_step: RunStep, on_event: OnEvent) -> RunStep:
    """A step's ``started`` record is written once the step came back, with its answer: a
    coordinator lost while the step ran leaves no trace of it, and the resume takes a host
    whose preserve was running for untouched."""
    held: list[JournalEvent] = []

    def later(event: JournalEvent) -> None:
        if isinstance(event, StepStarted):
            held.append(event)
            return
        on_event(held.pop())
        on_event(event)

    return announced(run_step, later)  # the dispatcher runs the original


@mutant(
    replaces="planner.journal.touched_hosts",
    turns_red={f"{W}.a_journal_cut_before_the_decision_resumes_to_every_touched_host_rolled_back"},
)
def resume_forgets_a_started_preserve(past: tuple[StepRecord, ...]) -> tuple[int, ...]:
    """The resume counts a host touched only once its preserve or apply answered: a host
    whose preserve was running when the coordinator was lost keeps whatever it changed."""
    return touched_hosts(tuple(r for r in past if r.result.exit_code is not None))


@mutant(
    replaces="planner.journal.finish",
    turns_red={f"{W}.a_journal_cut_after_the_decision_resumes_to_commit_on_every_host"},
)
def resume_rolls_back_after_the_commit_point(
    state: JournalState, run_step: RunStep, attempts: int
) -> TransactionReport:
    """The resume ignores the decision and rolls back: hosts already committed (backup
    dropped) are "rolled back" with nothing to restore, and the others lose the new arm."""
    kept = tuple(r for r in state.records if not isinstance(r, DecidedRecord))
    return finish(dataclasses.replace(state, records=kept), run_step, attempts)


@mutant(
    replaces="planner.journal.parse",
    turns_red={f"{W}.a_torn_last_line_is_ignored_and_a_corrupt_line_refused_located"},
)
def a_torn_last_line_is_refused(data: bytes, source: str) -> JournalState:
    """A last line cut short is read as a whole one, so the journal of every coordinator
    lost mid-write is refused as corrupt and its transaction cannot be finished."""
    return parse(data if not data or data.endswith(b"\n") else data + b"\n", source)


@mutant(
    replaces="planner.transaction.forward_order",
    turns_red={
        f"{W}.a_commit_is_retried_and_left_pending_only_after_every_attempt",
        ROLLBACK,
        JOURNAL,
        DRY_RUN_ORDER,
        f"{W}.the_plan_is_the_planners_order_with_commit_last",
        REPORT,
        COMMIT_ADMISSION,
        ESCAPED,
    },
)
def commit_before_readback_everywhere(apply_order: tuple[ApplyStep, ...]) -> tuple[ApplyStep, ...]:
    """The transaction is committed on every host right after apply, before any readback or
    front door: a rank that runs something other than the plan is found only after the
    backups are gone."""
    steps = forward_order(apply_order)
    late = (Stage.READBACK, Stage.FRONT_DOOR)
    return (*(s for s in steps if s.stage not in late), *(s for s in steps if s.stage in late))


@mutant(replaces="planner.transaction.undo_host", turns_red={UNDO_AGAIN})
def an_undo_runs_once_whatever_it_answered(
    step: TransactionStep, run_step: RunStep, attempts: int
) -> tuple[StepRecord, ...]:
    """A rollback or cleanup whose connection dropped is not run again: the host it may have
    left half undone is reported as failed, though running it again was safe."""
    return undo_host(step, run_step, 1)


@mutant(replaces="planner.transaction.unanswered", turns_red={UNDO_AGAIN})
def only_a_dropped_connection_counts_as_unanswered(result: StepResult) -> bool:
    """Only ssh's 255 is taken for no answer: an undo that timed out with no exit status is
    taken as answered, and never run again."""
    return result.exit_code == 255
