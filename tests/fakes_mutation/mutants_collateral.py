"""A mutant that turns a claim red it does not declare (the badge refusal)."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.door_opens",
    turns_red={"fake_door.a_wrong_key_is_refused", "fake_door.night_is_refused"},
    independent=False,
)
def the_door_always_opens(key: str, lock: str, hour: int, badge: str = "staff") -> bool:
    """The door opens for anyone at any hour."""
    return True
