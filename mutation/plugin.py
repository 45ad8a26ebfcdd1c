"""Registers the declared mutants of this project's witnesses.

Loaded through the ``claims`` entry-point group (``mutation = "mutation.plugin"``); the
``claims mutate`` command itself is the built-in plugin :mod:`plugins.mutate`.
``mutation/`` mirrors ``witnesses/`` file for file: every public module of this package is
the mutants of the witness of that name, so no second list of witnesses is kept.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from pathlib import Path

from claims import hookimpl

MUTANT_MODULES: tuple[tuple[str, str], ...] = tuple(
    (module.name, f"mutation.{module.name}")
    for module in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name)
    if module.name != "plugin" and not module.name.startswith("_")
)
"""The mutants of witness ``W`` are in ``mutation/W.py``, found by that name alone."""


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    for witness, module in MUTANT_MODULES:
        register(witness, module)
