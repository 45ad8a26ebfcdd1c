"""Hostile authority logs (``--authority FILE``): one line of the admitted ``supplied`` log made
hostile is exit 2 naming the file, the line and the field (or column, or ``<file>``); the
log is never read last-key-wins, nothing is written, and the plan is never ADMITTED. (That
the clean log, read the same way, admits is dry_run_cli's claim on each arm's default report.)

Records end at ``\\n`` only: a string holding U+2028, U+2029 or U+0085 (all of which
``str.splitlines`` splits at) stays one record; a line holding two records is corrupt.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from fixtures.builders import DATA_ROOT, Ran
from planner.authority import parse_log, read_log
from tests.hostile_support import (
    HOSTILE,
    Corruption,
    corruptions,
    located_error,
    no_crash,
    planner_main,
)
from witnesses.support import tree

SUPPLIED = DATA_ROOT / "scenarios" / "supplied"
TEXT = (SUPPLIED / "authority.jsonl").read_text(encoding="utf-8")
LINES = [json.loads(line) for line in TEXT.splitlines()]
INPUTS = SUPPLIED / "inputs.json"
NOW = "2026-11-29T12:00:00Z"
FREE_TEXT = ("incumbent", "successor", "config_digest")
"""Event fields of plain text (no name rule): a line-breaking character in them is text."""


def _dry_run(log: Path, out: Path) -> Ran:
    return planner_main(
        "dry-run",
        "v41_group_a",
        "--authority",
        log,
        "--inputs",
        INPUTS,
        "--now",
        NOW,
        "--out",
        out,
    )


def _where(number: int, corruption: Corruption) -> str | re.Pattern[str]:
    line = f"line {number}"
    if corruption.family == "binary":
        return "<file>"
    if corruption.family == "cut":
        return line
    if corruption.family == "deep":
        return re.compile(rf"{line}, column \d+: ")
    if corruption.family == "retype":
        key = corruption.path[-1] if corruption.path else "<root>"
        if key == "event":
            return f"{line}, field event"
        return re.compile(rf"{line}, field (\w+\.)?{re.escape(str(key))}: ")
    return f"{line}, field {corruption.dotted()}"


_ONE_LINE = st.integers(min_value=0, max_value=len(LINES) - 1).flatmap(
    lambda index: st.tuples(st.just(index), corruptions(LINES[index]))
)


@HOSTILE
@given(hostile=_ONE_LINE)
def test_a_hostile_line_is_a_located_error_and_never_admits(
    hostile: tuple[int, Corruption],
) -> None:
    index, corruption = hostile
    assume(corruption.data.strip())  # a line cut to nothing is a blank line, not a corruption
    lines = [json.dumps(e).encode() for e in LINES]
    lines[index] = corruption.data
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "authority.jsonl"
        log.write_bytes(b"\n".join(lines) + b"\n")
        out_dir = Path(tmp) / "out"
        out_dir.mkdir()
        ran = _dry_run(log, out_dir / "report.txt")
        message = located_error(ran, "planner", str(log), _where(index + 1, corruption))
        assert corruption.says in message
        assert tree(out_dir) == []


_BREAKS = st.sampled_from(["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])


@HOSTILE
@given(
    index=st.integers(min_value=0, max_value=len(LINES) - 1),
    mark=_BREAKS,
    joiner=st.sampled_from([" ", "\t", "\r", "\u2028", "\x85", ""]),
    two=st.booleans(),
    data=st.data(),
)
def test_only_newline_ends_a_record(
    index: int, mark: str, joiner: str, two: bool, data: st.DataObject
) -> None:
    """A line-breaking character inside a string keeps its record whole (a JSON-invalid
    control character makes the line corrupt); two records on one line are corrupt."""
    event = LINES[index]
    lines = [json.dumps(e, ensure_ascii=False) for e in LINES]
    if two:
        other = LINES[(index + 1) % len(LINES)]
        lines[index] = lines[index] + joiner + json.dumps(other)
    else:
        key = data.draw(st.sampled_from(sorted(k for k in event if isinstance(event[k], str))))
        value = event[key]
        cut = data.draw(st.integers(min_value=0, max_value=len(value)))
        # spliced raw: json.dumps would escape a control character
        lines[index] = json.dumps({**event, key: value[:cut] + "\0" + value[cut:]}).replace(
            "\\u0000", mark
        )
    text = "\n".join(lines) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "authority.jsonl"
        log.write_text(text, encoding="utf-8")
        out_dir = Path(tmp) / "out"
        out_dir.mkdir()
        ran = _dry_run(log, out_dir / "report.txt")
        no_crash(ran)
        line = f"line {index + 1}"
        if two or mark < " ":
            message = located_error(ran, "planner", str(log), line)
            assert message.startswith("not a JSON object: ")
            assert tree(out_dir) == []
            return
        if key in FREE_TEXT:
            # one record per line, the text kept whole
            events = read_log(log)
            assert len(events) == len(LINES) == len(parse_log(text, "log"))
            assert mark in str(getattr(events[index], key))
            assert ran.code in (0, 1)
            return
        message = located_error(
            ran, "planner", str(log), re.compile(rf"{line}, field (\w+\.)?{key}: ")
        )
        assert "not a safe name" in message or "datetime" in message or "event" in message
