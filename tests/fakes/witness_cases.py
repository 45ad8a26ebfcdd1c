"""A claim over cases beside a plain one: the cases' order is the claims' order."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, expect, holds


def cases() -> dict[str, int]:
    return {"two": 2, "three": 3, "four-4": 4}


@claim(ClaimKind.PLANNED_SHAPE)
def plain_comes_first() -> Verdict:
    """Not over cases."""
    return holds("plain")


@claim(ClaimKind.PROPERTY)
def the_case_is_even(case: int) -> Verdict:
    """Each case's value is even."""
    return expect(case % 2 == 0, f"{case} is even", f"{case} is odd")
