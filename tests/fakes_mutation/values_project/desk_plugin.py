"""Registers witness ``desk``."""

from __future__ import annotations

from collections.abc import Callable

from claims import hookimpl


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    register("desk", "desk_witness")
