"""A tiny fake planner: a door that opens for the right key during opening hours.

``CHECKS`` binds :func:`badge_valid` into a dispatch table at import, so a patch of
``badge_valid`` never reaches ``door_opens`` (the forced-fail sanity run must catch that).
"""

from __future__ import annotations

from collections.abc import Callable

OPENING, CLOSING = 8, 18


def key_fits(key: str, lock: str) -> bool:
    """The key fits when it is exactly the lock's key."""
    return key == lock


def within_hours(hour: int) -> bool:
    """Opening hours are [8, 18)."""
    return OPENING <= hour < CLOSING


def badge_valid(badge: str) -> bool:
    """A badge is valid when it is not revoked."""
    return not badge.startswith("revoked")


CHECKS: dict[str, Callable[[str], bool]] = {"badge": badge_valid}


def door_opens(key: str, lock: str, hour: int, badge: str = "staff") -> bool:
    """Every condition at once: key, hours and badge."""
    return key_fits(key, lock) and within_hours(hour) and CHECKS["badge"](badge)


class Sign:
    """The sign on the door."""

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def shouting(self) -> bool:
        return self.text.isupper()

    def label(self) -> str:
        return f"[{self.text}]"
