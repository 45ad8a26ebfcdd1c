"""Witness: the arms are the modules of ``planner/arms/``, and the command line plans each.

Adding an arm is adding its module (with its witness and its mutants): nothing else lists the
arms. The expected arms are the module files of ``planner/arms/`` as the file system lists
them; each one's group hosts are read from ``fabric.json`` (in node-rank order).
"""

from __future__ import annotations

import importlib
import re
import sys
import tempfile
from pathlib import Path

import planner.arms
from claims import ClaimKind, Verdict, claim, expect, expect_equal
from fixtures.builders import run_planner, working_directory
from witnesses.support import group_raw

ARMS_DIR = Path(planner.arms.__file__).parent

NOT_ARMS = {
    "noarm": ("", "not NoneType"),
    "notarm": ('ARM = "v41_group_a"\n', "not str"),
    "misnamed": (
        "from planner.arms.v41_group_a import ARM\n",
        "not an Arm named 'v41_group_a'",
    ),
}
"""Modules that are not arms: (their text, how the error says what their ARM is)."""


def _module_names() -> list[str]:
    return sorted(p.stem for p in ARMS_DIR.glob("*.py") if p.name != "__init__.py")


def _planned(name: str, work: Path) -> str | None:
    """What is wrong with planning arm ``name`` from the command line, or None."""
    declared = importlib.import_module(f"planner.arms.{name}").ARM
    work.mkdir()
    with working_directory(work):
        ran = run_planner("dry-run", name, "--scenario", "supplied")
    # a scenario's report is the arm's default path with the scenario's name before .txt
    written = declared.report.removesuffix(".txt") + "-supplied.txt"
    first = f"{name}: report written to {written} (4 hosts rendered)"
    if ran.code not in (0, 1) or ran.lines[:1] != [first]:
        return f"{name}: exit {ran.code}, {ran.lines[:1]}, {ran.err.strip()!r}"
    report = (work / written).read_text(encoding="utf-8")
    hosts = re.findall(r"^host (\S+) — node rank", report, flags=re.MULTILINE)
    if hosts != group_raw(declared.group)["hosts"]:
        return f"{name}: hosts {hosts}, not {declared.group}'s"
    return None


@claim(ClaimKind.PLANNED_SHAPE)
def every_module_of_planner_arms_is_an_arm_the_command_line_plans() -> Verdict:
    """Each module of ``planner/arms/`` is an arm of its name: ``planner dry-run NAME
    --scenario supplied`` writes the report at that arm's default path (``-supplied``
    before ``.txt``), rendering the hosts
    of the group its ``ARM`` names, in the inventory's order; and an unknown arm exits 2
    offering exactly those modules."""
    names = _module_names()
    with tempfile.TemporaryDirectory() as tmp:
        problems = [p for n in names if (p := _planned(n, Path(tmp) / n)) is not None]
    ran = run_planner("dry-run", "no_such_arm", "--scenario", "supplied")
    offered = f"(choose from {', '.join(repr(n) for n in names)})"
    if ran.code != 2 or offered not in ran.err:
        problems.append(f"an unknown arm: exit {ran.code}, {ran.err.strip()!r}")
    return expect(not problems, f"arms {names} planned over their groups", "; ".join(problems))


def _not_an_arm(name: str, text: str, tmp: Path) -> tuple[int | str | None, str, bool]:
    """Run a dry run with one more module, ``name``, beside the arms; then take it away."""
    (tmp / f"{name}.py").write_text(text, encoding="utf-8")
    planner.arms.__path__.append(str(tmp))
    try:
        out = tmp / "report.txt"
        ran = run_planner("dry-run", "v41_group_a", "--scenario", "supplied", "--out", out)
    finally:
        planner.arms.__path__.remove(str(tmp))
        sys.modules.pop(f"planner.arms.{name}", None)
    return ran.code, ran.err, out.exists()


@claim(ClaimKind.REFUSAL)
def a_module_that_is_not_an_arm_is_named_as_a_bug() -> Verdict:
    """A module beside the arms whose ``ARM`` is missing, is not an Arm, or is an Arm named
    for another module stops the dry run with exit 70 (a bug, not the input) and one
    internal-error line naming the module and what its ARM must be; no report is written."""
    got, want = [], []
    for name, (text, found) in NOT_ARMS.items():
        with tempfile.TemporaryDirectory() as tmp:
            code, err, written = _not_an_arm(name, text, Path(tmp))
        head = err.partition(" at ")[0]
        got.append((name, code, head, written))
        must = f"planner.arms.{name}: ARM must be an Arm named {name!r}, {found}"
        want.append((name, 70, f"planner: internal error: TypeError: {must}", False))
    return expect_equal(want, got, "(module, exit, error line up to ' at ', report written)")
