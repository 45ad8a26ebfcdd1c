"""A plugin whose witness states its claims with Markdown-looking text, and a report format
whose hook raises: for the markdown escaping and the report-hook error tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from claims import RunReport, hookimpl


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    register("fake_markup", "tests.fakes.witness_markup")


@hookimpl
def claims_register_formats(register: Callable[[str, str], None]) -> None:
    register("boom", "a format whose writer raises")


@hookimpl
def claims_report(report: RunReport, fmt: str, stream: TextIO) -> bool | None:
    if fmt == "boom":
        raise RuntimeError("the boom writer broke")
    return None
