"""One exact mutant only: every other claim of ``fake_door`` is unwitnessed."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.key_fits", turns_red={"fake_door.a_wrong_key_is_refused"}
)
def any_key_fits(key: str, lock: str) -> bool:
    """Any key fits any lock."""
    return True
