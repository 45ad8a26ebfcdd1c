"""Every exit code of the ``claims`` command and its built-in plugins, in one place.

The exit-code table in docs/claims.md is this enum (a test holds the two together). The
planner keeps its own codes (``planner/cli.py``): the kernel never imports the planner, nor
it the kernel.
"""

from __future__ import annotations

import ast
import textwrap
from enum import IntEnum
from functools import cache
from pathlib import Path


class Exit(IntEnum):
    """What a ``claims`` invocation's exit status means.

    ``claims mutate`` uses 3 to 9; when several apply, ``plugins.mutate`` picks the first of
    BASELINE, AUDIT, TIMEOUT, UNREACHED, COLLATERAL, SURVIVOR, UNWITNESSED.
    """

    OK = 0
    """Every claim passed; every mutant exact; every floor held."""
    EXACT = 0
    """``claims mutate``'s name for OK: every mutant turned exactly its declared claims red."""
    FAILED = 1
    """A claim failed or errored, or a witness is unresolved."""
    USAGE = 2
    """A bad command line, an input it cannot read (a file, a ledger, a report), a floor
    violation of a witness or of a mutant declaration, or a plugin that would not load."""
    SURVIVOR = 3
    """A mutant some declared claim missed, or a survey below its floors."""
    COLLATERAL = 4
    """A mutant turned a claim red that it neither declares nor has recorded, left a recorded
    claim green, or turned a positive control red (a survey worker's own exit when state
    leaked between mutants)."""
    BASELINE = 5
    """A claim is red with no mutant applied."""
    TIMEOUT = 6
    """A run outlived its timeout or crashed, a survey worker failed before its first
    mutant or leaked state between mutants, or a surveyed mutant crashed."""
    UNREACHED = 7
    """A target the claims never reach: forcing it to fail turned nothing red."""
    UNWITNESSED = 8
    """A claim no mutant turns red and no debt entry names (or a stale debt entry)."""
    AUDIT = 9
    """A survey's verdict audit disagreed: a cell re-judged in a fresh process on the mutated
    source got another verdict than the survey gave it, or the audit's control failed."""
    INTERNAL = 70
    """``EX_SOFTWARE`` (sysexits.h): a bug in the framework or a plugin, not in the input."""
    INTERRUPTED = 130
    """Interrupted (Ctrl-C), as a shell reports SIGINT."""
    CLOSED_OUTPUT = 141
    """The output's reader went away (``claims list | head``), as a shell reports SIGPIPE."""


@cache
def meanings() -> dict[str, str]:
    """Each member's name (aliases too) to its docstring, the string under it in this file."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == Exit.__name__)
    found: dict[str, str] = {}
    for statement, following in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.targets[0].id] = " ".join(following.value.value.split())
    return found


def _plain(text: str) -> str:
    text = text.replace("``", "`").rstrip(".")
    return text[:1].lower() + text[1:]


def help_lines(width: int = 88) -> list[str]:
    """``claims --help``'s exit-code lines: one per code, in the enum's order, with the
    member's name, its aliases and its docstring."""
    names: dict[int, list[str]] = {}
    for name, member in Exit.__members__.items():
        names.setdefault(int(member), []).append(name)
    known = meanings()
    lines = []
    for code, members in names.items():
        label = members[0] + "".join(f" ({alias})" for alias in members[1:])
        head = f"  {code:<3} {label}: "
        lines += textwrap.wrap(
            _plain(known.get(members[0], "")),
            width=width,
            initial_indent=head,
            subsequent_indent=" " * 6,
        ) or [head.rstrip()]
    return lines
