"""Witness: the ``planner`` command line — exit codes, printed lines, the reports it writes,
and its help.

Every claim calls the real entry point, ``planner.cli.main(argv)`` (what the ``planner``
console script calls), in this process, with stdout and stderr captured and every ``--out``
in a temporary directory. Expected values come from the inputs (the scenario files, the
recipes), from the README and the help (the contract the user reads), and from the planner's
own plan built through ``fixtures.builders``: the report must carry exactly the planned
artifacts. No stored copy of a report.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import stat
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from importlib.metadata import entry_points, metadata
from itertools import takewhile
from pathlib import Path

from claims import ClaimKind, Verdict, claim, expect, expect_equal
from fixtures.builders import (
    DATA_ROOT,
    SEED_RECIPE,
    TINY_RECIPE,
    Raising,
    authority_state,
    data_root_env,
    inventory,
    run_planner,
    scenario,
    seed_recipe_plan,
    v41_dry_run,
    v41_manifest,
    working_directory,
)
from planner.apply import Stage
from planner.arm_launch import DryRun
from planner.arms import arms
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_launch_dry_run
from planner.cli import build_parser
from planner.data import snapshot_manifest
from planner.engram import MkdirStep
from planner.frontiers import PlanInputs
from planner.recipe import load_recipe
from planner.recipe_extensions import stock_parser_findings
from planner.recipe_launch import RecipeSources, recipe_dry_run
from planner.refusal import Refusal
from planner.report import render_report, write_atomically
from planner.scenarios import load_inputs
from planner.version import planner_version
from witnesses.arms.expected import expected, supplied
from witnesses.support import (
    PLANTED_AT,
    SCENARIOS,
    fabric_raw,
    planted_bug,
    read_json,
    renderer,
    scenario_now,
    scenario_raw,
    tree,
)

# The README the user reads: the checkout's (the mutation survey runs from a copy of the
# sources in mutants/ inside the checkout, which has no README of its own); in an installed
# wheel, where no checkout is, the same README as the distribution's description.
README = next(
    (d / "README.md" for d in Path(__file__).resolve().parents if (d / "README.md").is_file()),
    None,
)
RULE = "=" * 78
V41, GLM = "v41_group_a", "glm_group_b"
ARM_NAMES = sorted(arms())
"""The arms the command line offers: every module of ``planner.arms``."""
# docs/planner.md's named refusal scenarios (a stable contract), and live.
REFUSAL_SCENARIOS = (
    "live",
    "unprobed_image",
    "active_incumbent",
    "expired_lease",
    "other_successor",
    "image_other_runtime",
    "host_not_held",
    "host_released",
    "low_utilization",
    "no_profile",
)


def _refusal_line(r: Refusal) -> str:
    # The README's form: `refused: <code> at <location>: <message>`.
    return f"refused: {r.code} at {r.where}: {r.message}"


def _refusal_lines(r: Refusal) -> list[str]:
    """The refusal's line, then `  hint: <hint>` on its own line when it has a hint."""
    return [_refusal_line(r), *([f"  hint: {r.hint}"] if r.hint else [])]


def _dry_run_lines(run: DryRun, out: Path | str) -> list[str]:
    """What a dry run prints: where the report went and how many hosts rendered, each
    refusal in order, then the arm's decision."""
    decision = "ADMITTED" if run.admitted else "REFUSED"
    return [
        f"{run.arm}: report written to {out} ({len(run.hosts)} hosts rendered)",
        *(line for r in run.refusals for line in _refusal_lines(r)),
        f"{run.arm}: {decision}",
    ]


# --------------------------------------------------------------------------- exit codes


