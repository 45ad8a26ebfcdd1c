"""The main fake plugin: witnesses of every outcome, mutants, frontiers and a command."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claims import Session, hookimpl

WITNESSES = (
    ("fake_green", "tests.fakes.witness_green"),
    ("fake_red", "tests.fakes.witness_red"),
    ("fake_import_error", "tests.fakes.witness_import_error"),
    ("fake_setup_error", "tests.fakes.witness_setup_error"),
    ("fake_missing", "tests.fakes.witness_not_written_yet"),
)


@dataclass(frozen=True)
class FakeFrontier:
    """Stands in for claims.frontiers.Frontier, which the kernel never looks inside."""

    pr: int


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    for name, module in WITNESSES:
        register(name, module)


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    register("fake_red", "tests.fakes.mutants_red")
    register("fake_green", "tests.fakes.mutants_green_b")
    register("fake_green", "tests.fakes.mutants_green_a")


@hookimpl
def claims_register_frontiers(register: Callable[[Any], None]) -> None:
    register(FakeFrontier(12353))
    register(FakeFrontier(12351))


@hookimpl
def claims_add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    echo = subparsers.add_parser(
        "fake-echo",
        help="print what the session holds (a test command)",
        description="Print the witnesses, mutants and frontiers the session collected.",
        epilog="example:\n  claims -p tests.fakes.plugin fake-echo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    echo.set_defaults(handler=_echo)


def _echo(args: argparse.Namespace, session: Session) -> int:
    print("witnesses:", " ".join(session.witness_names))
    print("mutants:", session.mutants)
    print("frontiers:", [f.pr for f in session.frontiers])
    return 3
