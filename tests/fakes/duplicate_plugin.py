"""Registers a witness name the main fake plugin already uses."""

from __future__ import annotations

from collections.abc import Callable

from claims import hookimpl


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    register("fake_green", "tests.fakes.witness_order")
