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


@mutant(
    replaces="planner.cli._unknown_options",
    turns_red={f"{W}.the_order_and_spelling_of_options_change_no_plan"},
)
def an_option_given_with_its_value_is_unknown(
    parser: argparse.ArgumentParser, words: list[str]
) -> list[str]:
    """The look for misspelled options takes a whole ``--option=value`` word for the option's
    name, so ``--scenario=supplied`` is refused as an option nobody has."""
    known = list(parser._option_string_actions)
    unknown: list[str] = []
    for word in words:
        if word == "--":
            break
        if word.startswith("--") and not any(o.startswith(word) for o in known):
            unknown.append(word)
    return unknown
