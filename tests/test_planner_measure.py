"""planner.measure: the one byte → GiB rounding, and integer ceiling division."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.measure import GIB, ceil_div, gibibyte_ceiling


def test_gib_is_two_to_the_thirty() -> None:
    assert GIB == 2**30 == 1073741824


@pytest.mark.parametrize(
    ("n_bytes", "expected"),
    [
        (0, 0),
        (1, 1),
        (GIB - 1, 1),
        (GIB, 1),
        (GIB + 1, 2),
        (2 * GIB, 2),
        (287 * GIB, 287),
        (287 * GIB + 1, 288),
    ],
)
def test_gibibyte_ceiling_edges(n_bytes: int, expected: int) -> None:
    assert gibibyte_ceiling(n_bytes) == expected


@pytest.mark.parametrize("n_bytes", [-1, -GIB, -(GIB + 1)])
def test_gibibyte_ceiling_refuses_negative_counts(n_bytes: int) -> None:
    with pytest.raises(ValueError, match=rf"non-negative, got {n_bytes}"):
        gibibyte_ceiling(n_bytes)


@given(st.integers(min_value=1, max_value=10**15))
def test_gibibyte_ceiling_is_the_smallest_whole_gib_that_holds_the_bytes(n_bytes: int) -> None:
    gib = gibibyte_ceiling(n_bytes)
    assert (gib - 1) * GIB < n_bytes <= gib * GIB


@given(st.integers(min_value=0, max_value=10**12))
def test_gibibyte_ceiling_is_exact_on_whole_gib(gib: int) -> None:
    assert gibibyte_ceiling(gib * GIB) == gib


@pytest.mark.parametrize(
    ("numerator", "denominator", "expected"),
    [(0, 4, 0), (1, 4, 1), (4, 4, 1), (5, 4, 2), (1920, 4, 480), (1921, 4, 481)],
)
def test_ceil_div(numerator: int, denominator: int, expected: int) -> None:
    assert ceil_div(numerator, denominator) == expected


@given(st.integers(min_value=0, max_value=10**18), st.integers(min_value=1, max_value=10**9))
def test_ceil_div_matches_the_definition_without_floats(numerator: int, denominator: int) -> None:
    q = ceil_div(numerator, denominator)
    assert (q - 1) * denominator < numerator <= q * denominator
