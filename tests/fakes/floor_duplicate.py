"""A claim defined twice (the first is silently lost) and a claim bound under two names."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def head_is_rank_zero() -> Verdict:
    """First definition."""
    return holds("first")


@claim(ClaimKind.PLANNED_SHAPE)  # type: ignore[no-redef]
def head_is_rank_zero() -> Verdict:  # noqa: F811
    """Second definition."""
    return holds("second")


@claim(ClaimKind.REFUSAL)
def lease_is_live() -> Verdict:
    """The lease is live."""
    return holds("live")


lease_is_still_live = lease_is_live
