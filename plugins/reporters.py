"""Built-in reporters: ``table``, ``json``, ``markdown`` and ``github`` for ``claims run``.

Every format ends with, or contains, the per-witness summary ``W: P/N PASS|FAIL``. The JSON
document reads back into the same :class:`claims.RunReport` (:func:`run_report_from_json`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from claims import ClaimResult, Outcome, RunReport, Verdict, WitnessReport, hookimpl
from claims.model import known_kinds, resolve_kind
from claims.tables import fitted

FORMATS: dict[str, str] = {
    "table": "a table of claims (evidence cut at 3,000 characters), then one summary line "
    "per witness (default)",
    "json": "witnesses -> claims with id, kind, verdict, reason, evidence, duration_ms",
    "markdown": "an evidence block to paste into a pull request",
    "github": "GitHub Actions ::error annotations for what did not pass, then the summary",
}

TABLE_HEADERS = ("claim", "kind", "verdict", "evidence or reason", "ms")
#: Long evidence (an argv, a unit) wraps in its column instead of widening the table.
DETAIL_WIDTH = 72
DETAIL_LIMIT = 3000
"""The characters of evidence or reason a table cell shows; the rest is counted, and
``--format json`` carries all of it (a 50,000-character evidence wrapped into a terminal
table is read by no one, and wrapping it cost more than the claims it reports)."""


@hookimpl
def claims_register_formats(register: Callable[[str, str], None]) -> None:
    for name, description in FORMATS.items():
        register(name, description)


@hookimpl
def claims_report(report: RunReport, fmt: str, stream: TextIO) -> bool | None:
    if fmt == "table":
        stream.write(render_table(report, colour=wants_colour(stream)))
        return True
    render = RENDERERS.get(fmt)
    if render is None:
        return None
    stream.write(render(report))
    return True


# --- colour -----------------------------------------------------------------------------

GREEN, RED, YELLOW, RESET = "\033[32m", "\033[31m", "\033[33m", "\033[0m"


def wants_colour(stream: TextIO) -> bool:
    """Colour on a terminal; never with ``NO_COLOR`` set (no-color.org), always with
    ``FORCE_COLOR`` set; never for ``TERM=dumb``."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def _paint(text: str, colour: str, on: bool) -> str:
    return f"{colour}{text}{RESET}" if on else text


def _verdict_colour(word: str) -> str:
    return GREEN if word in ("PASS",) else RED if word in ("FAIL", "ERROR") else YELLOW


def _summary_colour(line: str) -> str:
    if line.endswith(" PASS"):
        return GREEN
    return YELLOW if ": unresolved: " in line else RED


# --- table ------------------------------------------------------------------------------


def render_table(report: RunReport, colour: bool = False) -> str:
    """The claims as a tabulate table, a blank line, then the summary lines; with
    ``colour``, verdicts and summary lines in green (pass), red (fail) or yellow."""
    rows = [
        [
            r.id,
            r.kind.value,
            _paint(word := r.outcome.value.upper(), _verdict_colour(word), colour),
            _cut(r.detail),
            r.duration_ms,
        ]
        for r in report.results
    ]
    table = fitted(rows, TABLE_HEADERS, 3, cap=DETAIL_WIDTH, floatfmt=".1f")
    parts = [table] if rows else []
    parts.append(
        "\n".join(_paint(ln, _summary_colour(ln), colour) for ln in report.summary_lines())
    )
    return "\n\n".join(parts) + "\n"


def _cut(detail: str) -> str:
    if len(detail) <= DETAIL_LIMIT:
        return detail
    rest = len(detail) - DETAIL_LIMIT
    return f"{detail[:DETAIL_LIMIT]} … ({rest:,} more characters: --format json shows them)"


# --- json -------------------------------------------------------------------------------


def render_json(report: RunReport) -> str:
    return json.dumps(run_report_to_json(report), indent=2) + "\n"


def run_report_to_json(report: RunReport) -> dict[str, Any]:
    """The JSON document: ``ok`` and witnesses by name, each with its claims in order."""
    return {"ok": report.ok, "witnesses": {w.name: _witness_json(w) for w in report.witnesses}}


def _witness_json(witness: WitnessReport) -> dict[str, Any]:
    return {
        "summary": witness.summary_line,
        "passed": witness.passed_count,
        "selected": len(witness.results),
        "unresolved": witness.unresolved,
        "claims": [_claim_json(r) for r in witness.results],
    }


