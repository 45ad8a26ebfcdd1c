"""Witness ``fake_lobby``: a second witness over the fake door's code, so the door's mutants
turn its claims red too (what the recorded red sets hold)."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, expect
from tests.fakes_mutation.door import door_opens


@claim(ClaimKind.REFUSAL)
def a_stranger_waits_in_the_lobby() -> Verdict:
    """A visitor with the wrong key stays in the lobby by day."""
    return expect(not door_opens("x", "k", 10), "waits", "a stranger walked in")


@claim(ClaimKind.REFUSAL)
def the_lobby_closes_at_night() -> Verdict:
    """Nobody passes the lobby at 20:00, key or not."""
    return expect(not door_opens("k", "k", 20), "closed", "the lobby let someone in at night")
