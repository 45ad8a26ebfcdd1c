"""``planner``: render a modeled multi-host launch and say whether it may run.

Exit codes: 0 the plan rendered and admission holds; 1 refused (one line per refusal
or obligation, each followed by its hint line); 2 usage or input error (a located message,
nothing written); 70 an internal error, a bug in the planner rather than a problem with the
input (one line naming where it happened; ``--debug`` adds the traceback); 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, TextIO, cast

from filerules import VersionAction, write_atomically
from planner import coordinator, data, provenance
from planner.arm_launch import DryRun
from planner.arms import Arm, ArmSources, arm, arms
from planner.authority import read_state
from planner.fabric import Fabric, FabricGroup
from planner.formats import DOCUMENTS, ScenarioEntry, ScenarioList, document_json, schema_json
from planner.frontiers import PlanInputs
from planner.identity import arm_name
from planner.kept import Kept
from planner.options import FORMAT, RECIPE_GROUP, format_help, planning_options
from planner.provenance import InputRead
from planner.recipe import RecipeInvalid, load_recipe
from planner.recipe_launch import RecipeSources, recipe_dry_run
from planner.refusal import PlannerInputError
from planner.report import render_report
from planner.saved_plan import SavedPlan, request_of, saved_plan
from planner.scenarios import load_inputs, load_scenario, scenario_names
from planner.values import Dash, closest, did_you_mean, printable
from planner.values import path_argument as _path
from planner.version import planner_version

EXIT_ADMITTED, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2
"""0 is also a recipe's PLANNED: rendered with no refusal, no authority log given."""
EXIT_INTERNAL = 70
"""``EX_SOFTWARE`` (sysexits.h): the planner hit a bug; the input may be fine."""
EXIT_INTERRUPTED = 130

EPILOG = """\
examples:
  planner dry-run v41_group_a --scenario supplied
  planner dry-run v41_group_a --scenario live --out target/live.txt
  planner dry-run v41_group_a --authority log.jsonl --inputs inputs.json --now 2026-11-29T12:00:00Z
  planner dry-run --recipe fixtures/recipes/dsv41-flash-jovian-r37-4x.toml --group group_a
  planner scenarios

exit codes: 0 rendered and admitted; 1 refused (each refusal printed as
`refused: <code> at <location>: <message>`, then its hint as `  hint: ...`); 2 usage or
input error (nothing written); 70 internal error (a bug, not your input: one line saying
where; --debug shows the traceback); 130 interrupted. A recipe planned with no --authority
exits 0 when it renders with no refusal: PLANNED, admission not checked (planner apply
refuses it).

reports: without --out, a live read (--authority) writes the arm's own path
(target/v41-group-a-launch-dry-run.txt), --scenario S that path ending -S.txt
(target/v41-group-a-launch-dry-run-live.txt), a recipe target/NAME-plan.txt.
--out - writes the report alone to stdout, and the lines about it to stderr.

conventions: a misspelled option, subcommand, arm, scenario or recipe key is an error
(exit 2) naming the closest one ("did you mean --scenario?"); planner --version prints
the release and a digest of the planner's code.
"""


class Parser(argparse.ArgumentParser):
    """argparse's parser, naming the choice a misspelled one was meant to be (an arm, a
    subcommand) and printing its errors escaped (what it quotes came from the command
    line). ``commands`` holds the subcommands' parsers (:func:`parse` errors through them)."""

    commands: dict[str, argparse.ArgumentParser]

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:
            hint = did_you_mean(str(value), [str(c) for c in action.choices or ()])
            raise argparse.ArgumentError(action, exc.message + hint) from None

    def error(self, message: str) -> NoReturn:
        super().error(printable(message))


def _debug_option(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--debug",
        action="store_true",
        default=default,
        help="on an internal error (exit 70), also print the traceback",
    )


def _inputs_help() -> str:
    pinned = [a.name for a in arms().values() if not a.uses_inputs]
    if not pinned:
        return "frontier inputs (JSON)"
    whose = " and ".join(f"{name}'s" for name in pinned)
    return (
        f"frontier inputs (JSON); {whose} inputs are all pinned, so for "
        f"{'it' if len(pinned) == 1 else 'them'} the file is read and validated but its values "
        "are not used"
    )


