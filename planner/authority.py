"""The authority log: the only live read. Append-only JSON lines folded into state.

Each line is one event with a strictly increasing ``seq`` and a non-decreasing ``at``.
The fold reads the log *at a given time*: events after ``now`` have not happened yet.
A malformed line is an error naming the file, the line and the field — the whole read
fails, so no admission is ever decided on part of a log.

Lines end at ``\\n`` only (a ``\\r`` before it is JSON whitespace; U+2028 inside a string is
text, never a line end). Each line is strict JSON (:func:`planner.values.strict_json`): a key
given twice is a line that says two things, and it is corrupt; values are validated in
pydantic's strict JSON mode (``true`` is not a ``seq``, ``"7"`` is not one either).

:func:`read_state` folds a file as a stream: it holds one line and the fold's state, never
the whole file or its events, so memory stays flat in the number of events.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Annotated, ClassVar, Literal, TextIO

from pydantic import AwareDatetime, ConfigDict, Field, TypeAdapter, ValidationError

from planner import provenance
from planner.refusal import PlannerInputError
from planner.values import INT_RANGE, BulkSafeName, Frozen, JsonProblem, located, strict_json

_CACHE_KEYS = ConfigDict(cache_strings="keys")
"""A log's values (times, candidates) rarely repeat: caching them would only make memory grow
with the log, so only keys are cached."""


@dataclass(frozen=True)
class _Event:
    """An event is a frozen dataclass, not a model: pydantic validates the line straight into
    it, and a log of a million lines builds a million of them."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")
    seq: Annotated[int, Field(ge=1)]
    at: AwareDatetime


@dataclass(frozen=True)
class GroupActive(_Event):
    event: Literal["group_active"]
    group: BulkSafeName
    incumbent: str


@dataclass(frozen=True)
class GroupSuspended(_Event):
    event: Literal["group_suspended"]
    group: BulkSafeName
    successor: str
    lease_expires_at: AwareDatetime


@dataclass(frozen=True)
class ImageAdmitted(_Event):
    event: Literal["image_admitted"]
    runtime_key: BulkSafeName
    config_digest: str


@dataclass(frozen=True)
class HostHeld(_Event):
    event: Literal["host_held"]
    host: BulkSafeName
    subject: BulkSafeName


@dataclass(frozen=True)
class HostReleased(_Event):
    event: Literal["host_released"]
    host: BulkSafeName


AuthorityEvent = Annotated[
    GroupActive | GroupSuspended | ImageAdmitted | HostHeld | HostReleased,
    Field(discriminator="event"),
]
_EVENT = TypeAdapter(AuthorityEvent, config=_CACHE_KEYS)
_VALIDATE_JSON = _EVENT.validator.validate_json
"""The adapter's core validator, called without the adapter's per-call wrapper (a log is a
million calls)."""
_TAG_ERRORS = ("union_tag_invalid", "union_tag_not_found")
"""A missing or unknown ``event`` kind: pydantic locates it at the root, we name the field."""
_QUOTES = {
    kind: 4 * len(fields(kind)) - 2
    for kind in (GroupActive, GroupSuspended, ImageAdmitted, HostHeld, HostReleased)
}
"""The ``"`` a line of each kind holds when it names each field once: two per key, two per
value, and ``seq`` is the one value that is not a string."""


class Active(Frozen):
    """The group serves its incumbent."""

    state: Literal["active"] = "active"
    incumbent: str


class SuspendedForAuthorizedSuccessor(Frozen):
    """The group is suspended so that exactly ``candidate`` may launch before the lease ends."""

    state: Literal["suspended_for_authorized_successor"] = "suspended_for_authorized_successor"
    candidate: str
    lease_expires_at: AwareDatetime

    def lease_live(self, now: datetime) -> bool:
        return now < self.lease_expires_at


GroupState = Active | SuspendedForAuthorizedSuccessor


