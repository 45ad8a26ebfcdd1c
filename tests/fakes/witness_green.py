"""A witness whose every claim holds; ``setup()`` counts its calls."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claims import ClaimKind, Verdict, claim, expect_equal, holds

SETUP_CALLS: list[str] = []


def setup() -> None:
    SETUP_CALLS.append("setup")


def _serve_port() -> int:
    return 8000


@claim(ClaimKind.PLANNED_SHAPE)
def rank_zero_serves_on_the_route_port() -> Verdict:
    """Rank zero serves on the route's port, 8000."""
    return expect_equal(8000, _serve_port(), "serve port")


@claim(ClaimKind.REFUSAL)
def half_utilization_is_refused() -> Verdict:
    """At 0.50 utilization the fit wall refuses, naming the allowance."""
    return holds("refused fit_wall at profile.gpu_memory_utilization")


@claim(ClaimKind.POSITIVE_CONTROL)
def the_right_image_is_admitted() -> Verdict:
    """The admitted image for the candidate's runtime key is admitted."""
    assert _serve_port() == 8000, "the control input must be admitted"
    return holds("admitted")


@claim(ClaimKind.PROPERTY)
@given(st.integers(min_value=0, max_value=2**40))
def ceiling_never_rounds_down(size: int) -> None:
    """Rounding a byte count up to GiB never loses bytes."""
    assert -(-size // 2**30) * 2**30 >= size
