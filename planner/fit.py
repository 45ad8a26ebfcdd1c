"""The fit wall: does an arm's resident memory, with a 5/4 margin, fit the group's pool?

resident = weights + what the row keeps beyond weights. For a page-cache row that is the
pool share the profile leaves outside the engine:
``allowance = gibibyte_ceiling(pool × (1 − utilization))``. The arm fits when
``resident × 5/4 ≤ pool``, decided in integers.
"""

from __future__ import annotations

from typing import Protocol

from planner.checkpoint import PageCacheFromNonKvHeadroom, ResidentBeyondWeights
from planner.measure import GIB, ceil_div, gibibyte_ceiling
from planner.refusal import Refusal, refusal
from planner.values import Frozen

MARGIN_NUMERATOR, MARGIN_DENOMINATOR = 5, 4


class Weighed(Protocol):
    """What the wall reads of a checkpoint: an arm's :class:`CheckpointRow`, or a recipe's
    weight read from its model's manifest."""

    @property
    def reference(self) -> str: ...
    @property
    def weight_gib(self) -> int: ...
    @property
    def resident_beyond_weights(self) -> ResidentBeyondWeights: ...


class Utilized(Protocol):
    """What the wall reads of a launch: its ``--gpu-memory-utilization``, in basis points
    and as vLLM reads it (an arm's :class:`ServingLaunchProfile`, or a recipe's args)."""

    @property
    def gpu_memory_utilization_bp(self) -> int: ...
    @property
    def utilization_text(self) -> str: ...


class Fit(Frozen):
    """The wall's arithmetic, shown whether or not the arm fits."""

    pool_gib: int
    weights_gib: int
    allowance_gib: int
    ranks: int

    @property
    def resident_gib(self) -> int:
        return self.weights_gib + self.allowance_gib

    @property
    def required_gib(self) -> int:
        """resident × 5/4, rounded up (an exact integer whenever resident is a multiple of 4)."""
        return ceil_div(self.resident_gib * MARGIN_NUMERATOR, MARGIN_DENOMINATOR)

    @property
    def fits(self) -> bool:
        return self.resident_gib * MARGIN_NUMERATOR <= self.pool_gib * MARGIN_DENOMINATOR

    @property
    def margin_gib(self) -> int:
        return self.pool_gib - self.required_gib

    @property
    def allowance_per_rank_gib(self) -> float:
        return self.allowance_gib / self.ranks

    def summary(self) -> str:
        verb = "fits" if self.fits else "does not fit"
        return (
            f"({self.weights_gib} weights + {self.allowance_gib} allowance) x 5/4 = "
            f"{self.required_gib} GiB vs pool {self.pool_gib} GiB: {verb} "
            f"by {abs(self.margin_gib)} GiB"
        )


def page_cache_allowance_gib(pool_gib: int, utilization_bp: int) -> int:
    """The pool share outside the engine, in bytes first, then rounded once to GiB."""
    outside_bytes = ceil_div(pool_gib * GIB * (10000 - utilization_bp), 10000)
    return gibibyte_ceiling(outside_bytes)


def allowance_gib(row: Weighed, profile: Utilized, pool_gib: int) -> int:
    if isinstance(row.resident_beyond_weights, PageCacheFromNonKvHeadroom):
        return page_cache_allowance_gib(pool_gib, profile.gpu_memory_utilization_bp)
    return 0


def serving_arm_admits(row: Weighed, pool_gib: int, ranks: int) -> Refusal | None:
    """The wall without a profile: a row with resident extras cannot be fitted."""
    if isinstance(row.resident_beyond_weights, PageCacheFromNonKvHeadroom):
        return refusal(
            "fit.allowance_unknown",
            ("plan", "profile"),
            f"{row.reference} keeps a page-cache allowance beyond its {row.weight_gib} GiB "
            "of weights, and with no launch profile that allowance is unknown",
            hint="give the arm a launch profile: its gpu-memory-utilization decides the allowance",
        )
    return _refuse_unless_fits(
        Fit(pool_gib=pool_gib, weights_gib=row.weight_gib, allowance_gib=0, ranks=ranks)
    )


def serving_arm_admits_under(
    row: Weighed, profile: Utilized, pool_gib: int, ranks: int
) -> tuple[Fit, Refusal | None]:
    """The wall with a profile: the fit arithmetic and, when it does not fit, the refusal."""
    fit = Fit(
        pool_gib=pool_gib,
        weights_gib=row.weight_gib,
        allowance_gib=allowance_gib(row, profile, pool_gib),
        ranks=ranks,
    )
    return fit, _refuse_unless_fits(fit, profile)


def _refuse_unless_fits(fit: Fit, profile: Utilized | None = None) -> Refusal | None:
    if fit.fits:
        return None
    utilization = f" at utilization {profile.utilization_text}" if profile else ""
    return refusal(
        "fit.exceeds_pool",
        ("plan", "fit"),
        f"declared allowance {fit.allowance_gib} GiB{utilization}: {fit.summary()}",
        hint="raise --gpu-memory-utilization or serve on a larger group",
    )


class ResidentBet(Frozen):
    """A declared, not yet measured, per-rank resident bet at one staircase concurrency."""

    concurrency: int
    per_rank_gib: int


def bets_above_allowance(fit: Fit, bets: tuple[ResidentBet, ...]) -> tuple[ResidentBet, ...]:
    """The bets that exceed the per-rank allowance: the ones to watch."""
    return tuple(b for b in bets if b.per_rank_gib * fit.ranks > fit.allowance_gib)
