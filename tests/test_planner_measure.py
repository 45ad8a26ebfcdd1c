"""planner.measure: a negative byte count refused, and both roundings over wide ranges.

GiB, the rounding's edges (a byte past a whole GiB, exact multiples) and the wall's ceiling
division at Group A's numbers are witnesses/rules/serving_fit.py's claims
(one_byte_count_is_rounded_once and the wall's arithmetic against exact fractions).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.measure import GIB, ceil_div, gibibyte_ceiling


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


@given(st.integers(min_value=0, max_value=10**18), st.integers(min_value=1, max_value=10**9))
def test_ceil_div_matches_the_definition_without_floats(numerator: int, denominator: int) -> None:
    q = ceil_div(numerator, denominator)
    assert (q - 1) * denominator < numerator <= q * denominator
