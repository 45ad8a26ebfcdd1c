"""A claim with no docstring."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.REFUSAL)
def refused_without_saying_why() -> Verdict:
    return holds("refused")
