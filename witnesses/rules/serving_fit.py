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

from claims import ClaimKind, Verdict, claim, expect_equal, holds
from fixtures.builders import glm_call, inventory, v41_call
from planner.arm_launch import fit_wall
from planner.arms.v41_group_a import (
    DEEPSEEK_V41_PARSERS,
    V41_ENGRAM_RESIDENT_BETS,
    deepseek_v41_flash_row,
    deepseek_v41_measurement_profile,
)
from planner.checkpoint import (
    CheckpointManifest,
    CheckpointRow,
    ManifestFile,
    NothingBeyondWeights,
    PageCacheFromNonKvHeadroom,
    ResidentBeyondWeights,
)
from planner.fit import (
    Fit,
    ResidentBet,
    bets_above_allowance,
    serving_arm_admits,
    serving_arm_admits_under,
)
from planner.measure import GIB
from planner.profile import utilization_text
from planner.refusal import Refusal

_EXAMPLES = settings(max_examples=150)
_utilization = st.integers(min_value=1, max_value=10000)


_PAGE_CACHE = PageCacheFromNonKvHeadroom()


def _row(weight_gib: int, beyond: ResidentBeyondWeights = _PAGE_CACHE) -> CheckpointRow:
    return CheckpointRow(
        model="org/model",
        revision="r1",
        weight_gib=weight_gib,
        parsers=DEEPSEEK_V41_PARSERS,
        resident_beyond_weights=beyond,
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
def one_byte_count_is_rounded_once() -> Verdict:
    """A row's weight is the manifest's total weight bytes rounded up to GiB once."""
    _weight_is_rounded_once()
    return holds("150 manifests: weight = ⌈Σ bytes / GiB⌉")


@claim(ClaimKind.PLANNED_SHAPE)
def the_allowance_is_about_24_gib_per_rank() -> Verdict:
    """The 97 GiB allowance spreads over four ranks: 24.25 GiB a rank, the exact quotient
    (97 / 4, not rounded)."""
    fit = _group_a_fit_at(8000)
    got = (fit.ranks, fit.allowance_per_rank_gib)
    return expect_equal((4, Fraction(97, 4)), got, "(ranks, allowance per rank in GiB)")


@claim(ClaimKind.PLANNED_SHAPE)
def the_bets_to_watch_are_x4_and_up() -> Verdict:
    """The declared per-rank bets above the allowance are those at ×4, ×6 and ×16, each with
    its declared bet unchanged: 30, 37 and 46 GiB per rank (DESIGN: 19/30/37/46 GiB at
    ×2/×4/×6/×16)."""
    watched = bets_above_allowance(_group_a_fit_at(8000), V41_ENGRAM_RESIDENT_BETS)
    pool = inventory().group("group_a").pool_gib
    return expect_equal(
        [(4, 30), (6, 37), (16, 46)],
        [(b.concurrency, b.per_rank_gib) for b in watched],
        f"(concurrency, per-rank GiB) of the bets above the allowance (pool {pool} GiB)",
    )


# --- the wall's refusal, its summary and its boundary ----------------------------------------

_WALL_HINT = "raise --gpu-memory-utilization or serve on a larger group"
Shown = tuple[str, tuple[str | int, ...], str, str] | None
"""A refusal as (code, location, message, hint), or None when the arm fits."""


def _shown(refused: Refusal | None) -> Shown:
    if refused is None:
        return None
    return (refused.code, refused.location, refused.message, refused.hint)


def _arithmetic(weights: int, allowance: int, pool: int) -> str:
    """The wall's arithmetic in words, from exact rationals: required = ⌈(w + a) × 5/4⌉."""
    required = math.ceil(Fraction(5, 4) * (weights + allowance))
    verb = "fits" if required <= pool else "does not fit"
    return (
        f"({weights} weights + {allowance} allowance) x 5/4 = {required} GiB vs pool {pool} GiB: "
        f"{verb} by {abs(pool - required)} GiB"
    )


@claim(ClaimKind.PLANNED_SHAPE)
def the_fit_summary_states_the_arithmetic_and_the_verdict() -> Verdict:
    """Fit.summary at 0.80 reads "(287 weights + 97 allowance) x 5/4 = 480 GiB vs pool 484
    GiB: fits by 4 GiB"; at 0.50 "(287 weights + 242 allowance) x 5/4 = 662 GiB vs pool 484
    GiB: does not fit by 178 GiB" (its margin 4 and -178 GiB)."""
    seen = [(f.summary(), f.fits, f.margin_gib) for f in map(_group_a_fit_at, (8000, 5000))]
    expected = [(_arithmetic(287, 97, 484), True, 4), (_arithmetic(287, 242, 484), False, -178)]
    return expect_equal(expected, seen, "(summary, fits, margin) at 0.80 and 0.50")


@claim(ClaimKind.REFUSAL)
def resident_times_five_fourths_equal_to_the_pool_fits_by_zero() -> Verdict:
    """A 500 GiB pool at 0.80 leaves a 100 GiB allowance: 300 GiB of weights make a 400 GiB
    resident, × 5/4 = 500 = the pool, so it fits by 0 GiB; one more GiB of weights needs
    ⌈401 × 5/4⌉ = 502 GiB and is refused by 2 GiB, naming allowance and utilization."""
    profile = deepseek_v41_measurement_profile(8000, 8192, False)
    at, at_refused = serving_arm_admits_under(_row(300), profile, 500, 4)
    over, over_refused = serving_arm_admits_under(_row(301), profile, 500, 4)
    seen = (at.fits, at.summary(), _shown(at_refused), over.fits, _shown(over_refused))
    refusal_message = f"declared allowance 100 GiB at utilization 0.8: {_arithmetic(301, 100, 500)}"
    expected = (
        True,
        "(300 weights + 100 allowance) x 5/4 = 500 GiB vs pool 500 GiB: fits by 0 GiB",
        None,
        False,
        ("fit.exceeds_pool", ("plan", "fit"), refusal_message, _WALL_HINT),
    )
    return expect_equal(expected, seen, "(fits, summary, refusal) at and one GiB past the pool")


@claim(ClaimKind.REFUSAL)
def without_a_profile_a_page_cache_row_is_refused_as_unknown() -> Verdict:
    """With no launch profile the V4.1 row (287 GiB of weights plus a page-cache allowance)
    is refused as fit.allowance_unknown at plan.profile, naming the row and its weights,
    with the hint to plan with a measurement profile."""
    call = v41_call("supplied")
    refused = serving_arm_admits(call.row, call.group.pool_gib, call.group.size)
    reference = "deepseek-ai/DeepSeek-V4.1-Flash@dba1be0a"  # the V4.1 manifest's model@revision
    expected = (
        "fit.allowance_unknown",
        ("plan", "profile"),
        f"{reference} keeps a page-cache allowance beyond its 287 GiB of weights, and with no "
        "launch profile that allowance is unknown",
        "give the arm a launch profile: its gpu-memory-utilization decides the allowance",
    )
    return expect_equal(expected, _shown(refused), "(code, location, message, hint)")


@claim(ClaimKind.REFUSAL)
def a_row_with_nothing_beyond_weights_is_fitted_on_its_weights() -> Verdict:
    """A row that keeps nothing beyond its weights has a 0 GiB allowance, with or without a
    profile: 400 GiB fit a 500 GiB pool exactly (400 × 5/4 = 500); 401 GiB are refused by
    2 GiB, and with no profile the message names no utilization."""
    plain = NothingBeyondWeights()
    profile = deepseek_v41_measurement_profile(8000, 8192, False)
    fit, refused = serving_arm_admits_under(_row(400, plain), profile, 500, 4)
    seen = (
        (fit.allowance_gib, fit.resident_gib, fit.fits, _shown(refused)),
        _shown(serving_arm_admits(_row(400, plain), 500, 4)),
        _shown(serving_arm_admits(_row(401, plain), 500, 4)),
    )
    expected = (
        (0, 400, True, None),
        None,
        (
            "fit.exceeds_pool",
            ("plan", "fit"),
            f"declared allowance 0 GiB: {_arithmetic(401, 0, 500)}",
            _WALL_HINT,
        ),
    )
    return expect_equal(expected, seen, "(with profile, no profile at 400, no profile at 401)")


@claim(ClaimKind.PLANNED_SHAPE)
def a_bet_exactly_at_the_allowance_is_not_watched() -> Verdict:
    """With a 100 GiB allowance over 4 ranks, a 25 GiB per-rank bet (4 × 25 = 100) is within
    the allowance; only bets strictly above it (26 GiB) are watched."""
    fit = Fit(pool_gib=500, weights_gib=300, allowance_gib=100, ranks=4)
    bets = tuple(ResidentBet(concurrency=c, per_rank_gib=g) for c, g in ((2, 24), (4, 25), (6, 26)))
    watched = [b.concurrency for b in bets_above_allowance(fit, bets)]
    return expect_equal([6], watched, "concurrencies of the bets above a 100 GiB allowance")


@claim(ClaimKind.REFUSAL)
def an_arm_called_without_a_profile_is_fitted_on_its_own_group() -> Verdict:
    """An arm call with no launch profile still meets the wall on its own group's pool and
    rank count: GLM's row (331 GiB of weights, nothing beyond) on Group B's four hosts
    (4 × 121 = 484 GiB) needs ⌈331 × 5/4⌉ = 414 GiB and passes with no refusal; the same call
    on the group's first three hosts (363 GiB) is refused, once, as fit.exceeds_pool with the
    arithmetic on that pool; no Fit is reported either way (there is no profile to read)."""
    call = glm_call().model_copy(update={"profile": None})
    hosts = call.group.hosts
    weights = call.row.weight_gib
    three = call.model_copy(update={"group": call.group.model_copy(update={"hosts": hosts[:3]})})
    smaller = sum(h.memory_gib for h in hosts[:3])
    whole_fit, whole = fit_wall(call)
    three_fit, refused = fit_wall(three)
    seen = (whole_fit, whole, three_fit, tuple(_shown(r) for r in refused))
    expected = (
        None,
        (),
        None,
        (
            (
                "fit.exceeds_pool",
                ("plan", "fit"),
                f"declared allowance 0 GiB: {_arithmetic(weights, 0, smaller)}",
                _WALL_HINT,
            ),
        ),
    )
    return expect_equal(expected, seen, "(fit, refusals) on four hosts, then on three")


@claim(ClaimKind.PLANNED_SHAPE)
def the_utilization_is_written_as_the_decimal_it_is() -> Verdict:
    """A utilization in basis points is written as the exact decimal vLLM reads, with no
    trailing zeros and at least one decimal place: 1 → 0.0001, 5 → 0.0005, 8000 → 0.8,
    8850 → 0.885, 9999 → 0.9999, 10000 → 1.0 (the --gpu-memory-utilization an arm renders
    and the utilization a fit refusal names)."""
    points = (1, 5, 8000, 8850, 9999, 10000)
    found = [utilization_text(bp) for bp in points]
    profiles = [deepseek_v41_measurement_profile(bp, 8192, False).utilization_text for bp in points]
    want = ["0.0001", "0.0005", "0.8", "0.885", "0.9999", "1.0"]
    return expect_equal((want, want), (found, profiles), "(written, a profile's) per bp")
