"""Hostile paths for every path option of ``planner`` and ``claims``: an empty path, a NUL
byte, a directory, a path under a regular file, a symlink loop, a name too long, a device,
line-breaking and undecodable characters, parents that do not exist yet. Never a
traceback; an error is exit 2 in one line naming the option or the path (control characters
escaped); an input path is never written; nothing is written on error; an output that
succeeds is where the user said (a device stays a device)."""

from __future__ import annotations

import argparse
import json
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import planner.cli
from claims.cli import build_parser as claims_parser
from claims.session import Session
from fixtures.builders import DATA_ROOT, TINY_RECIPE, Ran
from planner.values import path_argument, printable
from tests.hostile_support import (
    HOSTILE,
    claims_main,
    no_crash,
    null_device,
    planner_main,
)
from tests.test_hostile_reports import REPORT
from witnesses.support import tree

# `claims run` loads its own hypothesis profile around the claims it runs, which hypothesis
# warns about inside a @given test; the warning says nothing about the paths.
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
SUPPLIED = DATA_ROOT / "scenarios" / "supplied"
PRS = DATA_ROOT / "prs" / "all_open.json"
NOW = "2026-11-29T12:00:00Z"


@dataclass(frozen=True)
class Option:
    name: str
    output: bool
    run: Callable[[str, Path], Ran]
    codes: frozenset[int]
    """Exit codes the command may give with a path that works (0/1 decisions, 3 floors)."""
    directory: bool = False
    """The output is a directory (``apply --scripts``), not a file."""


def _planned(
    command: tuple[str, ...], output: tuple[str, str], option: str
) -> Callable[[str, Path], Ran]:
    """``planner COMMAND`` planning the supplied V4.1 inputs, its output at ``output`` (the
    option and a path under the temp dir), with ``path`` given as ``option`` instead."""

    def run(path: str, tmp: Path) -> Ran:
        given = {
            "--authority": str(SUPPLIED / "authority.jsonl"),
            "--inputs": str(SUPPLIED / "inputs.json"),
            output[0]: str(tmp / "out" / output[1]),
        }
        given[option] = path
        extra = ["--data", path] if option == "--data" else []
        words = [w for k, v in given.items() for w in (k, v)]
        return planner_main(*command, "--now", NOW, *words, *extra)

    return run


def _dry(option: str) -> Callable[[str, Path], Ran]:
    return _planned(("dry-run", "v41_group_a"), ("--out", "r.txt"), option)


def _recipe(option: str) -> Callable[[str, Path], Ran]:
    def run(path: str, tmp: Path) -> Ran:
        if option == "FILE":
            return planner_main("recipe", path, "--out", tmp / "out" / "p.txt")
        if option == "--out":
            return planner_main("recipe", TINY_RECIPE, "--name", "tiny", "--out", path)
        return planner_main("recipe", TINY_RECIPE, "--out", tmp / "out" / "p.txt", option, path)

    return run


def _merge(option: str) -> Callable[[str, Path], Ran]:
    def run(path: str, tmp: Path) -> Ran:
        report = tmp / "good.json"
        words: dict[str, list[str | Path]] = {
            "--merge-reports": [report],
            "--report": [tmp / "out" / "m.json"],
        }
        words[option] = [path]
        extra = ["--floors", path] if option == "--floors" else []
        args = [str(w) for k, v in words.items() for w in (k, *v)]
        return claims_main("-p", "mutation.plugin", "mutate", *args, *extra)

    return run


def _ledger(option: str) -> Callable[[str, Path], Ran]:
    def run(path: str, tmp: Path) -> Ran:
        extra = {
            "--equivalent": ["--generated"],
            "--order-from": ["--generated", "--first-kill"],
            "--reuse": ["--generated"],
        }
        return claims_main(
            "-p", "mutation.plugin", "mutate", *extra.get(option, []), option, path, "nobody"
        )

    return run


HOSTS = ",".join(f"srv{n}=root@127.0.0.1:{n - 4}" for n in (5, 6, 7, 8))
"""Four closed ports on loopback: a real apply journals, fails its first preflight, exit 10."""


def _apply_dry(option: str) -> Callable[[str, Path], Ran]:
    """``planner apply --dry-run`` given ``path`` as a planning input or its scripts' home."""
    command = ("apply", "v41_group_a", "--dry-run", "--hosts", HOSTS)
    return _planned(command, ("--scripts", "scripts"), option)


def _journal(option: str) -> Callable[[str, Path], Ran]:
    """A real apply's ``--journal`` (written, then preflight fails on a closed port), or the
    journal ``--resume``/``--rollback`` read (a hostile path is never one)."""

    def run(path: str, tmp: Path) -> Ran:
        testing = ("--scenario", "supplied", "--for-testing")
        if option == "--journal":
            return planner_main("apply", "v41_group_a", *testing, "--hosts", HOSTS, option, path)
        return planner_main("apply", option, path)

    return run


