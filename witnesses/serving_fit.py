"""Witness: the fit wall's arithmetic, as hypothesis properties and Group A's numbers.

The oracle here is exact rational arithmetic (``fractions.Fraction``), independent of
the planner's integer ceilings: the wall refuses exactly when
``(weights + allowance) × 5/4 > pool`` with ``allowance = ⌈pool × (1 − utilization)⌉``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from claims import ClaimKind, Verdict, claim, expect, expect_equal, holds
from fixtures.builders import inventory, v41_call
from planner.checkpoint import (
    DEEPSEEK_V41_PARSERS,
    CheckpointManifest,
    CheckpointRow,
    ManifestFile,
    PageCacheFromNonKvHeadroom,
    deepseek_v41_flash_row,
)
from planner.fit import (
    V41_ENGRAM_RESIDENT_BETS,
    Fit,
    bets_above_allowance,
    serving_arm_admits_under,
)
from planner.measure import GIB
from planner.profile import deepseek_v41_measurement_profile

_EXAMPLES = settings(max_examples=150)
_utilization = st.integers(min_value=1, max_value=10000)


def _row(weight_gib: int) -> CheckpointRow:
    return CheckpointRow(
        model="org/model",
        revision="r1",
        weight_gib=weight_gib,
        parsers=DEEPSEEK_V41_PARSERS,
        resident_beyond_weights=PageCacheFromNonKvHeadroom(),
        placement="/srv/model",
    )


def _fit(weight_gib: int, pool_gib: int, utilization_bp: int) -> tuple[Fit, bool]:
    profile = deepseek_v41_measurement_profile(utilization_bp, 8192, False)
    fit, refused = serving_arm_admits_under(_row(weight_gib), profile, pool_gib, 4)
    return fit, refused is not None


def _group_a_fit_at(utilization_bp: int) -> Fit:
    call = v41_call("supplied")
    profile = deepseek_v41_measurement_profile(utilization_bp, 8192, False)
    group = call.group
    return serving_arm_admits_under(call.row, profile, group.pool_gib, group.size)[0]


@_EXAMPLES
@given(st.integers(1, 800), st.integers(1, 2000), _utilization)
def _refuses_exactly_past_the_margin(weight: int, pool: int, bp: int) -> None:
    fit, refused = _fit(weight, pool, bp)
    allowance = math.ceil(Fraction(pool * (10000 - bp), 10000))
    assert fit.allowance_gib == allowance, f"allowance {fit.allowance_gib} != {allowance}"
    over = Fraction(5, 4) * (weight + allowance) > pool
    assert refused == over, f"refused={refused} but (w+a)×5/4 > pool is {over}"


@_EXAMPLES
@given(st.integers(1, 800), st.integers(1, 2000), _utilization, _utilization)
def _monotone_in_utilization(weight: int, pool: int, bp_a: int, bp_b: int) -> None:
    low, high = sorted((bp_a, bp_b))
    fit_low, refused_low = _fit(weight, pool, low)
    fit_high, refused_high = _fit(weight, pool, high)
    assert fit_high.allowance_gib <= fit_low.allowance_gib, "allowance grew with utilization"
    assert not (refused_high and not refused_low), f"fits at {low} bp but not at {high} bp"


@_EXAMPLES
@given(st.lists(st.integers(0, 40 * GIB), min_size=1, max_size=60))
def _weight_is_rounded_once(shard_bytes: list[int]) -> None:
    files = tuple(
        ManifestFile(path=f"s{i}", bytes=b, role="weights") for i, b in enumerate(shard_bytes)
    )
    manifest = CheckpointManifest(model="org/model", revision="r1", files=files)
    weight = deepseek_v41_flash_row(manifest).weight_gib
    assert weight == math.ceil(Fraction(sum(shard_bytes), GIB)), f"weight {weight} GiB"


@claim(ClaimKind.PROPERTY)
def the_wall_refuses_exactly_when_resident_times_five_fourths_exceeds_pool() -> Verdict:
    """For any weight, pool and utilization: refused iff (weights + allowance) × 5/4 > pool."""
    _refuses_exactly_past_the_margin()
    return holds("150 examples: refusal ⇔ (w + ⌈pool×(1−u)⌉) × 5/4 > pool")


@claim(ClaimKind.PROPERTY)
def the_fit_is_monotone_in_utilization() -> Verdict:
    """Raising utilization never grows the allowance and never turns a fit into a refusal."""
    _monotone_in_utilization()
    return holds("150 examples: allowance non-increasing, fit preserved as utilization rises")


@claim(ClaimKind.PROPERTY)
def one_byte_count_is_rounded_once() -> Verdict:
    """A row's weight is the manifest's total weight bytes rounded up to GiB once."""
    _weight_is_rounded_once()
    return holds("150 manifests: weight = ⌈Σ bytes / GiB⌉")


@claim(ClaimKind.PLANNED_SHAPE)
def group_a_fits_by_four_gib_at_eighty_percent() -> Verdict:
    """Group A at 0.80: 287 + 97 = 384 resident, × 5/4 = 480 ≤ 484, fits by 4 GiB."""
    fit = _group_a_fit_at(8000)
    numbers = (
        fit.pool_gib,
        fit.weights_gib,
        fit.allowance_gib,
        fit.required_gib,
        fit.margin_gib,
        fit.fits,
    )
    return expect_equal(
        (484, 287, 97, 480, 4, True), numbers, "(pool, weights, allowance, required, margin, fits)"
    )


@claim(ClaimKind.PLANNED_SHAPE)
def the_allowance_is_about_24_gib_per_rank() -> Verdict:
    """The 97 GiB allowance spreads over four ranks: about 24 GiB a rank."""
    fit = _group_a_fit_at(8000)
    per_rank = fit.allowance_per_rank_gib
    return expect(
        fit.ranks == 4 and 24 <= per_rank < 25,
        f"{per_rank} GiB per rank",
        f"{fit.allowance_gib} GiB over {fit.ranks} ranks = {per_rank}",
    )


@claim(ClaimKind.PLANNED_SHAPE)
def the_bets_to_watch_are_x4_and_up() -> Verdict:
    """The declared per-rank bets above the allowance are those at ×4, ×6 and ×16."""
    watched = bets_above_allowance(_group_a_fit_at(8000), V41_ENGRAM_RESIDENT_BETS)
    pool = inventory().group("group_a").pool_gib
    return expect_equal(
        [4, 6, 16],
        [b.concurrency for b in watched],
        f"bet concurrencies above the allowance (pool {pool} GiB)",
    )
