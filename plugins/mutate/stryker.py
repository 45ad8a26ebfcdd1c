"""Reports in Stryker's mutation-testing-report-schema (schema version 2), and merging them.

``files`` maps each mutated source file (relative path) to its ``language``, ``source`` and
``mutants``; each mutant has ``id``, ``mutatorName``, ``replacement``, ``location``,
``status`` (Killed, Survived, NoCoverage, Timeout, RuntimeError, Ignored), ``killedBy`` and
``coveredBy`` (claim ids). ``testFiles`` maps each witness module's file to its claims. A
declared mutant also carries ``expectedKilledBy``, its declared set, and
``recordedKilledBy``, the other witnesses' claims the red sets lock records for it
(extensions: the schema allows extra properties). Every written report also carries the
scores of its kill matrix (``matrixScore`` per file, ``minimal`` per judged mutant,
``matrixScores`` at the top: :mod:`plugins.mutate.matrix_scores`). Reports are written
atomically (temp file, then rename).
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
from claims.files import FileProblem, read_json, shown, write_atomically
from plugins.mutate.declared.harness import Findings, Judgement, RunKind
from plugins.mutate.declared.runs import RunStatus
from plugins.mutate.matrix_scores import with_matrix_scores
from plugins.mutate.patching import resolve

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

FIRST_KILL = "firstKill"
"""``config.firstKill``: the survey stopped each mutant at its first red claim, so
``killedBy`` holds that claim alone and is no kill matrix (statuses and strength stand)."""
FIRST_KILL_NOTE = (
    "first-kill report: each mutant stopped at its first red claim, so killedBy names one "
    "claim, not every claim that would kill it; no per-witness or per-claim kill counts "
    "(statuses and strength are exact; run without --first-kill for the matrix)"
)


def is_first_kill(report: Mapping[str, Any]) -> bool:
    """Whether ``report``'s ``killedBy`` is a first kill, not a matrix (:data:`FIRST_KILL`)."""
    config = report.get("config")
    return isinstance(config, dict) and config.get(FIRST_KILL) is True


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
    """What ``report`` lacks of the schema's required keys, enums and types (empty when
    fine), each located by its key path; everything the merge and the summaries read is
    checked, so a mis-shaped report is refused here and never crashes them."""
    problems = [f"missing {key}" for key in REQUIRED_TOP if key not in report]
    thresholds = report.get("thresholds", {})
    for key in ("high", "low"):
        value = thresholds.get(key) if isinstance(thresholds, dict) else None
        if not _is_int(value):
            problems.append(f"thresholds.{key} is not an integer")
    config = report.get("config", {})
    if not isinstance(config, dict):
        problems.append(f"config: expected an object, got {_kind(config)}")
    elif "shard" in config and shard_of(report) is None:
        problems.append(f"config.shard: expected a string K/N, got {config['shard']!r:.40}")
    files = report.get("files", {})
    if not isinstance(files, dict):
        return [*problems, f"files: expected an object, got {_kind(files)}"]
    for path, entry in files.items():
        problems += _file_problems(f"files[{path!r}]", entry)
    tests = report.get("testFiles", {})
    if not isinstance(tests, dict):
        return [*problems, f"testFiles: expected an object, got {_kind(tests)}"]
    for path, entry in tests.items():
        problems += _test_file_problems(f"testFiles[{path!r}]", entry)
    return problems


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _file_problems(where: str, entry: object) -> list[str]:
    if not isinstance(entry, dict):
        return [f"{where}: expected an object, got {_kind(entry)}"]
    problems = [f"{where}: missing {key}" for key in REQUIRED_FILE if key not in entry]
    problems += [
        f"{where}.{key}: expected a string, got {_kind(entry[key])}"
        for key in ("language", "source")
        if key in entry and not isinstance(entry[key], str)
    ]
    mutants = entry.get("mutants", [])
    if not isinstance(mutants, list):
        return [*problems, f"{where}.mutants: expected an array, got {_kind(mutants)}"]
    for index, mutant in enumerate(mutants):
        problems += _mutant_problems(f"{where}.mutants[{index}]", mutant)
    return problems


