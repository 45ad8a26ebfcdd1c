"""Booking seats at a desk: argv per seat, a unit text, rows counted from 1."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

OPENS = datetime(2026, 1, 2, 9, 0, 0)


class Frozen(BaseModel):
    """A desk value, like ``planner.values.Frozen``: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Seat(Frozen):
    name: str
    row: int
    argv: tuple[str, ...]


class Booking(Frozen):
    seats: tuple[Seat, ...]
    at: datetime
    unit: str


def seat_argv(name: str, row: int) -> tuple[str, ...]:
    """The command that seats ``name`` in ``row``."""
    return ("desk", "--name", name, "--row", str(row))


def unit_text(names: tuple[str, ...]) -> str:
    """A unit whose description names the guests (no claim reads it)."""
    return "[Unit]\nDescription=desk for " + " ".join(names) + "\nAfter=network.target\n"


def book(names: tuple[str, ...]) -> Booking:
    """One seat per name, row by row from 1."""
    seats = tuple(Seat(name=n, row=i, argv=seat_argv(n, i)) for i, n in enumerate(names, start=1))
    return Booking(seats=seats, at=OPENS, unit=unit_text(names))


def count(names: tuple[str, ...]) -> int:
    """Not a boundary: it returns an int."""
    return len(names)


def unused() -> Seat:
    """A boundary no claim calls."""
    return Seat(name="nobody", row=0, argv=())
