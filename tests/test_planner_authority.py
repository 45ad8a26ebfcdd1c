"""planner.authority: the append-only log, read at a time, and its malformed lines."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from planner import data
from planner.authority import (
    Active,
    AuthorityEvent,
    AuthorityState,
    GroupActive,
    SuspendedForAuthorizedSuccessor,
    fold,
    log_events,
    parse_log,
    read_log,
)
from planner.refusal import PlannerInputError
from planner.scenarios import load_scenario
from planner.values import strict_json

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
CANDIDATE = (
    "v41_group_a:deepseek-ai/DeepSeek-V4.1-Flash@dba1be0a:gunbc-deepseek-v41-engram-produced"
)
DIGEST = "sha256:" + "a" * 64


def at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def event(seq: int, minutes: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"seq": seq, "at": at(minutes), "event": kind, **fields}


def write_log(path: Path, events: list[dict[str, Any]] | list[str]) -> Path:
    lines = [e if isinstance(e, str) else json.dumps(e) for e in events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def base_events() -> list[dict[str, Any]]:
    return [
        event(1, 0, "group_active", group="group_a", incumbent="v4"),
        event(2, 0, "host_held", host="srv5", subject="group-a-serving"),
        event(3, 10, "image_admitted", runtime_key="rk", config_digest=DIGEST),
        event(
            4, 20, "group_suspended", group="group_a", successor=CANDIDATE, lease_expires_at=at(120)
        ),
        event(5, 30, "host_released", host="srv5"),
        event(6, 40, "host_held", host="srv5", subject="other"),
    ]


# --- folding at a time --------------------------------------------------------------------


def test_fold_reads_a_real_log_file(tmp_path: Path) -> None:
    events = read_log(write_log(tmp_path / "a.jsonl", base_events()))
    state = fold(events, T0 + timedelta(minutes=25))
    assert state.read_at == T0 + timedelta(minutes=25)
    group = state.group("group_a")
    assert isinstance(group, SuspendedForAuthorizedSuccessor)
    assert group.candidate == CANDIDATE
    assert group.lease_expires_at == T0 + timedelta(minutes=120)
    assert state.images_for("rk") == (DIGEST,)
    assert state.runtime_keys_admitting(DIGEST) == ("rk",)
    assert dict(state.holdings).get("srv5") == "group-a-serving"


@pytest.mark.parametrize(
    ("minutes", "group_kind", "holder"),
    [
        (-1, None, None),
        (0, Active, "group-a-serving"),
        (19, Active, "group-a-serving"),
        (20, SuspendedForAuthorizedSuccessor, "group-a-serving"),
        (30, SuspendedForAuthorizedSuccessor, None),
        (40, SuspendedForAuthorizedSuccessor, "other"),
    ],
)
def test_events_after_now_are_ignored(
    tmp_path: Path, minutes: int, group_kind: type | None, holder: str | None
) -> None:
    events = read_log(write_log(tmp_path / "a.jsonl", base_events()))
    state = fold(events, T0 + timedelta(minutes=minutes))
    group = state.group("group_a")
    assert (type(group) if group is not None else None) is group_kind
    assert dict(state.holdings).get("srv5") == holder
    assert state.images_for("rk") == ((DIGEST,) if minutes >= 10 else ())


def test_fold_of_nothing_is_empty() -> None:
    state = fold((), T0)
    assert state == AuthorityState(read_at=T0)
    assert state.group("group_a") is None
    assert dict(state.holdings).get("srv5") is None
    assert state.images_for("rk") == ()


def test_active_after_suspension_returns_to_active(tmp_path: Path) -> None:
    events = [*base_events(), event(7, 50, "group_active", group="group_a", incumbent="v41")]
    state = fold(read_log(write_log(tmp_path / "a.jsonl", events)), T0 + timedelta(hours=1))
    assert state.group("group_a") == Active(incumbent="v41")


def test_an_image_admitted_twice_is_listed_once(tmp_path: Path) -> None:
    events = [
        *base_events(),
        event(7, 50, "image_admitted", runtime_key="rk", config_digest=DIGEST),
        event(8, 50, "image_admitted", runtime_key="other", config_digest=DIGEST),
    ]
    state = fold(read_log(write_log(tmp_path / "a.jsonl", events)), T0 + timedelta(hours=1))
    assert state.images_for("rk") == (DIGEST,)
    assert state.runtime_keys_admitting(DIGEST) == ("rk", "other")


def test_lease_live_and_expired() -> None:
    suspended = SuspendedForAuthorizedSuccessor(
        candidate=CANDIDATE, lease_expires_at=T0 + timedelta(hours=1)
    )
    assert suspended.lease_live(T0)
    assert suspended.lease_live(T0 + timedelta(minutes=59, seconds=59))
    assert not suspended.lease_live(T0 + timedelta(hours=1))
    assert not suspended.lease_live(T0 + timedelta(hours=2))


def test_the_lease_is_observed_at_read_time_in_the_fixtures() -> None:
    root = data.default_data_root()
    for name, live in (("supplied", True), ("expired_lease", False)):
        scenario = load_scenario(root, name)
        state = fold(read_log(scenario.authority), scenario.now)
        group = state.group("group_a")
        assert isinstance(group, SuspendedForAuthorizedSuccessor)
        assert group.lease_live(state.read_at) is live


def test_blank_lines_are_skipped() -> None:
    text = "\n" + json.dumps(base_events()[0]) + "\n\n   \n" + json.dumps(base_events()[1]) + "\n"
    assert len(parse_log(text, "x")) == 2


def test_events_are_typed() -> None:
    (first,) = parse_log(json.dumps(base_events()[0]), "x")
    assert isinstance(first, GroupActive)
    assert first.at == T0


def test_time_zones_are_compared_as_instants(tmp_path: Path) -> None:
    shifted = base_events()[:2]
    shifted[1]["at"] = "2026-11-29T11:00:00+01:00"
    events = read_log(write_log(tmp_path / "a.jsonl", shifted))
    assert dict(fold(events, T0).holdings).get("srv5") == "group-a-serving"


# --- malformed lines: file, line and field, and never a partial state ---------------------

GOOD_1 = json.dumps(event(1, 0, "group_active", group="group_a", incumbent="v4"))
GOOD_2 = json.dumps(event(2, 5, "host_held", host="srv5", subject="s"))


@pytest.mark.parametrize(
    ("bad_line", "field"),
    [
        (json.dumps({"seq": 3, "at": at(9), "event": "host_held", "host": "srv6"}), "subject"),
        (json.dumps({"seq": 3, "at": at(9), "event": "host_exploded", "host": "x"}), "event"),
        (json.dumps({"seq": 3, "at": at(9), "host": "srv6", "subject": "s"}), "event"),
        (json.dumps({"seq": 3, "at": "yesterday", "event": "host_released", "host": "x"}), "at"),
        (
            json.dumps(
                {"seq": 3, "at": "2026-11-29T10:09:00", "event": "host_released", "host": "x"}
            ),
            "at",
        ),
        (json.dumps({"seq": 2, "at": at(9), "event": "host_released", "host": "x"}), "seq"),
        (json.dumps({"seq": 1, "at": at(9), "event": "host_released", "host": "x"}), "seq"),
        (json.dumps({"seq": 3, "at": at(4), "event": "host_released", "host": "x"}), "at"),
        (json.dumps({"seq": 0, "at": at(9), "event": "host_released", "host": "x"}), "seq"),
        (json.dumps({"seq": 3, "at": at(9), "event": "host_released", "host": "x;rm"}), "host"),
        (json.dumps({"seq": 3, "at": at(9), "event": "host_released", "host": "x", "z": 1}), "z"),
    ],
    ids=[
        "missing-field",
        "bad-kind",
        "no-kind",
        "bad-timestamp",
        "naive-timestamp",
        "seq-repeated",
        "seq-backwards",
        "at-backwards",
        "seq-zero",
        "unsafe-host",
        "unknown-field",
    ],
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


def test_a_line_that_is_not_json_names_file_and_line(tmp_path: Path) -> None:
    path = write_log(tmp_path / "authority.jsonl", [GOOD_1, GOOD_2, '{"seq": 3, "at":'])
    with pytest.raises(PlannerInputError) as info:
        read_log(path)
    assert (info.value.source, info.value.where) == (str(path), "line 3")
    assert "not a JSON object" in info.value.message


def test_a_line_that_is_json_but_not_an_object(tmp_path: Path) -> None:
    path = write_log(tmp_path / "authority.jsonl", [GOOD_1, "[1, 2]"])
    with pytest.raises(PlannerInputError) as info:
        read_log(path)
    assert info.value.where.startswith("line 2")


def test_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "authority.jsonl"
    path.write_text(f"{GOOD_1}\n\n{GOOD_2}\nnot json\n", encoding="utf-8")
    with pytest.raises(PlannerInputError) as info:
        read_log(path)
    assert info.value.where == "line 4"


def test_the_seq_and_at_errors_quote_the_values(tmp_path: Path) -> None:
    seq_back = json.dumps({"seq": 1, "at": at(9), "event": "host_released", "host": "x"})
    path = write_log(tmp_path / "a.jsonl", [GOOD_1, GOOD_2, seq_back])
    with pytest.raises(PlannerInputError, match="seq 1 does not follow 2"):
        read_log(path)
    at_back = json.dumps({"seq": 3, "at": at(4), "event": "host_released", "host": "x"})
    path = write_log(tmp_path / "b.jsonl", [GOOD_1, GOOD_2, at_back])
    with pytest.raises(PlannerInputError, match="earlier than line before"):
        read_log(path)


def test_an_unreadable_log_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(PlannerInputError) as info:
        read_log(tmp_path / "missing.jsonl")
    assert info.value.where == "<file>"
    assert "cannot read authority log" in info.value.message


def test_every_fixture_log_parses() -> None:
    root = data.default_data_root()
    for path in sorted((root / "scenarios").glob("*/authority.jsonl")):
        events = read_log(path)
        assert [e.seq for e in events] == sorted({e.seq for e in events})


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
