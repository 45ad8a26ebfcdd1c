"""Witness: the authority log is read at a time and folded in order; admission reports every
failed conjunct, in conjunct order, located; a corrupt log is a located error, never admitted.

Expected values come from the scenario files (``fixtures/scenarios/*``), the fabric inventory
and the log lines each claim writes itself, read here with plain ``json`` — never from the
planner's output. Which side of an instant falls where is decided by the spec and the code:

- a lease is live strictly before ``lease_expires_at``; at that instant it has expired (the
  spec asks for "a live lease (checked at read time)", and a lease that *expires at* t is no
  longer live at t: ``lease_live(now)`` is ``now < lease_expires_at``);
- an event logged exactly at the read time has happened and is folded ("events *after*
  ``now`` have not happened yet"); one logged a second later has not.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from claims import (
    ClaimKind,
    Verdict,
    claim,
    difference,
    expect_equal,
    fails,
    holds,
    holds_unless,
)
from fixtures.builders import REORDERINGS, inventory, v41_inputs, v41_manifest
from planner.admission import Candidate, arm_launch_admission
from planner.arms.v41_group_a import v41_group_a_launch_dry_run
from planner.authority import (
    Active,
    AuthorityState,
    SuspendedForAuthorizedSuccessor,
    fold,
    parse_log,
    read_log,
    read_state,
    stream_log,
)
from planner.refusal import PlannerInputError, Refusal
from witnesses.support import SCENARIOS, c_locale, group_raw, scenario_now, scenario_raw

Event = dict[str, Any]
Seen = tuple[str, str, str]
"""A refusal as the command line shows it: (code, location, message)."""

_SECOND = timedelta(seconds=1)


def _lines(name: str) -> list[Event]:
    """A scenario's authority log, one dict per line, read with plain json."""
    text = (SCENARIOS / name / "authority.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _scenario_names() -> list[str]:
    """Every scenario (each has its authority log), in name order."""
    return sorted(p.name for p in SCENARIOS.iterdir())


def _by_seq(events: list[Event], seq: int) -> Event:
    return next(e for e in events if e["seq"] == seq)


def _replace(events: list[Event], *replacements: Event) -> list[Event]:
    """``events`` with each replacement put in place of the line of the same seq."""
    by_seq = {r["seq"]: r for r in replacements}
    return [by_seq.get(e["seq"], e) for e in events]


def _image() -> str:
    """The produced image's config digest, as supplied in the scenario's inputs."""
    inputs = scenario_raw("supplied", "inputs.json")
    digest: str = inputs["produced_image"]["artifact"]["config_digest"]
    return digest


def _candidate_key() -> str:
    """The supplied scenario suspends Group A for exactly this candidate (its scenario.json)."""
    successor: str = _by_seq(_lines("supplied"), 14)["successor"]
    return successor


def _candidate() -> Candidate:
    arm, model, runtime_key = _candidate_key().split(":")
    return Candidate(arm=arm, checkpoint=model, runtime_key=runtime_key)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@contextmanager
def _written(lines: list[str]) -> Iterator[Path]:
    """The lines written as an authority log in a fresh temp directory."""
    with tempfile.TemporaryDirectory(prefix="authority-") as tmp:
        path = Path(tmp) / "authority.jsonl"
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        yield path


def _jsonl(events: list[Event]) -> list[str]:
    return [json.dumps(e) for e in events]


def _state(events: list[Event], now: datetime) -> AuthorityState:
    with _written(_jsonl(events)) as path:
        return fold(read_log(path), now)


def _admission(events: list[Event], now: datetime) -> list[Seen]:
    """Admission of the V4.1 candidate on Group A with the supplied image, at ``now``."""
    return [(r.code, r.where, r.message) for r in _admission_refusals(events, now)]


def _dry_run_refusals(events: list[Event], now: datetime) -> list[Seen]:
    """Every refusal of the whole dry run (supplied inputs), in the order it prints them."""
    run = v41_group_a_launch_dry_run(
        inventory(), v41_manifest(), v41_inputs("supplied"), _state(events, now)
    )
    return [(r.code, r.where, r.message) for r in run.refusals]


def _admission_refusals(events: list[Event], now: datetime) -> tuple[Refusal, ...]:
    """The admission fold's refusals of V4.1 on Group A with the supplied image, at ``now``."""
    state = _state(events, now)
    return arm_launch_admission(
        state, inventory().group("group_a"), _candidate(), _image()
    ).refusals


def _lease_expired(expiry: datetime, now: datetime) -> Seen:
    where = "authority.groups.group_a.lease_expires_at"
    message = f"lease expired at {expiry.isoformat()} (read at {now.isoformat()})"
    return ("admission.lease_expired", where, message)


def _not_held(host: str, holder: str | None) -> Seen:
    message = f"{host} is held by {holder!r}, not {group_raw('group_a')['subject']!r}"
    return ("admission.host_not_held", f"authority.holdings.{host}", message)


def _image_not_admitted(*others: str) -> Seen:
    key = _candidate().runtime_key
    why = f" (admitted only for {', '.join(others)})" if others else ""
    message = f"image {_image()} is not admitted for runtime key {key!r}{why}"
    return ("admission.image_not_admitted", f"authority.admitted_images.{key}", message)


# --- time ------------------------------------------------------------------------------------


@claim(ClaimKind.REFUSAL)
def a_lease_is_live_strictly_before_its_expiry() -> Verdict:
    """Read one second before the lease's expiry the correct suspension admits; read at the
    expiry instant and one second after, the lease has expired and conjunct 1 alone refuses,
    quoting the expiry and the read time."""
    events = _lines("supplied")
    expiry = _at(_by_seq(events, 14)["lease_expires_at"])
    seen = {
        "expiry - 1 s": _admission(events, expiry - _SECOND),
        "expiry": _admission(events, expiry),
        "expiry + 1 s": _admission(events, expiry + _SECOND),
    }
    expected = {
        "expiry - 1 s": [],
        "expiry": [_lease_expired(expiry, expiry)],
        "expiry + 1 s": [_lease_expired(expiry, expiry + _SECOND)],
    }
    return expect_equal(expected, seen, "admission refusals around the lease's expiry")


@claim(ClaimKind.PLANNED_SHAPE)
def times_with_offsets_compare_as_instants() -> Verdict:
    """A log whose suspension is logged at 02:00-08:00 (10:00Z: later than the line before,
    08:15Z, though its wall clock is earlier) with a lease to 23:30+05:30 (18:00Z) reads
    as the same instants: not yet seen at 01:59:59-08:00, seen and live at 15:30+05:30,
    live at 09:59:59-08:00, expired at 10:00-08:00 (quoting both times as written)."""
    events = _lines("supplied")
    suspension = {
        **_by_seq(events, 14),
        "at": "2026-11-29T02:00:00-08:00",
        "lease_expires_at": "2026-11-29T23:30:00+05:30",
    }
    events = _replace(events, suspension)
    incumbent = _by_seq(events, 1)["incumbent"]
    reads = (
        "2026-11-29T01:59:59-08:00",
        "2026-11-29T15:30:00+05:30",
        "2026-11-29T09:59:59-08:00",
        "2026-11-29T10:00:00-08:00",
    )
    active = (
        "admission.active_incumbent",
        "authority.groups.group_a",
        f"group_a is Active with incumbent {incumbent!r}",
    )
    expected = [
        [active],
        [],
        [],
        [_lease_expired(_at("2026-11-29T23:30:00+05:30"), _at(reads[3]))],
    ]
    seen = [_admission(events, _at(read)) for read in reads]
    return expect_equal(expected, seen, f"refusals read at {', '.join(reads)}")


class _AskedClock(tzinfo):
    """A fixed clock (+05:30) that counts how often it is asked its offset."""

    OFFSET = timedelta(hours=5, minutes=30)

    def __init__(self) -> None:
        self.asked = 0

    def utcoffset(self, dt: datetime | None) -> timedelta:
        self.asked += 1
        return self.OFFSET

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return "+05:30"

    def fromutc(self, dt: datetime) -> datetime:
        return dt + self.OFFSET


@claim(ClaimKind.PLANNED_SHAPE)
def the_fold_reads_the_read_time_once_on_the_log_s_own_clock() -> Verdict:
    """The supplied log, every time moved onto one fixed clock (+05:30), folds at the
    scenario's time (UTC) to the state its own lines give, and the clock is asked its offset
    at most once for the whole fold: the read time is read on the log's clock once, not
    every event's time converted to compare (a log is a million lines; the fold that asks
    per event is the one `make bench` saw at 1.6× ``json.loads``)."""
    lines, now = _lines("supplied"), scenario_now("supplied")
    events = parse_log("\n".join(_jsonl(lines)), "supplied")
    clock = _AskedClock()
    moved = [replace(e, at=e.at.astimezone(clock)) for e in events]
    clock.asked = 0
    state = fold(moved, now)
    asked = clock.asked
    problems = difference("state", fold(events, now), state)
    if asked > 1:
        problems.append(f"the clock was asked its offset {asked} times for {len(events)} events")
    return holds_unless(problems, f"{len(events)} events folded, the clock asked {asked} time(s)")


@claim(ClaimKind.PLANNED_SHAPE)
def a_read_time_at_the_calendar_s_ends_folds_a_log_on_any_clock() -> Verdict:
    """The supplied log with every time written on a clock ahead of UTC (+05:30) and one
    behind (-08:00), read at the last instant the calendar holds (9999-12-31T23:59:59.999999Z,
    which neither clock can show) and at its first (0001-01-01T00:00:00Z): the whole log is
    seen at the last, nothing at the first, as on UTC."""
    lines = _lines("supplied")
    ends = (datetime.max.replace(tzinfo=UTC), datetime.min.replace(tzinfo=UTC))
    want = [_state(lines, end) for end in ends]
    problems: list[str] = []
    for clock in (timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))):
        offset = str(clock)
        moved = [{**e, "at": _at(e["at"]).astimezone(clock).isoformat()} for e in lines]
        for end, expected in zip(ends, want, strict=True):
            try:
                got: object = _state(moved, end)
            except (OverflowError, TypeError) as exc:
                got = f"{type(exc).__name__}: {exc}"
            problems += difference(f"{offset} read at {end.isoformat()}", expected, got)
    return holds_unless(problems, "the log on +05:30 and -08:00 read at both ends of the calendar")


