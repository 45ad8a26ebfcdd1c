"""The generated survey as a Stryker report, and the summary printed from such a report.

The printed summary is computed from the report itself, so ``claims mutate --generated``
and ``claims mutate --merge-reports`` (shards merged) print the same thing. Each witness is
scored on the mutants its claims cover: killed by one of its claims / covered by one of
them. Survivors are listed with mutmut's diff, which the report keeps in ``statusReason``.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claims.tables import fitted
from claims.witness import witness_of
from plugins.mutate import matrix_scores
from plugins.mutate.generated.mutmut_bridge import GeneratedMutant
from plugins.mutate.stryker import (
    FIRST_KILL,
    FIRST_KILL_NOTE,
    Report,
    add_file,
    add_tests,
    empty_report,
    is_first_kill,
    location,
)

if TYPE_CHECKING:
    from plugins.mutate.generated.command import Plan
    from plugins.mutate.generated.workers import MutantResult, Survey

DETECTED = frozenset({"Killed", "Timeout"})
ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**", "@"})
COMPARISON = frozenset({"<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"})
LOGICAL = frozenset({"and", "or"})
LITERALS = frozenset({"True", "False"})


def mutator_name(before: str, after: str) -> str:
    """A Stryker-style category for a change of ``before`` into ``after``."""
    b, a = before.strip(), after.strip()
    if (a.startswith("XX") and a.endswith("XX")) or (a != b and a in (b.upper(), b.lower())):
        return "StringLiteral"
    if {a, b} <= ARITHMETIC:
        return "ArithmeticOperator"
    if {a, b} <= COMPARISON:
        return "EqualityOperator"
    if {a, b} <= LOGICAL:
        return "LogicalOperator"
    if {a, b} <= LITERALS:
        return "BooleanLiteral"
    if a == "None":
        return "NoneReplacement"
    if not a:
        return "Removal"
    if "not " in (a[:4], b[:4]):
        return "BooleanNegation"
    if _number(a) and _number(b):
        return "NumberLiteral"
    return "Replacement"


def _number(text: str) -> bool:
    try:
        float(text.replace("_", ""))
    except ValueError:
        return False
    return True


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def mutant_diff(root: Path, mutant: GeneratedMutant) -> str:
    """mutmut's own diff of ``mutant`` against the original function."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    with _cwd(root):
        return get_diff_for_mutant(mutant.name, path=mutant.path)


def _entry(root: Path, result: MutantResult, variant: str | None) -> dict[str, Any]:
    m = result.mutant
    reason = result.reason
    if result.status == "Survived":
        reason = mutant_diff(root, m)
    elif result.status == "Killed" and not reason:
        first = sorted(result.killed)[0]
        reason = f"{first}: {result.killed[first]}"
    entry: dict[str, Any] = {
        "id": m.name,
        "mutatorName": m.operator or mutator_name(m.before, m.after),
        "replacement": m.after,
        "description": f"{m.original_line}  →  {m.mutated_line}",
        "location": location(
            (m.span.start_line, m.span.start_column), (m.span.end_line, m.span.end_column)
        ),
        "status": result.status,
        "statusReason": reason,
        "killedBy": sorted(result.killed),
        "coveredBy": sorted(result.covered),
        "testsCompleted": len(result.ran),
        "duration": result.ms,
    }
    if result.skipped:  # an extension: each cell decided without a run, and why
        entry["skippedCells"] = dict(sorted(result.skipped.items()))
    if variant is not None:  # an extension: the digest of the mutant's code (--keys)
        entry["variantKey"] = variant
    return entry


def build_report(
    plan: Plan,
    survey: Survey,
    results: Sequence[MutantResult],
    chosen: Sequence[GeneratedMutant],
) -> Report:
    """The survey as a Stryker report: every judged mutant, every claim; a survey that
    stopped early also says how many mutants of each file it was asked to judge
    (``config.chosen``), so a reader tells a file judged whole from one judged in part."""
    config = {
        "scope": list(plan.scope),
        "shard": "/".join(map(str, plan.shard or (1, 1))),
        "since": plan.since,
        "files": list(plan.files),
        "exhaustive": plan.exhaustive,
        "statementDeletion": plan.deletion,
        FIRST_KILL: plan.first_kill,
        "forcedFailRed": survey.forced_fail_red,
        "trampoline": survey.trampoline,
        "waiting": {"workers": survey.waiting_started, "mutants": len(survey.waiting)},
    }
    if survey.stopped:  # it judged part of what it was asked: a merge refuses it
        config["stopped"] = survey.stopped
        config["chosen"] = dict(sorted(Counter(m.path for m in chosen).items()))
    kind = "--generated --first-kill" if plan.first_kill else "--generated"
    report = empty_report(f"claims mutate {kind} (mutmut 3.8.1)", config)
    for result in results:
        path = result.mutant.path
        add_file(report, path, (plan.root / path).read_text(encoding="utf-8")).append(
            _entry(plan.root, result, survey.variant_keys.get(result.mutant.name))
        )
    for claim in survey.claims:
        path = str(claim["module"]).replace(".", "/") + ".py"
        add_tests(report, path, [(str(claim["id"]), str(claim["name"]), int(claim["line"]))])
    if survey.replay:  # an extension: what cell skipping had to work with
        report["replay"] = survey.replay
    if survey.setup:  # an extension: what each witness's import and setup() ran
        report["setup"] = dict(sorted(survey.setup.items()))
    if survey.claim_keys:  # extensions (--keys), for a later --reuse: each claim's key and
        report["claimKeys"] = dict(sorted(survey.claim_keys.items()))  # what it touched
        report["claimTraces"] = claim_traces(survey)
    return report


