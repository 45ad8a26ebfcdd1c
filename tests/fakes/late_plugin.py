"""A second plugin, for load-order tests: its witness comes wherever it is loaded."""

from __future__ import annotations

from collections.abc import Callable

from claims import hookimpl


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    register("fake_order", "tests.fakes.witness_order")


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    register("fake_green", "tests.fakes.mutants_green_late")