# --- several failures at once ------------------------------------------------------------------


def _every_conjunct_failing() -> list[Event]:
    """Group A suspended for another successor under an expired lease, the image admitted
    only for two other runtime keys, srv7 held by Group B's subject and srv8 released."""
    supplied = _lines("supplied")
    other = _by_seq(_lines("other_successor"), 14)["successor"]
    expired = _by_seq(_lines("expired_lease"), 14)["lease_expires_at"]
    suspension = {**_by_seq(supplied, 14), "successor": other, "lease_expires_at": expired}
    image_elsewhere = _by_seq(_lines("image_other_runtime"), 13)
    srv7_elsewhere = _by_seq(_lines("host_not_held"), 5)
    srv8_released = _by_seq(_lines("host_released"), 15)
    trial = {
        **image_elsewhere,
        "seq": 16,
        "at": srv8_released["at"],
        "runtime_key": "gunbc-deepseek-v41-trial",
    }
    return [
        *_replace(supplied, suspension, image_elsewhere, srv7_elsewhere),
        srv8_released,
        trial,
    ]


@claim(ClaimKind.REFUSAL)
def every_failed_conjunct_is_reported_in_conjunct_order() -> Verdict:
    """A log where every conjunct fails — Group A suspended for another successor under an
    expired lease, the image admitted only for two other runtime keys, srv7 held by Group
    B's subject and srv8 released — refuses the dry run with exactly: the expired lease, the
    other successor, the image (naming both other keys), then srv7 and srv8, in that order."""
    events = _every_conjunct_failing()
    other = _by_seq(events, 14)["successor"]
    expired = _by_seq(events, 14)["lease_expires_at"]
    image_elsewhere = _by_seq(events, 13)
    srv7_elsewhere = _by_seq(events, 5)
    trial = _by_seq(events, 16)
    now = scenario_now("supplied")
    expected = [
        _lease_expired(_at(expired), now),
        (
            "admission.other_successor",
            "authority.groups.group_a.candidate",
            f"suspended for {other!r}, not {_candidate_key()!r}",
        ),
        _image_not_admitted(image_elsewhere["runtime_key"], trial["runtime_key"]),
        _not_held("srv7", srv7_elsewhere["subject"]),
        _not_held("srv8", None),
    ]
    return expect_equal(expected, _dry_run_refusals(events, now), "dry-run refusals")


