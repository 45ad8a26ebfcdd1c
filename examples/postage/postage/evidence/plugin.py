"""The project's claims plugin, named in ``[tool.claims] plugins``."""

from __future__ import annotations

from collections.abc import Callable

from claims import hookimpl


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    register("postage", "postage.evidence.witness")


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    register("postage", "postage.evidence.mutants")
