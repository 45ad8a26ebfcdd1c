"""The planning options of ``planner dry-run``, ``planner recipe`` and ``planner apply``, each
defined once.

A row of :data:`PLANNING` is one option: its flag, how its value is read, the commands that
take it and its help. :func:`planning_options` builds, for one command, the argparse parent its
parser takes (``parents=[...]``), the rows in table order. Where a command says more of an
option than the others (apply reads ``--authority`` at the wall clock; its ``--scenario`` and
``--now`` are ``--dry-run`` only), the row holds that command's clause beside the shared help,
so the option's name, type and default are still written once. What only one command has
(the arm it plans, apply's ssh options) stays with that command's parser.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from planner.values import path_argument

Command = Literal["dry-run", "recipe", "apply"]
ALL: frozenset[Command] = frozenset(("dry-run", "recipe", "apply"))
REPORTING: frozenset[Command] = frozenset(("dry-run", "recipe"))
"""The commands that write a report and can save the plan."""
ARMS: frozenset[Command] = frozenset(("dry-run", "apply"))
"""The commands that plan an arm as well as a recipe."""

RECIPE_GROUP = "group_a"
INPUTS = "{inputs}"
"""The --inputs help: which arms' inputs are pinned depends on the arms installed, so the
command line's parser gives it (:func:`planning_options`)."""

OUT_HELP = (
    "report path (default: per arm, under target/); with --scenario S the default ends "
    "-S.txt, so a scenario never overwrites another's report or a live read's; - writes the "
    "report alone to stdout and the lines about it (where it went, refusals, verdict) to "
    "stderr (./- is a file named -); a regular file is replaced atomically "
    "(through a symlink, the file it points to), a FIFO or character device such as "
    "/dev/stdout is written in place, a directory or other non-file is refused; a "
    "recipe's report defaults to target/<name>-plan.txt"
)
NAME_HELP = (
    "a recipe's arm, container and unit name "
    "(default: its directory's name for DIR/recipe.toml, else its file stem); "
)
NAMES_REPORT = "its report defaults to target/<name>-plan.txt"
NAMES_APPLY_FILES = (
    "it names the default --scripts, target/<name>-apply, and --journal, "
    "target/<name>-apply.journal (the name with dashes)"
)
FOR_TESTING = ": --dry-run only, unless --for-testing"


@dataclass(frozen=True)
class Option:
    """One planning option: ``help`` is said by every command that takes it, then the clause
    ``more`` holds for that command, if any; ``extra`` is argparse's other keywords."""

    flag: str
    help: str
    commands: frozenset[Command]
    more: Mapping[Command, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def help_for(self, command: Command, inputs_help: str) -> str:
        return (self.help + self.more.get(command, "")).replace(INPUTS, inputs_help)


PATH: Mapping[str, Any] = {"type": path_argument}
FORMAT: Mapping[str, Any] = {"choices": ("text", "json"), "default": "text"}
"""``--format``'s values, wherever a command prints a JSON document instead of its lines."""


def format_help(json_help: str) -> str:
    """``--format``'s help, ``json_help`` saying what json prints."""
    return f"text (default) or json: {json_help}; every other line then goes to stderr"


PLANNING: tuple[Option, ...] = (
    Option(
        "--scenario",
        "a named scenario from fixtures/scenarios/",
        ARMS,
        more={"dry-run": " (arms)", "apply": " (its log and inputs)" + FOR_TESTING},
    ),
    Option(
        "--authority",
        "authority log (JSON lines)",
        ALL,
        more={
            "apply": "; a real apply reads it at the wall clock, before preflight and again "
            "just before commit"
        },
        extra=PATH,
    ),
    Option("--inputs", INPUTS, ARMS, extra=PATH),
    Option(
        "--now",
        "ISO-8601 time to read the authority log at (default: now)",
        ALL,
        more={"apply": FOR_TESTING},
    ),
    Option("--data", "data root (default: the fixtures directory)", ALL, extra=PATH),
    Option(
        "--recipe",
        "",
        ARMS,
        more={
            "dry-run": "plan a launcher recipe (TOML) instead of an arm, over --group; "
            "admission runs when --authority is given",
            "apply": "apply a launcher recipe instead of an arm",
        },
        extra=PATH,
    ),
    Option("--group", f"the fabric group a recipe plans over (default: {RECIPE_GROUP})", ALL),
    Option(
        "--name",
        NAME_HELP,
        ALL,
        more={"dry-run": NAMES_REPORT, "recipe": NAMES_REPORT, "apply": NAMES_APPLY_FILES},
    ),
    Option(
        "--out",
        "",
        REPORTING,
        more={
            "dry-run": OUT_HELP,
            "recipe": "report path (default: target/<name>-plan.txt); - for stdout; as dry-run's",
        },
        extra=PATH,
    ),
    Option(
        "--plan-out",
        "also save the plan as JSON (atomically): the planner version, every input read "
        "with its sha256, every host's stage scripts with theirs, the verdict; "
        "`planner apply --plan PLAN` applies exactly it",
        REPORTING,
        extra={**PATH, "metavar": "PLAN"},
    ),
    Option(
        "--format",
        format_help("print the saved plan's JSON document (schema: planner schema plan)"),
        REPORTING,
        extra=FORMAT,
    ),
)


def planning_options(command: Command, inputs_help: str) -> argparse.ArgumentParser:
    """The parent parser holding ``command``'s planning options, in table order."""
    parent = argparse.ArgumentParser(add_help=False)
    for option in PLANNING:
        if command in option.commands:
            help_text = option.help_for(command, inputs_help)
            parent.add_argument(option.flag, help=help_text, **option.extra)
    return parent