CLEARED_BY = {
    "admission.group_unknown": "record group_a's state in the log (a group_active or "
    "group_suspended event)",
    "admission.lease_expired": "renew the lease: a new group_suspended event for this "
    "successor with a later lease_expires_at",
    "admission.other_successor": "plan the successor the group is suspended for, or suspend "
    "it for this candidate",
    "admission.image_not_admitted": "admit the image for this runtime key first (an "
    "image_admitted event)",
    "admission.host_not_held": "hold {host} for {subject} first (a host_held event)",
}
"""What each admission refusal hints the log needs, by code."""


@claim(ClaimKind.REFUSAL)
def each_admission_refusal_hints_at_the_event_that_clears_it() -> Verdict:
    """Every admission refusal (of a log failing every conjunct, and of one that never names
    Group A) says what to record in the log to clear it: an unknown group its state (a
    group_active or group_suspended event), an expired lease its renewal, another successor
    to plan that one or suspend the group for this candidate, an image not admitted an
    image_admitted event for this runtime key, a host not held a host_held event for the
    group's subject."""
    unnamed = [e for e in _lines("live") if e.get("group") != "group_a"]
    cases = ((_every_conjunct_failing(), scenario_now("supplied")), (unnamed, scenario_now("live")))
    refused = [r for events, now in cases for r in _admission_refusals(events, now)]
    subject = group_raw("group_a")["subject"]
    want = [
        (r.where, CLEARED_BY.get(r.code, "").format(host=r.location[-1], subject=subject))
        for r in refused
    ]
    got = [(r.where, r.hint) for r in refused]
    if not refused:
        return fails("no admission refusal to read a hint from")
    return expect_equal(want, got, f"(where, hint) of {len(refused)} admission refusals")


@claim(ClaimKind.REFUSAL)
def exactly_the_two_failed_conjuncts_are_reported() -> Verdict:
    """The image_other_runtime log with host_released's release of srv8 appended fails
    conjuncts 3 and 4 only: the dry run names exactly those two, in conjunct order."""
    elsewhere = _lines("image_other_runtime")
    events = [*elsewhere, _by_seq(_lines("host_released"), 15)]
    key = _by_seq(elsewhere, 13)["runtime_key"]
    expected = [_image_not_admitted(key), _not_held("srv8", None)]
    now = scenario_now("supplied")
    return expect_equal(expected, _dry_run_refusals(events, now), "dry-run refusals")


