"""``planner``: render a modeled multi-host launch and say whether it may run.

Exit codes: 0 the plan rendered and admission holds; 1 refused (one line per refusal
or obligation); 2 usage or input error (a located message, nothing written).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from planner import coordinator, data
from planner.arm_launch import DryRun
from planner.authority import fold, read_log
from planner.fabric import Fabric, FabricGroup
from planner.frontiers import PlanInputs
from planner.glm_group_b_launch import glm_group_b_launch_dry_run
from planner.recipe import load_recipe, plan_recipe
from planner.refusal import PlannerInputError
from planner.report import render_recipe_report, render_report, write_atomically
from planner.scenarios import load_inputs, load_scenario, scenario_names
from planner.v41_group_a_launch import v41_group_a_launch_dry_run
from planner.values import safe_name

EXIT_ADMITTED, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2

DEFAULT_OUT: dict[str, str] = {
    "v41_group_a": "target/v41-group-a-launch-dry-run.txt",
    "glm_group_b": "target/glm-group-b-launch-dry-run.txt",
}

EPILOG = """\
examples:
  planner dry-run v41_group_a --scenario supplied
  planner dry-run v41_group_a --scenario live --out target/live.txt
  planner dry-run v41_group_a --authority log.jsonl --inputs inputs.json --now 2026-11-29T12:00:00Z
  planner scenarios

exit codes: 0 rendered and admitted; 1 refused (each refusal printed as
`refused: <code> at <location>: <message>`); 2 usage or input error (nothing written).
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="planner",
        description="Plan a multi-host vLLM launch and render every host's artifacts, "
        "without running anything.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    dry = commands.add_parser(
        "dry-run",
        help="render the launch and its admission verdict into a report file",
        description="Render each host's docker create argv, systemd unit, Engram staging and "
        "apply scripts, then admit against the authority log read at --now.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dry.add_argument("arm", choices=sorted(DEFAULT_OUT), help="which arm to plan")
    dry.add_argument("--scenario", help="a named scenario from fixtures/scenarios/")
    dry.add_argument("--authority", type=Path, help="authority log (JSON lines)")
    dry.add_argument("--inputs", type=Path, help="frontier inputs (JSON)")
    dry.add_argument("--now", help="ISO-8601 time to read the authority log at (default: now)")
    dry.add_argument("--out", type=Path, help="report path (default: per arm, under target/)")
    dry.add_argument("--data", type=Path, help="data root (default: the fixtures directory)")
    commands.add_parser("scenarios", help="list the named scenarios")
    recipe = commands.add_parser(
        "recipe",
        help="validate a launcher recipe (TOML) and plan it over a group",
        description="Validate a recipe with located errors (all of them), then render each "
        "node's composed-model steps and docker create argv. The launcher owns the multi-node "
        "flags and the per-node fabric env.",
        epilog="example:\n  planner recipe fixtures/recipes/dsv41-flash-jovian-r37-4x.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    recipe.add_argument("file", type=Path, help="the recipe TOML")
    recipe.add_argument("--group", default="group_a", help="fabric group (default: group_a)")
    recipe.add_argument("--name", help="container name (default: the recipe's directory name)")
    recipe.add_argument("--out", type=Path, help="report path (default: target/<name>-plan.txt)")
    recipe.add_argument("--data", type=Path, help="data root (default: the fixtures directory)")
    coordinator.add_parser(commands, sorted(DEFAULT_OUT))  # planner apply: planner/coordinator.py
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
    if args.scenario and (args.authority or args.inputs):
        raise PlannerInputError("arguments", "--scenario", "use --scenario or --authority/--inputs")
    if args.scenario:
        scenario = load_scenario(root, args.scenario)
        now = _parse_now(args.now) if args.now else scenario.now
        return scenario.authority, scenario.inputs, now
    if not args.authority:
        raise PlannerInputError("arguments", "--authority", "give --scenario or --authority")
    now = _parse_now(args.now) if args.now else datetime.now(UTC)
    return args.authority, args.inputs, now


def dry_run(args: argparse.Namespace) -> DryRun:
    root = args.data or data.default_data_root()
    authority, inputs_path, now = _sources(args, root)
    state = fold(read_log(authority), now)
    fabric = data.fabric(root)
    if args.arm == "glm_group_b":
        return glm_group_b_launch_dry_run(fabric, data.manifest(data.GLM_MANIFEST, root), state)
    inputs = load_inputs(inputs_path) if inputs_path else PlanInputs()
    manifest = data.manifest(data.V41_MANIFEST, root)
    source = str(inputs_path) if inputs_path else "inputs"
    return v41_group_a_launch_dry_run(fabric, manifest, inputs, state, source)


def _written(out: Path, text: str) -> bool:
    """Write the report atomically; a path that cannot take it is a located input error."""
    try:
        write_atomically(out, text)
    except OSError as exc:
        print(f"planner: error: --out {out}: cannot write the report: {exc}", file=sys.stderr)
        return False
    return True


def _run_dry_run(args: argparse.Namespace) -> int:
    try:
        run = dry_run(args)
    except PlannerInputError as exc:
        print(f"planner: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out = args.out or Path(DEFAULT_OUT[args.arm])
    if not _written(out, render_report(run)):
        return EXIT_USAGE
    print(f"{run.arm}: report written to {out} ({len(run.hosts)} hosts rendered)")
    for line in (r.line() for r in run.refusals):
        print(line)
    print(f"{run.arm}: {'ADMITTED' if run.admitted else 'REFUSED'}")
    return EXIT_ADMITTED if run.admitted else EXIT_REFUSED


def _group(fabric: Fabric, name: str) -> FabricGroup:
    """The --group to plan over; an unknown name is a located input error."""
    try:
        return fabric.group(name)
    except KeyError as exc:
        raise PlannerInputError("--group", name, str(exc.args[0])) from exc


def _run_recipe(args: argparse.Namespace) -> int:
    root = args.data or data.default_data_root()
    # recipes live as <name>/recipe.toml or as <name>.toml
    stem = args.file.resolve().parent.name if args.file.name == "recipe.toml" else args.file.stem
    name = args.name or stem
    try:
        recipe = load_recipe(args.file)
        group = _group(data.fabric(root), args.group)
        snapshot = data.snapshot_manifest(recipe.model, root) if recipe.composed_model else None
        plan = plan_recipe(recipe, group, safe_name(name), snapshot)
    except (PlannerInputError, KeyError, ValueError) as exc:
        print(f"planner: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out = args.out or Path("target") / f"{name}-plan.txt"
    if not _written(out, render_recipe_report(plan)):
        return EXIT_USAGE
    print(f"{plan.name}: {len(plan.ranks)} nodes planned; report written to {out}")
    return EXIT_ADMITTED


def _list_scenarios() -> int:
    root = data.default_data_root()
    try:
        for name in scenario_names(root):
            print(f"{name}: {load_scenario(root, name).description}")
    except PlannerInputError as exc:
        print(f"planner: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "recipe":
            return _run_recipe(args)
        if args.command == "scenarios":
            return _list_scenarios()
        if args.command == "apply":
            return coordinator.run(args, dry_run)
        return _run_dry_run(args)
    except BrokenPipeError:
        # A reader that stopped early (`planner scenarios | head`) is not an error.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
