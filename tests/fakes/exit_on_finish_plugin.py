"""A plugin whose ``claims_run_finished`` raises ``SystemExit(0)`` after any run."""

from __future__ import annotations

import argparse

from claims import RunReport, hookimpl


@hookimpl
def claims_run_finished(report: RunReport, args: argparse.Namespace) -> None:
    raise SystemExit(0)
