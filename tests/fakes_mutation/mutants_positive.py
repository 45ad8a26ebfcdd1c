"""A mutant that turns the positive control red without declaring it."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.key_fits",
    turns_red={"fake_door.a_key_fits_its_own_lock"},
    independent=False,
)
def keys_never_fit(key: str, lock: str) -> bool:
    """No key fits, so the right key is refused too."""
    return False
