"""Declared mutants of ``planner apply``'s command line (witness ``coordinator_cli``): each
replaces one function of :mod:`planner.coordinator` (or the ``--hosts`` reader) with a
defect the operator would meet before any host is touched."""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from mutation import mutant
from planner.apply import Stage
from planner.arm_launch import DryRun
from planner.coordinator import (
    SshSettings,
    add_parser,
    admission_gate,
    check_ssh_options,
    dry_run_document,
    journal_of,
    positive_count,
    run,
    run_resume,
    settings_of,
    write_scripts,
)
from planner.formats import ApplyDryRun
from planner.journal import Journal
from planner.refusal import PlannerInputError
from planner.report import write_atomically
from planner.transaction import (
    HostAddress,
    TransactionPlan,
    TransactionStep,
    ipv6_host,
    parse_hosts,
)

W = "coordinator_cli"
HOSTS = f"{W}.a_bad_hosts_list_exits_2_with_one_located_line_and_writes_nothing"
SCRIPT_SET = f"{W}.a_script_set_is_replaced_whole_or_left_as_it_was"
LIVE_LOG = f"{W}.a_real_apply_reads_the_live_log_and_never_a_chosen_time_or_a_fixture"
BAD_SSH = f"{W}.a_bad_ssh_client_or_ssh_file_exits_2_before_anything_runs"
UNWRITABLE = f"{W}.scripts_that_cannot_be_written_exit_2_and_print_no_command"
WRITTEN = f"{W}.the_dry_run_writes_every_stage_script_byte_for_byte"
CTRL_C = f"{W}.a_ctrl_c_as_the_new_set_goes_in_leaves_the_previous_one"
TERSE = f"{W}.the_terse_dry_run_numbers_each_step_that_runs_under_a_heading_for_its_phase"
JSON_SAYS = f"{W}.the_json_dry_run_says_what_the_text_one_says"
JOURNAL_ALONE = f"{W}.a_resume_takes_its_plan_from_the_journal_alone"


# Dependent: ``planner apply``'s own settings also reach the fleet's kill claim, whose
# coordinator is the command line run in a forked process that the harness cannot see calls
# from (see mutation/transaction/transaction_plan.py,
# the_start_is_journaled_once_the_step_answered).
@mutant(
    replaces="planner.coordinator.settings_of",
    turns_red={f"{W}.the_dry_run_prints_every_ssh_command_in_run_order_with_the_options_given"},
    independent=False,
)
def known_hosts_option_ignored(args: argparse.Namespace) -> SshSettings:
    """``--known-hosts`` is read and then dropped: ssh checks the operator's own known hosts
    instead of the file named, and refuses (or worse, trusts) another set of keys."""
    return settings_of(args).model_copy(update={"known_hosts": None})


@mutant(
    replaces="planner.coordinator.write_scripts",
    turns_red={WRITTEN, SCRIPT_SET},
)
def undo_scripts_not_written(plan: TransactionPlan, scripts: Path) -> None:
    """``--dry-run`` writes only the forward scripts: the rollback and cleanup scripts its
    listing points at are missing when the operator needs them to undo by hand."""
    write_scripts(plan.model_copy(update={"rollbacks": (), "cleanups": ()}), scripts)


@mutant(
    replaces="planner.coordinator.write_scripts",
    turns_red={SCRIPT_SET, UNWRITABLE, CTRL_C},
    independent=False,  # undo_scripts_not_written replaces write_scripts too
)
def scripts_written_in_place(plan: TransactionPlan, scripts: Path) -> None:
    """Each script is written in place, one after another: a write that fails half way
    (a file where a host's directory goes) leaves a set that is half new, half old."""
    for step in (*plan.forward, *plan.rollbacks, *plan.cleanups):
        write_atomically(scripts / step.host_name / f"{step.stage.value}.sh", step.script)


@mutant(replaces="planner.coordinator.check_live_read", turns_red={LIVE_LOG})
def a_real_apply_admits_at_a_chosen_time(args: argparse.Namespace) -> None:
    """A real apply takes ``--now`` and ``--scenario``: it commits on a lease that expired
    hours ago, or on a fixture's log, as though the authority had admitted it now."""


@mutant(replaces="planner.coordinator.check_ssh_options", turns_red={BAD_SSH})
def ssh_files_are_not_looked_for(args: argparse.Namespace, exist: bool) -> None:
    """The ssh client and its files are checked for their spelling only, never looked for:
    a missing client is an internal error (70) once the run starts, and a missing identity
    is passed to ssh, which warns and tries the operator's other keys."""
    check_ssh_options(args, exist=False)


