"""Declared mutants of the fit wall's arithmetic (witness ``serving_fit``).

The properties compare the planner with exact rational arithmetic, so each defect here is
one an integer-rounding or a misplaced term would make. (The seed's ``zero_allowance`` is
declared with the V4.1 witness; it turns this witness's allowance claims red as well.)
"""

from __future__ import annotations

from mutation import mutant
from planner.arm_launch import ArmCall, fit_wall
from planner.checkpoint import (
    CheckpointManifest,
    CheckpointRow,
    CheckpointVllmParsers,
    PageCacheFromNonKvHeadroom,
    ResidentBeyondWeights,
    checkpoint_row,
)
from planner.fit import (
    Fit,
    ResidentBet,
    allowance_gib,
    page_cache_allowance_gib,
    serving_arm_admits,
    serving_arm_admits_under,
)
from planner.measure import GIB
from planner.profile import ServingLaunchProfile
from planner.refusal import Refusal

W = "serving_fit"
EXACT = f"{W}.the_wall_refuses_exactly_when_resident_times_five_fourths_exceeds_pool"
HALF_BP = 5000
SUMMARY = f"{W}.the_fit_summary_states_the_arithmetic_and_the_verdict"
BOUNDARY = f"{W}.resident_times_five_fourths_equal_to_the_pool_fits_by_zero"
NO_PROFILE = f"{W}.without_a_profile_a_page_cache_row_is_refused_as_unknown"
PLAIN = f"{W}.a_row_with_nothing_beyond_weights_is_fitted_on_its_weights"
UNPROFILED_ARM = f"{W}.an_arm_called_without_a_profile_is_fitted_on_its_own_group"
BET_EDGE = f"{W}.a_bet_exactly_at_the_allowance_is_not_watched"
PER_RANK = f"{W}.the_allowance_is_about_24_gib_per_rank"


@mutant(replaces="planner.fit.page_cache_allowance_gib", turns_red={EXACT, PER_RANK, SUMMARY})
def allowance_rounded_down(pool_gib: int, utilization_bp: int) -> int:
    """The pool share outside the engine is rounded down to whole GiB instead of up."""
    return pool_gib * GIB * (10000 - utilization_bp) // 10000 // GIB


@mutant(replaces="planner.fit.allowance_gib", turns_red={EXACT})
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
        SUMMARY,
        BOUNDARY,
        PLAIN,
        UNPROFILED_ARM,
    },
)
def margin_measured_from_resident(self: Fit) -> int:
    """The margin is measured from the resident GiB, forgetting the 5/4 headroom."""
    return self.pool_gib - self.resident_gib


@mutant(replaces="planner.fit.Fit.allowance_per_rank_gib", turns_red={PER_RANK})
def allowance_spread_over_the_followers_only(self: Fit) -> float:
    """The allowance is spread over the followers only, forgetting rank 0's share."""
    return self.allowance_gib / (self.ranks - 1)