class AuthorityState(Frozen):
    """The log folded at ``read_at``."""

    read_at: AwareDatetime
    groups: tuple[tuple[str, GroupState], ...] = ()
    admitted_images: tuple[tuple[str, tuple[str, ...]], ...] = ()
    holdings: tuple[tuple[str, str], ...] = ()

    def group(self, name: str) -> GroupState | None:
        return dict(self.groups).get(name)

    def images_for(self, runtime_key: str) -> tuple[str, ...]:
        return dict(self.admitted_images).get(runtime_key, ())

    def runtime_keys_admitting(self, digest: str) -> tuple[str, ...]:
        return tuple(key for key, digests in self.admitted_images if digest in digests)


def log_events(lines: Iterable[str], source: str) -> Iterator[AuthorityEvent]:
    """Each non-blank line parsed in turn (lines numbered from 1, blank ones counted); the
    first malformed or out-of-order line raises, naming file, line and field.

    A line is parsed once, by pydantic, when :func:`_plainly_once` proves strict JSON would
    read it alike (a log is a million lines: this loop is the reader's whole cost)."""
    seq, at = 0, None  # every seq is at least 1
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():  # as line.strip(), without making a copy of each line
            continue
        try:
            event: AuthorityEvent = _VALIDATE_JSON(line, strict=True)
        except ValidationError as exc:
            raise _refused(line, source, number, exc) from exc
        if not _plainly_once(line, event):
            _refuse_unplain_json(line, source, f"line {number}")
        if event.seq <= seq:
            raise PlannerInputError(
                source, f"line {number}, field seq", f"seq {event.seq} does not follow {seq}"
            )
        if at is not None and event.at < at:
            message = f"{event.at.isoformat()} is earlier than line before"
            raise PlannerInputError(source, f"line {number}, field at", message)
        seq, at = event.seq, event.at
        yield event


def parse_log(text: str, source: str) -> tuple[AuthorityEvent, ...]:
    """Parse every line of ``text`` (split at ``\\n`` only)."""
    return tuple(log_events(text.split("\n"), source))


def _refused(line: str, source: str, number: int, exc: ValidationError) -> PlannerInputError:
    """The located error for a line pydantic refused: a JSON problem is named before a
    value's (raised from here), and a missing or unknown kind names the ``event`` field."""
    where = f"line {number}"
    _refuse_unplain_json(line, source, where)
    field, message = located(exc)
    if exc.errors()[0]["type"] in _TAG_ERRORS:
        field = "event"
    return PlannerInputError(source, f"{where}, field {field}", message)


def _plainly_once(line: str, event: AuthorityEvent) -> bool:
    """Whether ``line`` is provably read alike by :func:`planner.values.strict_json`, once
    pydantic has read ``event`` from it, so that the common line is parsed once. Pydantic
    keeps the last of a key given twice and reads an integer of any size, where strict JSON
    refuses both: a key given twice adds two ``"`` beyond :data:`_QUOTES` (an escaped quote
    only adds more), and ``seq`` is the one integer. (Escapes decode alike in both; a lone
    surrogate both refuse. ``tests/test_planner_authority.py`` holds the two readings equal.)"""
    return line.count('"') == _QUOTES[type(event)] and event.seq in INT_RANGE


def _refuse_unplain_json(line: str, source: str, where: str) -> None:
    """Raise the located error when ``line`` is not JSON, or JSON the planner refuses."""
    try:
        strict_json(line)
    except json.JSONDecodeError as exc:
        raise PlannerInputError(source, where, f"not a JSON object: {exc.msg}") from exc
    except JsonProblem as exc:
        field = f", field {exc.where}" if exc.position is None else f", column {exc.position[1]}"
        raise PlannerInputError(source, f"{where}{field}", exc.message) from exc


def stream_log(path: Path) -> Iterator[AuthorityEvent]:
    """The log's events, read one line at a time as they are consumed.

    A file that cannot be opened raises here, at the call; a line that is not UTF-8 or not
    an event raises when it is reached."""
    try:
        handle = path.open(encoding="utf-8", newline="\n")
    except (OSError, ValueError) as exc:  # ValueError: a path Linux cannot take
        raise PlannerInputError(str(path), "<file>", f"cannot read authority log: {exc}") from exc
    return _closing(handle, str(path))


