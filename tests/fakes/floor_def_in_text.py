"""A clean witness whose docstring starts two lines with the same ``def``, as an example:

def head_is_rank_zero() -> Verdict:
    ...

def head_is_rank_zero() -> Verdict:
    ...

Only the module's own statements define functions; text never redefines a claim.
"""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def head_is_rank_zero() -> Verdict:
    """Defined once."""
    return holds("once")
