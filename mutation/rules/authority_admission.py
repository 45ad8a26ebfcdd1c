"""Declared mutants of the authority log and admission (witness ``authority_admission``).

Each is a careless edit of the log reader, the fold or the admission fold: which side of an
instant counts, wall clocks taken for instants, a conjunct that stops the others, a message
that names the wrong keys, a fold that forgets what it has seen, a reader that miscounts
lines, lets a repeated seq through, or loses the file it could not read; a reader that takes
the last of a key given twice, reads values leniently, splits records at every line break,
or stops the stream at the read time.

The line reader :func:`planner.authority.log_events` is a generator; its mutants are plain
functions that read every line while they run (the patching dispatcher sends a call made
while a replacement runs to the original, and a generator body runs only later).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import get_args, get_type_hints

from pydantic import TypeAdapter

from mutation import mutant
from planner.admission import (
    AdmissionVerdict,
    Candidate,
    arm_launch_admission,
    hosts_held_by_subject,
    image_admitted_for_runtime,
    successor_may_launch,
)
from planner.authority import (
    AuthorityEvent,
    AuthorityState,
    GroupActive,
    GroupSuspended,
    HostHeld,
    HostReleased,
    ImageAdmitted,
    SuspendedForAuthorizedSuccessor,
    fold,
    log_events,
    stream_log,
)
from planner.fabric import FabricGroup
from planner.refusal import PlannerInputError, Refusal
from planner.values import strict_json

W = "authority_admission"
LEASE = f"{W}.a_lease_is_live_strictly_before_its_expiry"
OFFSETS = f"{W}.times_with_offsets_compare_as_instants"
EVERY = f"{W}.every_failed_conjunct_is_reported_in_conjunct_order"
TWO = f"{W}.exactly_the_two_failed_conjuncts_are_reported"
UNKNOWN = f"{W}.a_group_the_log_never_names_is_refused_as_unknown"
ACTIVE = f"{W}.an_active_group_is_refused_naming_its_incumbent_and_the_way_out"
FOLD = f"{W}.the_fold_applies_events_in_log_order"
CORRUPT = f"{W}.a_corrupt_log_line_is_a_located_error"
BLANK = f"{W}.blank_and_whitespace_lines_are_skipped"
UNREADABLE = f"{W}.an_unreadable_log_is_a_located_error"
TWICE = f"{W}.a_line_that_says_two_things_is_corrupt_and_never_admits"
PLAINLY = f"{W}.a_value_the_log_does_not_spell_plainly_is_a_located_error"
NEWLINE = f"{W}.only_a_newline_ends_a_record"
STREAM = f"{W}.the_stream_is_read_to_its_end_and_folds_as_the_whole_read"
RECORDS = f"{W}.every_record_is_read_as_written_in_file_order"
ONCE = f"{W}.the_folded_state_names_each_group_and_host_once_in_first_mention_order"
HINTS = f"{W}.each_admission_refusal_hints_at_the_event_that_clears_it"
KEY_ORDER = f"{W}.a_records_keys_in_any_order_read_as_the_same_event"
ONE_CLOCK = f"{W}.the_fold_reads_the_read_time_once_on_the_log_s_own_clock"
ENDS = f"{W}.a_read_time_at_the_calendar_s_ends_folds_a_log_on_any_clock"
_LENIENT: TypeAdapter[AuthorityEvent] = TypeAdapter(AuthorityEvent)


def _wall_clock(moment: datetime) -> datetime:
    """The reading of ``moment``'s own clock, mislabelled as UTC."""
    return moment.replace(tzinfo=UTC)


@mutant(
    replaces="planner.authority.SuspendedForAuthorizedSuccessor.lease_live",
    turns_red={
        LEASE,
        OFFSETS,
    },
)
def a_lease_gets_a_second_of_grace(self: SuspendedForAuthorizedSuccessor, now: datetime) -> bool:
    """A second of clock-skew grace: the lease still counts as live through the second after
    its expiry."""
    return now <= self.lease_expires_at + timedelta(seconds=1)


@mutant(replaces="planner.authority.fold", turns_red={OFFSETS, ONE_CLOCK})
def an_event_at_the_read_time_is_not_yet_seen(
    events: Iterable[AuthorityEvent], now: datetime
) -> AuthorityState:
    """The fold stops at an event logged exactly at the read time, as if it had not happened."""
    seen = []
    for event in tuple(events):
        if event.at >= now:
            break
        seen.append(event)
    return fold(tuple(seen), now)


