"""A self-contained HTML page of a mutation report (Stryker's mutation-testing-report-schema).

``claims mutate ... --html FILE`` writes it beside the JSON report; ``python -m
plugins.mutate.html_report REPORT.json -o FILE`` renders any report (a merged CI artifact, say).
The page is one file with its style inline and no script, link or font from anywhere: it
opens offline, from a CI artifact or a mail attachment. It shows

- the totals and, per source file, its mutants by status and its strength (killed ÷ (killed +
  survived); timeouts count as killed; equivalent, crashed and uncovered mutants are left
  out of the ratio, as the floors count them — mutation/floors.toml);
- each file's source with every mutant marked on its line (the worst status colours the
  line) and, folded under it, each mutant's change, status, reason (a survivor's diff) and
  the claims that covered and killed it;
- the kill matrix per claim: the mutants each claim covers and kills, and those only it
  kills (the mutants that would survive without it);
- beside each file's and each witness's strength, the scores on the minimal mutant set
  (:mod:`plugins.mutate.matrix_scores`): dominator strength, distinguished mutants, claims
  with no unique kill, computed from the matrix, never read from the report;
- a jump list, and the survivors alone (each with its diff, linked to its line).

Why a renderer of our own rather than Stryker's ``mutation-testing-elements`` bundle (which
renders this schema too): the page must be written by an installed wheel with no network
and no JavaScript bundle vendored into the tree; this one is a few hundred lines of Python
with no dependency, and the JSON stays loadable in Stryker's elements for anyone who wants
their richer viewer.
"""

from __future__ import annotations

import argparse
import html
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from claims import ClaimsError, UsageError
from claims.exits import Exit
from claims.files import shown, write_atomically
from plugins.mutate.matrix_scores import (
    NO_MATRIX,
    MatrixScore,
    has_matrix,
    minimal_ids,
    report_scores,
)
from plugins.mutate.stryker import FIRST_KILL_NOTE, Report, is_first_kill, read_report

