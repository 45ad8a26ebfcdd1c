"""Declared mutants of saved plans (witness ``saved_plan``).

Each is one careless edit of the binding between the plan an operator reviewed and what
``planner apply --plan`` runs: a digest over the wrong bytes, a check that forgets the log's
tail or the plan's own scripts, a request that loses an option, a document without its schema
names, an apply dry run that prints the long form by default, a bound plan run in another
order.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable
from pathlib import Path

from mutation import mutant
from planner import cli, coordinator, provenance, version
from planner.arm_launch import DryRun, RenderedHost
from planner.coordinator import run
from planner.provenance import InputRead
from planner.saved_plan import (
    PlannedHost,
    PlanVerdict,
    SavedPlan,
    bind,
    plan_verdict,
    planned_host,
    request_args,
)
from planner.transaction import TransactionPlan

W = "saved_plan"
CHANGED = f"{W}.anything_changed_after_the_plan_was_saved_is_refused_by_name"
UNCHANGED_APPLIES = f"{W}.an_unchanged_plan_and_one_whose_log_only_grew_apply_their_saved_scripts"
ONE_LINE = f"{W}.apply_dry_run_is_one_line_a_step_that_fits_a_terminal"
SCRIPTS = f"{W}.a_saved_plan_holds_every_stage_script_of_every_host_with_its_sha256"
WALL_CLOCK = f"{W}.a_plan_no_longer_admitted_at_the_wall_clock_is_refused"
SCHEMA = f"{W}.every_json_document_validates_against_its_schema"
BOUND = f"{W}.a_bound_plan_applies_as_its_request_applies"
UNNAMED_FILE = f"{W}.planning_that_reads_a_file_the_plan_does_not_name_is_refused"
NO_INPUTS = f"{W}.a_saved_plan_takes_no_planning_input_and_a_real_apply_no_chosen_clock"


@mutant(
    replaces="planner.provenance.note",
    turns_red={
        f"{W}.a_saved_plan_names_every_file_it_read_with_the_sha256_of_its_bytes",
        CHANGED,
        # the saved digests no longer match the files, so no plan binds at all
        WALL_CLOCK,
        UNCHANGED_APPLIES,
        SCHEMA,
        ONE_LINE,
        UNNAMED_FILE,
        BOUND,
        NO_INPUTS,
    },
    independent=False,
)
def a_file_is_noted_without_its_last_byte(path: Path, role: str, data: bytes) -> None:
    """A file's digest is taken over all but its last byte (a change there goes unseen)."""
    digest = hashlib.sha256(data[:-1]).hexdigest()
    provenance.note_digest(path, role, len(data) - 1, digest, prefix=False)


@mutant(replaces="planner.provenance.changed", turns_red={CHANGED})
def a_longer_file_passes_as_its_prefix(read: InputRead) -> str | None:
    """Every input is checked as a prefix: a file that only grew still binds."""
    return provenance.changed(read.model_copy(update={"prefix": True}))


@mutant(
    replaces="planner.provenance.changed",
    turns_red={CHANGED},
    independent=False,  # a_longer_file_passes_as_its_prefix replaces changed too
)
def a_longer_inputs_file_passes_as_its_prefix(read: InputRead) -> str | None:
    """The inputs file is checked as a prefix, like the log: whatever is appended after the
    bytes the plan read (a line break, a second document) goes unseen."""
    whole = read.role != "plan inputs"
    return provenance.changed(read if whole else read.model_copy(update={"prefix": True}))


@mutant(
    replaces="planner.provenance.changed",
    turns_red={
        UNCHANGED_APPLIES,
        # the appended release is refused as a changed log, not by admission; a log
        # edited in place is said to differ whole, not in its first bytes
        WALL_CLOCK,
        CHANGED,
    },
    independent=False,
)
def the_log_is_bound_whole(read: InputRead) -> str | None:
    """The authority log is bound whole: an event appended after the plan refuses it."""
    return provenance.changed(read.model_copy(update={"prefix": False}))


@mutant(replaces="planner.saved_plan.load_plan", turns_red={CHANGED})
def the_scripts_sha256_is_not_checked(path: Path) -> SavedPlan:
    """A plan whose script was edited after it was saved is read as it is."""
    from planner.values import load_json_model

    return load_json_model(SavedPlan, path, "saved plan")


