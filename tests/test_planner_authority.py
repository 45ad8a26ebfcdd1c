"""planner.authority: malformed lines no claim writes, and the plain-line fast path.

The fold at a time, leases, instants, blank lines, the other corrupt and unreadable logs,
and admission's four conjuncts (planner.admission) are witnesses/rules/authority_admission.py's
and witnesses/arms/v41_group_a_launch.py's claims.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from planner.authority import AuthorityEvent, log_events, read_log
from planner.refusal import PlannerInputError
from planner.values import strict_json

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def event(seq: int, minutes: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"seq": seq, "at": at(minutes), "event": kind, **fields}


def write_log(path: Path, events: list[dict[str, Any]] | list[str]) -> Path:
    lines = [e if isinstance(e, str) else json.dumps(e) for e in events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- malformed lines: file, line and field, and never a partial state ---------------------

GOOD_1 = json.dumps(event(1, 0, "group_active", group="group_a", incumbent="v4"))
GOOD_2 = json.dumps(event(2, 5, "host_held", host="srv5", subject="s"))


@pytest.mark.parametrize(
    ("bad_line", "field"),
    [
        (json.dumps({"seq": 3, "at": "yesterday", "event": "host_released", "host": "x"}), "at"),
        (json.dumps({"seq": 1, "at": at(9), "event": "host_released", "host": "x"}), "seq"),
        (json.dumps({"seq": 0, "at": at(9), "event": "host_released", "host": "x"}), "seq"),
        (json.dumps({"seq": 3, "at": at(9), "event": "host_released", "host": "x;rm"}), "host"),
        (json.dumps({"seq": 3, "at": at(9), "event": "host_released", "host": "x", "z": 1}), "z"),
    ],
    ids=["bad-timestamp", "seq-backwards", "seq-zero", "unsafe-host", "unknown-field"],
)
def test_a_corrupt_third_line_raises_naming_file_line_and_field(
    tmp_path: Path, bad_line: str, field: str
) -> None:
    path = write_log(tmp_path / "authority.jsonl", [GOOD_1, GOOD_2, bad_line])
    with pytest.raises(PlannerInputError) as info:
        read_log(path)
    err = info.value
    assert err.source == str(path)
    assert err.where.startswith("line 3, field ")
    named = err.where.removeprefix("line 3, field ")
    assert named.split(".")[-1] == field
    assert str(path) in str(err) and "line 3" in str(err)


# --- one parse for the plain line: the same reading as strict JSON, then validation --------

_KEYS = ("seq", "at", "event", "host", "subject", "group", "incumbent", "successor")
_VALUES = st.one_of(
    st.integers(min_value=-3, max_value=2**64),
    st.sampled_from(["host_held", "host_released", "group_active", at(0), "srv5", "g-a"]),
    st.text(alphabet='a"\\:é\u2028 \t', max_size=6),
    st.none(),
    st.floats(allow_nan=True),
)


def _written(pairs: list[tuple[str, object]], space: str) -> str:
    return "{" + f",{space}".join(f"{json.dumps(k)}:{space}{json.dumps(v)}" for k, v in pairs) + "}"


@settings(max_examples=400, deadline=None)
@given(
    kind=st.sampled_from(["host_held", "host_released", "group_active"]),
    extra=st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=3),
    space=st.sampled_from(["", " ", "\t"]),
    escaped=st.sampled_from(["", "\\u0035", "\\ud83d\\ude00", "\\udc00", "\\ud800\\u0041", '\\"']),
    seq=st.one_of(st.integers(min_value=-1, max_value=9), st.sampled_from([2**63 - 1, 2**63])),
)
def test_a_line_reads_as_strict_json_then_validation_would_read_it(
    kind: str, extra: list[tuple[str, object]], space: str, escaped: str, seq: int
) -> None:
    """:func:`planner.authority.log_events` skips the second, strict parse of a line it can
    prove plain (no backslash, each field named once, seq in range); whatever the line, it
    accepts exactly the lines ``strict_json`` then pydantic's strict validation accept, and
    reads the same event from them. Keys given twice, escapes (surrogate pairs, lone
    surrogates, quotes) and huge integers included."""
    base = {"host_held": dict(host="srv5", subject="g-a"), "host_released": dict(host="srv5")}
    fields = base.get(kind, dict(group="group_a", incumbent="v4"))
    pairs: list[tuple[str, object]] = [("seq", seq), ("at", at(1)), ("event", kind)]
    pairs += list(fields.items()) + extra
    line = _written(pairs, space)
    line = line.replace("srv5", f"srv{escaped}")  # an escape: plain, a pair, lone, a quote
    try:
        strict_json(line)
        expected: object = TypeAdapter(AuthorityEvent).validate_json(line, strict=True)
    except ValueError:  # JSONDecodeError, JsonProblem and ValidationError all are
        expected = PlannerInputError
    read: object
    try:
        (read,) = log_events([line], "log")
    except PlannerInputError:
        read = PlannerInputError
    assert read == expected, line
