"""Declarations that break the mutant floor, one rule each."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.key_fits", turns_red={"fake_door.a_wrong_key_is_refused"}
)
def undocumented(key: str, lock: str) -> bool:
    return True


@mutant(
    replaces="tests.fakes_mutation.door.no_such_function", turns_red={"fake_door.night_is_refused"}
)
def aims_at_nothing(hour: int) -> bool:
    """Replaces a function that does not exist."""
    return True


@mutant(replaces="tests.fakes_mutation.door.within_hours", turns_red={"fake_door.no_such_claim"})
def names_an_unknown_claim(hour: int) -> bool:
    """Declares a claim the witness does not have."""
    return True


@mutant(replaces="tests.fakes_mutation.door.within_hours", turns_red=set(), independent=False)
def declares_nothing(hour: int) -> bool:
    """Declares no claim at all."""
    return True


@mutant(replaces="tests.fakes_mutation.door.door_opens", turns_red={"fake_door.night_is_refused"})
def wrong_parameters(hour: int) -> bool:
    """Takes other parameters than the function it replaces."""
    return True


@mutant(
    replaces="tests.fakes_mutation.door.Sign.label",
    turns_red={"fake_door.the_right_key_opens_by_day"},
)
def combines_a_positive_control(self: object) -> str:
    """Independent, yet declares the positive control red."""
    return ""
