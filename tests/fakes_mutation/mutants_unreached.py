"""A mutant of a function the claims only reach through a dispatch table bound at import."""

from __future__ import annotations

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.badge_valid",
    turns_red={"fake_door.a_revoked_badge_is_refused"},
    independent=False,
)
def revoked_badges_pass(badge: str) -> bool:
    """A revoked badge counts as valid."""
    return True
