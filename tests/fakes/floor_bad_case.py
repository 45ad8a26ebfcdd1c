"""Case ids that cannot be spelled in a claim id."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


def cases() -> dict[str, int]:
    return {"good": 1, "a.b": 2, "x[1]": 3, "two words": 4, "": 5}


@claim(ClaimKind.PLANNED_SHAPE)
def over_bad_ids(case: int) -> Verdict:
    """Over ids that cannot be spelled."""
    return holds(str(case))
