"""Reports in Stryker's mutation-testing-report-schema (schema version 2), and merging them.

``files`` maps each mutated source file (relative path) to its ``language``, ``source`` and
``mutants``; each mutant has ``id``, ``mutatorName``, ``replacement``, ``location``,
``status`` (Killed, Survived, NoCoverage, Timeout, RuntimeError, Ignored), ``killedBy`` and
``coveredBy`` (claim ids). ``testFiles`` maps each witness module's file to its claims. A
declared mutant also carries ``expectedKilledBy``, its declared set (an extension: the
schema allows extra properties). Reports are written atomically (temp file, then rename).
"""

from __future__ import annotations

import inspect
import json
import os
import platform
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from claims import UsageError
from claims.files import write_atomically
from mutation.harness import Findings, Judgement, RunKind
from mutation.patching import resolve
from mutation.runs import RunStatus

SCHEMA_URL = (
    "https://raw.githubusercontent.com/stryker-mutator/mutation-testing-elements/master/"
    "packages/report-schema/src/mutation-testing-report-schema.json"
)
SCHEMA_VERSION = "2"
THRESHOLDS = {"high": 80, "low": 60}
REQUIRED_TOP = ("schemaVersion", "thresholds", "files")
REQUIRED_FILE = ("language", "source", "mutants")
REQUIRED_MUTANT = ("id", "mutatorName", "location", "status")
STATUSES = frozenset(
    {
        "Killed",
        "Survived",
        "NoCoverage",
        "CompileError",
        "RuntimeError",
        "Timeout",
        "Ignored",
        "Pending",
    }
)

Report = dict[str, Any]


def position(line: int, column: int) -> dict[str, int]:
    return {"line": max(1, line), "column": max(1, column)}


def location(start: tuple[int, int], end: tuple[int, int]) -> dict[str, dict[str, int]]:
    return {"start": position(*start), "end": position(*end)}


def empty_report(framework: str, config: Mapping[str, object] | None = None) -> Report:
    """A report with no files yet."""
    return {
        "$schema": SCHEMA_URL,
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": dict(THRESHOLDS),
        "projectRoot": os.getcwd(),
        "config": dict(config or {}),
        "files": {},
        "testFiles": {},
        "framework": {"name": framework},
        "system": {
            "ci": bool(os.environ.get("CI")),
            "os": {"platform": platform.system().lower()},
            "cpu": {"logicalCores": os.cpu_count() or 1},
        },
    }


def add_file(report: Report, path: str, source: str) -> list[dict[str, Any]]:
    """The mutant list of ``path``, creating the file entry on first use."""
    files: dict[str, Any] = report["files"]
    entry = files.setdefault(path, {"language": "python", "source": source, "mutants": []})
    mutants: list[dict[str, Any]] = entry["mutants"]
    return mutants


def add_tests(report: Report, path: str, tests: Iterable[tuple[str, str, int]]) -> None:
    """Register claims (id, name, line) under the witness file ``path``."""
    entry = report["testFiles"].setdefault(path, {"tests": []})
    known = {t["id"] for t in entry["tests"]}
    for claim_id, name, line in tests:
        if claim_id not in known:
            entry["tests"].append(
                {"id": claim_id, "name": name, "location": {"start": position(line, 1)}}
            )


def validate(report: Mapping[str, Any]) -> list[str]:
    """What ``report`` lacks of the schema's required keys and enums (empty when fine)."""
    problems = [f"missing {key}" for key in REQUIRED_TOP if key not in report]
    for path, entry in dict(report.get("files", {})).items():
        problems += [f"{path}: missing {key}" for key in REQUIRED_FILE if key not in entry]
        for mutant in entry.get("mutants", []):
            where = f"{path}#{mutant.get('id')}"
            problems += [f"{where}: missing {key}" for key in REQUIRED_MUTANT if key not in mutant]
            if mutant.get("status") not in STATUSES:
                problems.append(f"{where}: status {mutant.get('status')!r}")
    for key in ("high", "low"):
        if not isinstance(report.get("thresholds", {}).get(key), int):
            problems.append(f"thresholds.{key} is not an integer")
    return problems


def write_report(report: Mapping[str, Any], path: Path) -> None:
    """Write ``report`` as JSON atomically: a reader never sees half a file."""
    write_atomically(path, (json.dumps(report, indent=1) + "\n").encode())


def read_report(path: Path) -> Report:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise UsageError(f"{path}: not a readable report: {error}") from error
    problems = validate(found) if isinstance(found, dict) else ["not a JSON object"]
    if problems:
        raise UsageError(f"{path}: not a mutation-testing report: {'; '.join(problems[:5])}")
    return dict(found)


def shard_of(report: Mapping[str, Any]) -> tuple[int, int] | None:
    """``(K, N)`` from a survey report's ``config.shard`` ("K/N"), or None without one."""
    text = str(dict(report.get("config") or {}).get("shard") or "")
    k, slash, n = text.partition("/")
    if not slash or not (k.isdigit() and n.isdigit()) or not 1 <= int(k) <= int(n):
        return None
    return int(k), int(n)


