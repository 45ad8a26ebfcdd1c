"""``claims mutate --explain ID``: one surveyed mutant, as a reviewer asks about it.

Reads a survey's report (``--report``; default the generated survey's) and prints the
mutant's file and line, its operator, its status, the line before and after, and

- its diff: a survivor's as the report keeps it; for any other mutant the report keeps no
  diff, so one is made from the file's source, the mutant's span and its replacement, and
  shown only when it reproduces the change the report records (a value mutant's change is
  not a span of source: it has none);
- why (a kill's first claim and what it said; a crash's or timeout's reason);
- the verdict of every claim that covered it (``red`` or ``green``), and any claim that
  turned it red without covering it (coverage or isolation is wrong);
- its place in the file's minimal mutant set (:mod:`plugins.mutate.matrix_scores`): in it,
  or the mutant that subsumes it.

Nothing is run: the report is the record of the run that judged it. Every value from the
report is escaped before it reaches the terminal. An id the report does not hold is a usage
error naming the closest ids it does hold.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from claims.errors import UsageError
from claims.files import shown
from plugins.mutate.matrix_scores import NO_MATRIX, has_matrix, matrix_of
from plugins.mutate.stryker import FIRST_KILL_NOTE, is_first_kill, read_report

DEFAULT_REPORT = Path("target/mutation-report.json")


def _mutants(report: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for path, entry in report["files"].items():
        for mutant in entry["mutants"]:
            yield path, mutant


def find(
    report: Mapping[str, Any], mutant_id: str, source: str
) -> tuple[str, Mapping[str, Any], Mapping[str, Any]]:
    """The file, the mutant ``mutant_id`` and its file's entry in ``report`` (read from
    ``source``)."""
    for path, mutant in _mutants(report):
        if mutant["id"] == mutant_id:
            return path, mutant, report["files"][path]
    ids = [str(m["id"]) for _, m in _mutants(report)]
    near = difflib.get_close_matches(mutant_id, ids, n=3, cutoff=0.6)
    hint = f"; the closest: {', '.join(near)}" if near else ""
    raise UsageError(
        f"--explain {shown(mutant_id)}: {source} holds no such mutant ({len(ids)} mutants){hint}"
    )


def _ids(mutant: Mapping[str, Any], key: str) -> list[str]:
    return [str(c) for c in mutant.get(key, [])]


UNRUN = {
    "Timeout": "the run timed out before its verdict",
    "Killed": "the survey stopped at the first red claim",
}
"""Why a claim that is not red has no verdict: a timeout, or a first-kill report's kill."""


def verdict_lines(mutant: Mapping[str, Any], matrix: bool = True) -> list[str]:
    """Each covering claim with its verdict, ``?`` where none was reached (a timeout; a kill
    in a report without a matrix), then any claim that killed without covering."""
    covered, killed = _ids(mutant, "coveredBy"), set(_ids(mutant, "killedBy"))
    status = str(mutant["status"])
    unrun = UNRUN.get(status) if status == "Timeout" or not matrix else None
    red = sum(1 for c in covered if c in killed)
    head = f"claims ({len(covered)} cover it, {red} red" + (f"; ? {unrun}" if unrun else "")
    lines = [f"{head}):" if covered else "claims: none cover it"]
    other = "?    " if unrun else "green"
    lines += [f"  {'red  ' if c in killed else other}  {shown(c)}" for c in covered]
    blind = sorted(killed - set(covered))
    lines += [
        f"  red    {shown(c)} (never calls it: coverage or isolation is wrong)" for c in blind
    ]
    return lines