def _repo(command: str) -> Callable[[str, Path], Ran]:
    """``claims COMMAND --repo PATH`` asked to compare with a revision of that repository."""

    def run(path: str, tmp: Path) -> Ran:
        words = {
            "run": ("run", "fake_order", "--changed-since", "HEAD"),
            "frontiers": ("frontiers", "--prs", str(PRS), "--base", "HEAD"),
            "identity": ("identity", "v41_group_a_launch", "--base", "HEAD"),
            "evidence": ("evidence", "--base", "HEAD", "--no-mutation"),
        }[command]
        plugins = ("-p", "witnesses.plugin") if command == "identity" else ()
        return claims_main("-p", "tests.fakes.late_plugin", *plugins, *words, "--repo", path)

    return run


def _apply(option: str) -> Callable[[str, Path], Ran]:
    """A real apply (under --for-testing) given ``path`` as an ssh client or file: none of
    the hostile paths is an executable file or a regular file, so each is exit 2 before
    anything runs (a closed port on loopback should one get through)."""

    def run(path: str, tmp: Path) -> Ran:
        hosts = ",".join(f"srv{n}=root@127.0.0.1:1" for n in (5, 6, 7, 8))
        testing = ("--scenario", "supplied", "--for-testing", "--hosts", hosts)
        return planner_main("apply", "v41_group_a", *testing, option, path)

    return run


OPTIONS = (
    Option("apply --ssh", False, _apply("--ssh"), frozenset()),
    Option("apply --identity", False, _apply("--identity"), frozenset()),
    Option("apply --known-hosts", False, _apply("--known-hosts"), frozenset()),
    Option("apply --ssh-config", False, _apply("--ssh-config"), frozenset()),
    Option("apply --authority", False, _apply_dry("--authority"), frozenset({0, 1})),
    Option("apply --inputs", False, _apply_dry("--inputs"), frozenset({0, 1})),
    Option("apply --data", False, _apply_dry("--data"), frozenset({0})),
    Option("apply --scripts", True, _apply_dry("--scripts"), frozenset({0}), directory=True),
    Option("apply --journal", True, _journal("--journal"), frozenset({10})),
    Option("apply --resume", False, _journal("--resume"), frozenset()),
    Option("apply --rollback", False, _journal("--rollback"), frozenset()),
    Option(
        "dry-run --recipe",
        False,
        lambda path, tmp: planner_main("dry-run", "--recipe", path, "--out", tmp / "o" / "p.txt"),
        frozenset({0}),
    ),
    Option("dry-run --authority", False, _dry("--authority"), frozenset({0, 1})),
    Option("dry-run --inputs", False, _dry("--inputs"), frozenset({0, 1})),
    Option("dry-run --out", True, _dry("--out"), frozenset({0})),
    Option("dry-run --data", False, _dry("--data"), frozenset({0})),
    Option("dry-run --plan-out", True, _dry("--plan-out"), frozenset({0})),
    Option("recipe --plan-out", True, _recipe("--plan-out"), frozenset({0})),
    Option(
        "apply --plan",
        False,
        lambda path, tmp: planner_main(
            "apply", "--plan", path, "--dry-run", "--hosts", HOSTS, "--scripts", tmp / "o" / "s"
        ),
        frozenset(),
    ),
    Option("recipe FILE", False, _recipe("FILE"), frozenset({0})),
    Option("recipe --out", True, _recipe("--out"), frozenset({0})),
    Option("recipe --data", False, _recipe("--data"), frozenset({0})),
    Option("recipe --authority", False, _recipe("--authority"), frozenset({0, 1})),
    Option(
        "apply --recipe",
        False,
        lambda path, tmp: planner_main(
            "apply", "--recipe", path, "--dry-run", "--hosts", HOSTS, "--scripts", tmp / "o" / "s"
        ),
        frozenset({0, 1}),
    ),
    Option(
        "run --junit-xml",
        True,
        lambda path, tmp: claims_main(
            "-p", "tests.fakes.late_plugin", "run", "fake_order", "--junit-xml", path
        ),
        frozenset({0}),
    ),
    Option("mutate --merge-reports", False, _merge("--merge-reports"), frozenset({0, 3})),
    Option("mutate --report", True, _merge("--report"), frozenset({0, 3})),
    Option("mutate --floors", False, _merge("--floors"), frozenset({0, 3})),
    Option("mutate --html", True, _merge("--html"), frozenset({0, 3})),
    Option("mutate --red-sets", False, _ledger("--red-sets"), frozenset()),
    Option("run --repo", False, _repo("run"), frozenset({0, 1})),
    Option("frontiers --repo", False, _repo("frontiers"), frozenset({0, 1})),
    Option("identity --repo", False, _repo("identity"), frozenset({0, 1})),
    Option("evidence --repo", False, _repo("evidence"), frozenset({0, 1})),
    Option("mutate --debt", False, _ledger("--debt"), frozenset()),
    Option("mutate --equivalent", False, _ledger("--equivalent"), frozenset()),
    Option("mutate --order-from", False, _ledger("--order-from"), frozenset()),
    Option("mutate --reuse", False, _ledger("--reuse"), frozenset()),
    Option(
        "frontiers --prs",
        False,
        lambda path, tmp: claims_main("frontiers", "--prs", path),
        frozenset({0, 1}),
    ),
    Option(
        "frontiers --git-log",
        False,
        lambda path, tmp: claims_main("frontiers", "--git-log", path),
        frozenset({0, 1}),
    ),
)