STATUS_ORDER = (
    "Survived",
    "NoCoverage",
    "Timeout",
    "RuntimeError",
    "CompileError",
    "Ignored",
    "Pending",
    "Killed",
)
"""Worst first: a line's colour is its worst mutant's status."""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccd}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 8px;border:1px solid #dde;
text-align:right}td:first-child,th:first-child{text-align:left}
.src{border:1px solid #dde;font:12px/1.35 ui-monospace,monospace;white-space:pre;
overflow-x:auto}.ln{display:inline-block;width:4em;color:#889;text-align:right;
padding-right:1em;user-select:none}.line{display:block;border-left:4px solid transparent}
.Survived{background:#fde2e1;border-left-color:#d1242f}.NoCoverage{background:#fff1d6;
border-left-color:#bf8700}.Killed,.Timeout{background:#e6f6ea;border-left-color:#1a7f37}
.Ignored,.RuntimeError,.CompileError,.Pending{background:#eef0f3;border-left-color:#8c959f}
details.m{margin:0 0 2px 5em;white-space:normal;font:12px/1.35 system-ui,sans-serif}
details.m pre{background:#f6f8fa;padding:4px;white-space:pre-wrap}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:11px;color:#fff}
.b-Survived{background:#d1242f}.b-NoCoverage{background:#bf8700}.b-Killed,.b-Timeout{
background:#1a7f37}.b-Ignored,.b-RuntimeError,.b-CompileError,.b-Pending{background:#8c959f}
.low{color:#d1242f;font-weight:bold}.high{color:#1a7f37;font-weight:bold}
nav a{margin-right:1em}.min{font-size:11px;color:#57606a}
"""


def _mutants(report: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(path, m) for path, entry in report["files"].items() for m in entry["mutants"]]


def _counts(mutants: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(STATUS_ORDER, 0)
    for m in mutants:
        counts[str(m["status"])] = counts.get(str(m["status"]), 0) + 1
    return counts


def strength(counts: Mapping[str, int]) -> float | None:
    """Killed ÷ (killed + survived) in percent, timeouts as killed; None with nothing judged."""
    killed = counts.get("Killed", 0) + counts.get("Timeout", 0)
    judged = killed + counts.get("Survived", 0)
    return 100.0 * killed / judged if judged else None


def _ratio(value: float | None, thresholds: Mapping[str, Any]) -> str:
    if value is None:
        return "—"
    css = (
        "high"
        if value >= thresholds.get("high", 80)
        else "low"
        if value < thresholds.get("low", 60)
        else ""
    )
    return f'<span class="{css}">{value:.1f}%</span>'


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _setting(value: object) -> str:
    """A config value as a reader writes it: a list of witnesses comma-separated, not a repr."""
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return str(value)


def _anchor(path: str) -> str:
    return "f-" + "".join(c if c.isalnum() else "-" for c in path)


def render_html(report: Mapping[str, Any], title: str = "Mutation report") -> str:
    """The whole page for ``report``."""
    thresholds = dict(report.get("thresholds") or {})
    everything = [m for _, m in _mutants(report)]
    total = _counts(everything)
    framework = dict(report.get("framework") or {}).get("name", "")
    config = dict(report.get("config") or {})
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        _jump_list(report),
        f"<p>{_e(framework)}; {len(everything)} mutants in {len(report['files'])} files; "
        f"strength {_ratio(strength(total), thresholds)}"
        + "".join(
            f"; {_e(k)} {_e(_setting(v))}" for k, v in config.items() if k in ("shard", "scope")
        )
        + "</p>",
        f"<p>{_e(FIRST_KILL_NOTE)}</p>" if is_first_kill(report) else "",
        _files_table(report, thresholds),
        _witnesses_table(report, thresholds),
        _claims_table(report),
        _survivors(report),
    ]
    matrix = has_matrix(report)
    parts += [_file_section(path, entry, matrix) for path, entry in report["files"].items()]
    parts.append("</body></html>\n")
    return "\n".join(parts)


MATRIX_HEADS = ["dominator strength", "distinguished", "no unique kill"]


def _matrix_cells(s: MatrixScore | None, thresholds: Mapping[str, Any]) -> list[str]:
    if s is None:  # a report without a kill matrix
        return ["—", "—", "—"]
    idle = _e(", ".join(s.idle))
    count = f"{len(s.idle)}/{s.claims}"
    listed = f"<details><summary>{count}</summary>{idle}</details>" if s.idle else count
    return [_ratio(s.dominator_strength, thresholds), str(s.distinguished), listed]


def _files_table(report: Mapping[str, Any], thresholds: Mapping[str, Any]) -> str:
    heads = ["file", "mutants", *STATUS_ORDER, "strength", *MATRIX_HEADS]
    matrix = {s.scope: s for s in report_scores(report).files} if has_matrix(report) else {}
    rows = []
    for path, entry in report["files"].items():
        counts = _counts(entry["mutants"])
        cells = [f'<a href="#{_anchor(path)}">{_e(path)}</a>', str(len(entry["mutants"]))]
        cells += [str(counts[s]) for s in STATUS_ORDER]
        cells.append(_ratio(strength(counts), thresholds))
        cells += _matrix_cells(matrix.get(path), thresholds)
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{_e(h)}</th>" for h in heads)
    return f'<h2 id="files">Files</h2><table><tr>{head}</tr>{"".join(rows)}</table>'


def _witnesses_table(report: Mapping[str, Any], thresholds: Mapping[str, Any]) -> str:
    """Per witness, on the mutants its claims cover, counting only its own claims' kills."""
    if not has_matrix(report):
        return f'<h2 id="witnesses">Witnesses</h2><p>{_e(NO_MATRIX)}</p>'
    heads = ["witness", "judged", "killed", "survived", "strength", *MATRIX_HEADS]
    rows = []
    for s in report_scores(report).witnesses:
        judged = s.killed + s.unplaced + s.survived
        cells = [_e(s.scope), str(judged), str(s.killed + s.unplaced), str(s.survived)]
        cells += [_ratio(s.strength, thresholds), *_matrix_cells(s, thresholds)]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{_e(h)}</th>" for h in heads)
    return (
        '<h2 id="witnesses">Witnesses</h2><p>Each on the mutants its claims cover, killed by '
        "its own claims. Dominator strength: killed dominators ÷ (killed dominators + "
        "survivors), one killed mutant per killing set no other is a strict subset of.</p>"
        f"<table><tr>{head}</tr>{''.join(rows)}</table>"
    )


def _jump_list(report: Mapping[str, Any]) -> str:
    survived = sum(1 for _, m in _mutants(report) if m["status"] == "Survived")
    links = [("files", "Files"), ("witnesses", "Witnesses"), ("claims", "Kill matrix")]
    links.append(("survivors", f"Survivors ({survived})"))
    links += [(_anchor(path), path) for path in report["files"]]
    return "<nav>" + "".join(f'<a href="#{_e(a)}">{_e(t)}</a>' for a, t in links) + "</nav>"


def _survivors(report: Mapping[str, Any]) -> str:
    """Only the survivors, each linked to its line, with its diff and the claims covering it."""
    items = []
    for path, m in _mutants(report):
        if m["status"] != "Survived":
            continue
        line = int(m["location"]["start"]["line"])
        where = f'<a href="#{_anchor(path)}-{line}">{_e(path)}:{line}</a>'
        reason = m.get("statusReason") or m.get("description") or m.get("replacement", "")
        covered = ", ".join(m.get("coveredBy", ())) or "no claim"
        items.append(
            f"<li>{where} {_e(m['id'])} ({_e(m.get('mutatorName', ''))})"
            f"<pre>{_e(reason)}</pre><p>covered by: {_e(covered)}</p></li>"
        )
    body = f"<ol>{''.join(items)}</ol>" if items else "<p>none</p>"
    return f'<h2 id="survivors">Survivors only</h2>{body}'


def kill_matrix(report: Mapping[str, Any]) -> list[tuple[str, int, int, list[str]]]:
    """Per claim: (id, mutants it covers, mutants it kills, mutants only it kills)."""
    claims: dict[str, list[int]] = {}
    killers: dict[str, list[str]] = {}
    for entry in report.get("testFiles", {}).values():
        for test in entry["tests"]:
            claims.setdefault(str(test["id"]), [0, 0])
    for _, m in _mutants(report):
        for claim_id in m.get("coveredBy", ()):
            claims.setdefault(claim_id, [0, 0])[0] += 1
        for claim_id in m.get("killedBy", ()):
            claims.setdefault(claim_id, [0, 0])[1] += 1
        killed = list(m.get("killedBy", ()))
        if len(killed) == 1:
            killers.setdefault(killed[0], []).append(str(m["id"]))
    return [(c, cov, kill, killers.get(c, [])) for c, (cov, kill) in claims.items()]


def _claims_table(report: Mapping[str, Any]) -> str:
    if is_first_kill(report):
        return f'<h2 id="claims">Kill matrix per claim</h2><p>{_e(FIRST_KILL_NOTE)}</p>'
    rows = []
    for claim_id, covered, killed, only in kill_matrix(report):
        alone = (
            f"<details><summary>{len(only)}</summary>{_e(', '.join(only))}</details>"
            if (only)
            else "0"
        )
        rows.append(
            f"<tr><td>{_e(claim_id)}</td><td>{covered}</td><td>{killed}</td><td>{alone}</td></tr>"
        )
    return (
        '<h2 id="claims">Kill matrix per claim</h2><table><tr><th>claim</th><th>covers</th>'
        f"<th>kills</th><th>only it kills</th></tr>{''.join(rows)}</table>"
    )


def _worst(statuses: Sequence[str]) -> str:
    return min(statuses, key=lambda s: STATUS_ORDER.index(s) if s in STATUS_ORDER else 99)


def _file_section(path: str, entry: Mapping[str, Any], matrix: bool = True) -> str:
    by_line: dict[int, list[dict[str, Any]]] = {}
    for m in entry["mutants"]:
        by_line.setdefault(int(m["location"]["start"]["line"]), []).append(m)
    minimal = minimal_ids(entry["mutants"]) if matrix else frozenset()
    out = [f'<h2 id="{_anchor(path)}">{_e(path)}</h2><div class="src">']
    for number, text in enumerate(str(entry["source"]).splitlines(), start=1):
        here = by_line.get(number, [])
        css = f" {_worst([str(m['status']) for m in here])}" if here else ""
        out.append(
            f'<span class="line{css}" id="{_anchor(path)}-{number}"><span class="ln">{number}'
            f"</span>{_e(text)}</span>"
        )
        out.extend(_mutant_details(m, str(m["id"]) in minimal) for m in here)
    out.append("</div>")
    return "".join(out)


def _mutant_details(m: Mapping[str, Any], minimal: bool = False) -> str:
    status = str(m["status"])
    mark = ' <span class="min">minimal</span>' if minimal and status == "Killed" else ""
    summary = (
        f'<span class="badge b-{_e(status)}">{_e(status)}</span> {_e(m["id"])} '
        f"({_e(m.get('mutatorName', ''))}): {_e(m.get('description') or m.get('replacement', ''))}"
        + mark
    )
    body = []
    if m.get("statusReason"):
        body.append(f"<pre>{_e(m['statusReason'])}</pre>")
    body.append(f"<p>killed by: {_e(', '.join(m.get('killedBy', ())) or 'no claim')}</p>")
    body.append(f"<p>covered by: {_e(', '.join(m.get('coveredBy', ())) or 'no claim')}</p>")
    return f'<details class="m"><summary>{summary}</summary>{"".join(body)}</details>'


def write_html(report: Mapping[str, Any], target: Path, title: str = "Mutation report") -> None:
    """Write the page atomically."""
    try:
        write_atomically(target, render_html(report, title).encode("utf-8"))
    except OSError as error:
        raise UsageError(
            f"cannot write the HTML report to {shown(target)}: {shown(error)}"
        ) from error


def html_from_file(report_path: Path, target: Path) -> None:
    report: Report = read_report(report_path)
    write_html(report, target, f"Mutation report: {report_path.name}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m plugins.mutate.html_report",
        description="Render a mutation-testing-report JSON as a self-contained HTML page.",
    )
    parser.add_argument("report", type=Path, metavar="REPORT.json")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE")
    args = parser.parse_args(argv)
    try:
        html_from_file(args.report, args.output)
    except ClaimsError as error:
        print(f"plugins.mutate.html_report: error: {error}", file=sys.stderr)
        return error.exit_code
    print(f"wrote {args.output}")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
