"""Claims defined out of alphabetical order: discovery keeps source order."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.IDENTITY)
def zebra_comes_first() -> Verdict:
    """Defined first."""
    return holds("first")


@claim(ClaimKind.REFUSAL)
def apple_comes_second() -> Verdict:
    """Defined second."""
    return holds("second")


@claim(ClaimKind.PLANNED_SHAPE)
def mango_comes_third() -> Verdict:
    """Defined third."""
    return holds("third")