@mutant(
    replaces="planner.authority.fold",
    turns_red={OFFSETS, ONE_CLOCK},
    independent=False,
)
def the_fold_reads_wall_clocks(events: Iterable[AuthorityEvent], now: datetime) -> AuthorityState:
    """The fold compares each event's wall-clock reading with the read time's, ignoring
    their UTC offsets."""
    shifted = tuple(replace(e, at=_wall_clock(e.at)) for e in events)
    return fold(shifted, _wall_clock(now)).model_copy(update={"read_at": now})


@mutant(replaces="planner.authority._on_clock_of", turns_red={ONE_CLOCK})
def the_read_time_is_compared_across_clocks(now: datetime, at: datetime) -> datetime:
    """The read time stays on its own clock, so every comparison with an event's time on
    another asks both clocks their offsets: the same answers, each event slower."""
    return now


@mutant(replaces="planner.authority._on_clock_of", turns_red={ENDS})
def a_read_time_the_clock_cannot_show_fails_the_read(now: datetime, at: datetime) -> datetime:
    """The read time is moved onto every fixed clock, even where the calendar ends before
    that clock could show it (``OverflowError`` out of the fold)."""
    zone = at.tzinfo
    return now if zone is None or zone.utcoffset(None) is None else now.astimezone(zone)


def _order_checked(
    lines: Iterable[str],
    source: str,
    *,
    wall_clocks: bool = False,
    repeats: bool = False,
    lenient: bool = False,
) -> Iterator[AuthorityEvent]:
    """``log_events`` with its order checks written out, one of them loosened; every line is
    read before it returns (see the module doc)."""
    events: list[AuthorityEvent] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        event = _lenient(line) if lenient else None
        if event is None:
            (event,) = log_events([""] * (number - 1) + [line], source)
        if events:
            previous = events[-1]
            if event.seq < previous.seq or (event.seq == previous.seq and not repeats):
                where = f"line {number}, field seq"
                raise PlannerInputError(
                    source, where, f"seq {event.seq} does not follow {previous.seq}"
                )
            at, before = event.at, previous.at
            if wall_clocks:
                at, before = _wall_clock(at), _wall_clock(before)
            if at < before:
                where = f"line {number}, field at"
                message = f"{event.at.isoformat()} is earlier than line before"
                raise PlannerInputError(source, where, message)
        events.append(event)
    return iter(events)


def _lenient(line: str) -> AuthorityEvent | None:
    """The line's event in pydantic's lax mode (a key given twice still refused), or None
    when even that fails."""
    try:
        event: AuthorityEvent = _LENIENT.validate_python(strict_json(line))
    except (ValueError, TypeError):
        return None
    return event


@mutant(replaces="planner.authority.log_events", turns_red={OFFSETS, CORRUPT})
def log_order_checked_on_wall_clocks(lines: Iterable[str], source: str) -> Iterator[AuthorityEvent]:
    """The log's time order is checked on wall-clock readings, so a line logged later in
    another zone reads as earlier, and an earlier one as later."""
    return _order_checked(lines, source, wall_clocks=True)


@mutant(replaces="planner.authority.log_events", turns_red={CORRUPT}, independent=False)
def a_repeated_seq_is_accepted(lines: Iterable[str], source: str) -> Iterator[AuthorityEvent]:
    """A line may repeat the seq of the line before (``seq`` need only not decrease)."""
    return _order_checked(lines, source, repeats=True)


@mutant(replaces="planner.admission.arm_launch_admission", turns_red={EVERY, TWO, UNKNOWN})
def admission_stops_at_the_first_failed_conjunct(
    state: AuthorityState, group: FabricGroup, candidate: Candidate, image_digest: str
) -> AdmissionVerdict:
    """Admission reports only the first failed conjunct, hiding the others."""
    verdict = arm_launch_admission(state, group, candidate, image_digest)
    return AdmissionVerdict(refusals=verdict.refusals[:1])


@mutant(
    replaces="planner.authority.AuthorityState.runtime_keys_admitting",
    turns_red={EVERY, TWO, UNKNOWN, FOLD},
)
def runtime_keys_not_admitting_listed(self: AuthorityState, digest: str) -> tuple[str, ...]:
    """The membership test is inverted: the keys listed as admitting an image are those that
    did not admit it."""
    return tuple(key for key, digests in self.admitted_images if digest not in digests)


@mutant(replaces="planner.admission.successor_may_launch", turns_red={UNKNOWN})
def a_group_the_log_never_named_passes_conjunct_one(
    state: AuthorityState, group: FabricGroup
) -> tuple[Refusal, ...]:
    """A group the log never mentions passes conjunct 1, as if silence were a suspension."""
    if state.group(group.name) is None:
        return ()
    return successor_may_launch(state, group)


