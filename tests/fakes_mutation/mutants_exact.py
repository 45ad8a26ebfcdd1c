"""Mutants that are each exact: every claim of ``fake_door`` is witnessed."""

from __future__ import annotations

from mutation import combined, mutant
from tests.fakes_mutation.door import OPENING, Sign, key_fits, within_hours

W = "fake_door"


@mutant(replaces="tests.fakes_mutation.door.key_fits", turns_red={f"{W}.a_wrong_key_is_refused"})
def key_check_removed(key: str, lock: str) -> bool:
    """Any key fits any lock."""
    return True


@mutant(replaces="tests.fakes_mutation.door.within_hours", turns_red={f"{W}.night_is_refused"})
def the_door_never_closes(hour: int) -> bool:
    """Opening hours have no end."""
    return hour >= OPENING


@mutant(
    replaces="tests.fakes_mutation.door.Sign.label",
    turns_red={f"{W}.the_sign_is_bracketed_and_calm"},
)
def the_sign_loses_its_brackets(self: Sign) -> str:
    """The sign is rendered without brackets."""
    return self.text


@mutant(
    replaces="tests.fakes_mutation.door.Sign.shouting",
    turns_red={f"{W}.the_sign_is_bracketed_and_calm"},
)
def every_sign_shouts(self: Sign) -> bool:
    """Every sign counts as shouting."""
    return True


@mutant(
    replaces="tests.fakes_mutation.door.door_opens",
    turns_red={f"{W}.a_revoked_badge_is_refused"},
)
def badges_are_not_checked(key: str, lock: str, hour: int, badge: str = "staff") -> bool:
    """The door checks key and hours but forgets the badge."""
    return key_fits(key, lock) and within_hours(hour)


@mutant(
    replaces="tests.fakes_mutation.door.key_fits",
    turns_red={f"{W}.the_right_key_opens_by_day", f"{W}.a_key_fits_its_own_lock"},
    independent=False,
)
def no_key_fits(key: str, lock: str) -> bool:
    """No key fits any lock, not even its own."""
    return False


CONTROLS = (
    combined(
        "key_and_hours",
        "Two defects at once: key and hours.",
        key_check_removed,
        the_door_never_closes,
    ),
)