def splice_diff(path: str, source: str, mutant: Mapping[str, Any]) -> list[str]:
    """The lines the mutant's span covers, before and after its replacement, as a unified
    diff; empty unless the first changed line reads as the report's ``description`` says."""
    start, end = mutant["location"]["start"], mutant["location"]["end"]
    lines = source.splitlines()
    first, last = int(start["line"]), int(end["line"])
    if not 1 <= first <= last <= len(lines):
        return []
    before = lines[first - 1 : last]
    head, tail = before[0][: int(start["column"]) - 1], before[-1][int(end["column"]) - 1 :]
    after = (head + str(mutant.get("replacement", "")) + tail).splitlines() or [""]
    recorded = f"{before[0].strip()}  →  {after[0].strip()}"
    if mutant.get("description") != recorded or before == after:
        return []
    hunk = f"@@ -{first},{len(before)} +{first},{len(after)} @@"
    return [
        f"--- {path}",
        f"+++ {path}",
        hunk,
        *(f"-{b}" for b in before),
        *(f"+{a}" for a in after),
    ]


def diff_of(path: str, source: str, mutant: Mapping[str, Any]) -> list[str]:
    """A survivor's diff as the report keeps it, else :func:`splice_diff`."""
    if mutant["status"] == "Survived" and mutant.get("statusReason"):
        return str(mutant["statusReason"]).splitlines()
    return splice_diff(path, source, mutant)


def place_line(mutants: list[Mapping[str, Any]], mutant: Mapping[str, Any]) -> str:
    """Where the mutant stands in its file's minimal set."""
    me, status = str(mutant["id"]), str(mutant["status"])
    rows = dict(matrix_of(mutants, ()).rows)
    if status == "Timeout" or (status == "Killed" and me not in rows):
        return "minimal set: not placed (detected, but its killing set is unknown)"
    if me not in rows:
        return f"minimal set: not in the matrix ({shown(status)}: only judged mutants are)"
    kills = rows[me]
    if not kills:
        return "minimal set: in it (a survivor is a class of its own)"
    below = sorted((len(k), m) for m, k in rows.items() if k and k < kills)
    if below:
        subsumer = shown(below[0][1])
        return f"minimal set: subsumed by {subsumer} (killed by a strict subset of its claims)"
    twin = min(m for m, k in rows.items() if k == kills)
    if twin != me:
        return f"minimal set: {shown(twin)}, killed by the same claims, stands for both"
    return "minimal set: in it (no other mutant of the file is killed by a subset of its claims)"


def explain_lines(
    path: str,
    mutant: Mapping[str, Any],
    entry: Mapping[str, Any] | None = None,
    matrix: bool = True,
) -> list[str]:
    """What the report says of one mutant (``entry``: its file's entry in the report;
    ``matrix``: whether its ``killedBy`` is the full kill matrix), every value from the
    report escaped."""
    entry = entry or {"source": "", "mutants": [mutant]}
    start = mutant["location"]["start"]
    lines = [
        f"{shown(str(mutant['id']))} ({shown(path)}:{start['line']}, "
        f"{shown(str(mutant.get('mutatorName', '?')))})",
        f"status: {shown(str(mutant['status']))}",
    ]
    if mutant.get("description"):
        lines.append(f"change: {shown(str(mutant['description']))}")
    diff = diff_of(path, str(entry.get("source", "")), mutant)
    lines += ["diff:", *(f"  {shown(d)}" for d in diff)] if diff else ["diff: none in the report"]
    reason = mutant.get("statusReason")
    if reason and mutant["status"] != "Survived":
        lines += ["why:", *(f"  {shown(r)}" for r in str(reason).splitlines())]
    lines += verdict_lines(mutant, matrix)
    mutants = list(entry.get("mutants", []))
    lines.append(place_line(mutants, mutant) if matrix else f"minimal set: unknown ({NO_MATRIX})")
    return lines


def first_kill_line(report: Mapping[str, Any]) -> list[str]:
    """The warning a first-kill report's ``killedBy`` needs (no line for a full matrix)."""
    return [f"note: {FIRST_KILL_NOTE}"] if is_first_kill(report) else []


def explain_command(mutant_id: str, report_path: Path | None) -> int:
    """Print :func:`explain_lines` for ``mutant_id`` of the report; 0, or a usage error."""
    path = report_path or DEFAULT_REPORT
    report = read_report(path)
    found = find(report, mutant_id, shown(path))
    for line in explain_lines(*found, matrix=has_matrix(report)) + first_kill_line(report):
        print(line)
    return 0