@mutant(
    replaces="planner.admission.successor_may_launch",
    turns_red={
        ACTIVE,
        HINTS,
    },
    independent=False,
)
def active_incumbent_refused_without_its_hint(
    state: AuthorityState, group: FabricGroup
) -> tuple[Refusal, ...]:
    """The active-incumbent refusal loses its hint, so the operator is not told to suspend
    the group for the successor first."""
    return tuple(r.model_copy(update={"hint": ""}) for r in successor_may_launch(state, group))


@mutant(
    replaces="planner.authority.fold",
    turns_red={FOLD, ONE_CLOCK},
    independent=False,
)
def a_repeated_admission_is_listed_twice(
    events: Iterable[AuthorityEvent], now: datetime
) -> AuthorityState:
    """The fold appends every image admission, so an image admitted twice for one key is
    listed twice."""
    events = tuple(events)
    state = fold(events, now)
    repeats: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, ImageAdmitted) and event.at <= now:
            repeats.setdefault(event.runtime_key, []).append(event.config_digest)
    images = tuple((key, tuple(repeats[key])) for key, _ in state.admitted_images)
    return state.model_copy(update={"admitted_images": images})


@mutant(
    replaces="planner.authority.fold",
    turns_red={FOLD, ONE_CLOCK},
    independent=False,
)
def releasing_an_unheld_host_fails(
    events: Iterable[AuthorityEvent], now: datetime
) -> AuthorityState:
    """The fold pops a released host without a default: releasing a host nobody holds
    raises instead of changing nothing."""
    events = tuple(events)
    held: set[str] = set()
    for event in events:
        if event.at > now:
            break
        if isinstance(event, HostReleased):
            held.remove(event.host)
        elif isinstance(event, HostHeld):
            held.add(event.host)
    return fold(events, now)


@mutant(replaces="planner.authority.fold", turns_red={ONCE, ONE_CLOCK}, independent=False)
def a_host_held_again_is_listed_again(
    events: Iterable[AuthorityEvent], now: datetime
) -> AuthorityState:
    """The fold appends a pair per hold instead of keeping one holder per host, so a host
    held twice is listed twice (lookups still find its last holder)."""
    events = tuple(events)
    state = fold(events, now)
    pairs: list[tuple[str, str]] = []
    for event in events:
        if event.at > now:
            break
        if isinstance(event, HostHeld):
            pairs.append((event.host, event.subject))
        elif isinstance(event, HostReleased):
            pairs = [p for p in pairs if p[0] != event.host]
    return state.model_copy(update={"holdings": tuple(pairs)})


@mutant(replaces="planner.authority.parse_log", turns_red={RECORDS, NEWLINE}, independent=False)
def a_log_text_starts_with_a_header_line(text: str, source: str) -> tuple[AuthorityEvent, ...]:
    """Log text is read as if its first line were a header: the first record is skipped."""
    lines = text.split("\n")
    return (*tuple(log_events(["", *lines[1:]], source)),)


@mutant(
    replaces="planner.authority.read_log",
    turns_red={RECORDS, NEWLINE, STREAM, ONCE},
    independent=False,
)
def events_of_one_instant_are_read_newest_first(path: Path) -> tuple[AuthorityEvent, ...]:
    """The reader orders events by instant, newest first among equal instants (a sort on
    the wrong key), so records logged in one second come back swapped."""
    events = tuple(stream_log(path))
    return tuple(sorted(events, key=lambda e: (e.at, -e.seq)))


@mutant(replaces="planner.authority.log_events", turns_red={CORRUPT, PLAINLY}, independent=False)
def blank_lines_are_not_counted(lines: Iterable[str], source: str) -> Iterator[AuthorityEvent]:
    """Blank lines are dropped before lines are numbered, so an error after a blank line
    names the wrong line."""
    return iter(tuple(log_events([line for line in lines if line.strip()], source)))


@mutant(replaces="planner.authority.log_events", turns_red={BLANK}, independent=False)
def a_whitespace_line_is_read_as_an_event(
    lines: Iterable[str], source: str
) -> Iterator[AuthorityEvent]:
    """Only empty lines are skipped: a line of spaces or tabs is parsed, and fails, as JSON."""
    read = list(lines)
    for number, line in enumerate(read, start=1):
        if line.rstrip("\n") and not line.strip():  # a file's lines keep their "\n"
            raise PlannerInputError(source, f"line {number}", "not a JSON object: Expecting value")
    return iter(tuple(log_events(read, source)))


@mutant(
    replaces="planner.authority.stream_log",
    turns_red={UNREADABLE},
)
def an_unreadable_log_is_not_named(path: Path) -> Iterator[AuthorityEvent]:
    """An unreadable log is reported without the file it is."""
    try:
        return iter(tuple(stream_log(path)))
    except PlannerInputError as exc:
        if exc.where != "<file>":
            raise
        raise PlannerInputError("authority log", exc.where, exc.message) from exc


