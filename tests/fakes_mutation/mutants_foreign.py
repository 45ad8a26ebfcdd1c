"""A door mutant that types another witness's claim by hand (a floor violation)."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.key_fits",
    turns_red={"fake_door.a_wrong_key_is_refused", "fake_lobby.a_stranger_waits_in_the_lobby"},
)
def any_key_fits(key: str, lock: str) -> bool:
    """Any key fits any lock."""
    return True