@claim(ClaimKind.REFUSAL)
def a_group_the_log_never_names_is_refused_as_unknown() -> Verdict:
    """With the live log less its one Group A line, conjunct 1 refuses the unknown group,
    conjunct 2 stays silent (there is no suspension to compare), and conjunct 3 names the
    image as admitted for no runtime key at all."""
    events = [e for e in _lines("live") if e.get("group") != "group_a"]
    expected = [
        (
            "admission.group_unknown",
            "authority.groups.group_a",
            "the authority log says nothing of group_a",
        ),
        _image_not_admitted(),
    ]
    now = scenario_now("live")
    return expect_equal(expected, _dry_run_refusals(events, now), "dry-run refusals")


@claim(ClaimKind.REFUSAL)
def an_active_group_is_refused_naming_its_incumbent_and_the_way_out() -> Verdict:
    """Group A still Active: exactly one refusal, at authority.groups.group_a, quoting the
    incumbent, with the hint to suspend the group for this successor first (#12370)."""
    events = _lines("active_incumbent")
    incumbent = _by_seq(events, 1)["incumbent"]
    refusals = _admission_refusals(events, scenario_now("active_incumbent"))
    seen = [(r.code, r.location, r.message, r.hint) for r in refusals]
    expected = [
        (
            "admission.active_incumbent",
            ("authority", "groups", "group_a"),
            f"group_a is Active with incumbent {incumbent!r}",
            "suspend the group for this successor first (#12370)",
        )
    ]
    return expect_equal(expected, seen, "(code, location, message, hint)")


# --- the fold ----------------------------------------------------------------------------------

_FOLD_LOG: list[Event] = [
    {"event": "group_active", "group": "group_a", "incumbent": "old"},
    {"event": "host_held", "host": "srv5", "subject": "subject-a"},
    {"event": "host_held", "host": "srv6", "subject": "subject-a"},
    {"event": "image_admitted", "runtime_key": "key-k", "config_digest": "sha256:d1"},
    {
        "event": "group_suspended",
        "group": "group_a",
        "successor": "next",
        "lease_expires_at": "2026-11-29T18:00:00Z",
    },
    {"event": "host_held", "host": "srv5", "subject": "subject-b"},
    {"event": "host_released", "host": "srv6"},
    {"event": "host_released", "host": "srv7"},
    {"event": "image_admitted", "runtime_key": "key-k", "config_digest": "sha256:d2"},
    {"event": "image_admitted", "runtime_key": "key-k", "config_digest": "sha256:d1"},
    {"event": "image_admitted", "runtime_key": "key-l", "config_digest": "sha256:d2"},
    {"event": "group_active", "group": "group_a", "incumbent": "next"},
    {
        "event": "group_suspended",
        "group": "group_b",
        "successor": "s",
        "lease_expires_at": "2026-11-30T00:00:00+05:30",
    },
    {"event": "host_held", "host": "srv6", "subject": "subject-a"},
]
"""One event a minute from 09:00Z: a group suspended then Active again under its successor,
a host held by one subject then another, a host released then held again, a release of a
host nobody held, an image admitted twice for one key, one image admitted for two keys."""


def _fold_log() -> list[Event]:
    base = _at("2026-11-29T09:00:00Z")
    return [
        {"seq": n, "at": (base + timedelta(minutes=n - 1)).isoformat(), **e}
        for n, e in enumerate(_FOLD_LOG, start=1)
    ]


@claim(ClaimKind.PLANNED_SHAPE)
def the_fold_applies_events_in_log_order() -> Verdict:
    """Read mid-log (09:07:30, after the 8th event) and at the end: the latest event of a
    group or host wins, a release frees the host, releasing an unheld host changes nothing,
    and each runtime key lists its admitted images once each, in the order admitted."""
    events = _fold_log()

    def view(state: AuthorityState) -> dict[str, object]:
        return {
            "groups": dict(state.groups),
            "images": dict(state.admitted_images),
            "holdings": dict(state.holdings),
            "keys admitting d2": state.runtime_keys_admitting("sha256:d2"),
            "keys admitting d3": state.runtime_keys_admitting("sha256:d3"),
        }

    lease = _at("2026-11-29T18:00:00Z")
    expected = {
        "09:07:30": {
            "groups": {
                "group_a": SuspendedForAuthorizedSuccessor(candidate="next", lease_expires_at=lease)
            },
            "images": {"key-k": ("sha256:d1",)},
            "holdings": {"srv5": "subject-b"},
            "keys admitting d2": (),
            "keys admitting d3": (),
        },
        "end": {
            "groups": {
                "group_a": Active(incumbent="next"),
                "group_b": SuspendedForAuthorizedSuccessor(
                    candidate="s", lease_expires_at=_at("2026-11-30T00:00:00+05:30")
                ),
            },
            "images": {"key-k": ("sha256:d1", "sha256:d2"), "key-l": ("sha256:d2",)},
            "holdings": {"srv5": "subject-b", "srv6": "subject-a"},
            "keys admitting d2": ("key-k", "key-l"),
            "keys admitting d3": (),
        },
    }
    seen = {
        "09:07:30": view(_state(events, _at("2026-11-29T09:07:30Z"))),
        "end": view(_state(events, _at("2026-11-29T10:00:00Z"))),
    }
    return expect_equal(expected, seen, "folded state")