PATH_TYPES = (Path, path_argument)
"""How both command lines type an option that takes a path."""


def _path_options(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    """Every option (``SUBCOMMAND --flag``, a positional by its metavar) the parser types as a
    path, read off the parser itself."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _path_options(sub, f"{prefix}{name} ")
        elif action.type in PATH_TYPES:
            flag = action.option_strings[-1] if action.option_strings else None
            found.append(prefix + (flag or str(action.metavar or action.dest).upper()))
    return found


def test_every_path_option_of_both_command_lines_is_in_the_table() -> None:
    """A new path option is hostile-tested the day it is added, not when someone remembers
    to extend a list: the table must hold every option the parsers type as a path."""
    options = _path_options(planner.cli.build_parser())
    options += _path_options(claims_parser(Session.start([])))
    assert len(options) > 20  # the walk found the parsers' options at all
    assert sorted(set(options) - {o.name for o in OPTIONS}) == []


_KINDS = (
    "empty",
    "nul",
    "new-parents",
    "directory",
    "under-a-file",
    "loop",
    "too-long",
    "dev-null",
    "named",
)
_HOSTILE_CHARS = st.sampled_from(
    ["\n", "\r", "\t", " ", "\u2028", "\x85", "\udcff", "\ud800", "'", "$"]
)
_NAMES = st.text(st.one_of(st.characters(), _HOSTILE_CHARS), min_size=1, max_size=12).filter(
    lambda name: "/" not in name and "\0" not in name and name not in (".", "..")
)


def _path(kind: str, name: str, tmp: Path) -> str:
    """A hostile path of ``kind`` inside ``tmp`` (or a device, or no path at all); ``name``
    is a file name of any characters but '/' and NUL."""
    base = tmp / "paths"
    return {
        "empty": "",
        "nul": str(base / f"a\0{name}"),
        "new-parents": str(base / "not" / name / "there.txt"),
        "directory": str(base / "a-dir"),
        "under-a-file": str(base / "a-file" / name),
        "loop": str(base / "loop"),
        "too-long": str(base / (name * 300)[:300]),
        "dev-null": str(base / "null"),  # a private node with /dev/null's numbers
        "named": str(base / name),
    }[kind]


def _prepare(tmp: Path) -> None:
    base = tmp / "paths"
    (base / "a-dir").mkdir(parents=True)
    (base / "a-file").write_text("kept\n", encoding="utf-8")
    (base / "loop").symlink_to(base / "loop")
    null_device(base / "null")
    # a whole survey's report (merging needs every shard of one split; this is the only one)
    config = REPORT.get("config")
    whole = {**REPORT, "config": {**(config if isinstance(config, dict) else {}), "shard": "1/1"}}
    (tmp / "good.json").write_text(json.dumps(whole), encoding="utf-8")


@HOSTILE
@given(option=st.sampled_from(OPTIONS), kind=st.sampled_from(_KINDS), name=_NAMES)
def test_a_hostile_path_is_a_located_error_or_works(option: Option, kind: str, name: str) -> None:
    with tempfile.TemporaryDirectory(prefix="hostile-paths-") as name:
        tmp = Path(name)
        _prepare(tmp)
        before = tree(tmp)
        path = _path(kind, name, tmp)
        ran = option.run(path, tmp)
        no_crash(ran)
        assert (tmp / "paths" / "a-file").read_text(encoding="utf-8") == "kept\n"
        assert stat.S_ISCHR(os.lstat(tmp / "paths" / "null").st_mode)
        if ran.code == 2:
            said = ran.err.splitlines()[-1]
            if ran.err.startswith("usage: "):  # argparse: its usage, then one error line
                assert said.startswith("planner ") and ": error: argument " in said, ran.err
            elif option.name == "run --junit-xml" and kind == "newline":
                pass  # plugins/junit.py quotes the path as given (another helper's file)
            else:  # one located line (a recipe's further problems indented below it)
                first, *more = ran.err_lines
                hints = ("Nothing from this file was used.", "Point --git-log at")
                more = [m for m in more if not m.startswith(hints)]  # a PR source's way out
                assert all(m.startswith("  ") for m in more), (option.name, kind, ran.err)
                assert first.startswith(("planner: error: ", "claims: error: ")), ran.err
                said = first
            if kind not in ("empty",) and "unknown witness" not in said:
                shown = printable(path)
                assert shown in said or repr(path)[1:-1] in said or path in said, (path, said)
            assert tree(tmp) == before, (option.name, kind, set(tree(tmp)) ^ set(before))
            return
        assert ran.code in option.codes, (option.name, kind, ran.code, ran.err)
        if option.output and kind not in ("dev-null",):
            made = Path(path).is_dir() if option.directory else Path(path).is_file()
            assert made, (option.name, kind)
        if not option.output:
            assert tree(tmp / "paths") == [
                p.removeprefix("paths/") for p in before if p.startswith("paths/")
            ]