def _claim_json(result: ClaimResult) -> dict[str, Any]:
    return {
        "id": result.id,
        "kind": result.kind.value,
        "verdict": result.outcome.value,
        "reason": result.verdict.reason,
        "evidence": result.verdict.evidence,
        "duration_ms": result.duration_ms,
        "statement": result.statement,
        "path": result.path,
        "line": result.line,
    }


def run_report_from_json(text: str) -> RunReport:
    """Read a ``--format json`` document back into the report it was written from."""
    doc = json.loads(text)
    return RunReport(
        witnesses=tuple(
            WitnessReport(
                name=name,
                results=tuple(_claim_from_json(name, c) for c in body["claims"]),
                unresolved=body["unresolved"],
            )
            for name, body in doc["witnesses"].items()
        )
    )


def _claim_from_json(witness: str, doc: dict[str, Any]) -> ClaimResult:
    return ClaimResult(
        id=doc["id"],
        witness=witness,
        name=doc["id"].removeprefix(f"{witness}."),
        kind=resolve_kind(doc["kind"]),
        verdict=Verdict(
            outcome=Outcome(doc["verdict"]), reason=doc["reason"], evidence=doc["evidence"]
        ),
        duration_ms=doc["duration_ms"],
        statement=doc["statement"],
        path=doc.get("path"),
        line=doc.get("line"),
    )


# --- markdown ---------------------------------------------------------------------------


def render_markdown(report: RunReport) -> str:
    """Per witness ``**W: P/N PASS**``, then its claims grouped by kind as bullets."""
    return "\n\n".join("\n".join(_markdown_witness(w)) for w in report.witnesses) + "\n"


def _markdown_witness(witness: WitnessReport) -> Iterator[str]:
    yield f"**{witness.summary_line}**"
    for kind in known_kinds():
        results = [r for r in witness.results if r.kind == kind]
        if results:
            passed = sum(1 for r in results if r.passed)
            yield ""
            yield f"_{kind.value}_ ({passed}/{len(results)})"
            yield from (_markdown_bullet(r) for r in results)


def _markdown_bullet(result: ClaimResult) -> str:
    headline = markdown_text(result.headline)
    if result.passed:
        return f"- {headline} — {code_span(result.verdict.evidence)}"
    word = result.outcome.value.upper()
    return f"- **{word}** {headline} — {code_span(result.verdict.reason)}"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def markdown_text(text: str) -> str:
    """``text`` on one line as literal Markdown: every character Markdown (or GitHub's
    HTML sanitizer) would read as markup inside a line is escaped, so a statement such as
    ``rank_0 *serves* <head> | [#12353]`` renders as written."""
    flat = " ".join(text.split())
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", flat)
    return escaped.replace("&", "&amp;").replace("<", "&lt;")


def code_span(text: str) -> str:
    """``text`` on one line as a Markdown code span that its own backticks cannot close."""
    flat = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    if not flat:
        return "(no evidence)"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


# --- github -----------------------------------------------------------------------------


def render_github(report: RunReport) -> str:
    """``::error`` workflow commands for what did not pass, then the summary lines."""
    lines = [line for w in report.witnesses for line in _github_witness(w)]
    return "\n".join([*lines, *report.summary_lines()]) + "\n"


def _github_witness(witness: WitnessReport) -> Iterator[str]:
    if witness.unresolved is not None:
        yield github_error(f"witness {witness.name} unresolved", witness.unresolved)
    for result in witness.results:
        if not result.passed:
            title = f"{result.id} {result.outcome.value.upper()} ({result.kind.value})"
            message = f"{result.headline}\n{result.verdict.reason}"
            yield github_error(title, message, result.path, result.line)


def github_error(title: str, message: str, file: str | None = None, line: int | None = None) -> str:
    """One ``::error file=...,line=...,title=...::message`` line, escaped as GitHub's toolkit
    does; ``file`` and ``line`` attach the annotation to the claim's source in the diff."""
    where = [f"file={escape_property(file)}"] if file else []
    where += [f"line={line}"] if file and line else []
    properties = ",".join([*where, f"title={escape_property(title)}"])
    return f"::error {properties}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """Escape a workflow-command message: ``%``, ``\\r`` and ``\\n``."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property: as data, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


RENDERERS: dict[str, Callable[[RunReport], str]] = {
    "table": render_table,
    "json": render_json,
    "markdown": render_markdown,
    "github": render_github,
}
