"""A witness with one claim of every way to not pass, and one that passes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claims import ClaimKind, Verdict, claim, expect_equal, holds


@claim(ClaimKind.PLANNED_SHAPE)
def this_one_passes() -> Verdict:
    """The one claim here that holds."""
    return holds("held")


@claim(ClaimKind.PLANNED_SHAPE)
def fails_by_verdict() -> Verdict:
    """Two plus two is five.

    A longer explanation that only the full statement shows.
    """
    return expect_equal(5, 2 + 2, "sum")


@claim(ClaimKind.REFUSAL)
def fails_by_assert() -> Verdict:
    """The refusal code is fit_wall."""
    code = "lease_expired"
    assert code == "fit_wall", f"refusal code: expected 'fit_wall', got {code!r}"
    return holds(code)


@claim(ClaimKind.POSITIVE_CONTROL)
def fails_by_bare_assert() -> Verdict:
    """A bare assert that fails."""
    hosts = 3
    assert hosts == 4
    return holds("four hosts")


@claim(ClaimKind.PROPERTY)
@given(st.integers(min_value=0))
def every_rank_is_below_ten(rank: int) -> None:
    """Every rank is below ten (it is not)."""
    assert rank < 10, f"rank {rank} is not below ten"


@claim(ClaimKind.PAIRING_OBLIGATION)
def raises_an_error() -> Verdict:
    """Looking up a missing host is an error, not a failure."""
    hosts: dict[str, int] = {}
    return holds(str(hosts["srv9"]))


@claim(ClaimKind.IDENTITY)
def returns_no_verdict() -> Verdict:
    """Returning something other than a Verdict is an error."""
    return "identical"  # type: ignore[return-value]