# --- a corrupt or unreadable log ---------------------------------------------------------------

_NAIVE = "2026-11-29T11:00:00"
_RELEASE = {"seq": 15, "at": "2026-11-29T11:00:00Z", "event": "host_released", "host": "srv8"}
_CORRUPT: tuple[tuple[str, str, str, str], ...] = (
    # (case, bad line 16, where, the message's fact: "=" exact text, else its ending)
    ("bad JSON", '{"seq": 15, "at": ', "line 16", "=not a JSON object: Expecting value"),
    ("not an object", "null", "line 16, field <root>", "(value None)"),
    (
        "missing field",
        json.dumps({k: v for k, v in _RELEASE.items() if k != "host"}),
        "line 16, field host_released.host",
        f"(value { ({k: v for k, v in _RELEASE.items() if k != 'host'})!r})",
    ),
    (
        "wrong type",
        json.dumps({**_RELEASE, "seq": "fifteen"}),
        "line 16, field host_released.seq",
        "(value 'fifteen')",
    ),
    (
        "unknown event",
        json.dumps({**_RELEASE, "event": "host_exploded"}),
        "line 16, field event",
        f"(value { ({**_RELEASE, 'event': 'host_exploded'})!r})",
    ),
    (
        "no event kind",
        json.dumps({k: v for k, v in _RELEASE.items() if k != "event"}),
        "line 16, field event",
        f"(value { ({k: v for k, v in _RELEASE.items() if k != 'event'})!r})",
    ),
    (
        "time without zone",
        json.dumps({**_RELEASE, "at": _NAIVE}),
        "line 16, field host_released.at",
        f"(value {_NAIVE!r})",
    ),
    (
        "lease without zone",
        json.dumps(
            {
                **_RELEASE,
                "event": "group_suspended",
                "group": "group_a",
                "successor": "x",
                "lease_expires_at": _NAIVE,
            }
        ),
        "line 16, field group_suspended.lease_expires_at",
        f"(value {_NAIVE!r})",
    ),
    (
        "seq repeated",
        json.dumps({**_RELEASE, "seq": 14}),
        "line 16, field seq",
        "=seq 14 does not follow 14",
    ),
    (
        "earlier instant, later wall clock",
        json.dumps({**_RELEASE, "at": "2026-11-29T13:00:00+05:30"}),
        "line 16, field at",
        "=2026-11-29T13:00:00+05:30 is earlier than line before",
    ),
)
"""Each case is the supplied log (14 lines), a blank line 15, then the bad line 16."""


@claim(ClaimKind.REFUSAL)
def a_corrupt_log_line_is_a_located_error() -> Verdict:
    """Bad JSON, a JSON value that is not an object, a missing field, a wrong type, an
    unknown or missing event kind, a time or a lease without a zone, a repeated seq and a
    time earlier (as an instant) than the line before: each stops the read with an error
    naming the file, the physical line (blank lines count), the field and the bad value —
    so no state is folded and nothing is admitted."""
    supplied = _jsonl(_lines("supplied"))
    wrong: list[str] = []
    for case, bad, where, fact in _CORRUPT:
        with _written([*supplied, "", bad]) as path:
            try:
                read_log(path)
            except PlannerInputError as exc:
                exact = fact.startswith("=")
                fact_ok = exc.message == fact[1:] if exact else exc.message.endswith(fact)
                if exc.source != str(path) or exc.where != where or not fact_ok:
                    wrong.append(f"{case}: {exc.source!r} {exc.where!r} {exc.message!r}")
                continue
            wrong.append(f"{case}: read without error")
    if wrong:
        return fails("; ".join(wrong))
    return holds(f"{len(_CORRUPT)} corrupt lines, each located at line 16 with its value")


@claim(ClaimKind.PLANNED_SHAPE)
def blank_and_whitespace_lines_are_skipped() -> Verdict:
    """An empty line and a whitespace-only line anywhere in a log are not events: the log
    reads to the same events as without them."""
    supplied = _jsonl(_lines("supplied"))
    padded = ["", *supplied[:5], " \t", *supplied[5:], ""]
    with _written(supplied) as plain, _written(padded) as spaced:
        same = read_log(plain) == read_log(spaced)
    return expect_equal(True, same, "events with blank lines == events without")


@claim(ClaimKind.REFUSAL)
def an_unreadable_log_is_a_located_error() -> Verdict:
    """A missing log and a log that is not UTF-8 are each an error naming the file, at
    <file>, saying the authority log cannot be read and why."""
    seen: list[tuple[bool, str, bool]] = []
    with tempfile.TemporaryDirectory(prefix="authority-") as tmp:
        missing = Path(tmp) / "absent.jsonl"
        latin = Path(tmp) / "latin1.jsonl"
        latin.write_bytes('{"incumbent": "café"}\n'.encode("latin-1"))
        for path, why in (
            (missing, "No such file or directory"),
            (latin, "can't decode byte 0xe9"),
        ):
            try:
                read_log(path)
            except PlannerInputError as exc:
                text = exc.message
                ok = text.startswith("cannot read authority log: ") and why in text
                seen.append((exc.source == str(path), exc.where, ok))
                continue
            seen.append((False, "read without error", False))
    return expect_equal([(True, "<file>", True)] * 2, seen, "(names the file, where, says why)")


