"""Each mutant is one careless edit to :mod:`postage.rates`, and names the claims that catch it.

A mutant may call the function it replaces by its ordinary name and reach the original, so
it is the changed line and a call, not a copy of the whole function. Several mutants of one
target need no flag: the combined run takes the first of them, and each runs alone.
"""

from __future__ import annotations

from plugins.mutate import mutant
from postage.rates import BASE_CENTS, STEP_GRAMS, Quote, price

W = "postage"


@mutant(
    replaces="postage.rates.steps",
    turns_red={
        f"{W}.a_domestic_parcel_of_250_g_costs_205_cents",
        f"{W}.a_started_step_is_charged_whole",
    },
)
def steps_round_down(grams: int) -> int:
    """Only whole steps are charged: 250 g pays for two."""
    return grams // STEP_GRAMS


@mutant(
    replaces="postage.rates.price",
    turns_red={f"{W}.an_empty_parcel_is_refused_naming_its_weight"},
)
def no_lower_weight_limit(zone: str, grams: int) -> Quote:
    """The weight check forgets its lower bound: an empty parcel is priced."""
    if grams <= 0:
        return Quote(zone=zone, grams=grams, cents=BASE_CENTS[zone])
    return price(zone, grams)


@mutant(
    replaces="postage.rates.price",
    turns_red={f"{W}.an_unknown_zone_is_refused_listing_the_zones"},
)
def unknown_zones_cost_the_world_rate(zone: str, grams: int) -> Quote:
    """A zone the table lacks is charged as the world instead of refused."""
    return price(zone if zone in BASE_CENTS else "world", grams)


@mutant(
    replaces="postage.rates.price",
    turns_red={f"{W}.the_lightest_and_the_heaviest_parcels_are_priced"},
    independent=False,  # it turns a positive control red: never in the combined run
)
def the_limit_itself_is_refused(zone: str, grams: int) -> Quote:
    """The upper bound is exclusive: a parcel of exactly 30 kg is refused."""
    if grams == 30_000:
        raise ValueError(f"weight {grams} g: a parcel weighs 1 to 29999 g")
    return price(zone, grams)
