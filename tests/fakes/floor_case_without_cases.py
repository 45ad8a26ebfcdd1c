"""A claim taking ``case`` in a module that names no cases."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def over_nothing(case: int) -> Verdict:
    """Takes a case no cases() gives."""
    return holds(str(case))
