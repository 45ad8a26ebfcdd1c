"""planner.fit: the fit wall, its page-cache allowance and the declared bets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner import data
from planner.arms.glm_group_b import GLM_GROUP_B_PROFILE, glm_row
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import (
    V41_ENGRAM_RESIDENT_BETS,
    deepseek_v41_flash_row,
    deepseek_v41_measurement_profile,
)
from planner.checkpoint import CheckpointRow
from planner.fit import (
    Fit,
    allowance_gib,
    bets_above_allowance,
    page_cache_allowance_gib,
    serving_arm_admits,
    serving_arm_admits_under,
)
from planner.profile import ServingLaunchProfile

POOL = 484
RANKS = 4


@pytest.fixture(scope="module")
def v41_row() -> CheckpointRow:
    return deepseek_v41_flash_row(data.manifest(V41_MANIFEST))


@pytest.fixture(scope="module")
def glm() -> CheckpointRow:
    return glm_row(data.manifest(GLM_MANIFEST))


def v41_profile(bp: int) -> ServingLaunchProfile:
    return deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=bp, max_num_batched_tokens=8192, prefix_caching=False
    )


def test_group_a_pool_from_the_inventory() -> None:
    assert data.fabric().group("group_a").pool_gib == POOL


def test_allowance_at_080_is_97_gib() -> None:
    assert page_cache_allowance_gib(POOL, 8000) == 97


def test_at_080_the_v41_arm_fits_by_4_gib(v41_row: CheckpointRow) -> None:
    fit, refused = serving_arm_admits_under(v41_row, v41_profile(8000), POOL, RANKS)
    assert refused is None
    assert fit.weights_gib == 287
    assert fit.allowance_gib == 97
    assert fit.resident_gib == 384
    assert fit.required_gib == 480
    assert fit.pool_gib == 484
    assert fit.margin_gib == 4
    assert fit.fits
    assert fit.allowance_per_rank_gib == pytest.approx(24.25)
    assert fit.summary() == (
        "(287 weights + 97 allowance) x 5/4 = 480 GiB vs pool 484 GiB: fits by 4 GiB"
    )


def test_at_050_the_v41_arm_is_refused_naming_the_allowance(v41_row: CheckpointRow) -> None:
    fit, refused = serving_arm_admits_under(v41_row, v41_profile(5000), POOL, RANKS)
    assert fit.allowance_gib == 242
    assert not fit.fits
    assert refused is not None
    assert refused.code == "fit.exceeds_pool"
    assert refused.where == "plan.fit"
    assert "declared allowance 242 GiB" in refused.message
    assert "at utilization 0.5" in refused.message
    assert "does not fit by 178 GiB" in refused.message


def test_without_a_profile_the_allowance_is_unknown(v41_row: CheckpointRow) -> None:
    refused = serving_arm_admits(v41_row, POOL, RANKS)
    assert refused is not None
    assert refused.code == "fit.allowance_unknown"
    assert refused.where == "plan.profile"
    assert "287 GiB" in refused.message


def test_glm_fits_with_no_allowance(glm: CheckpointRow) -> None:
    assert serving_arm_admits(glm, POOL, RANKS) is None
    fit, refused = serving_arm_admits_under(glm, GLM_GROUP_B_PROFILE, POOL, RANKS)
    assert refused is None
    assert fit.allowance_gib == 0
    assert fit.resident_gib == glm.weight_gib
    assert allowance_gib(glm, v41_profile(1000), POOL) == 0


def test_a_row_with_nothing_beyond_weights_still_meets_the_wall(glm: CheckpointRow) -> None:
    heavy = glm.model_copy(update={"weight_gib": 400})
    refused = serving_arm_admits(heavy, POOL, RANKS)
    assert refused is not None
    assert refused.code == "fit.exceeds_pool"
    assert "declared allowance 0 GiB:" in refused.message
    assert "utilization" not in refused.message


def test_resident_bets_are_declared() -> None:
    assert [(b.concurrency, b.per_rank_gib) for b in V41_ENGRAM_RESIDENT_BETS] == [
        (2, 19),
        (4, 30),
        (6, 37),
        (16, 46),
    ]


def test_bets_above_the_24_gib_allowance_are_x4_and_up(v41_row: CheckpointRow) -> None:
    fit, _ = serving_arm_admits_under(v41_row, v41_profile(8000), POOL, RANKS)
    watched = bets_above_allowance(fit, V41_ENGRAM_RESIDENT_BETS)
    assert [b.concurrency for b in watched] == [4, 6, 16]


@pytest.mark.parametrize(
    ("resident", "required"), [(384, 480), (385, 482), (387, 484), (388, 485), (0, 0)]
)
def test_required_is_resident_times_five_quarters_rounded_up(resident: int, required: int) -> None:
    fit = Fit(pool_gib=POOL, weights_gib=resident, allowance_gib=0, ranks=RANKS)
    assert fit.required_gib == required
    assert fit.fits == (resident * 5 <= POOL * 4)


def test_fit_boundary_is_exact() -> None:
    assert Fit(pool_gib=484, weights_gib=387, allowance_gib=0, ranks=4).fits
    assert not Fit(pool_gib=484, weights_gib=388, allowance_gib=0, ranks=4).fits


weights = st.integers(min_value=0, max_value=1000)
pools = st.integers(min_value=1, max_value=2000)
utilizations = st.integers(min_value=1, max_value=10000)


@given(weights, pools, utilizations)
def test_fits_iff_resident_times_five_is_at_most_pool_times_four(
    weight: int, pool: int, bp: int
) -> None:
    row = deepseek_v41_flash_row(data.manifest(V41_MANIFEST)).model_copy(
        update={"weight_gib": weight}
    )
    fit, refused = serving_arm_admits_under(row, v41_profile(bp), pool, RANKS)
    allowance = page_cache_allowance_gib(pool, bp)
    assert fit.allowance_gib == allowance
    assert fit.fits == ((weight + allowance) * 5 <= pool * 4)
    assert (refused is None) == fit.fits
    if refused is not None:
        assert f"declared allowance {allowance} GiB" in refused.message


@given(pools, utilizations)
def test_allowance_is_the_pool_share_outside_the_engine_rounded_up(pool: int, bp: int) -> None:
    allowance = page_cache_allowance_gib(pool, bp)
    exact_times_10000 = pool * (10000 - bp)
    assert (allowance - 1) * 10000 < exact_times_10000 <= allowance * 10000 or (
        exact_times_10000 == 0 and allowance == 0
    )


@given(weights, pools, utilizations, utilizations)
def test_fit_is_monotone_in_utilization(weight: int, pool: int, bp_a: int, bp_b: int) -> None:
    low, high = sorted((bp_a, bp_b))
    assert page_cache_allowance_gib(pool, low) >= page_cache_allowance_gib(pool, high)
    fit_low = Fit(
        pool_gib=pool,
        weights_gib=weight,
        allowance_gib=page_cache_allowance_gib(pool, low),
        ranks=RANKS,
    )
    fit_high = Fit(
        pool_gib=pool,
        weights_gib=weight,
        allowance_gib=page_cache_allowance_gib(pool, high),
        ranks=RANKS,
    )
    if fit_low.fits:
        assert fit_high.fits