@mutant(
    replaces="filerules.reading.strict_json",
    turns_red={
        TWICE,
        PLAINLY,
    },
)
def the_last_of_a_key_given_twice_wins(text: str) -> object:
    """A line is read with plain ``json.loads``: a key given twice keeps its last value (the
    suspension that names another candidate, then this one, admits), NaN and integers of any
    size are read."""
    return json.loads(text)


@mutant(replaces="planner.authority.log_events", turns_red={PLAINLY}, independent=False)
def a_line_is_validated_leniently(lines: Iterable[str], source: str) -> Iterator[AuthorityEvent]:
    """Each line's values are validated in pydantic's lax mode: ``true`` is a seq of 1,
    ``"15"`` a seq of 15, and ``15.0`` one too."""
    return _order_checked(lines, source, lenient=True)


@mutant(replaces="planner.authority.stream_log", turns_red={NEWLINE}, independent=False)
def records_split_at_every_line_break(path: Path) -> Iterator[AuthorityEvent]:
    """The log is split with ``str.splitlines``: a record holding U+2028 (or U+2029, U+0085,
    a form feed, a carriage return) is split in two, and two records joined by a carriage
    return are read as two."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise PlannerInputError(str(path), "<file>", f"cannot read authority log: {exc}") from exc
    return iter(tuple(log_events(text.splitlines(), str(path))))


@mutant(replaces="planner.authority.read_state", turns_red={STREAM}, independent=False)
def the_stream_stops_at_the_read_time(path: Path, now: datetime) -> AuthorityState:
    """The stream is read only up to the first event after the read time: a corrupt line
    after that one is never seen, and the log admits."""
    seen = []
    for event in stream_log(path):
        if event.at > now:
            break
        seen.append(event)
    return fold(seen, now)


@mutant(replaces="planner.admission.hosts_held_by_subject", turns_red={HINTS})
def a_host_not_held_hint_names_its_holder(
    state: AuthorityState, group: FabricGroup
) -> tuple[Refusal, ...]:
    """A host not held is hinted to be held for whoever holds it now, not the group's
    subject: following the hint changes nothing."""
    holders = dict(state.holdings)
    return tuple(
        r.model_copy(
            update={
                "hint": f"hold {r.location[-1]} for {holders.get(str(r.location[-1]))} "
                "first (a host_held event)"
            }
        )
        for r in hosts_held_by_subject(state, group)
    )


@mutant(
    replaces="planner.admission.image_admitted_for_runtime",
    turns_red={HINTS},
)
def image_not_admitted_hint_dropped(
    state: AuthorityState, candidate: Candidate, image_digest: str
) -> tuple[Refusal, ...]:
    """An image not admitted is refused with no word on how to admit it."""
    found = image_admitted_for_runtime(state, candidate, image_digest)
    return tuple(r.model_copy(update={"hint": ""}) for r in found)


_WRITTEN_ORDER = {
    get_args(get_type_hints(kind)["event"])[0]: tuple(f.name for f in fields(kind))
    for kind in (GroupActive, GroupSuspended, ImageAdmitted, HostHeld, HostReleased)
}
"""Each kind's keys in the order the scenario logs write them (the dataclass's fields)."""


def _by_position(line: str) -> str:
    """``line`` with its values given to the written order's keys by position, when its keys
    are that order's keys in another order; otherwise ``line`` itself."""
    try:
        pairs = json.loads(line, object_pairs_hook=list)
    except ValueError:
        return line
    if not isinstance(pairs, list) or len(pairs) < 3:
        return line
    keys, values = [k for k, _ in pairs], [v for _, v in pairs]
    order = _WRITTEN_ORDER.get(values[2]) if isinstance(values[2], str) else None
    if order is None or sorted(keys) != sorted(order) or tuple(keys) == order:
        return line
    return json.dumps(dict(zip(order, values, strict=True)), separators=(",", ":"))


@mutant(replaces="planner.authority.log_events", turns_red={KEY_ORDER}, independent=False)
def a_record_is_read_by_the_position_of_its_keys(
    lines: Iterable[str], source: str
) -> Iterator[AuthorityEvent]:
    """A fast reader takes a record's values by position, in the order the planner's own
    logs write the keys (``seq``, ``at``, ``event``, then the kind's fields), so a record
    whose keys come in another order reads its values into the wrong fields. A record whose
    keys are not all distinct, or that is not a JSON object, is read as before."""
    return iter(list(log_events([_by_position(line) for line in lines], source)))
