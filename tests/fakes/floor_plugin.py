"""Registers one witness per floor rule, each breaking only that rule."""

from __future__ import annotations

from collections.abc import Callable

from claims import hookimpl

FLOOR_WITNESSES = (
    ("fake_aggregator", "tests.fakes.floor_aggregator"),
    ("fake_no_statement", "tests.fakes.floor_no_statement"),
    ("fake_no_kind", "tests.fakes.floor_no_kind"),
    ("fake_duplicate", "tests.fakes.floor_duplicate"),
    ("fake_takes_arguments", "tests.fakes.floor_takes_arguments"),
)


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    for name, module in FLOOR_WITNESSES:
        register(name, module)