def claim_traces(survey: Survey) -> dict[str, dict[str, Any]]:
    """Per claim: what it touched, its baseline time and the mutated functions it calls."""
    covers = survey.covers()
    return {
        claim: {
            **trace,
            "seconds": round(survey.baseline_seconds.get(claim, 0.0), 6),
            "covers": sorted(covers.get(claim, [])),
        }
        for claim, trace in sorted(survey.claim_traces.items())
    }


def _mutants(report: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(path, m) for path, entry in report["files"].items() for m in entry["mutants"]]


def _witnesses(report: Mapping[str, Any]) -> list[str]:
    ids = [t["id"] for entry in report.get("testFiles", {}).values() for t in entry["tests"]]
    return list(dict.fromkeys(witness_of(i) for i in ids))


def _of(ids: Sequence[str], witness: str) -> bool:
    return any(witness_of(i) == witness for i in ids)


INVALID = frozenset({"Ignored", "NoCoverage", "RuntimeError", "CompileError"})
"""Not scored: equivalent, uncovered, or the process died (Stryker's "invalid")."""


def score(results: Sequence[MutantResult]) -> float:
    """Detected (killed or timed out) per scored mutant, in percent."""
    judged = [r for r in results if r.status not in INVALID]
    detected = [r for r in judged if r.status in DETECTED]
    return 100.0 * len(detected) / len(judged) if judged else 100.0


def _witness_row(mutants: list[dict[str, Any]], witness: str) -> list[object]:
    covered = [m for m in mutants if _of(m.get("coveredBy", []), witness)]
    judged = [m for m in covered if m["status"] not in INVALID]
    killed = [m for m in judged if _of(m.get("killedBy", []), witness)]
    timeouts = [m for m in judged if m["status"] == "Timeout"]
    missed = len(judged) - len(killed) - len(timeouts)
    errors = sum(1 for m in covered if m["status"] == "RuntimeError")
    equivalent = sum(1 for m in covered if m["status"] == "Ignored")
    ratio = f"{100.0 * (len(killed) + len(timeouts)) / len(judged):.1f}%" if judged else "—"
    return [witness, len(covered), len(killed), len(timeouts), missed, errors, equivalent, ratio]


SHOW_SURVIVORS = 20
"""Survivors printed by default; the report keeps every one."""


def summarize_report(report: Mapping[str, Any], show_survivors: int | None = None) -> str:
    """Per witness: covered, killed, timeouts, not killed by it, equivalent, and the share of
    what it covers that it detects; the scores on the minimal mutant set
    (:func:`~plugins.mutate.matrix_scores.summary`); then survivors."""
    mutants = [m for _, m in _mutants(report)]
    rows = [_witness_row(mutants, w) for w in _witnesses(report)]
    headers = [
        "witness",
        "covered",
        "killed",
        "timeout",
        "not killed",
        "crashed",
        "equivalent",
        # Not a second score: the survey has one rate, the strength of the file table below;
        # this is the share of what the witness covers that its own claims detect.
        "killed by it",
    ]
    counts: dict[str, int] = {}
    for m in mutants:
        counts[m["status"]] = counts.get(m["status"], 0) + 1
    total = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    table = FIRST_KILL_NOTE if is_first_kill(report) else fitted(rows, headers, 0)
    lines = [table, "", f"all {len(mutants)} mutants: {total}"]
    survivors = [(p, m) for p, m in _mutants(report) if m["status"] == "Survived"]
    lines += ["", matrix_scores.summary(report), ""]
    show = SHOW_SURVIVORS if show_survivors is None else show_survivors
    lines += [f"survivors (covered, no claim turned red): {len(survivors)}"]
    if show < len(survivors):
        lines[-1] += f", the first {show} shown (--show-survivors N; all are in the report)"
    for path, m in survivors[:show]:
        line = m["location"]["start"]["line"]
        lines += [
            "",
            f"{m['id']}  ({path}:{line}, covered by {len(m.get('coveredBy', []))})",
            m.get("statusReason") or m.get("description", ""),
        ]
    return "\n".join(lines)
