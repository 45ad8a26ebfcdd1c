"""``claims mutate --explain ID``: one surveyed mutant, as a reviewer asks about it.

Reads a survey's report (``--report``; default the generated survey's) and prints the
mutant's file and line, its operator, its verdict and why (a survivor's diff, a kill's first
claim and what it said), the line before and after, every claim that covered it and every
claim that killed it. Nothing is run: the report is the record of the run that judged it.
An id the report does not hold is a usage error naming the closest ids it does hold.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from claims.errors import UsageError
from claims.files import shown
from plugins.mutate.stryker import FIRST_KILL_NOTE, is_first_kill, read_report

DEFAULT_REPORT = Path("target/mutation-report.json")


def _mutants(report: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for path, entry in report["files"].items():
        for mutant in entry["mutants"]:
            yield path, mutant


def find(report: Mapping[str, Any], mutant_id: str, source: str) -> tuple[str, Mapping[str, Any]]:
    """The file and the mutant ``mutant_id`` of ``report`` (read from ``source``)."""
    for path, mutant in _mutants(report):
        if mutant["id"] == mutant_id:
            return path, mutant
    ids = [str(m["id"]) for _, m in _mutants(report)]
    near = difflib.get_close_matches(mutant_id, ids, n=3, cutoff=0.6)
    hint = f"; the closest: {', '.join(near)}" if near else ""
    raise UsageError(
        f"--explain {shown(mutant_id)}: {source} holds no such mutant ({len(ids)} mutants){hint}"
    )


def _claims(label: str, ids: list[str]) -> list[str]:
    if not ids:
        return [f"{label}: none"]
    return [f"{label} ({len(ids)}):", *(f"  {shown(c)}" for c in ids)]


def explain_lines(path: str, mutant: Mapping[str, Any]) -> list[str]:
    """What the report says of one mutant, every value from the report escaped."""
    start = mutant["location"]["start"]
    lines = [
        f"{shown(str(mutant['id']))} ({shown(path)}:{start['line']}, "
        f"{shown(str(mutant.get('mutatorName', '?')))})",
        f"status: {shown(str(mutant['status']))}",
    ]
    if mutant.get("description"):
        lines.append(f"change: {shown(str(mutant['description']))}")
    reason = mutant.get("statusReason")
    if reason:
        lines += ["why:", *(f"  {shown(r)}" for r in str(reason).splitlines())]
    lines += _claims("covered by", list(mutant.get("coveredBy", [])))
    lines += _claims("killed by", list(mutant.get("killedBy", [])))
    return lines


def first_kill_line(report: Mapping[str, Any]) -> list[str]:
    """The warning a first-kill report's ``killedBy`` needs (no line for a full matrix)."""
    return [f"note: {FIRST_KILL_NOTE}"] if is_first_kill(report) else []


def explain_command(mutant_id: str, report_path: Path | None) -> int:
    """Print :func:`explain_lines` for ``mutant_id`` of the report; 0, or a usage error."""
    path = report_path or DEFAULT_REPORT
    report = read_report(path)
    for line in explain_lines(*find(report, mutant_id, shown(path))) + first_kill_line(report):
        print(line)
    return 0
