"""Witness ``fake_door``: claims about the fake door planner."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, expect
from tests.fakes_mutation.door import Sign, door_opens, key_fits


@claim(ClaimKind.POSITIVE_CONTROL)
def the_right_key_opens_by_day() -> Verdict:
    """The right key at 09:00 with a staff badge opens the door."""
    return expect(door_opens("k", "k", 9), "opened", "the right key was refused")


@claim(ClaimKind.REFUSAL)
def a_wrong_key_is_refused() -> Verdict:
    """A wrong key is refused."""
    return expect(not door_opens("x", "k", 9), "refused", "a wrong key opened the door")


@claim(ClaimKind.REFUSAL)
def night_is_refused() -> Verdict:
    """The right key at 22:00 is refused."""
    return expect(not door_opens("k", "k", 22), "refused", "the door opened at night")


@claim(ClaimKind.PLANNED_SHAPE)
def a_key_fits_its_own_lock() -> Verdict:
    """key_fits holds for a key and its own lock (called directly, through the witness's import)."""
    return expect(key_fits("k", "k"), "fits", "a key does not fit its own lock")


@claim(ClaimKind.PLANNED_SHAPE)
def the_sign_is_bracketed_and_calm() -> Verdict:
    """The sign reads [open] and does not shout."""
    sign = Sign("open")
    return expect(sign.label() == "[open]" and not sign.shouting, sign.label(), "sign wrong")


@claim(ClaimKind.REFUSAL)
def a_revoked_badge_is_refused() -> Verdict:
    """The right key by day with a revoked badge is refused."""
    return expect(not door_opens("k", "k", 9, "revoked-7"), "refused", "a revoked badge opened")
