"""A witness whose cases() raises: unresolved, naming why."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


def cases() -> dict[str, int]:
    raise LookupError("no registry")


@claim(ClaimKind.PLANNED_SHAPE)
def over_the_registry(case: int) -> Verdict:
    """Over a registry that cannot be read."""
    return holds(str(case))