def _mutant_problems(where: str, mutant: object) -> list[str]:
    if not isinstance(mutant, dict):
        return [f"{where}: expected an object, got {_kind(mutant)}"]
    label = f"{where} (id {mutant.get('id')!r})" if isinstance(mutant.get("id"), str) else where
    problems = [f"{label}: missing {key}" for key in REQUIRED_MUTANT if key not in mutant]
    for key in ("id", "mutatorName", "replacement", "statusReason", "description"):
        if key in mutant and not isinstance(mutant[key], str):
            problems.append(f"{label}.{key}: expected a string, got {_kind(mutant[key])}")
    status = mutant.get("status")
    if "status" in mutant and (not isinstance(status, str) or status not in STATUSES):
        problems.append(f"{label}: status {mutant['status']!r}")
    for key in ("killedBy", "coveredBy"):
        ids = mutant.get(key, [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            problems.append(f"{label}.{key}: expected an array of claim ids")
    if "location" in mutant:
        # The schema's Location: start and end, each with line and column; the merge sorts by
        # them, so a report without them is refused here, not a crash there.
        where = f"{label}.location"
        problems += _location_problems(where, mutant["location"], ("start", "end"), columns=True)
    return problems


def _location_problems(
    where: str, found: object, required: tuple[str, ...], columns: bool = False
) -> list[str]:
    """``columns``: every point needs a column; else only a test's start may carry one."""
    if not isinstance(found, dict):
        return [f"{where}: expected an object, got {_kind(found)}"]
    problems = []
    for end in required:
        point = found.get(end)
        if not isinstance(point, dict):
            problems.append(f"{where}.{end}: expected an object with line and column")
            continue
        wanted = columns or (end == "start" and "column" in point)
        for key in ("line", "column") if wanted else ("line",):
            if not _is_int(point.get(key)):
                problems.append(f"{where}.{end}.{key}: expected an integer")
    return problems


def _test_file_problems(where: str, entry: object) -> list[str]:
    if not isinstance(entry, dict):
        return [f"{where}: expected an object, got {_kind(entry)}"]
    tests = entry.get("tests")
    if not isinstance(tests, list):
        return [f"{where}.tests: expected an array, got {_kind(tests)}"]
    problems = []
    for index, test in enumerate(tests):
        at = f"{where}.tests[{index}]"
        if not isinstance(test, dict):
            problems.append(f"{at}: expected an object, got {_kind(test)}")
            continue
        problems += [
            f"{at}.{key}: expected a string"
            for key in ("id", "name")
            if not isinstance(test.get(key), str)
        ]
        if "location" in test:
            problems += _location_problems(f"{at}.location", test["location"], ("start",))
    return problems


def write_report(report: Mapping[str, Any], path: Path) -> None:
    """Write ``report`` as JSON atomically (a reader never sees half a file), with the scores
    of its kill matrix as extra fields (:func:`~plugins.mutate.matrix_scores.with_matrix_scores`:
    computed now, so a merge or a rewrite never carries stale ones)."""
    body = with_matrix_scores(report)
    write_atomically(path, (json.dumps(body, indent=1) + "\n").encode())


def read_report(path: Path) -> Report:
    """A report to merge, read as strict JSON and validated; every refusal names the file
    and the place in it."""
    try:
        found = read_json(path)
    except FileProblem as error:
        raise UsageError(
            f"{shown(path)}: {error.where}: not a readable report: {error.message}"
        ) from error
    problems = validate(found) if isinstance(found, dict) else ["not a JSON object"]
    if problems:
        listed = "; ".join(problems[:5])
        raise UsageError(f"{shown(path)}: not a mutation-testing report: {listed}")
    return dict(found)


def shard_of(report: Mapping[str, Any]) -> tuple[int, int] | None:
    """``(K, N)`` from a survey report's ``config.shard`` ("K/N"), or None without one."""
    config = report.get("config")
    text = config.get("shard") if isinstance(config, dict) else None
    if not isinstance(text, str):
        return None
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
    for (k, n), report in zip(shards, reports, strict=True):
        stopped = dict(report.get("config") or {}).get("stopped")
        if stopped:
            raise UsageError(
                f"shard {k}/{n} stopped early ({shown(str(stopped))}): it did not judge "
                "its whole share; survey it again (--reuse its report takes what it judged)"
            )
    scopes = {json.dumps(dict(r.get("config") or {}).get("scope")) for r in reports}
    if len(scopes) > 1:
        raise UsageError(f"the shards surveyed different witnesses: {' vs '.join(sorted(scopes))}")
    first = [k for (k, _), r in zip(shards, reports, strict=True) if is_first_kill(r)]
    if first and len(first) < len(reports):
        raise UsageError(
            f"shard {', '.join(f'{k}/{total}' for k in first)} stopped at the first kill and "
            "the others built the full matrix: their killedBy cannot be merged into one report"
        )
    return total


def merge(reports: Sequence[Report]) -> Report:
    """One report holding every file, mutant and test of ``reports``: every shard of one
    survey (:func:`check_shards`), marked as the whole (``shard`` 1/1, ``mergedShards`` N).

    A mutant id seen twice must carry the same status in both, or the merge is refused.
    """
    total = check_shards(reports)
    config = dict(reports[0].get("config") or {}, shard="1/1", mergedShards=total)
    merged = dict(reports[0], files={}, testFiles={}, config=config)
    merged.pop("audit", None)  # each shard's verdict audit is its own: kept, one per shard
    audits = [r["audit"] for r in reports if isinstance(r.get("audit"), dict)]
    if audits:
        merged["audits"] = audits
    keys = [r["claimKeys"] for r in reports if isinstance(r.get("claimKeys"), dict)]
    if keys:  # every shard keyed the same claims of the same tree: a union
        union = {claim: key for found in keys for claim, key in found.items()}
        merged["claimKeys"] = dict(sorted(union.items()))
        traces = [r.get("claimTraces") for r in reports]
        merged["claimTraces"] = {c: t for f in traces if isinstance(f, dict) for c, t in f.items()}
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
                "expectedKilledBy": sorted(j.expectation.declared),
                "recordedKilledBy": sorted(j.expectation.recorded),
            }
        )
    _add_claims(report, findings)
    return report


def _reason(j: Judgement) -> str:
    parts = [f"survived: {', '.join(sorted(j.missing))}"] if j.missing else []
    parts += [f"collateral: {', '.join(sorted(j.collateral))}"] if j.collateral else []
    parts += [f"lock stale: {', '.join(sorted(j.stale))}"] if j.stale else []
    return "; ".join(parts) or ("exact" if j.result.ok else j.result.detail)


def _add_claims(report: Report, findings: Findings) -> None:
    for claim in findings.book.of(findings.scope):
        path = _relative(claim.module.replace(".", "/") + ".py")
        add_tests(report, path, [(claim.id, claim.name, claim.lineno)])
