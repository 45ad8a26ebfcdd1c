"""The mutation surveys' per-file scores as a Markdown page, with the run's date and commit.

``make mutation`` runs the generated and the value survey, then this, so the score table in
the docs is written from the reports of one run (never composed by hand)::

    python tools/score_page.py --page docs/mutation-score.md --floors mutation/floors.toml \\
        target/mutation-report.json target/mutation-values.json

Each report gets its section: the file it was read from, its per-file table (killed,
survived, no coverage, equivalent, crashed, strength, and the floor of ``--floors`` for its
survey), the same figures :mod:`plugins.mutate.floors` prints and holds; then per witness and
per file the scores on the minimal mutant set (:mod:`plugins.mutate.matrix_scores`). A report
that cannot be read stops the page (exit 2, naming it) and nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabulate import tabulate  # noqa: E402

from claims import UsageError  # noqa: E402
from claims.files import FileProblem, read_json, shown, write_atomically  # noqa: E402
from plugins.mutate.floors import Floor, load_floors, score_table, scores  # noqa: E402
from plugins.mutate.matrix_scores import scores_tables  # noqa: E402
from tools.provenance import provenance  # noqa: E402

SURVEYS = {"mutation-values": "values"}
"""A report's survey, for its floors, by its file name (any other report is ``generated``)."""


def survey_of(report: Path) -> str:
    return next((s for stem, s in SURVEYS.items() if report.stem.startswith(stem)), "generated")


def covers(config: dict[str, object]) -> str:
    """What part of its survey a report speaks for, from its ``config``: the whole, or which
    part (a shard, ``--since``, ``--file``, an early stop)."""
    shard, since, files, stopped = (config.get(k) for k in ("shard", "since", "files", "stopped"))
    parts = [f"shard {shown(shard)}" if isinstance(shard, str) and shard != "1/1" else ""]
    parts += [f"functions changed since {shown(since)}" if isinstance(since, str) else ""]
    if isinstance(files, list) and files:
        parts.append("only " + ", ".join(shown(f) for f in files))
    parts += [f"stopped early ({shown(stopped)})" if isinstance(stopped, str) and stopped else ""]
    part = "; ".join(p for p in parts if p)
    return f"Part of the survey: {part}." if part else "The whole survey."


def section(report: Path, body: dict[str, object], floors: dict[str, Floor] | None) -> list[str]:
    found = body.get("config")
    config = found if isinstance(found, dict) else {}
    deletion = config.get("statementDeletion")
    said = {
        True: ", with statement deletion",
        False: ", without statement deletion (`--no-deletion`)",
    }
    return [
        f"## The {survey_of(report)} survey (`{report.as_posix()}`)",
        "",
        covers(config).removesuffix(".")
        + (said[deletion] if isinstance(deletion, bool) else "")
        + ".",
        "",
        *judged_in_part(body, config),
        score_table(scores(body), floors, tablefmt="github"),
        "",
        "On the minimal mutant set (per witness, then per file):",
        "",
        scores_tables(body, tablefmt="github"),
        "",
        *time_table(body),
    ]


def judged_in_part(body: dict[str, object], config: dict[str, object]) -> list[str]:
    """For a survey that stopped early (its ``config.chosen``: how many mutants of each file
    it was asked to judge), which files' rows speak for every mutant of the file and which
    for some; nothing for any other report."""
    chosen, found = config.get("chosen"), body.get("files")
    if not isinstance(chosen, dict) or not isinstance(found, dict):
        return []
    whole, part, none = [], [], []
    for path, asked in sorted(chosen.items()):
        entry = found.get(path)
        mutants = entry.get("mutants") if isinstance(entry, dict) else None
        judged = len(mutants) if isinstance(mutants, list) else 0
        if not isinstance(asked, int) or judged >= asked:
            whole.append(shown(path))
        elif judged:
            part.append(f"{shown(path)} ({judged:,} of {asked:,})")
        else:
            none.append(shown(path))
    said = [("Judged whole", whole), ("Judged in part", part), ("Not reached", none)]
    return [f"{what} ({len(paths)}): {', '.join(paths)}." for what, paths in said if paths] + [""]


def time_table(body: dict[str, object]) -> list[str]:
    """Where the survey's time went, per file, most first: each mutant's ``duration`` (the
    milliseconds its worker spent on it: its covering claims and its replays) summed. The
    workers run side by side, so the sum is worker time, not wall time; baseline, restarts
    and audit are not in it. Nothing for a report whose mutants carry no duration."""
    found = body.get("files")
    rows = []
    for path, entry in sorted(found.items()) if isinstance(found, dict) else ():
        mutants = entry.get("mutants") if isinstance(entry, dict) else None
        spent = [m.get("duration") for m in mutants or () if isinstance(m, dict)]
        seconds = sum(d for d in spent if isinstance(d, int | float) and d >= 0) / 1000
        if seconds > 0:
            rows.append((shown(path), len(spent), seconds))
    if not rows:
        return []
    total = sum(r[2] for r in rows)
    table = [
        [path, n, f"{seconds:,.0f}", f"{seconds / n:.2f}", f"{100 * seconds / total:.1f}%"]
        for path, n, seconds in sorted(rows, key=lambda r: (-r[2], r[0]))
    ]
    table.append(["all", sum(r[1] for r in rows), f"{total:,.0f}", "", "100.0%"])
    headers = ["file", "mutants", "worker seconds", "per mutant", "share"]
    return [
        "Where the time went (worker seconds spent on each file's mutants, most first):",
        "",
        tabulate(table, headers, tablefmt="github", disable_numparse=True),
        "",
    ]


def page(reports: Sequence[tuple[Path, dict[str, object]]], floors_file: Path | None) -> str:
    origin = provenance(ROOT, ("docs/mutation-score.md",))
    lines = [
        "# Mutation scores, as last measured",
        "",
        "Written by `make mutation` (`tools/score_page.py`) from the reports of one run; do not",
        f"edit by hand. Run {origin['date']} on commit `{origin['commit']}`, {origin['cpus']}"
        f" cores, Python {origin['python']}. Strength is killed ÷ (killed + survived); dominator",
        "strength counts one killed mutant per class of equal killing sets and every survivor;",
        "see [mutation.md](mutation.md#scores-a-reviewer-can-trust).",
        "",
    ]
    for report, body in reports:
        floors = load_floors(floors_file, survey_of(report)) if floors_file else None
        lines += section(report, body, floors)
    return "\n".join(lines)


def _report(path: Path) -> dict[str, object]:
    try:
        body = read_json(path)
    except FileProblem as error:
        raise UsageError(f"{shown(path)}: {error}") from error
    if not isinstance(body, dict) or not isinstance(body.get("files"), dict):
        raise UsageError(f"{shown(path)}: not a mutation report (no files)")
    return body


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("reports", nargs="+", type=Path, help="Stryker JSON reports")
    parser.add_argument("--page", type=Path, required=True, help="the Markdown page to write")
    parser.add_argument("--floors", type=Path, help="floors to show beside each file")
    args = parser.parse_args(argv)
    try:
        text = page([(r, _report(r)) for r in args.reports], args.floors)
    except UsageError as error:  # every input is read before the page is written
        print(f"score_page: {error}", file=sys.stderr)
        return 2
    write_atomically(args.page, text.encode("utf-8"))
    print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
