"""The lobby's own mutant: it turns its own claim red (declared) and the door's night claim
red too (recorded, never declared)."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.within_hours",
    turns_red={"fake_lobby.the_lobby_closes_at_night"},
)
def the_lobby_never_closes(hour: int) -> bool:
    """Every hour is within opening hours."""
    return True


@mutant(
    replaces="tests.fakes_mutation.door.key_fits",
    turns_red={"fake_lobby.a_stranger_waits_in_the_lobby"},
)
def the_lobby_takes_any_key(key: str, lock: str) -> bool:
    """Any key fits any lock."""
    return True
