"""Declared mutants of the transaction's inputs and commands, caught without a fleet
(witness ``transaction_plan``); the coordinator's decision mutants live in
``mutation/transaction_fleet.py`` and name this witness's claims they turn red too."""

from __future__ import annotations

from pathlib import Path

from mutation import mutant
from planner.arm_launch import DryRun
from planner.coordinator import SshSettings, common_options, render_dry_run
from planner.transaction import (
    COMMIT_ATTEMPTS,
    HostAddress,
    OnEvent,
    RunStep,
    StepRecord,
    StepResult,
    TransactionPlan,
    TransactionReport,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
    step_line,
)

W = "transaction_plan"
C = "coordinator_cli"
T = "ssh_transport"


@mutant(
    replaces="planner.transaction.parse_hosts",
    turns_red={
        f"{W}.hosts_parse_into_addresses_or_located_errors",
        f"{C}.a_bad_hosts_list_exits_2_with_one_located_line_and_writes_nothing",
    },
)
def a_host_named_twice_is_accepted(text: str) -> tuple[HostAddress, ...]:
    """A host named twice in --hosts is taken at its last address instead of refused, so a
    typo sends one host's stages to another machine."""
    last: dict[str, str] = {}
    for item in text.split(","):
        last[item.partition("=")[0].strip()] = item
    return parse_hosts(",".join(last.values()))


@mutant(
    replaces="planner.coordinator.common_options",
    turns_red={
        f"{W}.every_ssh_command_is_strict_and_sends_the_script_with_its_sha256",
        f"{C}.the_dry_run_prints_every_ssh_command_in_run_order_with_the_options_given",
        f"{C}.the_dry_run_writes_every_stage_script_byte_for_byte",
        f"{T}.an_unknown_host_key_or_a_closed_port_fails_the_step_with_255",
    },
)
def unknown_host_keys_are_accepted(settings: SshSettings, host: HostAddress) -> list[str]:
    """ssh accepts and records a host key it has never seen (accept-new), so the first
    connection to an impostor at a host's address runs the stages there."""
    options = common_options(settings, host)
    return [
        o.replace("StrictHostKeyChecking=yes", "StrictHostKeyChecking=accept-new") for o in options
    ]


@mutant(
    replaces="planner.coordinator.render_dry_run",
    turns_red={
        f"{W}.the_dry_run_lists_every_command_in_the_order_it_would_run",
        f"{C}.the_dry_run_prints_every_ssh_command_in_run_order_with_the_options_given",
    },
)
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


@mutant(
    replaces="planner.transaction.step_line",
    turns_red={
        f"{W}.the_report_lists_every_step_then_every_host_then_the_verdict",
        f"{T}.planner_apply_runs_each_step_over_ssh_and_reports_what_it_left",
    },
)
def steps_numbered_from_0(n: int, record: StepRecord) -> str:
    """The report numbers the steps from 0, so the count of steps that ran is one off
    wherever an operator reads it from the last number."""
    return step_line(n - 1, record)


@mutant(
    replaces="planner.transaction.StepResult.describe",
    turns_red={
        f"{W}.a_steps_outcome_reads_as_its_status_and_its_last_line",
        f"{W}.a_failure_anywhere_rolls_back_exactly_the_touched_hosts_in_reverse",
        f"{W}.a_rollback_or_cleanup_that_fails_is_named_and_the_rest_go_on",
        f"{W}.the_report_lists_every_step_then_every_host_then_the_verdict",
    },
)
def first_line_of_the_output(self: StepResult) -> str:
    """A step's outcome quotes the first line it printed, not the last, so a stage that
    logs its progress is reported by its opening line instead of its reason for failing."""
    full = self.describe()  # the dispatcher runs the original from here
    text = self.stderr if self.exit_code != 0 and self.stderr.strip() else self.stdout
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return full
    return full.removesuffix(lines[-1].strip()) + lines[0].strip()


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
    return coordinate(plan, last_lines, commit_attempts, on_event)


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return f"{lines[-1]}\n" if lines else text
