"""Declared mutants of saved plans (witness ``saved_plan``).

Each is one careless edit of the binding between the plan an operator reviewed and what
``planner apply --plan`` runs: a digest over the wrong bytes, a check that forgets the log's
tail or the plan's own scripts, a request that loses an option, a document without its schema
names, an apply dry run that prints the long form by default.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from mutation import mutant
from planner import cli, coordinator, provenance
from planner.arm_launch import RenderedHost
from planner.provenance import InputRead
from planner.saved_plan import PlannedHost, SavedPlan, _host, request_args
from planner.transaction import TransactionPlan

W = "saved_plan"


@mutant(
    replaces="planner.provenance.note",
    turns_red={
        f"{W}.a_saved_plan_names_every_file_it_read_with_the_sha256_of_its_bytes",
        f"{W}.anything_changed_after_the_plan_was_saved_is_refused_by_name",
        # the saved digests no longer match the files, so no plan binds at all
        f"{W}.a_revocation_appended_to_the_log_after_the_plan_refuses_it",
        f"{W}.an_unchanged_plan_and_one_whose_log_only_grew_apply_their_saved_scripts",
        f"{W}.every_json_document_validates_against_its_schema",
        f"{W}.apply_dry_run_is_one_line_a_step_that_fits_a_terminal",
    },
    independent=False,
)
def a_file_is_noted_without_its_last_byte(
    path: Path, role: str, data: bytes, prefix: bool = False
) -> None:
    """A file's digest is taken over all but its last byte (a change there goes unseen)."""
    provenance.note_digest(path, role, len(data) - 1, hashlib.sha256(data[:-1]).hexdigest())


@mutant(
    replaces="planner.provenance.changed",
    turns_red={f"{W}.anything_changed_after_the_plan_was_saved_is_refused_by_name"},
)
def a_longer_file_passes_as_its_prefix(read: InputRead) -> str | None:
    """Every input is checked as a prefix: a file that only grew still binds."""
    return provenance.changed(read.model_copy(update={"prefix": True}))


@mutant(
    replaces="planner.provenance.changed",
    turns_red={
        f"{W}.an_unchanged_plan_and_one_whose_log_only_grew_apply_their_saved_scripts",
        # the appended release is refused as a changed log, not by admission
        f"{W}.a_revocation_appended_to_the_log_after_the_plan_refuses_it",
    },
    independent=False,
)
def the_log_is_bound_whole(read: InputRead) -> str | None:
    """The authority log is bound whole: an event appended after the plan refuses it."""
    return provenance.changed(read.model_copy(update={"prefix": False}))


@mutant(
    replaces="planner.saved_plan.load_plan",
    turns_red={f"{W}.anything_changed_after_the_plan_was_saved_is_refused_by_name"},
)
def the_scripts_sha256_is_not_checked(path: Path) -> SavedPlan:
    """A plan whose script was edited after it was saved is read as it is."""
    from planner.values import load_json_model

    return load_json_model(SavedPlan, path, "saved plan")


@mutant(
    replaces="planner.saved_plan.request_args",
    turns_red={
        f"{W}.a_revocation_appended_to_the_log_after_the_plan_refuses_it",
        f"{W}.an_unchanged_plan_and_one_whose_log_only_grew_apply_their_saved_scripts",
        f"{W}.every_json_document_validates_against_its_schema",
        f"{W}.apply_dry_run_is_one_line_a_step_that_fits_a_terminal",
    },
    independent=False,
)
def the_plan_is_made_again_without_its_inputs(
    plan: SavedPlan, now: str | None
) -> argparse.Namespace:
    """The plan is made again without its ``--inputs`` file (its obligations then refuse)."""
    args = request_args(plan, now)
    args.inputs = None
    return args


@mutant(
    replaces="planner.saved_plan._host",
    turns_red={
        f"{W}.a_saved_plan_holds_every_stage_script_of_every_host_with_its_sha256",
        # the plan made again (through the same function) differs from the dry run's
        f"{W}.an_unchanged_plan_and_one_whose_log_only_grew_apply_their_saved_scripts",
        f"{W}.apply_dry_run_is_one_line_a_step_that_fits_a_terminal",
    },
    independent=False,
)
def the_plan_keeps_no_cleanup_script(host: RenderedHost) -> PlannedHost:
    """A host's part is saved and compared without its last stage (cleanup)."""
    part = _host(host)
    return part.model_copy(update={"steps": part.steps[:-1]})


@mutant(
    replaces="planner.cli._list_scenarios",
    turns_red={f"{W}.every_json_document_validates_against_its_schema"},
)
def scenarios_json_ends_with_a_count(args: argparse.Namespace) -> int:
    """``scenarios --format json`` prints a count line after its document."""
    code = cli._list_scenarios(args)
    if args.format == "json":
        print("12 scenarios")
    return code


@mutant(
    replaces="planner.coordinator.render_terse",
    turns_red={f"{W}.apply_dry_run_is_one_line_a_step_that_fits_a_terminal"},
)
def the_dry_run_prints_every_argv_by_default(
    plan: TransactionPlan, scripts: Path, attempts: int
) -> list[str]:
    """``apply --dry-run`` prints the long form (every ssh argv) without ``-v``."""
    settings = coordinator.SshSettings()
    return coordinator.render_dry_run(plan, settings, scripts, attempts)
