"""Declared mutants of the transaction's coordinator, caught on the sshd fleet (witness
``transaction_fleet``).

Each replaces one function of :mod:`planner.transaction` or :mod:`planner.coordinator` with a
defect a coordinator could plausibly have: every stage script is still the planner's, and
each host still runs what it is sent.
"""

from __future__ import annotations

from mutation import mutant
from planner.apply import Stage
from planner.coordinator import (
    SshTransport,
)
from planner.journal import touched_hosts
from planner.transaction import (
    HostFinal,
    RunStep,
    StepRecord,
    StepResult,
    TransactionPlan,
    TransactionStep,
)

W = "transaction_fleet"
ROLLBACK_ORDER = f"{W}.rollback_reaches_every_touched_host_last_changed_first"
REPORT = f"{W}.the_report_names_what_ran_and_what_each_host_was_left_in"
RESTORED_OR_PLANNED = f"{W}.every_host_ends_restored_or_planned_byte_for_byte"
SIGNAL = f"{W}.a_signal_before_the_decision_abandons_the_step_and_restores_every_host"
KILLED = f"{W}.a_coordinator_killed_mid_apply_is_resumed_to_every_host_restored"
DROPPED = f"{W}.a_rollback_whose_connection_dropped_runs_again_and_restores_its_host"


@mutant(replaces="planner.transaction.rollback_order", turns_red={KILLED, ROLLBACK_ORDER})
def rollback_in_forward_order(touched: tuple[int, ...]) -> tuple[int, ...]:
    """Rollback runs on the touched hosts in the order they were changed, head first, so the
    head is restored while its followers still run the new arm against it."""
    return touched


@mutant(
    replaces="planner.transaction.rollback_order",
    turns_red={KILLED, SIGNAL, DROPPED, ROLLBACK_ORDER, RESTORED_OR_PLANNED, REPORT},
    independent=False,
)
def rollback_skips_the_first_host_changed(touched: tuple[int, ...]) -> tuple[int, ...]:
    """Rollback stops one host short: the first host changed (the head, when it was
    preserved) keeps the new arm, or its stopped previous one, and the report says it was
    never touched."""
    return tuple(reversed(touched))[:-1]


@mutant(
    replaces="planner.transaction.rollback_order",
    turns_red={ROLLBACK_ORDER, REPORT},
    independent=False,
)
def rollback_every_host(touched: tuple[int, ...]) -> tuple[int, ...]:
    """Rollback runs on every host of the plan, touched or not: a host whose preserve never
    started gets a rollback (and cleanup) it has nothing for."""
    return (3, 2, 1, 0)


@mutant(
    replaces="planner.transaction.stops_the_run",
    turns_red={
        SIGNAL,
        DROPPED,
        f"{W}.the_run_stops_at_the_first_failure",
        ROLLBACK_ORDER,
        RESTORED_OR_PLANNED,
        f"{W}.lost_connections_and_silent_hosts_fail_their_step",
        REPORT,
    },
)
def continue_after_a_failure(result: StepResult, decided: bool) -> bool:
    """A failed step does not stop the run: the coordinator goes on to the next step, and on
    to commit."""
    return False


@mutant(
    replaces="planner.transaction.touched_after",
    turns_red={ROLLBACK_ORDER, RESTORED_OR_PLANNED, REPORT},
)
def touched_only_once_preserve_succeeded(
    touched: tuple[int, ...], step: TransactionStep, result: StepResult
) -> tuple[int, ...]:
    """A host counts as touched only when its preserve or apply succeeded, so a host whose
    preserve failed after its changes, or lost its connection, is never rolled back."""
    if step.stage in (Stage.PRESERVE, Stage.APPLY) and result.ok and step.rank not in touched:
        return (*touched, step.rank)
    return touched


@mutant(
    replaces="planner.transaction.commit_host",
    turns_red={f"{W}.a_clean_run_commits_every_host_to_its_plan", RESTORED_OR_PLANNED, REPORT},
)
def commit_is_not_retried(
    step: TransactionStep, run_step: RunStep, attempts: int
) -> tuple[StepRecord, ...]:
    """A commit that fails once is left pending: the host runs the plan with its unit not
    enabled and the backup kept, though commit is safe to run again."""
    return (StepRecord(step=step, attempt=1, result=run_step(step)),)


@mutant(
    replaces="planner.transaction.roll_back",
    turns_red={KILLED, SIGNAL, DROPPED, ROLLBACK_ORDER, RESTORED_OR_PLANNED},
)
def no_cleanup_after_rollback(
    plan: TransactionPlan, order: tuple[int, ...], run_step: RunStep
) -> tuple[tuple[StepRecord, ...], dict[int, HostFinal]]:
    """Rollback restores each touched host but never runs cleanup, so every preserve dir (the
    saved unit, the was-active marker) stays behind and the next preserve refuses."""
    records: list[StepRecord] = []
    finals: dict[int, HostFinal] = {}
    for rank in order:
        step = plan.rollbacks[rank]
        records.append(StepRecord(step=step, attempt=1, result=run_step(step)))
        finals[rank] = HostFinal.RESTORED if records[-1].result.ok else HostFinal.ROLLBACK_FAILED
    return tuple(records), finals


# No declared mutant replaces planner.coordinator.caught (no signal handlers: SIGTERM kills the
# coordinator between steps, hosts left changed): the forked coordinator is the only caller,
# and the harness, which records what each claim calls in its own process, never sees that
# call and judges such a mutant green without running it. Checked by hand on the fleet (exit
# -15, no rollback); a_signal_stops_rollback_and_commit_too turns the same two claims red.


@mutant(
    replaces="planner.coordinator.SshTransport._stops",
    turns_red={SIGNAL, f"{W}.a_signal_after_the_decision_lets_every_host_commit"},
)
def a_signal_stops_rollback_and_commit_too(self: SshTransport, step: TransactionStep) -> str | None:
    """A signal stops every step, not only the forward ones: the rollback it should have
    started is never run, and after the decision the remaining commits are left pending."""
    stopped = self._stops(step)  # the dispatcher runs the original from here
    received = [] if self.interruptions is None else self.interruptions.received
    return stopped or (received[0] if received else None)


@mutant(replaces="planner.transaction.undo_host", turns_red={DROPPED})
def a_dropped_rollback_is_not_run_again(
    step: TransactionStep, run_step: RunStep, attempts: int
) -> tuple[StepRecord, ...]:
    """A rollback whose connection dropped is reported failed, though it may have finished
    on its host: the host is left \"rollback failed\" with its backup, for no reason."""
    return (StepRecord(step=step, attempt=1, result=run_step(step)),)


@mutant(replaces="planner.journal.touched_hosts", turns_red={KILLED})
def resume_rolls_back_only_where_apply_started(past: tuple[StepRecord, ...]) -> tuple[int, ...]:
    """The resume rolls back only the hosts an apply was started on: a host whose preserve
    ran (unit stopped, previous container renamed aside) but whose apply never came is left
    with its arm down."""
    applied = {r.step.rank for r in past if r.step.stage is Stage.APPLY}
    return tuple(rank for rank in touched_hosts(past) if rank in applied)