def _closing(handle: TextIO, source: str) -> Iterator[AuthorityEvent]:
    with handle:
        try:
            if not provenance.active():
                yield from log_events(handle, source)
                return
            digest = hashlib.sha256()
            yield from log_events(_hashed(handle, digest), source)
            size = handle.buffer.tell()
        except (OSError, UnicodeDecodeError) as exc:
            message = f"cannot read authority log: {exc}"
            raise PlannerInputError(source, "<file>", message) from exc
    provenance.note_digest(Path(source), ROLE, size, digest.hexdigest(), prefix=True)


ROLE = "authority log"
"""What a saved plan calls the log it read (:mod:`planner.provenance`): only the bytes read
are bound, since events may be appended after them."""


def _hashed(lines: Iterable[str], digest: hashlib._Hash) -> Iterator[str]:
    """``lines``, each fed to ``digest`` as the UTF-8 bytes it was read from (the log is
    opened with ``newline="\\n"``, so a line's text is its bytes, decoded)."""
    for line in lines:
        digest.update(line.encode("utf-8"))
        yield line


def read_log(path: Path) -> tuple[AuthorityEvent, ...]:
    """Every event of the log file (the whole read fails on one bad line)."""
    return tuple(stream_log(path))


def read_state(path: Path, now: datetime) -> AuthorityState:
    """The log file folded at ``now`` as a stream: memory holds the fold's state only."""
    return fold(stream_log(path), now)


def fold(events: Iterable[AuthorityEvent], now: datetime) -> AuthorityState:
    """The state the log describes at ``now``; later events are ignored.

    Every event is consumed (a stream is read to its end, so a corrupt line after ``now``
    still fails the read); events are in time order, so none after the first later one is
    applied. A group's state is built once, from the last event that names it."""
    groups: dict[str, GroupActive | GroupSuspended] = {}
    images: dict[str, dict[str, None]] = {}  # a dict as an ordered set: first admission first
    holdings: dict[str, str] = {}
    stream = iter(events)
    zone, until = None, now
    for event in stream:
        at = event.at
        if at.tzinfo is not zone:
            zone, until = at.tzinfo, _on_clock_of(now, at)
        if at > until:
            for _ in stream:  # read to the end: a corrupt line after now still fails
                pass
            break
        match event:
            case HostHeld():
                holdings[event.host] = event.subject
            case HostReleased():
                holdings.pop(event.host, None)
            case ImageAdmitted():
                admitted = images.get(event.runtime_key)
                if admitted is None:
                    admitted = images[event.runtime_key] = {}
                admitted.setdefault(event.config_digest)
            case GroupActive() | GroupSuspended():
                groups[event.group] = event
    return AuthorityState(
        read_at=now,
        groups=tuple((name, _group_state(last)) for name, last in groups.items()),
        admitted_images=tuple((key, tuple(digests)) for key, digests in images.items()),
        holdings=tuple(holdings.items()),
    )


def _on_clock_of(now: datetime, at: datetime) -> datetime:
    """``now`` read on ``at``'s clock when that clock is a fixed offset (every clock a log
    line can name), so that comparing the two compares their readings, Python's fast path
    for one ``tzinfo``, and means what comparing instants means; ``now`` itself otherwise:
    a zone whose offset changes, or an instant the clock cannot show (within a day of the
    calendar's ends)."""
    zone = at.tzinfo
    if zone is None or zone.utcoffset(None) is None:
        return now
    try:
        return now.astimezone(zone)
    except OverflowError:
        return now


def _group_state(last: GroupActive | GroupSuspended) -> GroupState:
    """What the last event naming a group says of it."""
    if isinstance(last, GroupActive):
        return Active(incumbent=last.incumbent)
    return SuspendedForAuthorizedSuccessor(
        candidate=last.successor, lease_expires_at=last.lease_expires_at
    )
