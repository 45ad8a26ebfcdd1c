"""A plugin implementing a hook the contract does not have (a typo)."""

from __future__ import annotations

from collections.abc import Callable

from claims import hookimpl


@hookimpl
def claims_register_witnesess(register: Callable[[str, str], None]) -> None:
    register("never", "tests.fakes.witness_green")