@mutant(
    replaces="planner.saved_plan.request_args",
    turns_red={
        WALL_CLOCK,
        UNCHANGED_APPLIES,
        SCHEMA,
        ONE_LINE,
        BOUND,
        NO_INPUTS,
        # a forged script is then refused by admission, not as a differing plan
        CHANGED,
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
    replaces="planner.saved_plan.planned_host",
    turns_red={
        SCRIPTS,
        # the plan made again (through the same function) differs from the dry run's
        UNCHANGED_APPLIES,
        ONE_LINE,
    },
    independent=False,
)
def the_plan_keeps_no_cleanup_script(host: RenderedHost) -> PlannedHost:
    """A host's part is saved and compared without its last stage (cleanup)."""
    part = planned_host(host)
    return part.model_copy(update={"steps": part.steps[:-1]})


@mutant(replaces="planner.saved_plan.planned_host", turns_red={SCRIPTS}, independent=False)
def the_plan_names_the_unit_as_the_container(host: RenderedHost) -> PlannedHost:
    """A host's container and unit are recorded crossed: the operator reviews names the
    scripts never use."""
    part = planned_host(host)
    return part.model_copy(update={"container": part.unit, "unit": part.container})


@mutant(replaces="planner.saved_plan.planned_host", turns_red={SCRIPTS}, independent=False)
def the_plan_shows_the_create_argv_without_its_environment(host: RenderedHost) -> PlannedHost:
    """The docker create argv the operator reviews is a short form without its ``--env``
    pairs, though the scripts create the container with them."""
    part = planned_host(host)
    argv, kept = part.create_argv, []
    for i, word in enumerate(argv):
        if word != "--env" and (i == 0 or argv[i - 1] != "--env"):
            kept.append(word)
    return part.model_copy(update={"create_argv": tuple(kept)})


@mutant(replaces="planner.cli._list_scenarios", turns_red={SCHEMA})
def scenarios_json_ends_with_a_count(args: argparse.Namespace) -> int:
    """``scenarios --format json`` prints a count line after its document."""
    code = cli._list_scenarios(args)
    if args.format == "json":
        print("12 scenarios")
    return code


@mutant(replaces="planner.coordinator.render_terse", turns_red={ONE_LINE})
def the_dry_run_prints_every_argv_by_default(
    plan: TransactionPlan, scripts: Path, attempts: int
) -> list[str]:
    """``apply --dry-run`` prints the long form (every ssh argv) without ``-v``."""
    settings = coordinator.SshSettings()
    return coordinator.render_dry_run(plan, settings, scripts, attempts)


@mutant(replaces="planner.saved_plan.unnamed", turns_red={UNNAMED_FILE})
def files_the_plan_does_not_name_are_read_unseen(
    plan: SavedPlan, reads: list[InputRead]
) -> list[InputRead]:
    """Planning again may read files the saved plan never named: none is reported."""
    return []


@mutant(
    replaces="planner.version.code_digest",
    turns_red={f"{W}.a_planner_whose_code_changed_has_another_version"},
)
def subpackages_are_left_out_of_the_version(root: Path = version.PACKAGE_ROOT) -> str:
    """The version digests the package's top-level files only: an arm's edit keeps it."""
    h = hashlib.sha256()
    for path in sorted(root.glob("*.py")):
        h.update(f"{path.name}\0".encode() + path.read_bytes())
    return h.hexdigest()


@mutant(
    replaces="planner.saved_plan.plan_verdict",
    turns_red={f"{W}.a_saved_plan_states_the_verdict_of_its_dry_run"},
)
def refusals_are_saved_without_their_hints(run: DryRun) -> PlanVerdict:
    """The saved verdict keeps each refusal but drops its hint (what to do about it)."""
    verdict = plan_verdict(run)
    bare = tuple(r.model_copy(update={"hint": ""}) for r in verdict.refusals)
    return verdict.model_copy(update={"refusals": bare})


@mutant(replaces="planner.saved_plan.bind", turns_red={BOUND})
def a_bound_plan_runs_host_by_host(
    plan: SavedPlan,
    source: str,
    args: argparse.Namespace,
    make: Callable[[argparse.Namespace], DryRun],
) -> DryRun:
    """The plan made again is proven step for step, then run host by host (each host's
    stages in their order) instead of stage by stage across the hosts: every saved script
    still runs, in an order nobody reviewed."""
    again = bind(plan, source, args, make)
    order = tuple(sorted(again.apply_order, key=lambda step: step.rank))
    return again.model_copy(update={"apply_order": order})


@mutant(
    replaces="planner.cli._written",
    turns_red={f"{W}.a_plan_that_cannot_be_saved_stops_the_run_before_the_report"},
)
def a_failed_write_is_said_and_the_run_goes_on(
    out: Path, text: str, option: str = "--out", what: str = "the report"
) -> bool:
    """A file that cannot be written is named on stderr, and the run goes on as if it were:
    the plan said saved, the report written."""
    cli._written(out, text, option, what)
    return True


@mutant(replaces="planner.coordinator.run", turns_red={NO_INPUTS})
def a_saved_plan_is_applied_as_a_test_run(
    args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]
) -> int:
    """``apply --plan`` binds every plan as ``--for-testing`` would: a plan made from a
    scenario, or at a time the operator chose, reaches the hosts of a real apply."""
    if args.plan is not None:
        args.for_testing = True
    return run(args, plan)
