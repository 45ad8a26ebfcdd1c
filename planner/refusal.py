"""Refusals are data: a stable code, a location, a message quoting the value, a hint.

A check collects every failed condition instead of stopping at the first; exceptions
are reserved for bugs, misuse and unreadable input (:class:`PlannerInputError`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

Location = tuple[str | int, ...]


def render_location(location: Location) -> str:
    """``("authority", "groups", "group_a")`` → ``authority.groups.group_a``; ints as ``[n]``."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "<root>"


class Refusal(BaseModel):
    """One failed condition, located."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    location: Location
    message: str
    hint: str = ""

    @property
    def where(self) -> str:
        return render_location(self.location)

    def line(self) -> str:
        """The one-line form the command line prints."""
        return f"refused: {self.code} at {self.where}: {self.message}"

    def lines(self) -> tuple[str, ...]:
        """As printed and reported: the refusal's line, then its hint on a line of its own
        (``  hint: …``) when it has one."""
        return (self.line(), f"  hint: {self.hint}") if self.hint else (self.line(),)


def refusal(code: str, location: Location, message: str, hint: str = "") -> Refusal:
    return Refusal(code=code, location=location, message=message, hint=hint)


class PlannerInputError(Exception):
    """Input the planner cannot read: names the file, the place in it and the bad value."""

    def __init__(self, source: str, where: str, message: str) -> None:
        self.source = source
        self.where = where
        self.message = message
        super().__init__(f"{source}: {where}: {message}")
