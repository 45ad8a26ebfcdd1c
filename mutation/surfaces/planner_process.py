"""Declared mutants of the ``planner`` process (witness ``planner_process``).

Each replaces one function of :mod:`planner.cli` and changes one thing the user sees: when
``--debug`` takes effect and whether the help lists it, the exit code of an interrupt, and
how a bad ``--name``, a composed model of another repo, an unwritable ``--out`` or a data
root without the arm's group is reported. A mutant of ``main`` delegates to the real one
(the patching dispatcher runs the original).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import planner
from mutation import mutant
from planner import data
from planner.arms import Arm, arms
from planner.cli import build_parser, main
from planner.fabric import Fabric
from planner.recipe import RecipeProblem, composed_problems
from planner.refusal import PlannerInputError
from planner.report import write_atomically
from planner.values import printable

W = "planner_process"


# Not combined with the others: ``planner`` keeps the parser it built first, so whether
# another witness's claim (dry_run_cli's --debug bug) sees this mutant depends on which claim
# built the parser; alone, only the claims that build it now can.
@mutant(
    replaces="planner.cli._debug_option",
    turns_red={f"{W}.debug_before_or_after_the_command_prints_the_traceback_of_a_bug"},
    independent=False,
)
def a_debug_before_the_command_is_overwritten(
    parser: argparse.ArgumentParser, default: object
) -> None:
    """Each command's own ``--debug`` defaults to off, which overwrites a ``--debug`` given
    before the command: ``planner --debug dry-run …`` hides the traceback."""
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False if default is argparse.SUPPRESS else default,
        help="on an internal error (exit 70), also print the traceback",
    )


@mutant(
    replaces="planner.cli._debug_option",
    turns_red={f"{W}.every_commands_help_says_what_debug_does"},
    independent=False,
)
def debug_is_left_out_of_the_help(parser: argparse.ArgumentParser, default: object) -> None:
    """``--debug`` works but no help lists it."""
    parser.add_argument("--debug", action="store_true", default=default, help=argparse.SUPPRESS)


@mutant(
    replaces="planner.cli.main",
    turns_red={f"{W}.debug_counts_even_when_the_command_line_cannot_be_built"},
)
def debug_is_read_only_from_the_parsed_arguments(argv: Sequence[str] | None = None) -> int:
    """``--debug`` is taken from the parsed arguments only: when the command line cannot be
    built, the traceback the user asked for is not printed."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        build_parser()
    except Exception:
        words = [w for w in words if w != "--debug"]  # never parsed, so never seen
    return main(words)


@mutant(
    replaces="planner.cli.main",
    turns_red={f"{W}.an_interrupt_exits_130_and_a_closed_pipe_exits_0"},
    independent=False,
)
def an_interrupt_exits_1(argv: Sequence[str] | None = None) -> int:
    """A Ctrl-C exits 1, the code of a refused plan: a script takes the interrupt for a
    decision."""
    code = main(argv)
    return 1 if code == 130 else code


@mutant(
    replaces="planner.cli.recipe_name",
    turns_red={f"{W}.a_bad_container_name_is_an_input_error_at_name"},
)
def a_bad_name_is_a_bug(args: argparse.Namespace) -> str:
    """A --name unsafe to render is not caught as input: it reaches the user as an internal
    error (exit 70) that does not name --name."""
    path: Path = args.recipe
    return str(args.name) if args.name is not None else path.stem


@mutant(
    replaces="planner.recipe.composed_problems",
    turns_red={f"{W}.a_composed_model_linking_another_repo_is_located_in_the_recipe"},
    independent=False,
)
def a_composed_model_of_another_repo_is_taken(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """The composed model's first source is not checked against the recipe's model: the
    plan links the model's snapshot under another repo's name."""
    return tuple(p for p in composed_problems(raw) if p.where != "composed_model.sources[0].repo")


@mutant(
    replaces="planner.cli._written",
    turns_red={f"{W}.an_out_that_cannot_take_the_report_says_why"},
)
def an_unwritable_out_names_the_exception_not_the_reason(
    out: Path, text: str, option: str = "--out", what: str = "the report"
) -> bool:
    """An --out that cannot take the report is named, but the reason given is the
    exception's class (OSError), not what the system said."""
    try:
        write_atomically(out, text)
    except OSError as exc:
        why = type(exc).__name__
        print(
            f"planner: error: {option} {printable(str(out))}: cannot write {what}: {why}",
            file=sys.stderr,
        )
        return False
    return True


@mutant(
    replaces="planner.cli._fabric_for",
    turns_red={f"{W}.a_data_root_without_the_arms_group_names_it_and_the_groups_it_has"},
)
def an_empty_inventory_lists_nothing(chosen: Arm, root: Path) -> Fabric:
    """A fabric.json with no groups leaves the 'known groups:' list blank instead of
    saying none."""
    fabric = data.fabric(root)
    if chosen.group not in (g.name for g in fabric.groups):
        known = ", ".join(g.name for g in fabric.groups)
        message = (
            f"no fabric group {chosen.group!r}, which {chosen.name} plans over; "
            f"known groups: {known}"
        )
        raise PlannerInputError(str(root / "fabric.json"), "groups", message)
    return fabric


@mutant(
    replaces="planner.cli._inputs_help",
    turns_red={f"{W}.the_inputs_help_names_the_arms_that_do_not_use_the_values"},
)
def the_inputs_help_speaks_of_one_pinned_arm() -> str:
    """The --inputs help says "for it" however many arms have pinned inputs."""
    pinned = [a.name for a in arms().values() if not a.uses_inputs]
    if not pinned:
        return "frontier inputs (JSON)"
    whose = " and ".join(f"{name}'s" for name in pinned)
    return (
        f"frontier inputs (JSON); {whose} inputs are all pinned, so for it the file is read "
        "and validated but its values are not used"
    )


@mutant(
    replaces="planner.cli.main",
    turns_red={f"{W}.the_console_script_reads_the_words_after_the_program_name"},
    independent=False,
)
def the_program_name_is_read_as_a_word(argv: Sequence[str] | None = None) -> int:
    """Run as the console script, ``planner`` takes its own name for the first word and
    refuses every command."""
    return main(sys.argv if argv is None else argv)


@mutant(
    replaces="planner.__getattr__",
    turns_red={f"{W}.every_public_name_is_the_object_its_module_defines"},
)
def a_name_the_planner_lacks_is_none(name: str) -> object:
    """A name the planner does not have reads as None instead of an AttributeError: ``from
    planner import Dryrun`` (a typo) binds None, and the caller fails far from the typo."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return getattr(planner, name)
    except AttributeError:
        return None