@mutant(replaces="planner.fit.Fit.allowance_per_rank_gib", turns_red={PER_RANK})
def allowance_per_rank_rounded_down(self: Fit) -> float:
    """The per-rank allowance is floored to whole GiB: 97 GiB over four ranks reads as 24."""
    return float(self.allowance_gib // self.ranks)


@mutant(
    replaces="planner.fit.bets_above_allowance",
    turns_red={f"{W}.the_bets_to_watch_are_x4_and_up", BET_EDGE},
)
def per_rank_bets_compared_with_the_whole_allowance(
    fit: Fit, bets: tuple[ResidentBet, ...]
) -> tuple[ResidentBet, ...]:
    """A per-rank bet is compared with the whole group's allowance, so no bet is watched."""
    return tuple(b for b in bets if b.per_rank_gib > fit.allowance_gib)


@mutant(
    replaces="planner.fit.serving_arm_admits_under",
    turns_red={BOUNDARY},
)
def refusal_forgets_the_utilization(
    row: CheckpointRow, profile: ServingLaunchProfile, pool_gib: int, ranks: int
) -> tuple[Fit, Refusal | None]:
    """The wall's refusal no longer says at which utilization the allowance was declared."""
    fit, refused = serving_arm_admits_under(row, profile, pool_gib, ranks)
    if refused is None:
        return fit, None
    message = refused.message.replace(f" at utilization {profile.utilization_text}", "", 1)
    return fit, refused.model_copy(update={"message": message})


@mutant(
    replaces="planner.fit.Fit.summary",
    turns_red={
        SUMMARY,
        BOUNDARY,
        PLAIN,
        UNPROFILED_ARM,
    },
)
def summary_always_says_it_fits(self: Fit) -> str:
    """The summary's verdict is always "fits", even over a refusal's arithmetic."""
    return (
        f"({self.weights_gib} weights + {self.allowance_gib} allowance) x 5/4 = "
        f"{self.required_gib} GiB vs pool {self.pool_gib} GiB: fits by {abs(self.margin_gib)} GiB"
    )


@mutant(
    replaces="planner.fit.serving_arm_admits",
    turns_red={NO_PROFILE},
)
def unknown_allowance_refused_without_its_hint(
    row: CheckpointRow, pool_gib: int, ranks: int
) -> Refusal | None:
    """The unknown-allowance refusal loses its hint, so nobody is told to plan with a
    measurement profile."""
    refused = serving_arm_admits(row, pool_gib, ranks)
    if refused is not None and refused.code == "fit.allowance_unknown":
        return refused.model_copy(update={"hint": ""})
    return refused


@mutant(
    replaces="planner.fit.allowance_gib",
    turns_red={PLAIN},
    independent=False,
)
def nothing_beyond_weights_charged_a_gib(
    row: CheckpointRow, profile: ServingLaunchProfile, pool_gib: int
) -> int:
    """A row that keeps nothing beyond its weights is still charged one GiB of allowance."""
    if isinstance(row.resident_beyond_weights, PageCacheFromNonKvHeadroom):
        return allowance_gib(row, profile, pool_gib)
    return 1


@mutant(replaces="planner.fit.Fit.fits", turns_red={BOUNDARY, PLAIN})
def the_wall_refuses_at_the_pool_itself(self: Fit) -> bool:
    """The wall demands strictly less than the pool: resident × 5/4 equal to the pool is
    refused."""
    return self.resident_gib * 5 < self.pool_gib * 4


@mutant(replaces="planner.fit.bets_above_allowance", turns_red={BET_EDGE}, independent=False)
def a_bet_at_the_allowance_is_watched(
    fit: Fit, bets: tuple[ResidentBet, ...]
) -> tuple[ResidentBet, ...]:
    """A bet exactly at the per-rank allowance is counted as above it."""
    return tuple(b for b in bets if b.per_rank_gib * fit.ranks >= fit.allowance_gib)


@mutant(replaces="planner.arm_launch.fit_wall", turns_red={UNPROFILED_ARM})
def no_profile_means_no_wall(call: ArmCall) -> tuple[Fit | None, tuple[Refusal, ...]]:
    """An arm called without a launch profile skips the wall unless its row keeps a page
    cache: an arm too heavy for its group plans as if it fit."""
    if call.profile is None and not isinstance(
        call.row.resident_beyond_weights, PageCacheFromNonKvHeadroom
    ):
        return None, ()
    return fit_wall(call)


@mutant(
    replaces="planner.profile.utilization_text",
    turns_red={f"{W}.the_utilization_is_written_as_the_decimal_it_is"},
)
def utilization_written_to_two_places(basis_points: int) -> str:
    """The utilization is written rounded to two places: 0.885 becomes 0.89, a share the
    engine was never told."""
    return f"{basis_points / 10000:.2f}".rstrip("0").rstrip(".") or "0"
