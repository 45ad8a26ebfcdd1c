"""The value survey as a Stryker report, and the summary printed from such a report.

One mutant entry per value mutant: ``files`` is the boundary's source file, ``location`` the
boundary function's def line, ``mutatorName`` the operator, ``description`` the path and the
change (shown on the value the site was found in), ``killedBy``/``coveredBy`` claim ids.
The summary is computed from the report alone, so merged shard reports print the same: per
boundary module, its mutants killed, timed out, survived, with no coverage, crashed, and the
strength (detected / covered and judged); then at most N survivors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plugins.mutate.matrix_scores import summary
from plugins.mutate.stryker import Report, add_file, add_tests, empty_report, location

if TYPE_CHECKING:
    from plugins.mutate.generated.workers import MutantResult, Survey
    from plugins.mutate.values.command import ValueMutant

FRAMEWORK = "claims mutate --values (value operators at typed boundaries)"
DETECTED = frozenset({"Killed", "Timeout"})


def _entry(result: MutantResult[ValueMutant], def_line: str) -> dict[str, Any]:
    m = result.mutant
    reason = result.reason
    if result.status == "Killed" and not reason:
        first = sorted(result.killed)[0]
        reason = f"{first}: {result.killed[first]}"
    elif result.status in ("Survived", "NoCoverage") and not reason:
        reason = f"{m.path}: {m.change}" if m.path else m.change
    return {
        "id": m.name,
        "mutatorName": m.operator,
        "replacement": m.change,
        "description": f"{m.path}: {m.change}" if m.path else m.change,
        "location": location((m.line, 1), (m.line, len(def_line) + 1)),
        "status": result.status,
        "statusReason": reason,
        "killedBy": sorted(result.killed),
        "coveredBy": sorted(result.covered or m.claims),
        "testsCompleted": len(result.ran),
        "duration": result.ms,
    }


def build_value_report(
    config: Mapping[str, object],
    root: Path,
    survey: Survey[ValueMutant],
    results: Sequence[MutantResult[ValueMutant]],
) -> Report:
    """Every chosen value mutant and every claim, as a Stryker report."""
    report = empty_report(FRAMEWORK, config)
    sources: dict[str, list[str]] = {}
    for result in results:
        path = result.mutant.file
        if path not in sources:
            sources[path] = (root / path).read_text(encoding="utf-8").splitlines()
        lines = sources[path]
        def_line = lines[result.mutant.line - 1] if result.mutant.line <= len(lines) else ""
        add_file(report, path, "\n".join(lines) + "\n").append(_entry(result, def_line))
    for claim in survey.claims:
        path = str(claim["module"]).replace(".", "/") + ".py"
        add_tests(report, path, [(str(claim["id"]), str(claim["name"]), int(claim["line"]))])
    return report


def summarize_values(report: Mapping[str, Any], show_survivors: int) -> str:
    """The scores on the minimal mutant set, then at most ``show_survivors`` survivors; the
    per-file table is printed by :func:`plugins.mutate.floors.hold_floors`."""
    files: Mapping[str, Any] = report["files"]
    lines: list[str] = [summary(report), ""]
    survivors = [
        (path, m)
        for path, entry in sorted(files.items())
        for m in entry["mutants"]
        if m["status"] == "Survived"
    ]
    shown = survivors[:show_survivors]
    lines += [f"survivors (covered, no claim turned red): {len(survivors)}"]
    if len(shown) < len(survivors):
        lines[-1] += f", the first {len(shown)} shown (--show-survivors)"
    for path, m in shown:
        lines.append(
            f"  {m['id']}  ({path}:{m['location']['start']['line']}, covered by "
            f"{len(m.get('coveredBy', []))})\n      {m.get('replacement', '')}"
        )
    return "\n".join(lines)
