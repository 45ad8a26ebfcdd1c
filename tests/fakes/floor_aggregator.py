"""Aggregators: claims that call another claim, directly or through a private helper."""

from __future__ import annotations

from types import SimpleNamespace

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def argv_is_planned() -> Verdict:
    """The argv is planned."""
    return holds("argv")


@claim(ClaimKind.PLANNED_SHAPE)
def everything_is_planned() -> Verdict:
    """Calls another claim directly: an aggregator."""
    return argv_is_planned()


def _check_argv() -> Verdict:
    return argv_is_planned()


@claim(ClaimKind.REFUSAL)
def refusal_through_a_helper() -> Verdict:
    """Reaches another claim through a private helper: still an aggregator."""
    return _check_argv()


@claim(ClaimKind.IDENTITY)
def attribute_named_like_a_claim() -> Verdict:
    """Reads an attribute that shares a claim's name: not an aggregator."""
    plan = SimpleNamespace(argv_is_planned="argv")
    return holds(plan.argv_is_planned)
