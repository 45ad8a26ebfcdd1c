"""Declared mutants of the fit wall's arithmetic (witness ``serving_fit``).

The properties compare the planner with exact rational arithmetic, so each defect here is
one an integer-rounding or a misplaced term would make. (The seed's ``zero_allowance`` is
declared with the V4.1 witness; it turns this witness's allowance claims red as well.)
"""

from __future__ import annotations

from mutation import mutant
from planner.checkpoint import (
    CheckpointManifest,
    CheckpointRow,
    CheckpointVllmParsers,
    PageCacheFromNonKvHeadroom,
    ResidentBeyondWeights,
    checkpoint_row,
)
from planner.fit import Fit, ResidentBet, allowance_gib, page_cache_allowance_gib
from planner.measure import GIB
from planner.profile import ServingLaunchProfile

W = "serving_fit"
EXACT = f"{W}.the_wall_refuses_exactly_when_resident_times_five_fourths_exceeds_pool"
MONOTONE = f"{W}.the_fit_is_monotone_in_utilization"
HALF_BP = 5000


@mutant(
    replaces="planner.fit.page_cache_allowance_gib",
    turns_red={EXACT, f"{W}.group_a_fits_by_four_gib_at_eighty_percent"},
)
def allowance_rounded_down(pool_gib: int, utilization_bp: int) -> int:
    """The pool share outside the engine is rounded down to whole GiB instead of up."""
    return pool_gib * GIB * (10000 - utilization_bp) // 10000 // GIB


@mutant(replaces="planner.fit.allowance_gib", turns_red={EXACT, MONOTONE})
def engine_share_charged_below_half_utilization(
    row: CheckpointRow, profile: ServingLaunchProfile, pool_gib: int
) -> int:
    """Below 0.50 utilization the allowance charges the engine's share of the pool instead
    of the share outside it, so it grows as utilization rises."""
    bp = profile.gpu_memory_utilization_bp
    if isinstance(row.resident_beyond_weights, PageCacheFromNonKvHeadroom) and bp < HALF_BP:
        return page_cache_allowance_gib(pool_gib, 10000 - bp)
    return allowance_gib(row, profile, pool_gib)


@mutant(
    replaces="planner.checkpoint.checkpoint_row",
    turns_red={f"{W}.one_byte_count_is_rounded_once"},
)
def weight_rounded_to_the_nearest_gib(
    manifest: CheckpointManifest,
    parsers: CheckpointVllmParsers,
    resident_beyond_weights: ResidentBeyondWeights,
) -> CheckpointRow:
    """A row's weight is its byte count rounded to the nearest GiB, not up."""
    row = checkpoint_row(manifest, parsers, resident_beyond_weights)
    nearest = (manifest.weight_bytes + GIB // 2) // GIB
    return row.model_copy(update={"weight_gib": nearest})


@mutant(
    replaces="planner.fit.Fit.margin_gib",
    turns_red={
        f"{W}.group_a_fits_by_four_gib_at_eighty_percent",
        "v41_group_a_launch.low_utilization_refuses_naming_the_declared_allowance",
    },
)
def margin_measured_from_resident(self: Fit) -> int:
    """The margin is measured from the resident GiB, forgetting the 5/4 headroom."""
    return self.pool_gib - self.resident_gib


@mutant(
    replaces="planner.fit.Fit.allowance_per_rank_gib",
    turns_red={f"{W}.the_allowance_is_about_24_gib_per_rank"},
)
def allowance_spread_over_the_followers_only(self: Fit) -> float:
    """The allowance is spread over the followers only, forgetting rank 0's share."""
    return self.allowance_gib / (self.ranks - 1)


@mutant(
    replaces="planner.fit.bets_above_allowance",
    turns_red={f"{W}.the_bets_to_watch_are_x4_and_up"},
)
def per_rank_bets_compared_with_the_whole_allowance(
    fit: Fit, bets: tuple[ResidentBet, ...]
) -> tuple[ResidentBet, ...]:
    """A per-rank bet is compared with the whole group's allowance, so no bet is watched."""
    return tuple(b for b in bets if b.per_rank_gib > fit.allowance_gib)
