"""The authority log: the only live read. Append-only JSON lines folded into state.

Each line is one event with a strictly increasing ``seq`` and a non-decreasing ``at``.
The fold reads the log *at a given time*: events after ``now`` have not happened yet.
A malformed line is an error naming the file, the line and the field — the whole read
fails, so no admission is ever decided on part of a log.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, TypeAdapter, ValidationError

from planner.refusal import PlannerInputError
from planner.values import Frozen, SafeName, located


class _Event(Frozen):
    seq: int = Field(ge=1)
    at: AwareDatetime


class GroupActive(_Event):
    event: Literal["group_active"]
    group: SafeName
    incumbent: str


class GroupSuspended(_Event):
    event: Literal["group_suspended"]
    group: SafeName
    successor: str
    lease_expires_at: AwareDatetime


class ImageAdmitted(_Event):
    event: Literal["image_admitted"]
    runtime_key: SafeName
    config_digest: str


class HostHeld(_Event):
    event: Literal["host_held"]
    host: SafeName
    subject: SafeName


class HostReleased(_Event):
    event: Literal["host_released"]
    host: SafeName


AuthorityEvent = Annotated[
    GroupActive | GroupSuspended | ImageAdmitted | HostHeld | HostReleased,
    Field(discriminator="event"),
]
_EVENT = TypeAdapter(AuthorityEvent)
_TAG_ERRORS = ("union_tag_invalid", "union_tag_not_found")
"""A missing or unknown ``event`` kind: pydantic locates it at the root, we name the field."""


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

    def holder(self, host: str) -> str | None:
        return dict(self.holdings).get(host)


def parse_log(text: str, source: str) -> tuple[AuthorityEvent, ...]:
    """Parse every line; the first malformed one raises, naming file, line and field."""
    events: list[AuthorityEvent] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            events.append(_parse_line(line, source, number, events[-1] if events else None))
    return tuple(events)


def _parse_line(
    line: str, source: str, number: int, previous: AuthorityEvent | None
) -> AuthorityEvent:
    where = f"line {number}"
    try:
        event = _EVENT.validate_python(json.loads(line))
    except json.JSONDecodeError as exc:
        raise PlannerInputError(source, where, f"not a JSON object: {exc.msg}") from exc
    except ValidationError as exc:
        field, message = located(exc)
        if exc.errors()[0]["type"] in _TAG_ERRORS:
            field = "event"
        raise PlannerInputError(source, f"{where}, field {field}", message) from exc
    if previous is not None and event.seq <= previous.seq:
        raise PlannerInputError(
            source, f"{where}, field seq", f"seq {event.seq} does not follow {previous.seq}"
        )
    if previous is not None and event.at < previous.at:
        raise PlannerInputError(
            source, f"{where}, field at", f"{event.at.isoformat()} is earlier than line before"
        )
    return event


def read_log(path: Path) -> tuple[AuthorityEvent, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlannerInputError(str(path), "<file>", f"cannot read authority log: {exc}") from exc
    return parse_log(text, str(path))


def fold(events: tuple[AuthorityEvent, ...], now: datetime) -> AuthorityState:
    """The state the log describes at ``now``; later events are ignored."""
    groups: dict[str, GroupState] = {}
    images: dict[str, tuple[str, ...]] = {}
    holdings: dict[str, str] = {}
    for event in events:
        if event.at > now:
            break
        match event:
            case GroupActive():
                groups[event.group] = Active(incumbent=event.incumbent)
            case GroupSuspended():
                groups[event.group] = SuspendedForAuthorizedSuccessor(
                    candidate=event.successor, lease_expires_at=event.lease_expires_at
                )
            case ImageAdmitted():
                known = images.get(event.runtime_key, ())
                if event.config_digest not in known:
                    images[event.runtime_key] = (*known, event.config_digest)
            case HostHeld():
                holdings[event.host] = event.subject
            case HostReleased():
                holdings.pop(event.host, None)
    return AuthorityState(
        read_at=now,
        groups=tuple(groups.items()),
        admitted_images=tuple(images.items()),
        holdings=tuple(holdings.items()),
    )
