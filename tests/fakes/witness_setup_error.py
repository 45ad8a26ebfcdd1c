"""A witness whose ``setup()`` fails: unresolved, and its claims never run."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds

RAN: list[str] = []


def setup() -> None:
    raise RuntimeError("authority log fixture is empty")


@claim(ClaimKind.PLANNED_SHAPE)
def would_pass() -> Verdict:
    """Would pass, but setup failed first."""
    RAN.append("would_pass")
    return holds("ran")