@claim(ClaimKind.POSITIVE_CONTROL)
def admitted_dry_runs_exit_0_and_say_where_the_report_went() -> Verdict:
    """Every arm the `supplied` scenario admits (both arms here) exits 0, prints the report's
    path with its group's hosts rendered and `ARM: ADMITTED`, writes that report (parent
    directories created) and nothing else."""
    problems = []
    admitted = [arm for arm in ARM_NAMES if expected(arm).admitted]
    for arm in admitted or ["<no arm admitted under supplied>"]:
        planned, hosts = supplied(arms()[arm]), len(expected(arm).hosts)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "reports" / arm / "report.txt"
            ran = run_planner("dry-run", arm, "--scenario", "supplied", "--out", out)
            want = [f"{arm}: report written to {out} ({hosts} hosts rendered)", f"{arm}: ADMITTED"]
            if not planned.admitted or len(planned.hosts) != hosts:
                problems.append(f"{arm}: the planned supplied run is not {hosts} hosts, admitted")
            if (ran.code, ran.lines, ran.err) != (0, want, ""):
                problems.append(f"{arm}: exit {ran.code}, stdout {ran.lines}, stderr {ran.err!r}")
            written = tree(Path(tmp))
            expected_tree = ["reports", f"reports/{arm}", f"reports/{arm}/report.txt"]
            if written != expected_tree:
                problems.append(f"{arm}: left {written}")
    return expect(not problems, f"{', '.join(admitted)}: exit 0, ADMITTED", "; ".join(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def without_out_each_arm_writes_its_default_report_under_the_working_directory() -> Verdict:
    """Without --out a live read (--authority) writes the report at the arm's default path
    under target/ in the working directory, and ``--scenario S`` at that path with ``-S``
    before ``.txt`` (a refused scenario never overwrites an admitted report); the printed
    line names the path, and the run exits as the arm's admission decides (0 admitted, 1
    refused). An arm whose inputs are pinned plans the live read without --inputs as well."""
    problems = []
    supplied = SCENARIOS / "supplied"
    now = scenario_now("supplied").isoformat()
    log: list[str | Path] = ["--authority", supplied / "authority.jsonl", "--now", now]
    for arm in ARM_NAMES:
        report, code = expected(arm).report, 0 if expected(arm).admitted else 1
        givens: list[tuple[list[str | Path], str]] = [
            (["--scenario", "supplied"], _scenario_report(arm, "supplied")),
            ([*log, "--inputs", supplied / "inputs.json"], report),
        ]
        if not arms()[arm].uses_inputs:
            givens.append((log, report))
        for given, want_path in givens:
            with tempfile.TemporaryDirectory() as tmp, working_directory(Path(tmp)):
                ran = run_planner("dry-run", arm, *given)
                hosts = len(expected(arm).hosts)
                want = f"{arm}: report written to {want_path} ({hosts} hosts rendered)"
                files = [p for p in tree(Path(tmp)) if (Path(tmp) / p).is_file()]
                if ran.code != code or ran.lines[:1] != [want] or files != [want_path]:
                    options = [str(o) for o in given if str(o).startswith("--")]
                    problems.append(
                        f"{arm} {options}: exit {ran.code}, said {ran.lines[:1]}, wrote {files}"
                    )
    reports = sorted(expected(arm).report for arm in ARM_NAMES)
    return expect(not problems, f"default reports {reports}", "; ".join(problems))


def _scenario_report(arm: str, scenario: str) -> str:
    """The default report of ``--scenario``: the arm's, the scenario's name before .txt."""
    return expected(arm).report.removesuffix(".txt") + f"-{scenario}.txt"


@claim(ClaimKind.REFUSAL)
def refused_dry_runs_exit_1_printing_every_refusal_in_order() -> Verdict:
    """Live and every refusal scenario exit 1 and print the report line, each refusal as
    `refused: <code> at <location>: <message>` (and its hint line) in the planner's order,
    then `ARM: REFUSED`; the report is written."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in REFUSAL_SCENARIOS:
            out = Path(tmp) / f"{name}.txt"
            planned = v41_dry_run(name)
            ran = run_planner("dry-run", V41, "--scenario", name, "--out", out)
            if not planned.refusals:
                problems.append(f"{name}: the planner refuses nothing")
            want = _dry_run_lines(planned, out)
            if (ran.code, ran.lines, ran.err) != (1, want, "") or not out.is_file():
                problems.append(f"{name}: exit {ran.code}, stdout {ran.lines}, stderr {ran.err!r}")
        # a log without an inputs file: nothing supplied, every frontier named
        supplied = scenario("supplied")
        bare = v41_group_a_launch_dry_run(
            inventory(), v41_manifest(), PlanInputs(), authority_state("supplied")
        )
        now = supplied.now.isoformat()
        out = Path(tmp) / "bare.txt"
        ran = run_planner(
            "dry-run", V41, "--authority", supplied.authority, "--now", now, "--out", out
        )
        if len(bare.refusals) < 3 or (ran.code, ran.lines) != (1, _dry_run_lines(bare, out)):
            problems.append(f"no --inputs: exit {ran.code}, stdout {ran.lines}")
    return expect(
        not problems,
        f"{len(REFUSAL_SCENARIOS)} scenarios and a bare log exit 1, each refusal in order",
        "; ".join(problems[:3]),
    )


HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"


def _hints_shown(name: str, tmp: Path) -> list[str]:
    """Where scenario ``name``'s refusals are shown without their hints right after them."""
    refused = v41_dry_run(name).refusals
    problems = [f"{name}: {r.code} has no hint" for r in refused if not r.hint]
    pairs = [[_refusal_line(r), f"  hint: {r.hint}"] for r in refused]
    out = tmp / f"{name}.txt"
    printed = run_planner("dry-run", V41, "--scenario", name, "--out", out).lines
    reported = out.read_text(encoding="utf-8").splitlines() if out.is_file() else []
    applied = run_planner("apply", V41, "--scenario", name, "--hosts", HOSTS, "--dry-run").lines
    for where, lines in (("stdout", printed), ("report", reported), ("apply", applied)):
        if not all(_follows(lines, pair) for pair in pairs):
            problems.append(f"{name}: {where} {lines[-4:]}")
    return problems


def _follows(lines: list[str], pair: list[str]) -> bool:
    return any(lines[i : i + 2] == pair for i in range(len(lines)))


@claim(ClaimKind.REFUSAL)
def every_refusal_prints_its_hint_on_the_next_line() -> Verdict:
    """Every refusal of live and of each refusal scenario carries a hint, and `planner
    dry-run` (on stdout and in its report) and `planner apply` print it as `  hint: <hint>` on
    the line right after the refusal's own; a refusal without a hint is reported as its line
    alone."""
    with tempfile.TemporaryDirectory() as tmp:
        problems = [p for name in REFUSAL_SCENARIOS for p in _hints_shown(name, Path(tmp))]
    run = v41_dry_run("host_not_held")
    assert run.admission is not None  # the scenario renders; admission refuses srv8
    bare = tuple(r.model_copy(update={"hint": ""}) for r in run.admission.refusals)
    admission = run.admission.model_copy(update={"refusals": bare})
    unhinted = run.model_copy(update={"admission": admission})
    if any(line.startswith("  hint:") for line in render_report(unhinted).splitlines()):
        problems.append("a refusal without a hint is reported with a hint line")
    return expect(
        not problems,
        f"{len(REFUSAL_SCENARIOS)} scenarios: each refusal's hint follows it (stdout, report, "
        "apply)",
        "; ".join(problems[:3]),
    )


def _mirror(source: Path, target: Path, leave_out: str) -> Path:
    """``target`` mirroring ``source`` by symlinks, without the entry ``leave_out`` (a
    relative path; the directories above it are mirrored entry by entry)."""
    head, _, rest = leave_out.partition("/")
    target.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name == head and rest:
            _mirror(entry, target / head, rest)
        elif entry.name != head:
            (target / entry.name).symlink_to(entry)
    return target


def _known_scenarios() -> str:
    return ", ".join(sorted(p.name for p in SCENARIOS.iterdir() if (p / "scenario.json").is_file()))


def _usage_cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    """(what, argv, the exact stderr) of each usage or input error; --out is always tmp/r.txt."""
    supplied = SCENARIOS / "supplied"
    log, inputs = supplied / "authority.jsonl", supplied / "inputs.json"
    now = "2026-11-29T12:00:00Z"
    missing = tmp / "missing.jsonl"
    not_there = tmp / "no-inputs.json"
    nowhere = tmp / "nowhere"
    dry = ["dry-run", V41]
    # inputs whose Engram manifest names a row store outside its directory (a located error
    # naming the inputs file, not "inputs")
    bad_inputs = tmp / "inputs" / "bad.json"
    bad_inputs.parent.mkdir()
    raw = read_json(inputs)
    raw["engram_manifest"] = json.dumps({"row_stores": [{"path": "/etc/passwd"}]})
    bad_inputs.write_text(json.dumps(raw), encoding="utf-8")
    broken_root = _mirror(DATA_ROOT, tmp / "data", "scenarios/broken")
    (broken_root / "scenarios" / "broken").mkdir()
    (broken_root / "scenarios" / "broken" / "scenario.json").write_text("", encoding="utf-8")
    return [
        (
            "unparseable --now",
            [*dry, "--scenario", "supplied", "--now", "tomorrow"],
            "planner: error: --now: tomorrow: not an ISO-8601 time\n",
        ),
        (
            "--now without a zone",
            [*dry, "--scenario", "supplied", "--now", "2026-11-29T12:00:00"],
            "planner: error: --now: 2026-11-29T12:00:00: give a time zone (e.g. Z or +00:00)\n",
        ),
        (
            "unknown scenario",
            [*dry, "--scenario", "nope"],
            f"planner: error: --scenario: nope: no such scenario; known: {_known_scenarios()}\n",
        ),
        (
            "a misspelled scenario",
            [*dry, "--scenario", "livee"],
            f"planner: error: --scenario: livee: no such scenario; known: {_known_scenarios()}"
            "; did you mean live?\n",
        ),
        (
            # a path that resolves to a real scenario directory is still not a scenario name
            "scenario given as a path",
            [*dry, "--scenario", "../scenarios/supplied"],
            "planner: error: --scenario: ../scenarios/supplied: no such scenario; known: "
            f"{_known_scenarios()}\n",
        ),
        (
            "--scenario with --authority",
            [*dry, "--scenario", "supplied", "--authority", str(log)],
            "planner: error: arguments: --scenario: use --scenario or --authority/--inputs\n",
        ),
        (
            "--scenario with --inputs",
            [*dry, "--scenario", "supplied", "--inputs", str(inputs)],
            "planner: error: arguments: --scenario: use --scenario or --authority/--inputs\n",
        ),
        (
            "neither --scenario nor --authority",
            [*dry, "--inputs", str(inputs), "--now", now],
            "planner: error: arguments: --authority: give --scenario or --authority\n",
        ),
        (
            "missing authority log",
            [*dry, "--authority", str(missing), "--inputs", str(inputs), "--now", now],
            f"planner: error: {missing}: <file>: cannot read authority log: [Errno 2] "
            f"No such file or directory: '{missing}'\n",
        ),
        (
            "authority log that is a directory",
            [*dry, "--authority", str(supplied), "--now", now],
            f"planner: error: {supplied}: <file>: cannot read authority log: [Errno 21] "
            f"Is a directory: '{supplied}'\n",
        ),
        (
            "missing inputs file",
            [*dry, "--authority", str(log), "--inputs", str(not_there), "--now", now],
            f"planner: error: {not_there}: <file>: cannot read plan inputs: [Errno 2] "
            f"No such file or directory: '{not_there}'\n",
        ),
        (
            "data root without scenarios",
            [*dry, "--scenario", "supplied", "--data", str(nowhere)],
            f"planner: error: {nowhere}/scenarios: <dir>: no scenarios directory (check --data)\n",
        ),
        (
            "an Engram manifest in the inputs file escaping its directory",
            [*dry, "--authority", str(log), "--inputs", str(bad_inputs), "--now", now],
            f"planner: error: {bad_inputs}: engram_manifest.row_stores[0].path: '/etc/passwd' "
            "is not inside the row-store directory /var/tmp/engram-local/DeepSeek-V4.1-Flash\n",
        ),
        (
            "a scenario whose scenario.json is not JSON",
            [*dry, "--scenario", "broken", "--data", str(broken_root)],
            f"planner: error: {broken_root}/scenarios/broken/scenario.json: <file>: cannot read "
            "scenario: Expecting value: line 1 column 1 (char 0)\n",
        ),
        ("no command", [], "planner: error: the following arguments are required: command\n"),
        (
            "neither an arm nor --recipe",
            ["dry-run", "--scenario", "supplied"],
            "planner: error: arguments: arm: give an arm or --recipe FILE\n",
        ),
        (
            "an arm and --recipe",
            [*dry, "--recipe", str(SEED_RECIPE)],
            "planner: error: arguments: --recipe: give an arm or --recipe FILE, not both\n",
        ),
        (
            "--recipe with --scenario",
            ["dry-run", "--recipe", str(SEED_RECIPE), "--scenario", "supplied"],
            "planner: error: arguments: --scenario: is for arms, not --recipe\n",
        ),
        (
            "--recipe with --inputs",
            ["dry-run", "--recipe", str(SEED_RECIPE), "--inputs", str(inputs)],
            "planner: error: arguments: --inputs: is for arms, not --recipe\n",
        ),
        (
            "an arm with --name",
            [*dry, "--scenario", "supplied", "--name", "x"],
            "planner: error: arguments: --name: is for --recipe, not an arm\n",
        ),
        (
            "an arm with --group",
            [*dry, "--scenario", "supplied", "--group", "group_b"],
            "planner: error: arguments: --group: is for --recipe, not an arm\n",
        ),
        (
            "--recipe with --now and no log",
            ["dry-run", "--recipe", str(SEED_RECIPE), "--now", now],
            "planner: error: arguments: --now: reads the authority log: give --authority\n",
        ),
        (
            "unknown arm",
            ["dry-run", "v5_group_c", "--scenario", "supplied"],
            "planner dry-run: error: argument arm: invalid choice: 'v5_group_c' "
            f"(choose from {', '.join(repr(name) for name in ARM_NAMES)}); "
            "did you mean v41_group_a?\n",
        ),
        (
            "a misspelled option",
            [*dry, "--scenaro", "supplied"],
            "planner dry-run: error: unrecognized arguments: --scenaro; did you mean --scenario?\n",
        ),
        (  # the value after it is never taken for the arm
            "a misspelled option before the arm",
            ["dry-run", "--scenaro", "live", "v41_group_a"],
            "planner dry-run: error: unrecognized arguments: --scenaro; did you mean --scenario?\n",
        ),
        (
            "two misspelled options",
            [*dry, "--scenaro=live", "--autority", "log"],
            "planner dry-run: error: unrecognized arguments: --scenaro=live --autority; "
            "did you mean --scenario for --scenaro, --authority for --autority?\n",
        ),
        (
            "a misspelled option of a recipe",
            ["recipe", str(TINY_RECIPE), "--nme", "x"],
            "planner recipe: error: unrecognized arguments: --nme; did you mean --name?\n",
        ),
        (  # before the subcommand: the top-level parser's
            "a misspelled option before the subcommand",
            ["--debg", *dry, "--scenario", "supplied"],
            "planner: error: unrecognized arguments: --debg; did you mean --debug?\n",
        ),
        (
            "a misspelled subcommand",
            ["dry-rn", "v41_group_a"],
            "planner: error: argument command: invalid choice: 'dry-rn' (choose from 'dry-run', "
            "'scenarios', 'schema', 'recipe', 'apply'); did you mean dry-run?\n",
        ),
        (  # no option is close: argparse's message as it was
            "an option like none",
            [*dry, "--zzzzzz"],
            "planner dry-run: error: unrecognized arguments: --zzzzzz\n",
        ),
        (
            "a misspelled option holding an escape",
            [*dry, "--scenari\x1b[2Jo"],
            "planner dry-run: error: unrecognized arguments: --scenari\\x1b[2Jo; "
            "did you mean --scenario?\n",
        ),
    ]


@claim(ClaimKind.REFUSAL)
def usage_and_input_errors_exit_2_naming_the_value_and_writing_nothing() -> Verdict:
    """A bad --now, a --now without a zone, an unknown scenario, --scenario with
    --authority/--inputs, neither given, a missing or unreadable authority or inputs file, a
    data root without scenarios, an unknown arm or subcommand, a misspelled option (each with
    the choice closest to it, escaped as given): exit 2, nothing on stdout, one stderr line
    naming the bad value and where, after the usage of the command that says it, and nothing
    written."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "out"
        root.mkdir()
        cases = _usage_cases(Path(tmp))
        for what, argv, want in cases:
            out = root / "r.txt"
            ran = run_planner(*argv, *([] if not argv else ["--out", str(out)]))
            # argparse prints the usage of the parser that errs first, its error last
            err = ran.err.splitlines()[-1] + "\n" if ran.err.startswith("usage:") else ran.err
            usage = f"usage: {err.partition(': error:')[0]} "
            if ran.err != err and not ran.err.startswith(usage):
                problems.append(f"{what}: not the usage of {usage[7:-1]!r}: {ran.err!r}")
            if (ran.code, ran.lines, err) != (2, [], want) or tree(root):
                problems.append(f"{what}: exit {ran.code}, stderr {ran.err!r}, left {tree(root)}")
    return expect(
        not problems,
        f"{len(cases)} usage/input errors: exit 2, located, nothing written",
        "; ".join(problems[:3]),
    )


@claim(ClaimKind.REFUSAL)
def an_unwritable_out_exits_2_and_leaves_nothing_behind() -> Verdict:
    """An --out that cannot take the report (a directory; a path under a regular file) exits
    2 with `planner: error: --out PATH: cannot write the report: …`, prints no verdict, and
    leaves no temp file; what was there is untouched."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        occupied = root / "occupied.txt"
        occupied.write_text("kept\n", encoding="utf-8")
        (root / "a-directory").mkdir()
        for out in (root / "a-directory", occupied / "report.txt"):
            ran = run_planner("dry-run", V41, "--scenario", "supplied", "--out", out)
            head = f"planner: error: --out {out}: cannot write the report: "
            lines = ran.err.splitlines()
            if ran.code != 2 or ran.lines or len(lines) != 1 or not lines[0].startswith(head):
                problems.append(f"{out}: exit {ran.code}, stdout {ran.lines}, stderr {ran.err!r}")
        kept = occupied.read_text(encoding="utf-8") == "kept\n"
        if tree(root) != ["a-directory", "occupied.txt"] or not kept:
            problems.append(f"left {tree(root)}")
    return expect(
        not problems,
        "a directory and a path under a file: exit 2, nothing left",
        "; ".join(problems),
    )


@claim(ClaimKind.REFUSAL)
def every_data_file_is_read_from_the_data_root() -> Verdict:
    """With --data, the inventory, the checkpoint manifests and the snapshot manifests are
    read from that root: a root without the inventory or an arm's manifest exits 2 naming
    that file in that root (both arms and recipes); a root without the seed recipe's model's
    manifest refuses it, weight unknown (exit 1); a complete root plans as the fixtures do."""
    seed = ("recipe", SEED_RECIPE)
    supplied = ("dry-run", V41, "--scenario", "supplied")
    glm = ("dry-run", GLM, "--scenario", "supplied")
    cases = [
        (supplied, "fabric.json", "cannot read inventory"),
        (supplied, V41_MANIFEST, "cannot read"),
        (glm, GLM_MANIFEST, "cannot read"),
        (seed, "fabric.json", "cannot read inventory"),
    ]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for number, (argv, missing, says) in enumerate(cases):
            root = _mirror(DATA_ROOT, Path(tmp) / f"root{number}", missing)
            ran = run_planner(*argv, "--data", root, "--out", Path(tmp) / "r.txt")
            head = f"planner: error: {root}/{missing}: "
            if ran.code != 2 or not ran.err.startswith(head) or says not in ran.err:
                problems.append(f"{' '.join(map(str, argv[:2]))} without {missing}: {ran.err!r}")
        # the seed recipe composes DeepSeek-V4.1-Flash's snapshot, whose manifest weighs it
        root = _mirror(DATA_ROOT, Path(tmp) / "no-weight", V41_MANIFEST)
        ran = run_planner(*seed, "--data", root, "--out", Path(tmp) / "r.txt")
        unknown = "refused: fit.weight_unknown at model: "
        if ran.code != 1 or not any(line.startswith(unknown) for line in ran.lines):
            problems.append(f"recipe without {V41_MANIFEST}: exit {ran.code}, {ran.lines}")
        whole = _mirror(DATA_ROOT, Path(tmp) / "whole", "-")
        for argv, code in ((supplied, 0), (glm, 0), (seed, 0)):
            ran = run_planner(*argv, "--data", whole, "--out", Path(tmp) / "r.txt")
            if ran.code != code:
                problems.append(f"{' '.join(map(str, argv[:2]))} with a whole root: {ran.err!r}")
    return expect(
        not problems, "5 missing files named in --data; whole root plans", "; ".join(problems)
    )


# --------------------------------------------------------------------------- --now


def _read_at(report: Path) -> str:
    prefix = "authority read at: "
    lines = report.read_text(encoding="utf-8").splitlines()
    return next((ln.removeprefix(prefix) for ln in lines if ln.startswith(prefix)), "")


@claim(ClaimKind.REFUSAL)
def now_overrides_the_scenario_time() -> Verdict:
    """Without --now a scenario's log is read at the scenario's time; --now (also with a
    non-UTC offset) overrides it: `supplied` read after its lease ends refuses the lease,
    `expired_lease` read before its lease ends admits; --authority without --now reads at the
    current time."""
    supplied_now = scenario_now("supplied")
    after_lease = "2026-11-29T19:30:00+01:00"  # 18:30Z; supplied's lease ends 18:00Z
    before_lease = "2026-11-29T12:30:00+02:00"  # 10:30Z; expired_lease's lease ends 11:00Z
    late = v41_dry_run("supplied", datetime.fromisoformat(after_lease))
    early = v41_dry_run("expired_lease", datetime.fromisoformat(before_lease))
    cases: list[tuple[str, list[str], int, str, DryRun | None]] = [
        ("supplied, no --now", ["--scenario", "supplied"], 0, supplied_now.isoformat(), None),
        (
            "supplied after the lease",
            ["--scenario", "supplied", "--now", after_lease],
            1,
            after_lease,
            late,
        ),
        (
            "expired_lease, no --now",
            ["--scenario", "expired_lease"],
            1,
            scenario_now("expired_lease").isoformat(),
            None,
        ),
        (
            "expired_lease before the lease ends",
            ["--scenario", "expired_lease", "--now", before_lease],
            0,
            before_lease,
            early,
        ),
    ]
    problems = []
    if [r.code for r in late.refusals] != ["admission.lease_expired"] or not early.admitted:
        problems.append(
            "the planner itself: supplied late must refuse the lease, expired_lease early admit"
        )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.txt"
        for what, argv, code, read_at, planned in cases:
            ran = run_planner("dry-run", V41, *argv, "--out", out)
            lines = _dry_run_lines(planned, out) if planned else ran.lines
            if (ran.code, ran.lines, _read_at(out)) != (code, lines, read_at):
                problems.append(
                    f"{what}: exit {ran.code}, read at {_read_at(out)!r}, stdout {ran.lines}"
                )
        supplied = SCENARIOS / "supplied"
        before = datetime.now(UTC)
        ran = run_planner(
            "dry-run", V41, "--authority", supplied / "authority.jsonl",
            "--inputs", supplied / "inputs.json", "--out", out,
        )  # fmt: skip
        after = datetime.now(UTC)
        try:
            moment = datetime.fromisoformat(_read_at(out))
            now_read = moment.utcoffset() is not None and before <= moment <= after
        except ValueError:
            now_read = False
        if ran.code not in (0, 1) or not now_read:
            problems.append(
                f"--authority without --now: exit {ran.code}, read at {_read_at(out)!r}"
            )
    return expect(
        not problems,
        "scenario time by default; --now overrides; wall clock for logs",
        "; ".join(problems),
    )


# --------------------------------------------------------------------------- the report


class _Cursor:
    """Reads a report line by line, recording where it differs from the plan."""

    def __init__(self, text: str, problems: list[str]) -> None:
        self.lines = text.split("\n")
        self.at = 0
        self.problems = problems

    def take(self, count: int = 1) -> list[str]:
        got = self.lines[self.at : self.at + count]
        self.at += count
        return got

    def line(self) -> str:
        got = self.take()
        return got[0] if got else "<end of report>"

    def expect(self, want: str) -> None:
        got = self.line()
        if got != want:
            self.problems.append(f"line {self.at}: expected {want!r}, got {got!r}")

    def expect_block(self, want: str, what: str) -> None:
        """The next lines are exactly ``want`` (a text without its final newline)."""
        count = len(want.split("\n"))
        got = "\n".join(self.take(count))
        if got != want:
            self.problems.append(f"{what} (line {self.at - count + 1}) differs from the plan")

    def expect_argv(self, want: Sequence[str], what: str) -> None:
        got = self.line()
        try:
            words = shlex.split(got)
        except ValueError:
            words = [got]
        if words != list(want):
            self.problems.append(f"{what}: {got!r} does not split into the planned argv")


def _host_title(name: str, rank: int) -> str:
    # The head is node rank 0 (spec: "head" everywhere means node rank 0).
    return f"host {name} — node rank {rank}{' (head)' if rank == 0 else ''}"


def _check_hosts(cursor: _Cursor, run: DryRun) -> None:
    for host in run.hosts:
        real = host.realization
        for want in (RULE, _host_title(real.host_name, real.rank), RULE):
            cursor.expect(want)
        if host.composed:  # a recipe's composed model, numbered, before its create argv
            cursor.expect("## composed model (run on the host before apply)")
            for number, argv in enumerate(host.composed, 1):
                cursor.expect_argv([f"{number}.", *argv], f"{real.host_name} composed {number}")
            cursor.expect("")
        cursor.expect("## docker create")
        cursor.expect_argv(real.create_argv, f"{real.host_name} create argv")
        cursor.expect("")
        cursor.expect(f"## unit {real.unit_name}")
        cursor.expect_block(real.unit_text.removesuffix("\n"), f"{real.host_name} unit")
        cursor.expect("")
        cursor.expect("## engram staging")
        if not host.staging:
            cursor.expect("(none)")
        for number, staged in enumerate(host.staging, 1):
            if isinstance(staged, MkdirStep):
                # a directory step is shown as the command that runs
                cursor.expect_argv(
                    [f"{number}.", "run", *staged.argv], f"{real.host_name} staging {number}"
                )
            else:
                cursor.expect(f"{number}. {staged.describe()}")
        if [s.rank for s in host.steps] != [real.rank] * len(Stage):
            cursor.problems.append(f"{real.host_name}: the plan has not one step per stage")
        for step in host.steps:
            cursor.expect("")
            heading = cursor.line()
            invocation = re.fullmatch(rf"## {step.stage.value} \((.*)\)", heading)
            if invocation is None or shlex.split(invocation.group(1)) != list(step.invocation):
                cursor.problems.append(
                    f"{real.host_name}: heading {heading!r} for {step.stage.value}"
                )
            door = cursor.line()
            check, _, log = door.removeprefix("# front door: ").rpartition("; log ")
            if (
                not door.startswith("# front door: ")
                or shlex.split(check) != list(step.front_door.check)
                or log != step.front_door.log_path
            ):
                cursor.problems.append(f"{real.host_name} {step.stage.value}: front door {door!r}")
            cursor.expect_block(
                step.script.removesuffix("\n"), f"{real.host_name} {step.stage.value} script"
            )
        cursor.expect("")


def _verdict_lines(run: DryRun, read_at: datetime | None) -> list[str]:
    """The verdict the user reads: candidate, read time (or that no log was given), any
    warning, the fit and profile when planned, the admission line and any conjunct not
    checked, every refusal, the result with the count (PLANNED when no log was given)."""
    lines = [RULE, "verdict", RULE, f"candidate: {run.candidate.key}"]
    if read_at is None:
        lines.append("authority: no log given")
    else:
        lines.append(f"authority read at: {read_at.isoformat()}")
    lines += run.warnings
    if run.fit is not None:
        lines.append(f"fit: {run.fit.summary()}")
    if run.launch is not None:
        stages = [s.value for s in Stage]
        # forward order, rollback replaces commit on failure, cleanup last
        forward = " -> ".join(s for s in stages if s not in ("rollback", "cleanup"))
        lines.append(f"profile key: {run.launch.profile_key}")
        lines.append(
            f"apply order (each stage head first): {forward}; on any failure: rollback; "
            "then cleanup"
        )
    if run.admission is None and read_at is None:
        lines.append("admission: not checked (no authority log; planner apply refuses it)")
    elif run.admission is None:
        lines.append("admission: not evaluated (the plan did not render)")
    elif run.admission.admitted:
        # the admission fold's own result; a fit refusal still refuses the run below
        held = (
            "every checked conjunct holds" if run.admission.unchecked else "all four conjuncts hold"
        )
        lines.append(f"admission: admitted ({held})")
    if run.admission is not None:
        lines += [f"admission: not checked: {why}" for why in run.admission.unchecked]
    lines += [line for r in run.refusals for line in _refusal_lines(r)]
    if run.admitted:
        lines.append("result: ADMITTED")
    elif read_at is None and run.hosts and not run.refusals:
        lines.append("result: PLANNED (admission not checked)")
    else:
        lines.append(f"result: REFUSED ({len(run.refusals)})")
    return lines


def _verdict_word(run: DryRun, read_at: datetime | None) -> str:
    if run.admitted:
        return "ADMITTED"
    return "PLANNED" if read_at is None and run.hosts and not run.refusals else "REFUSED"


_INPUT_LINE = re.compile(r"input: ([a-z ]+): sha256 ([0-9a-f]{64}) \((first )?(\d+) bytes\) (/.+)")


def _input_problems(lines: list[str]) -> list[str]:
    """Each ``input:`` line of a report against the file it names, hashed here: its sha256
    and size (of the whole file, or of its first bytes for the authority log). A report
    that names no file at all is a problem too (every plan reads the inventory)."""
    problems = [] if lines else ["the header names no input file"]
    for line in lines:
        found = _INPUT_LINE.fullmatch(line)
        if found is None:
            problems.append(f"input line {line!r}")
            continue
        role, digest, first, size, path = found.groups()
        data = Path(path).read_bytes() if Path(path).is_file() else b""
        data = data[: int(size)] if first else data
        if len(data) != int(size) or hashlib.sha256(data).hexdigest() != digest:
            problems.append(f"{role} {path}: not the file's size and sha256")
        if bool(first) != (role == "authority log"):
            problems.append(f"{role}: {'a prefix' if first else 'whole'}")
    return problems


def _check_report(
    text: str, run: DryRun, read_at: datetime | None, recipe: str | None = None
) -> list[str]:
    """The report of ``run`` line by line; ``recipe`` is the header's recipe line (its
    file and name) of a recipe's dry run, whose ``read_at`` is ``None`` without a log."""
    problems: list[str] = []
    if not text.endswith("\n") or text.endswith("\n\n"):
        problems.append("the report does not end with exactly one newline")
    cursor = _Cursor(text.removesuffix("\n"), problems)
    cursor.expect(f"dry run: {run.arm} — a modeled launch; nothing here has run on any host")
    steps = sum(len(h.steps) for h in run.hosts)
    cursor.expect(f"summary: {len(run.hosts)} hosts, {steps} steps, {_verdict_word(run, read_at)}")
    if recipe is not None:
        cursor.expect(f"recipe: {recipe}")
    cursor.expect(f"planner: {planner_version()}")
    inputs = list(takewhile(lambda line: line.startswith("input: "), cursor.lines[cursor.at :]))
    cursor.at += len(inputs)
    problems += _input_problems(inputs)
    cursor.expect("")
    if not run.hosts:
        cursor.expect("(no host artifacts: the plan did not render; see the refusals below)")
        cursor.expect("")
    _check_hosts(cursor, run)
    rest = cursor.lines[cursor.at :]
    if rest != _verdict_lines(run, read_at):
        problems.append(f"verdict section: {rest}")
    return problems


def _report_of(arm: str, scenario: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.txt"
        run_planner("dry-run", arm, "--scenario", scenario, "--out", out)
        return out.read_text(encoding="utf-8") if out.is_file() else ""


@claim(ClaimKind.PLANNED_SHAPE)
def the_verdict_section_states_the_decision() -> Verdict:
    """The report is the plan line by line: per host in the plan's order, under its
    headings, the create argv as one line that splits back into exactly the planned argv,
    the unit text, each staging step, and every stage with its invocation, front door and
    script; then the verdict names the candidate, the read time, the fit and profile key
    when planned, the admission line, each refusal in order and the result with its count —
    for every arm under `supplied` (admitted), and V4.1 unrendered (live) and refused once
    rendered (active_incumbent, low_utilization)."""
    cases = [(arm, "supplied", supplied(arms()[arm])) for arm in ARM_NAMES]
    cases += [(V41, n, v41_dry_run(n)) for n in ("live", "active_incumbent", "low_utilization")]
    problems = [
        f"{arm} {name}: {p}"
        for arm, name, run in cases
        for p in _check_report(_report_of(arm, name), run, scenario_now(name))
    ]
    return expect(not problems, f"{len(cases)} reports as planned", "; ".join(problems[:4]))


# --------------------------------------------------------------------------- scenarios


@claim(ClaimKind.PLANNED_SHAPE)
def scenarios_lists_every_scenario_with_its_description() -> Verdict:
    """`planner scenarios` prints `name: description` for every scenario directory, sorted,
    and exits 0; a data root without scenarios exits 2 naming it; a reader that stops early
    is no error (exit 0, stderr closed quietly)."""
    want = [
        f"{p.name}: {read_json(p / 'scenario.json')['description']}"
        for p in sorted(SCENARIOS.iterdir())
        if (p / "scenario.json").is_file()
    ]
    problems = []
    ran = run_planner("scenarios")
    if (ran.code, ran.lines, ran.err) != (0, want, ""):
        problems.append(f"exit {ran.code}, stdout {ran.lines}, stderr {ran.err!r}")
    with tempfile.TemporaryDirectory() as tmp, data_root_env(Path(tmp)):
        ran = run_planner("scenarios")
        err = f"planner: error: {tmp}/scenarios: <dir>: no scenarios directory (check --data)\n"
        if (ran.code, ran.lines, ran.err) != (2, [], err):
            problems.append(f"no scenarios: exit {ran.code}, stderr {ran.err!r}")
    ran = run_planner("scenarios", stdout=Raising(BrokenPipeError(32, "Broken pipe")))
    if (ran.code, ran.err, ran.stderr_closed) != (0, "", True):
        problems.append(f"broken pipe: exit {ran.code}, stderr {ran.err!r}")
    return expect(not problems, f"{len(want)} scenarios listed", "; ".join(problems))


# --------------------------------------------------------------------------- recipes


def _recipe_run(recipe: Path, group: str, name: str) -> DryRun:
    loaded = load_recipe(recipe)
    sources = RecipeSources(
        recipe=loaded,
        source=str(recipe),
        name=name,
        group=inventory().group(group),
        manifest=snapshot_manifest(loaded.model, DATA_ROOT),
        state=None,
    )
    return recipe_dry_run(sources)


def _recipe_cases(tmp: Path) -> list[tuple[list[str | Path], Path, DryRun, Path]]:
    """(argv, the recipe file, its dry run, where the report must land) for the seed recipe
    by ``dry-run --recipe`` with --out, the tiny recipe over group_b under --name by its
    alias ``recipe``, and a `<dir>/recipe.toml` with no options."""
    named = tmp / "my-tiny" / "recipe.toml"
    named.parent.mkdir()
    shutil.copyfile(TINY_RECIPE, named)
    seed_out = tmp / "seed.txt"
    return [
        (["dry-run", "--recipe", SEED_RECIPE, "--out", seed_out], SEED_RECIPE,
         seed_recipe_plan(), seed_out),
        (["recipe", TINY_RECIPE, "--group", "group_b", "--name", "tiny-b"], TINY_RECIPE,
         _recipe_run(TINY_RECIPE, "group_b", "tiny-b"), tmp / "target" / "tiny-b-plan.txt"),
        # a recipe kept as <name>/recipe.toml is named after its directory
        (["recipe", named], named, _recipe_run(named, "group_a", "my-tiny"),
         tmp / "target" / "my-tiny-plan.txt"),
    ]  # fmt: skip


@claim(ClaimKind.PLANNED_SHAPE)
def recipe_prints_its_nodes_and_writes_each_nodes_plan() -> Verdict:
    """`planner dry-run --recipe FILE` (and its alias `planner recipe FILE`) exits 0 when the
    recipe plans with no refusal and no authority log, prints `NAME: report written to OUT
    (N hosts rendered)`, each warning about what its image adds to stock vLLM (the seed has
    two), and `NAME: PLANNED`, and writes the arms' report headed by the recipe's file and
    name: per host, in rank order, the composed-model steps, the create argv, the unit,
    every apply stage; then the verdict with the same warnings, the fit, `admission: not
    checked` and `result: PLANNED` (default report: target/<name>-plan.txt)."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp, working_directory(Path(tmp)):
        for argv, path, run, out in _recipe_cases(Path(tmp)):
            recipe = load_recipe(path)
            warnings = [f.line() for f in stock_parser_findings(recipe)]
            ran = run_planner(*argv)
            shown = out if "--out" in argv else out.relative_to(tmp)
            want = [
                f"{run.arm}: report written to {shown} ({len(run.hosts)} hosts rendered)",
                *warnings,
                f"{run.arm}: PLANNED",
            ]
            if (ran.code, ran.lines, ran.err) != (0, want, ""):
                problems.append(f"{argv[1]}: exit {ran.code}, out {ran.lines}, err {ran.err!r}")
                continue
            text = out.read_text(encoding="utf-8") if out.is_file() else ""
            if [w for w in warnings if f"\n{w}\n" not in text]:
                problems.append(f"{out.name}: the report lacks a warning")
            head = f"{path} ({recipe.name})"
            problems += [f"{out.name}: {p}" for p in _check_report(text, run, None, head)]
    return expect(not problems, "3 recipes planned and reported", "; ".join(problems[:4]))


@claim(ClaimKind.REFUSAL)
def recipe_errors_exit_2_with_every_problem_located() -> Verdict:
    """A recipe with several problems exits 2 naming the file, the count and each problem at
    its location; malformed TOML names the line and column; an unknown --group and a missing
    file are located too; nothing is written."""
    tiny = TINY_RECIPE.read_text(encoding="utf-8")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        bad, broken = Path(tmp) / "bad.toml", Path(tmp) / "broken.toml"
        # args[1] and env.VLLM_HOST_IP are the launcher's; args[3] is a config that is not JSON
        bad.write_text(
            tiny + 'args = ["--max-model-len 4096", "--nnodes=2", "--x", "{oops"]\n'
            '[env]\nVLLM_HOST_IP = "10.0.0.1"\n',
            encoding="utf-8",
        )
        broken.write_text(tiny + "bad = = 1\n", encoding="utf-8")
        bad_line = len(tiny.splitlines()) + 1  # the appended line; its value starts at column 7
        missing = Path(tmp) / "missing.toml"
        cases: list[tuple[list[str | Path], list[str]]] = [
            (
                ["recipe", bad],
                [
                    f"planner: error: {bad}: 3 problem(s): args[1]: --nnodes=2 is launcher-owned",
                    "  args[3]: not JSON: Expecting property name enclosed in double quotes",
                    "  env.VLLM_HOST_IP: set per node by the launcher",
                ],
            ),
            (
                ["recipe", broken],
                [f"planner: error: {broken}: line {bad_line}, column 7: malformed TOML: "],
            ),
            (
                ["recipe", TINY_RECIPE, "--group", "group_z"],
                [
                    "planner: error: --group: group_z: no fabric group 'group_z'; known groups: "
                    "group_a, group_b"
                ],
            ),
            (["recipe", missing], [f"planner: error: {missing}: <file>: cannot read recipe: "]),
        ]
        for argv, want in cases:
            before = tree(Path(tmp))
            ran = run_planner(*argv, "--out", Path(tmp) / "plan.txt")
            lines = ran.err.splitlines()
            located = len(lines) == len(want) and all(
                got == w or (w.endswith(": ") and got.startswith(w))
                for got, w in zip(lines, want, strict=True)
            )
            if ran.code != 2 or ran.lines or not located or tree(Path(tmp)) != before:
                problems.append(f"{argv[1]}: exit {ran.code}, stderr {ran.err!r}")
    return expect(
        not problems, "4 recipe errors: exit 2, every problem located", "; ".join(problems)
    )


# --------------------------------------------------------------------------- help


def _help(*command: str) -> str:
    ran = run_planner(*command, "--help")
    return "\n".join(ran.lines) if ran.code == 0 else f"<exit {ran.code}: {ran.err}>"


def _described(help_text: str, name: str) -> str:
    """The description the help gives ``name`` (an option, positional or subcommand): the
    text after it and its metavar, or on the indented line below."""
    lines = help_text.splitlines()
    usage_ends = lines.index("") if "" in lines else len(lines)
    for i, line in enumerate(lines):
        if i < usage_ends or not line.startswith("  ") or line.split()[:1] != [name]:
            continue
        rest = line.strip().removeprefix(name).strip()
        if name.startswith("--"):
            rest = rest.removeprefix(name.removeprefix("--").upper()).strip()
        if not rest and i + 1 < len(lines) and lines[i + 1].startswith(" " * 8):
            rest = lines[i + 1].strip()
        return rest
    return ""


def _documented(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
    """Each argument ``parser`` shows in its help (not ``-h``, nor one it hides, nor its
    subcommands, which ``planner --help`` lists): its names, and its help text with
    whitespace folded ("" when it has none)."""
    for action in parser._actions:  # argparse lists them nowhere public
        skipped = (argparse._HelpAction, argparse._SubParsersAction)
        if isinstance(action, skipped) or action.help == argparse.SUPPRESS:
            continue
        names = ", ".join(action.option_strings) or action.dest
        yield names, " ".join(str(action.help or "").split())


@claim(ClaimKind.PLANNED_SHAPE)
def help_documents_every_command_and_option() -> Verdict:
    """`planner --help` lists every subcommand the parser has with a description, each
    subcommand's ``--help`` (and ``planner --help`` for its own options) shows every argument
    the parser takes with its help text, no argument without one, and the usage names the
    `planner` console script, which is this entry point (planner.cli:main)."""
    problems = []
    top = _help()
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    if scripts.get("planner") != "planner.cli:main" or not top.startswith("usage: planner "):
        problems.append(f"console script {scripts.get('planner')!r}, usage {top.splitlines()[:1]}")
    parser = build_parser()
    arguments = 0
    for words, sub in [((), parser), *(((c,), sub) for c, sub in parser.commands.items())]:
        where = " ".join(("planner", *words))
        text = _help(*words) if words else top
        if words and not _described(top, words[0]):
            problems.append(f"{where}: no description in planner --help")
        if not text.startswith(f"usage: {where} "):
            problems.append(f"{where} --help: {text.splitlines()[:1]}")
        folded = " ".join(text.split())
        for names, said in _documented(sub):
            arguments += 1
            if not said or said not in folded:
                problems.append(f"{where} {names}: help {said!r} not shown")
    for words in ((), ("dry-run",), ("recipe",)):
        if not _description(_help(*words)):
            problems.append(f"planner {' '.join(words)} --help: no description of what it does")
    evidence = f"{len(parser.commands)} commands, {arguments} arguments described"
    return expect(not problems, evidence, "; ".join(problems))


def _description(help_text: str) -> str:
    """The paragraph between the usage block and the first argument heading."""
    paragraphs = help_text.split("\n\n")
    found = paragraphs[1] if len(paragraphs) > 1 else ""
    return "" if found.split("\n")[0].endswith(":") else found


def _stated_default(help_text: str, option: str) -> str:
    described = " ".join(" ".join(_described_lines(help_text, option)).split())
    found = re.search(r"\(default: ([^)]*)\)", described)
    return found.group(1) if found else ""


def _described_lines(help_text: str, option: str) -> list[str]:
    """The help lines of ``option``: its own line and the wrapped lines right after it."""
    lines = help_text.splitlines()
    usage_ends = lines.index("") if "" in lines else len(lines)
    for i, line in enumerate(lines):
        if i > usage_ends and line.startswith("  ") and line.split()[:1] == [option]:
            wrapped = takewhile(lambda ln: ln.startswith(" " * 8), lines[i + 1 :])
            return [line, *wrapped]
    return []


@claim(ClaimKind.PLANNED_SHAPE)
def help_states_the_defaults_the_commands_use() -> Verdict:
    """Each default the help states is the one used: recipe --group (the hosts planned),
    recipe --out (target/<name>-plan.txt), dry-run --out (under target/), --data (the fixtures
    directory), --now (the scenario's time, else now)."""
    recipe, dry = _help("recipe"), _help("dry-run")
    problems = []
    group = _stated_default(recipe, "--group")
    out_pattern = _stated_default(recipe, "--out")
    with tempfile.TemporaryDirectory() as tmp, working_directory(Path(tmp)):
        ran = run_planner("recipe", TINY_RECIPE)
        report = Path(out_pattern.replace("<name>", TINY_RECIPE.stem))
        hosts = (
            re.findall(r"^host (\S+) ", report.read_text("utf-8"), re.M) if report.is_file() else []
        )
        try:
            want_hosts = [h.name for h in inventory().group(group).hosts]
        except KeyError:
            want_hosts = ["<no group named in the help>"]
        if ran.code != 0 or hosts != want_hosts:
            problems.append(
                f"recipe defaults {group!r}, {out_pattern!r}: exit {ran.code}, hosts {hosts}"
            )
    if not _stated_default(dry, "--out").endswith("under target/"):
        problems.append(f"dry-run --out default {_stated_default(dry, '--out')!r}")
    for text in (recipe, dry):
        if _stated_default(text, "--data") != f"the {DATA_ROOT.name} directory":
            problems.append(f"--data default {_stated_default(text, '--data')!r}")
    if _stated_default(dry, "--now") != "now":
        problems.append(f"--now default {_stated_default(dry, '--now')!r}")
    return expect(not problems, f"--group {group}, --out {out_pattern}", "; ".join(problems))


def _readme_exit_codes() -> dict[str, str]:
    """The README's dry-run exit codes: `0 rendered and admitted; 1 refused, …; 2 usage …`."""
    if README is not None:
        readme = README.read_text(encoding="utf-8")
    else:
        readme = str(metadata("gunbc-claims").json.get("description", ""))
    text = " ".join(readme.split())
    found = re.search(r"Exit codes: 0 ([^;]*); 1 (\w+)[^;]*; 2 ([\w ]+)", text)
    return dict(zip("012", (g.strip() for g in found.groups()), strict=True)) if found else {}


def _examples(help_text: str) -> list[list[str]]:
    return [shlex.split(ln)[1:] for ln in help_text.splitlines() if ln.startswith("  planner ")]


@claim(ClaimKind.PLANNED_SHAPE)
def help_states_the_exit_codes_and_its_examples_run() -> Verdict:
    """The help states exit codes 0/1/2 with the README's meanings and the refusal line form,
    and every example in the help runs as written (from a directory holding the files it
    names) with the exit code its inputs promise and writes its report where it says."""
    meanings = _readme_exit_codes()
    problems = [] if len(meanings) == 3 else [f"README exit codes {meanings}"]
    for command in ((), ("dry-run",)):
        text = " ".join(_help(*command).split())
        stated = f"exit codes: 0 {meanings.get('0')}; 1 {meanings.get('1')} "
        if stated not in text or f"; 2 {meanings.get('2')} " not in text:
            problems.append(f"{command or 'planner'} --help does not state {meanings}")
        if "`refused: <code> at <location>: <message>`" not in text:
            problems.append(f"{command or 'planner'} --help lacks the refusal line form")
    # Exit codes the inputs promise: supplied admits (README), live refuses (README), the
    # authority example is given supplied's log and inputs at its own time, which admits.
    promised = {
        "supplied": 0,
        "live": 1,
        "log.jsonl": 0,
        "scenarios": 0,
        "recipe": 0,
        "--recipe": 0,
    }
    examples = _examples(_help()) + _examples(_help("recipe"))
    if (
        len(examples) < 6
        or not _examples(_help("recipe"))
        or _examples(_help("dry-run")) != _examples(_help())
    ):
        problems.append(f"{len(examples)} examples; dry-run --help shows other examples")
    with tempfile.TemporaryDirectory() as tmp, working_directory(Path(tmp)):
        shutil.copyfile(SCENARIOS / "supplied" / "authority.jsonl", "log.jsonl")
        shutil.copyfile(SCENARIOS / "supplied" / "inputs.json", "inputs.json")
        (Path(tmp) / DATA_ROOT.name).symlink_to(DATA_ROOT)
        for argv in examples:
            key = next((k for k in promised if k in argv), "?")
            out = argv[argv.index("--out") + 1] if "--out" in argv else None
            ran = run_planner(*argv)
            if ran.code != promised.get(key) or (out and not Path(out).is_file()):
                problems.append(f"planner {shlex.join(argv)}: exit {ran.code}, {ran.err!r}")
    return expect(
        not problems, f"exit codes {meanings}; {len(examples)} examples run", "; ".join(problems)
    )


# --------------------------------------------------------------------------- hostile input

_NOW = "2026-11-29T12:00:00Z"


@claim(ClaimKind.REFUSAL)
def a_bug_exits_70_in_one_located_line() -> Verdict:
    """A bug (here a planted one: the renderer raises) is not a refusal and not bad input:
    the command exits 70, prints nothing on stdout and one stderr line naming the error and
    the file, line and function it was raised in; with --debug the traceback comes first and
    the same line last. Nothing is written."""
    seen = []
    with tempfile.TemporaryDirectory() as tmp, renderer(planted_bug):
        want_line = (
            f"planner: internal error: PlantedBug: the renderer broke at {PLANTED_AT} (a bug, "
            "not a problem with the input; --debug prints the traceback)"
        )
        for debug in ((), ("--debug",)):
            out = Path(tmp) / "r.txt"
            ran = run_planner(*debug, "dry-run", V41, "--scenario", "supplied", "--out", out)
            lines = ran.err.splitlines()
            seen.append(
                (
                    ran.code,
                    ran.lines,
                    lines[-1:] == [want_line],
                    lines[0] if debug else len(lines),
                    tree(Path(tmp)),
                )
            )
    want: list[tuple[object, ...]] = [
        (70, [], True, 1, []),
        (70, [], True, "Traceback (most recent call last):", []),
    ]
    return expect_equal(want, seen, "(exit, stdout, the located line, first line or count, left)")


def _inputs_with(text: str, tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def _supplied_inputs_text(**replace: str) -> str:
    """The supplied inputs as text, each ``key: value`` of launch_shape replaced as given."""
    raw = scenario_raw("supplied", "inputs.json")
    text = json.dumps(raw)
    for key, value in replace.items():
        text = re.sub(rf'"{key}": [^,}}]+', f'"{key}": {value}', text, count=1)
    return text


@claim(ClaimKind.REFUSAL)
def a_hostile_inputs_file_exits_2_at_its_key() -> Verdict:
    """An inputs file whose launch shape lacks a key or gives one twice, prefix caching as
    "off" or 0, the utilization as "8000", 8000.0 or true, a batch of 5,000 digits, or a
    digest holding a lone surrogate: exit 2, one stderr line naming the file and the key,
    nothing written — for V4.1 and for glm_group_b, which reads and validates --inputs too
    (its own inputs are pinned); a missing inputs file given to glm_group_b is an error as
    well."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        out = root / "out" / "r.txt"
        twice = _supplied_inputs_text().replace(
            '"prefix_caching": false', '"prefix_caching": true, "prefix_caching": false'
        )
        surrogate = _supplied_inputs_text().replace('"sha256:ab10', '"sha256:\\udc00ab10', 1)
        lacking = _supplied_inputs_text().replace('"gpu_memory_utilization_bp": 8000, ', "")
        cases = {
            "lacking": (lacking, "launch_shape.gpu_memory_utilization_bp", "Field required"),
            "twice": (twice, "launch_shape.prefix_caching", "is given twice (values true and "),
            '"off"': (
                _supplied_inputs_text(prefix_caching='"off"'),
                "launch_shape.prefix_caching",
                "(value 'off')",
            ),
            "0": (
                _supplied_inputs_text(prefix_caching="0"),
                "launch_shape.prefix_caching",
                "(value 0)",
            ),
            '"8000"': (
                _supplied_inputs_text(gpu_memory_utilization_bp='"8000"'),
                "launch_shape.gpu_memory_utilization_bp",
                "(value '8000')",
            ),
            "8000.0": (
                _supplied_inputs_text(gpu_memory_utilization_bp="8000.0"),
                "launch_shape.gpu_memory_utilization_bp",
                "(value 8000.0)",
            ),
            "true": (
                _supplied_inputs_text(gpu_memory_utilization_bp="true"),
                "launch_shape.gpu_memory_utilization_bp",
                "(value True)",
            ),
            "5,000 digits": (
                _supplied_inputs_text(max_num_batched_tokens="9" * 5000),
                "launch_shape.max_num_batched_tokens",
                "an integer of 5,000 digits is out of range",
            ),
            "surrogate": (
                surrogate,
                "produced_image.artifact.config_digest",
                "a lone surrogate \\udc00",
            ),
        }
        log = SCENARIOS / "supplied" / "authority.jsonl"
        for number, (case, (text, where, fact)) in enumerate(cases.items()):
            inputs = _inputs_with(text, root, str(number))
            for arm in ARM_NAMES:
                argv: list[str | Path] = ["dry-run", arm, "--authority", log, "--inputs", inputs]
                ran = run_planner(*argv, "--now", _NOW, "--out", out)
                head = f"planner: error: {inputs}: {where}: "
                lines = ran.err.splitlines()
                located = len(lines) == 1 and lines[0].startswith(head) and fact in lines[0]
                if (ran.code, ran.lines, located, out.parent.exists()) != (2, [], True, False):
                    problems.append(f"{arm} {case}: exit {ran.code}, {ran.err!r}")
        missing = root / "absent.json"
        ran = run_planner(
            "dry-run", GLM, "--authority", log, "--inputs", missing, "--now", _NOW, "--out", out
        )
        head = f"planner: error: {missing}: <file>: cannot read plan inputs: [Errno 2]"
        if ran.code != 2 or not ran.err.startswith(head) or out.parent.exists():
            problems.append(f"glm_group_b, a missing --inputs: exit {ran.code}, {ran.err!r}")
    return expect(
        not problems,
        f"9 hostile inputs x {len(ARM_NAMES)} arms, and a missing one: exit 2 at the key",
        "; ".join(problems[:3]),
    )


@claim(ClaimKind.REFUSAL)
def empty_and_unplannable_arguments_exit_2_located() -> Verdict:
    """An empty --now (never the wall clock), an empty --out, a path holding a NUL byte, a
    --data whose inventory lacks the arm's group, and a --data whose manifest names a model
    the planner cannot place: exit 2, one line naming the argument or the file and the key,
    nothing written — never a crash and never a plan."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        out = root / "out" / "r.txt"
        no_group = _mirror(DATA_ROOT, root / "no-group", "fabric.json")
        fabric = fabric_raw()
        renamed = [
            {**g, "name": "group_z"} if g["name"] == "group_b" else g for g in fabric["groups"]
        ]
        (no_group / "fabric.json").write_text(json.dumps({**fabric, "groups": renamed}), "utf-8")
        unplaceable = _mirror(DATA_ROOT, root / "unplaceable", GLM_MANIFEST)
        manifest = read_json(DATA_ROOT / GLM_MANIFEST)
        (unplaceable / GLM_MANIFEST).write_text(json.dumps({**manifest, "model": "GLM"}), "utf-8")
        supplied = ("dry-run", GLM, "--scenario", "supplied")
        cases: dict[str, tuple[list[str | Path], str]] = {
            "--now ''": (
                [*supplied, "--now", "", "--out", out],
                "planner: error: --now: : not an ISO-8601 time",
            ),
            "--out ''": (
                [*supplied, "--out", ""],
                "planner dry-run: error: argument --out: an empty path",
            ),
            "NUL in --authority": (
                ["dry-run", GLM, "--authority", "log\0x", "--now", _NOW, "--out", out],
                "planner dry-run: error: argument --authority: log\\x00x holds a NUL byte",
            ),
            "no group_b": (
                [*supplied, "--data", no_group, "--out", out],
                f"planner: error: {no_group}/fabric.json: groups: no fabric group 'group_b', "
                "which glm_group_b plans over; known groups: group_a, group_z",
            ),
            "model GLM": (
                [*supplied, "--data", unplaceable, "--out", out],
                f"planner: error: {unplaceable}/{GLM_MANIFEST}: model: cannot place model 'GLM' "
                f"at revision {manifest['revision']!r}",
            ),
        }
        seen: dict[str, object] = {}
        want: dict[str, object] = {}
        for case, (argv, line) in cases.items():
            ran = run_planner(*argv)
            seen[case] = (ran.code, ran.lines, ran.err.splitlines()[-1:], out.parent.exists())
            want[case] = (2, [], [line], False)
    return expect_equal(want, seen, "(exit, stdout, last stderr line, wrote) per argument")


@claim(ClaimKind.REFUSAL)
def an_image_built_for_another_runtime_is_refused() -> Verdict:
    """Supplied inputs whose produced image says it was built for GLM's runtime key: the
    plan renders but is refused (exit 1) with
    `refused: runtime.image_for_other_runtime at inputs.produced_image.artifact.runtime_key`,
    quoting the digest, the image's key and the arm's; the refusal's hint says to supply the
    image produced for this arm's runtime key."""
    raw = scenario_raw("supplied", "inputs.json")
    artifact = raw["produced_image"]["artifact"]
    key = "gunbc-glm-native"
    raw["produced_image"]["artifact"] = {**artifact, "runtime_key": key}
    own = _by_seq_successor().split(":")[-1]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = _inputs_with(json.dumps(raw), Path(tmp), "inputs")
        out = Path(tmp) / "r.txt"
        log = SCENARIOS / "supplied" / "authority.jsonl"
        ran = run_planner(
            "dry-run", V41, "--authority", log, "--inputs", inputs, "--now", _NOW, "--out", out
        )
        planned = v41_group_a_launch_dry_run(
            inventory(), v41_manifest(), load_inputs(inputs), authority_state("supplied")
        )
    hints = [r.hint for r in planned.refusals if r.code == "runtime.image_for_other_runtime"]
    want = [
        f"{V41}: report written to {out} (4 hosts rendered)",
        "refused: runtime.image_for_other_runtime at inputs.produced_image.artifact.runtime_key: "
        f"image {artifact['config_digest']} was built for runtime key {key!r}, not this arm's "
        f"{own!r}",
        "  hint: supply the image produced for this arm's runtime key",
        f"{V41}: REFUSED",
    ]
    hint = ["supply the image produced for this arm's runtime key"]
    return expect_equal(
        (1, want, "", hint), (ran.code, ran.lines, ran.err, hints), "(exit, stdout, stderr, hint)"
    )


def _by_seq_successor() -> str:
    """The candidate the supplied log suspends Group A for (its key ends in the runtime key)."""
    text = (SCENARIOS / "supplied" / "authority.jsonl").read_text(encoding="utf-8")
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    return str(
        next(e for e in events if e.get("group") == "group_a" and "successor" in e)["successor"]
    )


@claim(ClaimKind.REFUSAL)
def every_error_is_one_line_whatever_the_input_holds() -> Verdict:
    """A key holding a newline or U+2028 in the inventory, and an --authority path holding a
    newline: the error is still one line, the characters escaped (\\n, \\u2028), so nothing
    in a file or a path can start a line of its own on stderr; a backslash beside them is
    shown once, as it was given (only what cannot be shown is escaped)."""
    seen: dict[str, object] = {}
    want: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        fabric = fabric_raw()
        for case, key, shown in (
            ("newline", "a\nb", "a\\nb"),
            ("U+2028", "a\u2028b", "a\\u2028b"),
            ("a backslash and a newline", "a\\b\nc", "a\\b\\nc"),
        ):
            data = _mirror(DATA_ROOT, root / case, "fabric.json")
            (data / "fabric.json").write_text(json.dumps({**fabric, key: []}), encoding="utf-8")
            ran = run_planner(
                "dry-run", GLM, "--scenario", "supplied", "--data", data, "--out", root / "r"
            )
            seen[case] = ran.err
            want[case] = (
                f"planner: error: {data}/fabric.json: {shown}: unknown key: an inventory holds "
                "hosts, groups and _comments\n"
            )
        path = root / "line\nbreak.jsonl"
        ran = run_planner("dry-run", GLM, "--authority", path, "--now", _NOW, "--out", root / "r")
        shown_path = str(path).replace("\n", "\\n")
        seen["a path"] = (
            ran.err.startswith(f"planner: error: {shown_path}: <file>: ")
            and ran.err.count("\n") == 1
        )
        want["a path"] = True
    return expect_equal(want, seen, "stderr per hostile name")


def _null_device(path: Path) -> Path:
    """A private character device that discards what is written (``/dev/null``'s numbers):
    the writer is shown a device without ever pointing a possibly broken writer at the
    machine's own ``/dev/null``."""
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path


@claim(ClaimKind.PLANNED_SHAPE)
def the_writer_writes_where_the_user_points() -> Verdict:
    """What --out gets (``write_atomically``): a FIFO delivers the report to its reader and
    stays a FIFO; a character device (a private node with /dev/null's numbers) stays a
    character device, and a dry run given it as --out exits 0 with nothing on stderr; a
    symlink keeps pointing at its file, whose text is replaced and whose mode is kept; a new
    report honours the umask (027: rw-r-----); nothing else is left."""
    seen: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        fifo = root / "report.fifo"
        os.mkfifo(fifo)
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so a writer can open
        try:
            write_atomically(fifo, "through the pipe\n")
            received = os.read(reader, 4096)
        except BlockingIOError:
            received = b""
        finally:
            os.close(reader)
        seen["fifo"] = (received, stat.S_ISFIFO(os.lstat(fifo).st_mode))
        device = _null_device(root / "null")
        write_atomically(device, "nothing\n")
        ran = run_planner("dry-run", V41, "--scenario", "supplied", "--out", device)
        seen["device"] = (stat.S_ISCHR(os.lstat(device).st_mode), ran.code, ran.err)
        real = root / "real.txt"
        real.write_text("old\n", encoding="utf-8")
        real.chmod(0o604)
        link = root / "link.txt"
        link.symlink_to(real)
        write_atomically(link, "new\n")
        text = real.read_text(encoding="utf-8")
        seen["symlink"] = (link.is_symlink(), text, stat.S_IMODE(real.stat().st_mode))
        before = os.umask(0o027)
        try:
            write_atomically(root / "new.txt", "new\n")
        finally:
            os.umask(before)
        seen["umask 027"] = stat.S_IMODE((root / "new.txt").stat().st_mode)
        seen["left"] = sorted(p.name for p in root.iterdir())
    want = {
        "fifo": (b"through the pipe\n", True),
        "device": (True, 0, ""),
        "symlink": (True, "new\n", 0o604),
        "umask 027": 0o640,
        "left": ["link.txt", "new.txt", "null", "real.txt", "report.fifo"],
    }
    return expect_equal(want, seen, "what each target was left as")


def _why(target: Path, text: str = "report\n") -> tuple[object, ...]:
    try:
        write_atomically(target, text)
    except OSError as exc:
        return (exc.errno, exc.strerror, exc.filename)
    except UnicodeEncodeError as exc:
        return (exc.encoding, exc.reason)
    return ("written",)


@claim(ClaimKind.REFUSAL)
def the_writers_errors_say_why_and_name_the_path() -> Verdict:
    """What --out's `cannot write the report: WHY` says (``write_atomically``'s error: its
    errno, its reason, the path the user gave): a directory, EISDIR "Is a directory (refused:
    nothing was written)"; a socket, EINVAL "not a regular file, FIFO or character device
    (refused: nothing was written)"; a path under a regular file, ENOTDIR "Not a directory:
    FILE"; a NUL byte in the path, EINVAL "embedded null byte"; a place no file can be made
    in (/proc), ENOENT "No such file or directory"; text UTF-8 cannot take (a lone
    surrogate), UnicodeEncodeError, the old file kept. Nothing is left behind."""
    seen: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "a-dir").mkdir()
        listening = socket.socket(socket.AF_UNIX)
        try:
            listening.bind(str(root / "a.sock"))
            seen["socket"] = _why(root / "a.sock")
        finally:
            listening.close()
        (root / "a-file").write_text("kept\n", encoding="utf-8")
        seen["directory"] = _why(root / "a-dir")
        seen["under a file"] = _why(root / "a-file" / "report.txt")
        unencodable = _why(root / "a-file", "\ud800\n")
        seen["unencodable"] = (unencodable, (root / "a-file").read_text(encoding="utf-8"))
        seen["NUL byte"] = _why(root / "a\0b" / "report.txt")
        seen["/proc"] = _why(Path("/proc/version"))
        seen["left"] = sorted(p.name for p in root.iterdir())
    refused = "(refused: nothing was written)"
    want = {
        "socket": (
            errno.EINVAL,
            f"not a regular file, FIFO or character device {refused}",
            str(root / "a.sock"),
        ),
        "directory": (errno.EISDIR, f"Is a directory {refused}", str(root / "a-dir")),
        "under a file": (
            errno.ENOTDIR,
            f"Not a directory: {root / 'a-file'}",
            str(root / "a-file" / "report.txt"),
        ),
        "unencodable": (("utf-8", "surrogates not allowed"), "kept\n"),
        "NUL byte": (errno.EINVAL, "embedded null byte", str(root / "a\0b" / "report.txt")),
        "/proc": (errno.ENOENT, "No such file or directory", "/proc/version"),
        "left": ["a-dir", "a-file", "a.sock"],
    }
    return expect_equal(want, seen, "(errno, reason, path) per target")


@claim(ClaimKind.PLANNED_SHAPE)
def a_report_is_made_in_a_hidden_temp_beside_it_and_keeps_its_owner() -> Verdict:
    """While a report is written, the only other file in its directory is a hidden temp,
    `.NAME.XXXXXXXX.tmp` (NAME cut to its first 40 characters, so a name near the 255-byte
    limit still fits), which `ls` and a glob for the report's kind pass over; a rewritten
    report keeps its mode and, when root writes it, its owner and group; a new report under
    umask 000 is rw-rw-rw-."""
    seen: dict[str, object] = {}
    rename = os.replace
    during: list[list[str]] = []

    def watched_rename(source: str, target: str) -> None:
        during.append(sorted(os.listdir(Path(target).parent)))
        rename(source, target)

    name = "v41-group-a-launch-dry-run-of-the-supplied-scenario-report.txt"
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / name
        report.write_text("old\n", encoding="utf-8")
        report.chmod(0o640)
        owner = (4321, 4322) if os.geteuid() == 0 else (os.getuid(), os.getgid())
        os.chown(report, *owner)
        try:
            os.replace = watched_rename  # type: ignore[assignment]
            write_atomically(report, "new\n")
        finally:
            os.replace = rename
        temps = [n for listing in during for n in listing if n != name]
        pattern = re.escape(f".{name[:40]}.") + r"[a-z0-9_]{8}\.tmp"
        seen["temp"] = [bool(re.fullmatch(pattern, n)) for n in temps]
        found = report.stat()
        kept = (found.st_uid, found.st_gid)
        seen["rewritten"] = (report.read_text(encoding="utf-8"), stat.S_IMODE(found.st_mode), kept)
        before = os.umask(0)
        try:
            write_atomically(Path(tmp) / "new.txt", "new\n")
        finally:
            os.umask(before)
        seen["umask 000"] = stat.S_IMODE((Path(tmp) / "new.txt").stat().st_mode)
        seen["left"] = sorted(os.listdir(tmp))
    want = {
        "temp": [True],
        "rewritten": ("new\n", 0o640, owner),
        "umask 000": 0o666,
        "left": sorted([name, "new.txt"]),
    }
    return expect_equal(want, seen, "temp name, rewritten report, new report, files left")


@claim(ClaimKind.REFUSAL)
def a_write_cut_short_by_sigterm_leaves_no_temp_file() -> Verdict:
    """SIGTERM arriving between writing the temp file and renaming it (planted there, under
    a SIGTERM handler of this process's own so it does not end the run): the write is
    abandoned with EINTR naming the report's path, the temp file is removed, the old report
    is untouched, and the handler that was there runs once and is there again after."""
    caught: list[int] = []

    def mine(signum: int, frame: object) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGTERM, mine)
    rename = os.replace

    def interrupted_rename(source: str, target: str) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        rename(source, target)

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.txt"
        report.write_text("old\n", encoding="utf-8")
        try:
            os.replace = interrupted_rename  # type: ignore[assignment]
            try:
                write_atomically(report, "new\n")
                outcome: tuple[object, ...] = ("written",)
            except OSError as exc:
                outcome = (exc.errno, exc.filename)
            handler_after = signal.getsignal(signal.SIGTERM)
        finally:
            os.replace = rename
            signal.signal(signal.SIGTERM, previous)
        left = sorted(p.name for p in Path(tmp).iterdir())
        text = report.read_text(encoding="utf-8")
    seen = (outcome, caught, left, text, handler_after is mine)
    want = ((errno.EINTR, str(report)), [signal.SIGTERM], ["report.txt"], "old\n", True)
    return expect_equal(want, seen, "(error, handler calls, files left, report, handler)")
