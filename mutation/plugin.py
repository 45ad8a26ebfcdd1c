"""Registers the declared mutants of this project's witnesses and the ``claims mutate`` command.

Loaded through the ``claims`` entry-point group (``mutation = "mutation.plugin"``).
``mutation/`` mirrors ``witnesses/`` file for file: the mutants of witness ``W`` are in
``mutation/W.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from claims import hookimpl
from mutation.command import add_parser
from witnesses.plugin import WITNESSES

MUTANT_MODULES: tuple[tuple[str, str], ...] = tuple(
    (name, f"mutation.{name}") for name in WITNESSES
)
"""The mutants of witness ``W`` are in ``mutation/W.py``, found by that name alone."""


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    for witness, module in MUTANT_MODULES:
        register(witness, module)


@hookimpl
def claims_add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add_parser(subparsers)