# --- a hostile log -----------------------------------------------------------------------------

_SUSPENSION = 14
"""The supplied log's line 14 suspends Group A for the candidate; its hostile copies below
repeat one key so that reading it last-key-wins would admit."""


def _suspension_text(*pairs: tuple[str, object]) -> str:
    """Line 14 written out key by key (so a key may come twice), values as JSON."""
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"


def _read_error(lines: list[str]) -> tuple[str, str, str] | None:
    """(where, message, disagreement) of the error reading ``lines`` as a log, as a whole
    read and as the stream the command line folds (disagreement empty when both say the
    same, naming the file); None when either read succeeds."""
    found: list[tuple[str, str, str]] = []
    with _written(lines) as path:
        for read in (lambda: read_log(path), lambda: read_state(path, scenario_now("supplied"))):
            try:
                read()
            except PlannerInputError as exc:
                found.append(
                    (exc.where, exc.message, "" if exc.source == str(path) else exc.source)
                )
                continue
            return None
    if found[0] != found[1] or found[0][2]:
        return (found[0][0], found[0][1], f"whole read {found[0]}, stream {found[1]}")
    return found[0]


@claim(ClaimKind.REFUSAL)
def a_line_that_says_two_things_is_corrupt_and_never_admits() -> Verdict:
    """The suspension line with its successor given twice (another candidate, then this
    one, or the other way round, or spelled with an escape), its lease given twice (expired,
    then live) or its event kind given twice: the read fails at line 14, naming the repeated
    key and both values, as a whole read and as the stream the command line folds — never
    last-key-wins, so nothing is folded and nothing admitted."""
    events = _lines("supplied")
    line = _by_seq(events, _SUSPENSION)
    base = [(k, v) for k, v in line.items()]
    candidate, expired = line["successor"], "2026-11-29T11:00:00Z"
    cases = {
        "successor other, then the candidate": (
            [*base[:3], ("successor", "other"), *base[3:]],
            "successor",
            f"'other' and {candidate!r}",
        ),
        "successor the candidate, then other": (
            [*base, ("successor", "other")],
            "successor",
            f"{candidate!r} and 'other'",
        ),
        "lease expired, then live": (
            [*base[:5], ("lease_expires_at", expired), *base[5:]],
            "lease_expires_at",
            f"'{expired}' and '{line['lease_expires_at']}'",
        ),
        "event kind twice": (
            [base[0], base[1], ("event", "group_active"), *base[2:]],
            "event",
            "'group_active' and 'group_suspended'",
        ),
    }
    seen: dict[str, tuple[str, ...] | None] = {}
    want: dict[str, tuple[str, ...]] = {}
    for case, (pairs, key, values) in cases.items():
        lines = [*_jsonl(events)]
        lines[_SUSPENSION - 1] = _suspension_text(*pairs)
        seen[case] = _read_error(lines)
        message = (
            f"key {key!r} is given twice (values {values}): an input that says two things "
            "is corrupt"
        )
        want[case] = (f"line {_SUSPENSION}, field {key}", message, "")
    escaped = [*_jsonl(events)]
    escaped[_SUSPENSION - 1] = escaped[_SUSPENSION - 1].replace(
        '"successor"', '"succ\\u0065ssor": "other", "successor"'
    )
    error = _read_error(escaped)
    seen["successor spelled with an escape"] = error[:1] if error else None
    want["successor spelled with an escape"] = (f"line {_SUSPENSION}, field successor",)
    return expect_equal(want, seen, "(where, message, disagreement) per hostile line 14")


def _raw_release(seq: str = "15", host: str = '"srv8"') -> str:
    return (
        f'{{"seq": {seq}, "at": "2026-11-29T11:00:00Z", "event": "host_released", "host": {host}}}'
    )


@claim(ClaimKind.REFUSAL)
def a_value_the_log_does_not_spell_plainly_is_a_located_error() -> Verdict:
    """Line 16 (after a blank line 15) with a seq of true, "15", 15.0, 20 digits, 5,000
    digits or NaN, a host holding a lone surrogate, or a host nested 100 arrays deep: each
    is an error at line 16 naming the field (or the column where nesting passes 64 levels)
    and what is wrong — no boolean or text is read as a number, no float as an integer, no
    integer beyond 64 bits is read at all."""
    supplied = _jsonl(_lines("supplied"))
    cases = {
        "seq true": (_raw_release("true"), "line 16, field host_released.seq", "(value True)"),
        'seq "15"': (_raw_release('"15"'), "line 16, field host_released.seq", "(value '15')"),
        "seq 15.0": (_raw_release("15.0"), "line 16, field host_released.seq", "(value 15.0)"),
        "seq of 20 digits": (
            _raw_release("9" * 20),
            "line 16, field seq",
            "an integer of 20 digits is out of range",
        ),
        "seq of 5,000 digits": (
            _raw_release("9" * 5000),
            "line 16, field seq",
            "an integer of 5,000 digits is out of range",
        ),
        "seq NaN": (_raw_release("NaN"), "line 16, field seq", "NaN is not a JSON number"),
        "host with a lone surrogate": (
            _raw_release(host='"srv\\ud8008"'),
            "line 16, field host",
            "a lone surrogate \\ud800 is not a character",
        ),
        "host nested 100 deep": (
            _raw_release(host="[" * 100 + '"srv8"' + "]" * 100),
            # the line's object is level 1, so the 64th bracket opens level 65
            f"line 16, column {len(_raw_release(host='')) - 1 + 64}",
            "nested deeper than 64 levels",
        ),
    }
    seen, want = {}, {}
    for case, (bad, where, fact) in cases.items():
        error = _read_error([*supplied, "", bad])
        seen[case] = None if error is None else (error[0], fact in error[1], error[2])
        want[case] = (where, True, "")
    return expect_equal(want, seen, "(where, states the fact, disagreement) per hostile line 16")