@mutant(
    replaces="planner.coordinator.admission_gate",
    turns_red={f"{W}.admission_is_read_again_from_the_log_at_the_commit_point"},
)
def the_log_is_read_once_before_preflight(
    args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun], applied: TransactionPlan
) -> Callable[[], str | None]:
    """The gate answers what the log said when the run started: a lease that lapsed or a
    host released during the transaction (its front door alone may wait 30 minutes) still
    commits."""
    answer = admission_gate(args, plan, applied)()
    return lambda: answer


@mutant(replaces="planner.transaction.parse_hosts", turns_red={HOSTS})
def a_host_named_twice_is_accepted(text: str) -> tuple[HostAddress, ...]:
    """A host named twice in --hosts is taken at its last address instead of refused, so a
    typo sends one host's stages to another machine."""
    last: dict[str, str] = {}
    for item in text.split(","):
        last[item.partition("=")[0].strip()] = item
    return parse_hosts(",".join(last.values()))


@mutant(replaces="planner.transaction.parse_hosts", turns_red={HOSTS}, independent=False)
def two_hosts_on_one_machine_are_accepted(text: str) -> tuple[HostAddress, ...]:
    """Two planned hosts on one ssh destination are taken as two machines, so both ranks'
    stages run on one host: the second's preserve sets aside what the first just applied."""
    try:
        return parse_hosts(text)
    except PlannerInputError as error:
        if "one ssh destination" not in error.message:
            raise
        return tuple(h for item in text.split(",") for h in parse_hosts(item))


@mutant(replaces="planner.transaction.ipv6_host", turns_red={HOSTS})
def any_hex_and_colons_in_brackets_is_an_ipv6_address(item: str, text: str) -> tuple[str, str]:
    """A bracketed address is taken when it is hex digits, dots and a colon, so ``[:]``
    reaches ssh as a destination."""
    address, bracket, rest = text[1:].partition("]")
    if bracket and ":" in address and all(c in "0123456789abcdefABCDEF:." for c in address):
        return address, rest
    return ipv6_host(item, text)


@mutant(replaces="planner.transaction.parse_hosts", turns_red={HOSTS})
def empty_hosts_items_skipped(text: str) -> tuple[HostAddress, ...]:
    """Empty items of ``--hosts`` (a doubled or trailing comma) are dropped before the list
    is read, so the error for a list of nothing but commas no longer quotes what was
    given."""
    return parse_hosts(",".join(item for item in text.split(",") if item.strip()))


@mutant(
    replaces="planner.coordinator.positive_count",
    turns_red={f"{W}.timeouts_and_attempts_are_whole_numbers_from_1_to_999999"},
)
def zero_taken_as_a_timeout(text: str) -> int:
    """0 is taken for a timeout or a number of attempts: ``timeout 0`` never stops a stage,
    and 0 commit attempts never commit."""
    return 0 if text == "0" else positive_count(text)


@mutant(
    replaces="planner.coordinator.run",
    turns_red={f"{W}.a_plan_that_is_not_admitted_exits_1_and_runs_nothing"},
)
def refused_plan_exits_0(
    args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]
) -> int:
    """A refused plan exits 0, so ``planner apply … && next-step`` goes on as though the
    transaction had committed."""
    code = run(args, plan)
    return 0 if code == 1 else code


@mutant(
    replaces="planner.coordinator._error",
    turns_red={
        HOSTS,
        UNWRITABLE,
        f"{W}.a_journal_that_cannot_be_made_exits_2_before_anything_runs",
        LIVE_LOG,
        BAD_SSH,
        SCRIPT_SET,
        JOURNAL_ALONE,
    },
)
def error_printed_on_stdout(message: str) -> int:
    """Usage and input errors go to stdout, mixed into the command listing a script reads,
    and stderr stays empty."""
    print(f"planner: error: {message}")
    return 2


@mutant(
    replaces="planner.coordinator.add_parser",
    turns_red={f"{W}.the_help_says_what_each_option_does_and_what_each_exit_code_means"},
)
def hosts_not_required(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    arms: list[str],
    planning: argparse.ArgumentParser,
) -> None:
    """``--hosts`` (or ``--resume``) is optional: left out, the command goes on to plan and
    fails inside instead of saying which argument is missing."""
    add_parser(commands, arms, planning)
    for group in commands.choices["apply"]._mutually_exclusive_groups:
        group.required = False


