"""Registers the declared mutants of this project's witnesses.

Loaded through the ``claims`` entry-point group (``mutation = "mutation.plugin"``); the
``claims mutate`` command itself is the built-in plugin :mod:`plugins.mutate`.
``mutation/`` mirrors ``witnesses/`` room for room and file for file: the mutants of witness
``W`` of room ``R`` are ``mutation/R/W.py``, found by that name alone, so no second list of
witnesses is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claims import hookimpl
from witnesses.plugin import modules_by_room

MUTANT_MODULES: tuple[tuple[str, str], ...] = tuple(
    sorted(modules_by_room(__package__ or "mutation", Path(__file__).parent).items())
)
"""(witness, module of its mutants), for every module in a room of ``mutation/``."""


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    for witness, module in MUTANT_MODULES:
        register(witness, module)