@claim(ClaimKind.PLANNED_SHAPE)
def only_a_newline_ends_a_record() -> Verdict:
    """An incumbent holding U+2028, U+2029 or U+0085 (line breaks to ``str.splitlines``)
    stays one record with its text whole, in a file and in text given whole; a log written
    with CRLF reads to the same events, and a UTF-8 log the same under the C locale;
    two records on one line, joined by a space, a carriage return or U+2028, are an error at
    that line (the line says two things)."""
    events = _lines("supplied")
    first = _by_seq(events, 1)
    seen: dict[str, object] = {}
    want: dict[str, object] = {}
    for mark in ("\u2028", "\u2029", "\x85"):
        text = first["incumbent"][:4] + mark + first["incumbent"][4:]
        lines = [json.dumps({**first, "incumbent": text}, ensure_ascii=False), *_jsonl(events)[1:]]
        with _written(lines) as path:
            read = read_log(path)
        seen[f"U+{ord(mark):04X} in a string"] = (len(read), _state_incumbent(read))
        want[f"U+{ord(mark):04X} in a string"] = (len(events), text)
    with _written(_jsonl(events)) as plain, _written([f"{ln}\r" for ln in _jsonl(events)]) as crlf:
        seen["CRLF"] = read_log(crlf) == read_log(plain)
    want["CRLF"] = True
    # the text given as a whole (parse_log) splits where the file does
    lines = [json.dumps({**first, "incumbent": "v4\u2028pair"}), *_jsonl(events)[1:]]
    whole: list[object] = [len(parse_log("\n".join(lines), "log"))]
    joined = _jsonl(events)
    try:
        parse_log("\n".join([*joined[:2], joined[2] + "\r" + joined[3], *joined[4:]]), "log")
        whole.append("read without error")
    except PlannerInputError as exc:
        whole.append((exc.source, exc.where))
    seen["parse_log"] = whole
    want["parse_log"] = [len(events), ("log", "line 3")]
    # a log is UTF-8 whatever the locale says
    accented = [json.dumps({**first, "incumbent": "café"}, ensure_ascii=False), *joined[1:]]
    with _written(accented) as path:
        utf8 = read_log(path)
        with c_locale():
            seen["C locale"] = read_log(path) == utf8 == tuple(_stream_all(path))
    want["C locale"] = True
    for name, joiner in (("space", " "), ("carriage return", "\r"), ("U+2028", "\u2028")):
        lines = _jsonl(events)
        lines[2:4] = [lines[2] + joiner + lines[3]]
        error = _read_error(lines)
        seen[f"two records joined by a {name}"] = error
        want[f"two records joined by a {name}"] = ("line 3", "not a JSON object: Extra data", "")
    return expect_equal(want, seen, "records per log")


def _stream_all(path: Path) -> list[object]:
    return list(stream_log(path))


def _state_incumbent(events: tuple[object, ...]) -> str:
    first = events[0]
    return str(getattr(first, "incumbent", ""))


@claim(ClaimKind.REFUSAL)
def the_stream_is_read_to_its_end_and_folds_as_the_whole_read() -> Verdict:
    """Folded as the stream the command line reads, each scenario's log gives the state the
    whole read gives, at its read time and at each event's time; and a corrupt line after
    the read time still fails the stream, naming that line: a log is read whole or not at
    all, even where its later lines do not count yet."""
    differ = []
    for name in _scenario_names():
        log = SCENARIOS / name / "authority.jsonl"
        events = _lines(name)
        for now in [scenario_now(name), *(_at(e["at"]) for e in events)]:
            if read_state(log, now) != fold(read_log(log), now):
                differ.append(f"{name} at {now.isoformat()}")
    supplied = _jsonl(_lines("supplied"))
    later = json.dumps({**_RELEASE, "seq": 15, "at": "2026-11-30T00:00:00Z"})
    corrupt = json.dumps({**_RELEASE, "seq": 16, "at": "2026-11-30T00:00:00Z", "host": "srv 8"})
    with _written([*supplied, later, corrupt]) as path:
        try:
            read_state(path, scenario_now("supplied"))
            after = "read without error"
        except PlannerInputError as exc:
            after = exc.where
    return expect_equal(
        ([], "line 16, field host_released.host"),
        (differ, after),
        "(reads where stream and whole read differ, where a corrupt later line fails)",
    )


