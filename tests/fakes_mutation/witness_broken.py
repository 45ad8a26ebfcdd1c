"""Witness ``fake_broken``: one claim that fails with no mutant at all."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, fails


@claim(ClaimKind.PLANNED_SHAPE)
def this_never_holds() -> Verdict:
    """A claim that is red on a clean tree."""
    return fails("red by construction")
