"""Declared mutants of the command line's dry run (witness ``cli_plans``)."""

from __future__ import annotations

import argparse

from mutation import mutant
from planner.arm_launch import DryRun
from planner.cli import dry_run

W = "cli_plans"


@mutant(
    replaces="planner.cli.dry_run",
    turns_red={f"{W}.the_dry_run_command_plans_what_the_call_site_plans"},
)
def the_command_reverses_the_apply_order(args: argparse.Namespace) -> DryRun:
    """The command's plan lists its apply steps last first (the report, which prints each
    host's own steps, does not show it; an executor following the order would)."""
    run = dry_run(args)
    return run.model_copy(update={"apply_order": run.apply_order[::-1]})