def _as_written(event: object) -> Event:
    """An event read by the planner, as the plain-json reading of its line would give it:
    every field the model has, instants back in the log's ISO spelling made comparable."""
    fields = dict(getattr(event, "__dict__", {}))
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in fields.items()}


def _plainly(line: Event) -> Event:
    """A log line read with plain json: instants as ISO text (``Z`` as ``+00:00``)."""
    return {
        k: _at(v).isoformat() if k in ("at", "lease_expires_at") else v for k, v in line.items()
    }


@claim(ClaimKind.PLANNED_SHAPE)
def every_record_is_read_as_written_in_file_order() -> Verdict:
    """Reading a scenario's authority log (from its file and from its text) gives one event
    per non-blank line, in file order, none dropped, repeated or swapped, each with exactly
    the seq, instant, event kind and fields its line states."""
    problems = []
    for name in _scenario_names():
        path = SCENARIOS / name / "authority.jsonl"
        expected = [_plainly(line) for line in _lines(name)]
        readings = {
            "read_log": read_log(path),
            "parse_log": parse_log(path.read_text(encoding="utf-8"), str(path)),
        }
        for how, events in readings.items():
            got = [_as_written(e) for e in events]
            if got != expected:
                wrong = next(
                    (i for i, (g, e) in enumerate(zip(got, expected, strict=False)) if g != e),
                    min(len(got), len(expected)),
                )
                problems.append(
                    f"{name} by {how}: {len(got)} events for {len(expected)} lines; first "
                    f"difference at record {wrong}: "
                    f"{got[wrong] if wrong < len(got) else None} vs "
                    f"{expected[wrong] if wrong < len(expected) else None}"
                )
    if problems:
        return fails("; ".join(problems)[:1500])
    return holds("every scenario's log read record for record, both ways")


@claim(ClaimKind.PLANNED_SHAPE)
def the_folded_state_names_each_group_and_host_once_in_first_mention_order() -> Verdict:
    """The state folded from each scenario's log (and from the supplied log with a host held
    a second time) is a set of mappings: each group, runtime key and held host appears once,
    in the order the log first names it, with what its last event before the read time
    says."""
    logs = {name: (_lines(name), scenario_now(name)) for name in _scenario_names()}
    supplied, now = logs["supplied"]
    held = next(e for e in supplied if e["event"] == "host_held")
    last = supplied[-1]
    again = {**held, "seq": last["seq"] + 1, "at": last["at"]}
    logs["supplied, a host held again"] = ([*supplied, again], _at(last["at"]))
    problems = []
    for name, (lines, now) in logs.items():
        seen = [e for e in lines if _at(e["at"]) <= now]
        groups = list(dict.fromkeys(e["group"] for e in seen if "group" in e))
        keys = list(dict.fromkeys(e["runtime_key"] for e in seen if "runtime_key" in e))
        hosts: dict[str, str] = {}
        for e in seen:
            if e["event"] == "host_held":
                hosts[e["host"]] = e["subject"]
            elif e["event"] == "host_released":
                hosts.pop(e["host"], None)
        state = _state(lines, now)
        got = (
            [g for g, _ in state.groups],
            [k for k, _ in state.admitted_images],
            list(state.holdings),
        )
        problems += [
            f"{name} {what}: expected {want}, got {have}"
            for what, want, have in zip(
                ("groups", "runtime keys", "holdings"),
                (groups, keys, list(hosts.items())),
                got,
                strict=True,
            )
            if want != have
        ]
    if problems:
        return fails("; ".join(problems)[:1500])
    return holds("every scenario's state lists its groups, keys and hosts once, in log order")


@claim(ClaimKind.PLANNED_SHAPE)
def a_records_keys_in_any_order_read_as_the_same_event() -> Verdict:
    """Each scenario's log, every record rewritten with its keys last first or rotated by
    one, reads as the same events and folds, at the scenario's time, to the same state: a
    reader that takes a record's values by the position of its keys (a fast path that
    assumes the order the logs here are written in) is seen."""
    problems: list[str] = []
    for name in _scenario_names():
        lines, now = _lines(name), scenario_now(name)
        want_events, want_state = _reading(_jsonl(lines), now)
        for how, reorder in REORDERINGS.items():
            moved = [json.dumps({k: line[k] for k in reorder(list(line))}) for line in lines]
            events, state = _reading(moved, now)
            problems += difference(f"{name}, {how}: events", want_events, events)
            problems += difference(f"{name}, {how}: state", want_state, state)
    return holds_unless(
        problems, f"{len(_scenario_names())} logs read alike whatever order their keys are in"
    )


def _reading(lines: list[str], now: datetime) -> tuple[list[object], AuthorityState | str]:
    """The events ``lines`` read as, and their fold at ``now`` (or the error the read gave)."""
    with _written(lines) as path:
        try:
            return list(read_log(path)), read_state(path, now)
        except PlannerInputError as exc:
            return [], f"refused: {exc}"