def _format_option(parser: argparse.ArgumentParser, json_help: str) -> None:
    parser.add_argument("--format", help=format_help(json_help), **FORMAT)


_PARSERS: Kept[tuple[tuple[str, ...], str], Parser] = Kept(8)
"""Parsers by what they show (:mod:`planner.kept`): building one costs more than many a dry
run, and a claim run calls ``main`` hundreds of times."""


def build_parser() -> Parser:
    """The command line's parser for the arms the package holds now."""
    names, inputs_help = tuple(sorted(arms())), _inputs_help()
    return _PARSERS.keep((names, inputs_help), lambda: _parser(names, inputs_help))


def _parser(arm_names: tuple[str, ...], inputs_help: str) -> Parser:
    """The parser showing ``arm_names`` and ``inputs_help``."""
    parser = Parser(
        prog="planner",
        description="Plan a multi-host vLLM launch and render every host's artifacts, "
        "without running anything.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _debug_option(parser, False)
    parser.add_argument(
        "--version",
        action=VersionAction,
        version_text=planner_version,
        help="print the planner's version (release+code digest)",
    )
    # its parsers are Parsers too (argparse makes them of the top parser's class)
    commands = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command", required=True),
    )
    parser.commands = commands.choices
    dry = commands.add_parser(
        "dry-run",
        help="render the launch and its admission verdict into a report file",
        description="Render each host's docker create argv, systemd unit, Engram staging and "
        "apply scripts, then admit against the authority log read at --now.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[planning_options("dry-run", inputs_help)],
    )
    dry.add_argument(
        "arm", nargs="?", choices=arm_names, help="which arm to plan (or give --recipe)"
    )
    _debug_option(dry, argparse.SUPPRESS)
    listing = commands.add_parser("scenarios", help="list the named scenarios")
    _format_option(listing, "the scenarios as one JSON document (schema: planner schema scenarios)")
    _debug_option(listing, argparse.SUPPRESS)
    schema = commands.add_parser(
        "schema", help="print the JSON Schema of a document --format json prints"
    )
    schema.add_argument("document", choices=sorted(DOCUMENTS), help="which document")
    _debug_option(schema, argparse.SUPPRESS)
    recipe = commands.add_parser(
        "recipe",
        help="the same as dry-run --recipe FILE",
        description="An alias of `planner dry-run --recipe FILE`: validate a recipe with "
        "located errors (all of them), then plan, fit, realize and render it over a group "
        "like an arm. The launcher owns the multi-node flags and the per-node fabric env.",
        epilog="example:\n  planner recipe fixtures/recipes/dsv41-flash-jovian-r37-4x.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[planning_options("recipe", inputs_help)],
    )
    recipe.add_argument("recipe", metavar="file", type=_path, help="the recipe TOML")
    recipe.set_defaults(arm=None, scenario=None, inputs=None)
    _debug_option(recipe, argparse.SUPPRESS)
    # planner apply: planner/coordinator.py
    coordinator.add_parser(commands, list(arm_names), planning_options("apply", inputs_help))
    return parser