def check_shards(reports: Sequence[Report]) -> int:
    """The N of a complete set of shard reports ``1/N`` … ``N/N`` of one survey; anything
    else (a missing shard, a shard twice, two different N, another survey's scope, a report
    that is not a shard) raises :class:`UsageError` naming what is wrong."""
    found = [shard_of(r) for r in reports]
    shards = [s for s in found if s is not None]
    if len(shards) != len(found):
        unsharded = len(found) - len(shards)
        raise UsageError(
            f"{unsharded} of the {len(reports)} reports carry no config.shard K/N: only the "
            "shard reports of one survey (--shard K/N) can be merged"
        )
    counts = sorted({n for _, n in shards})
    if len(counts) != 1:
        raise UsageError(
            f"the reports are shards of different splits: /{', /'.join(map(str, counts))}"
        )
    total = counts[0]
    given = [k for k, _ in shards]
    twice = sorted({k for k in given if given.count(k) > 1})
    if twice:
        raise UsageError(f"shard {', '.join(f'{k}/{total}' for k in twice)} given twice")
    missing = sorted(set(range(1, total + 1)) - set(given))
    if missing:
        raise UsageError(
            f"merging {len(given)} of {total} shards: missing "
            f"{', '.join(f'{k}/{total}' for k in missing)}; a merged report speaks for the "
            "whole survey only with every shard"
        )
    scopes = {json.dumps(dict(r.get("config") or {}).get("scope")) for r in reports}
    if len(scopes) > 1:
        raise UsageError(f"the shards surveyed different witnesses: {' vs '.join(sorted(scopes))}")
    return total


def merge(reports: Sequence[Report]) -> Report:
    """One report holding every file, mutant and test of ``reports``: every shard of one
    survey (:func:`check_shards`), marked as the whole (``shard`` 1/1, ``mergedShards`` N).

    A mutant id seen twice must carry the same status in both, or the merge is refused.
    """
    total = check_shards(reports)
    config = dict(reports[0].get("config") or {}, shard="1/1", mergedShards=total)
    merged = dict(reports[0], files={}, testFiles={}, config=config)
    seen: dict[str, dict[str, Any]] = {}
    for report in reports:
        for path, entry in report["files"].items():
            mutants = add_file(merged, path, entry["source"])
            for mutant in entry["mutants"]:
                earlier = seen.get(mutant["id"])
                if earlier is not None and earlier["status"] != mutant["status"]:
                    raise UsageError(
                        f"mutant {mutant['id']} is {earlier['status']} in one "
                        f"report and {mutant['status']} in another"
                    )
                if earlier is None:
                    seen[mutant["id"]] = mutant
                    mutants.append(mutant)
        for path, entry in report.get("testFiles", {}).items():
            add_tests(
                merged,
                path,
                (
                    (t["id"], t["name"], t.get("location", {}).get("start", {}).get("line", 1))
                    for t in entry["tests"]
                ),
            )
    for entry in merged["files"].values():
        entry["mutants"].sort(
            key=lambda m: (
                m["location"]["start"]["line"],
                m["location"]["start"]["column"],
                m["id"],
            )
        )
    return merged


# --- declared mutants ------------------------------------------------------------------------


def _declared_status(j: Judgement) -> str:
    if j.result.status is RunStatus.TIMEOUT:
        return "Timeout"
    if j.result.status is RunStatus.CRASH:
        return "RuntimeError"
    return "Survived" if j.missing or not j.actual else "Killed"


def _relative(path: str) -> str:
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path


def declared_report(findings: Findings) -> Report:
    """The declared kill matrix as a report: one mutant per declared mutant."""
    report = empty_report("claims mutate (declared mutants)", {"scope": list(findings.scope)})
    scope_claims = sorted(findings.scope_claims)
    for j in findings.of_kind(RunKind.SOLO):
        mutant = j.expectation.mutants[0]
        function = resolve(mutant.replaces).callable()
        lines, first = inspect.getsourcelines(function)
        path = inspect.getsourcefile(function) or mutant.replaces
        entries = add_file(report, _relative(path), Path(path).read_text(encoding="utf-8"))
        entries.append(
            {
                "id": mutant.id,
                "mutatorName": mutant.name,
                "replacement": f"{mutant.reference} replaces {mutant.replaces}",
                "description": mutant.headline,
                "location": location((first, 1), (first + len(lines) - 1, len(lines[-1]) + 1)),
                "status": _declared_status(j),
                "statusReason": _reason(j),
                "killedBy": sorted(j.actual),
                "coveredBy": scope_claims,
                "expectedKilledBy": sorted(j.expectation.expected),
            }
        )
    _add_claims(report, findings)
    return report


def _reason(j: Judgement) -> str:
    parts = [f"survived: {', '.join(sorted(j.missing))}"] if j.missing else []
    parts += [f"collateral: {', '.join(sorted(j.collateral))}"] if j.collateral else []
    return "; ".join(parts) or ("exact" if j.result.ok else j.result.detail)


def _add_claims(report: Report, findings: Findings) -> None:
    for claim in findings.book.of(findings.scope):
        path = _relative(claim.module.replace(".", "/") + ".py")
        add_tests(report, path, [(claim.id, claim.name, claim.lineno)])