@mutant(replaces="planner.coordinator.write_scripts", turns_red={WRITTEN}, independent=False)
def scripts_readable_by_their_owner_alone(plan: TransactionPlan, scripts: Path) -> None:
    """The script set keeps the mode of the temporary directory it was written in (0700):
    another operator on the coordinator cannot read the scripts the listing points at."""
    write_scripts(plan, scripts)
    os.chmod(os.path.realpath(scripts), 0o700)


@mutant(replaces="planner.coordinator._holds_working_directory", turns_red={UNWRITABLE})
def the_working_directory_may_be_replaced(target: Path) -> bool:
    """A ``--scripts`` that holds the working directory (``--scripts .``) is checked like
    any previous set, and replaced when it holds one: the operator's shell is left in a
    directory that was removed."""
    return False


@mutant(replaces="planner.coordinator._swap_in", turns_red={CTRL_C})
def the_previous_set_is_removed_before_the_new_one_goes_in(temp: Path, target: Path) -> None:
    """The previous set is removed first, then the new one renamed into place: a Ctrl-C
    between the two leaves no script set at all."""
    if target.exists():
        shutil.rmtree(target)
    os.rename(temp, target)


@mutant(replaces="planner.coordinator._phases", turns_red={TERSE, JSON_SAYS})
def after_failure_steps_are_numbered_as_if_they_ran_next(
    plan: TransactionPlan,
) -> list[tuple[int | None, str, TransactionStep]]:
    """The rollback and cleanup steps are numbered on from the last commit, as though the
    run went on to them: the listing reads as 40 steps that all run."""
    commits = [s for s in plan.forward if s.stage is Stage.COMMIT]
    phased = [
        *((s, "forward") for s in plan.forward if s.stage is not Stage.COMMIT),
        *((s, "commit") for s in commits),
        *((s, "rollback") for s in reversed(plan.rollbacks)),
        *((s, "cleanup") for s in reversed(plan.cleanups)),
    ]
    return [(n, phase, step) for n, (step, phase) in enumerate(phased, 1)]


@mutant(replaces="planner.coordinator.dry_run_document", turns_red={JSON_SAYS})
def the_json_dry_run_points_at_scripts_outside_their_host_directory(
    plan: TransactionPlan, settings: SshSettings, scripts: Path, attempts: int
) -> ApplyDryRun:
    """The JSON dry run gives each step's script as SCRIPTS/STAGE.sh, without its host's
    directory: a tool that reads it sends every host the head's path, which does not exist."""
    document = dry_run_document(plan, settings, scripts, attempts)
    commands = tuple(
        c.model_copy(update={"script_path": str(scripts / f"{c.stage.value}.sh")})
        for c in document.commands
    )
    return document.model_copy(update={"commands": commands})


@mutant(
    replaces="planner.coordinator.journal_of",
    turns_red={f"{W}.a_journal_that_cannot_be_made_exits_2_before_anything_runs"},
)
def a_journal_that_cannot_be_made_is_made_elsewhere(
    args: argparse.Namespace, plan: TransactionPlan, settings: SshSettings
) -> Journal:
    """A ``--journal`` that cannot be made is quietly made in the working directory
    instead: the run goes on, and a coordinator lost half way leaves its journal where no
    ``--resume`` the operator types will look."""
    try:
        return journal_of(args, plan, settings)
    except PlannerInputError:
        elsewhere = argparse.Namespace(**{**vars(args), "journal": Path("apply.journal")})
        return journal_of(elsewhere, plan, settings)


@mutant(
    replaces="planner.coordinator.to_stderr",
    turns_red={f"{W}.a_waiting_line_goes_to_stderr_at_once_and_quiet_silences_it"},
)
def waiting_lines_go_to_the_report(text: str) -> None:
    """A waiting line goes to stdout, into the report a script reads after the run, and
    sits in its buffer until the run ends: the terminal shows nothing for 30 minutes."""
    print(text)


@mutant(replaces="planner.coordinator.run_resume", turns_red={JOURNAL_ALONE})
def a_rollback_is_taken_as_a_resume(args: argparse.Namespace) -> int:
    """``--rollback JOURNAL`` is read as ``--resume JOURNAL``: past the commit point it
    commits where the operator asked for a refusal, and its errors name the wrong mode."""
    if args.rollback is not None:
        args.resume, args.rollback = args.rollback, None
    return run_resume(args)