def _parse_now(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise PlannerInputError("--now", text, "not an ISO-8601 time") from exc
    if moment.tzinfo is None:
        raise PlannerInputError("--now", text, "give a time zone (e.g. Z or +00:00)")
    return moment


def _sources(args: argparse.Namespace, root: Path) -> tuple[Path, Path | None, datetime]:
    if args.scenario is not None and (args.authority or args.inputs):
        raise PlannerInputError("arguments", "--scenario", "use --scenario or --authority/--inputs")
    if args.scenario is not None:
        scenario = load_scenario(root, args.scenario)
        now = _parse_now(args.now) if args.now is not None else scenario.now
        return scenario.authority, scenario.inputs, now
    if not args.authority:
        raise PlannerInputError("arguments", "--authority", "give --scenario or --authority")
    now = _parse_now(args.now) if args.now is not None else datetime.now(UTC)
    return args.authority, args.inputs, now


def _fabric_for(chosen: Arm, root: Path) -> Fabric:
    """The inventory, which must hold the arm's group: a located error names the file."""
    fabric = data.fabric(root)
    group, name = chosen.group, chosen.name
    if group not in (g.name for g in fabric.groups):
        known = ", ".join(g.name for g in fabric.groups) or "none"
        message = f"no fabric group {group!r}, which {name} plans over; known groups: {known}"
        raise PlannerInputError(str(root / "fabric.json"), "groups", message)
    return fabric


def dry_run(args: argparse.Namespace) -> DryRun:
    """Read what the arguments name and let the arm (or the recipe) plan its dry run."""
    _one_of_arm_or_recipe(args)
    if args.recipe is not None:
        return _recipe_dry_run(args)
    chosen = arm(args.arm)
    root = args.data or data.default_data_root()
    authority, inputs_path, now = _sources(args, root)
    state = read_state(authority, now)
    fabric = _fabric_for(chosen, root)
    inputs = load_inputs(inputs_path) if inputs_path else PlanInputs()
    source = str(inputs_path) if inputs_path else "inputs"
    return chosen.plan(
        ArmSources(fabric=fabric, root=root, inputs=inputs, inputs_source=source, state=state)
    )


def _one_of_arm_or_recipe(args: argparse.Namespace) -> None:
    """An arm or ``--recipe``, never both; the options of the other are usage errors."""
    if args.arm is None and args.recipe is None:
        raise PlannerInputError("arguments", "arm", "give an arm or --recipe FILE")
    if args.arm is not None and args.recipe is not None:
        raise PlannerInputError("arguments", "--recipe", "give an arm or --recipe FILE, not both")
    if args.recipe is not None:
        for option, value in (("--scenario", args.scenario), ("--inputs", args.inputs)):
            if value is not None:
                raise PlannerInputError("arguments", option, "is for arms, not --recipe")
    else:
        for option, value in (("--group", args.group), ("--name", args.name)):
            if value is not None:
                raise PlannerInputError("arguments", option, "is for --recipe, not an arm")


def recipe_name(args: argparse.Namespace) -> str:
    """The --name, else the recipe's directory for ``DIR/recipe.toml``, else its file stem:
    a name docker and systemd both take (:func:`planner.identity.arm_name`)."""
    path: Path = args.recipe
    in_dir = path.name == "recipe.toml"
    stem = path.resolve().parent.name if in_dir else path.stem
    name = args.name if args.name is not None else stem
    try:
        return arm_name(name)
    except ValueError as exc:
        if args.name is not None:
            raise PlannerInputError("arguments", "--name", str(exc)) from exc
        where = "the name of its directory" if in_dir else "the name of its file stem"
        raise PlannerInputError(str(path), where, f"{exc}; give --name") from exc


def _recipe_dry_run(args: argparse.Namespace) -> DryRun:
    root = args.data or data.default_data_root()
    recipe = load_recipe(args.recipe)
    name = recipe_name(args)
    group = _group(data.fabric(root), args.group or RECIPE_GROUP)
    state = None
    if args.authority is not None:
        now = _parse_now(args.now) if args.now is not None else datetime.now(UTC)
        state = read_state(args.authority, now)
    elif args.now is not None:
        raise PlannerInputError("arguments", "--now", "reads the authority log: give --authority")
    sources = RecipeSources(
        recipe=recipe,
        source=str(args.recipe),
        name=name,
        group=group,
        manifest=data.snapshot_manifest(recipe.model, root),
        state=state,
    )
    return recipe_dry_run(sources)


def _to_stdout(out: Path | None) -> bool:
    """``--out -``: the report goes to standard output, alone (``./-`` is a file named
    ``-``: :class:`planner.values.Dash`)."""
    return isinstance(out, Dash)


def _written(out: Path, text: str, option: str = "--out", what: str = "the report") -> bool:
    """Write ``text`` atomically; a path that cannot take it is a located input error."""
    try:
        write_atomically(out, text)
    except OSError as exc:
        why = exc.strerror or str(exc)
        print(
            f"planner: error: {option} {printable(str(out))}: cannot write {what}: {why}",
            file=sys.stderr,
        )
        return False
    return True


def _run_dry_run(args: argparse.Namespace) -> int:
    """Plan (recording every input read), write the report and the saved plan, print the
    verdict; with ``--format json`` or ``--out -`` stdout carries one document alone."""
    if args.format == "json" and _to_stdout(args.out):
        raise PlannerInputError(
            "--out", "-", "--format json prints the plan on stdout: give --out a file"
        )
    with provenance.recording() as reads:
        run = dry_run(args)
    if args.format == "json" or _to_stdout(args.out):
        return _stdout_alone(args, run, reads)
    return _report_and_verdict(args, run, reads)


def _plan(args: argparse.Namespace, run: DryRun, reads: list[InputRead]) -> SavedPlan:
    """The saved plan of ``run``: made only where it is written or printed, so what no one
    reads is never built."""
    return saved_plan(run, request_of(args), reads)


def _stdout_alone(args: argparse.Namespace, run: DryRun, reads: list[InputRead]) -> int:
    """``--format json`` (the plan's JSON) or ``--out -`` (the report) alone on stdout, so a
    pipe reads nothing else; every other line (where things went, warnings, refusals, the
    verdict) goes to stderr; the exit code is the same."""
    stdout = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        code = _report_and_verdict(args, run, reads, stdout)
    if code != EXIT_USAGE and args.format == "json":
        print(document_json(_plan(args, run, reads)), end="")
    return code


def _report_and_verdict(
    args: argparse.Namespace,
    run: DryRun,
    reads: list[InputRead],
    stdout: TextIO | None = None,
) -> int:
    """The saved plan first (a path that cannot take it leaves nothing written), then the
    report (``--out -``: on ``stdout``), then the verdict."""
    if args.plan_out is not None:
        document = document_json(_plan(args, run, reads))
        if not _written(args.plan_out, document, "--plan-out", "the plan"):
            return EXIT_USAGE
        print(f"{run.arm}: plan saved to {printable(str(args.plan_out))}")
    if args.recipe is not None and not run.rendered:
        print(f"{run.arm}: no host rendered, so no report written")
    else:
        out = _report_path(args, run)
        if not _report_written(out, render_report(run, tuple(reads)), stdout or sys.stdout):
            return EXIT_USAGE
        where = "standard output" if _to_stdout(out) else printable(str(out))
        print(f"{run.arm}: report written to {where} ({len(run.hosts)} hosts rendered)")
    return print_verdict(run)


def _report_written(out: Path, text: str, stdout: TextIO) -> bool:
    """The report at ``out``, or on ``stdout`` for ``--out -``."""
    if not _to_stdout(out):
        return _written(out, text)
    stdout.write(text)
    stdout.flush()
    return True


def _report_path(args: argparse.Namespace, run: DryRun) -> Path:
    """``--out`` (``-`` kept a :class:`~planner.values.Dash`); else a recipe's
    ``target/<name>-plan.txt``; an arm's own path (:attr:`planner.arms.Arm.report`) for a
    live read, and with the scenario's name before its suffix for ``--scenario S``
    (``…-dry-run-live.txt``), so a refused scenario never overwrites the report of an
    admitted one, or of the live read."""
    if args.out is not None:
        out: Path = args.out
        return out
    if args.recipe is not None:
        return Path("target") / f"{run.arm}-plan.txt"
    default = Path(arm(args.arm).report)
    if args.scenario is None:
        return default
    return default.with_name(f"{default.stem}-{args.scenario}{default.suffix}")


def print_verdict(run: DryRun) -> int:
    """Print the warnings, each refusal with its hint, and the verdict; return its exit."""
    for line in (*run.warnings, *(text for r in run.refusals for text in r.lines())):
        print(printable(line))
    print(f"{run.arm}: {run.verdict}")
    return EXIT_REFUSED if run.verdict == "REFUSED" else EXIT_ADMITTED


def _group(fabric: Fabric, name: str) -> FabricGroup:
    """The --group to plan over; an unknown name is a located input error."""
    try:
        return fabric.group(name)
    except KeyError as exc:
        raise PlannerInputError("--group", name, str(exc.args[0])) from exc


def _list_scenarios(args: argparse.Namespace) -> int:
    root = data.default_data_root()
    found = [load_scenario(root, name) for name in scenario_names(root)]
    if args.format == "json":
        entries = [ScenarioEntry(name=s.name, description=s.description, now=s.now) for s in found]
        print(
            document_json(ScenarioList(schema="gunbc-planner-scenarios/1", scenarios=entries)),
            end="",
        )
        return 0
    for scenario in found:
        print(f"{scenario.name}: {scenario.description}")
    return 0


def input_error_lines(exc: PlannerInputError) -> list[str]:
    """The error as printed: one line naming the source, the place and the bad value; a
    recipe adds one indented line per further problem. Control characters are escaped, so
    nothing a file holds can start a line of its own."""
    if isinstance(exc, RecipeInvalid) and exc.problems:
        first, *rest = exc.problems
        head = f"{printable(exc.source)}: {exc.where}: {printable(first.where)}: "
        return [head + printable(first.message)] + [
            f"  {printable(p.where)}: {printable(p.message)}" for p in rest
        ]
    return [printable(str(exc))]


def internal_error_line(prog: str, exc: BaseException) -> str:
    """One line for a bug: what was raised and the innermost place it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    what = printable(f"{type(exc).__name__}: {exc}")
    return (
        f"{prog}: internal error: {what}{where} (a bug, not a problem with the input; "
        "--debug prints the traceback)"
    )


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command == "scenarios":
            return _list_scenarios(args)
        if args.command == "schema":
            print(schema_json(args.document), end="")
            return 0
        if args.command == "apply":
            return coordinator.run(args, dry_run)
        return _run_dry_run(args)
    except PlannerInputError as exc:
        print("planner: error: " + "\n".join(input_error_lines(exc)), file=sys.stderr)
        return EXIT_USAGE


def parse(words: list[str]) -> argparse.Namespace:
    """The command line parsed. An option the subcommand does not know is refused by that
    subcommand's parser (its usage line, ``planner dry-run: error: …``, exit 2), naming the
    closest option it has; it is found before argparse reads the words, so a value after
    a misspelled option is never taken for the arm."""
    parser = build_parser()
    at = next((i for i, w in enumerate(words) if not w.startswith("-")), len(words))
    chosen = parser.commands.get(words[at]) if at < len(words) else None
    if chosen is not None:
        unknown = _unknown_options(chosen, words[at + 1 :])
        if unknown:
            chosen.error(_unrecognized(unknown, chosen, parser))
    args, extra = parser.parse_known_args(words)
    if extra:
        before = chosen is None or all(w in words[:at] for w in extra)
        owner = parser if before or chosen is None else chosen
        owner.error(_unrecognized(extra, owner, parser))
    return args


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string ``parser`` takes (argparse keeps no public list of them)."""
    return list(parser._option_string_actions)


def _unknown_options(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """The ``--long`` words before any ``--`` that no option of ``parser`` is or starts
    with (argparse takes an unambiguous prefix)."""
    known, unknown = _options(parser), []
    for word in words:
        if word == "--":
            break
        name = word.partition("=")[0]
        if word.startswith("--") and not any(o.startswith(name) for o in known):
            unknown.append(word)
    return unknown


def _unrecognized(
    words: list[str], chosen: argparse.ArgumentParser, top: argparse.ArgumentParser
) -> str:
    """argparse's ``unrecognized arguments`` message, naming the closest option to each
    misspelled one (``did you mean --scenario?``)."""
    known = sorted(set(_options(chosen) + _options(top)))
    named = [w.partition("=")[0] for w in words if w.startswith("-")]
    fixes = [(w, fix) for w in named if (fix := closest(w, known)) is not None]
    said = f"unrecognized arguments: {' '.join(words)}"
    if len(fixes) == 1:
        return f"{said}; did you mean {fixes[0][1]}?"
    if fixes:
        return f"{said}; did you mean {', '.join(f'{fix} for {w}' for w, fix in fixes)}?"
    return said


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in words
    try:
        args = parse(words)
        debug = bool(args.debug)
        return _dispatch(args)
    except BrokenPipeError:
        # A reader that stopped early (`planner scenarios | head`) is not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("planner: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(internal_error_line("planner", exc), file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
