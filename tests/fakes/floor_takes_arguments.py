"""A claim that needs an argument the runner never passes."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def hosts_are_four(hosts: int) -> Verdict:
    """There are four hosts."""
    return holds(str(hosts))
