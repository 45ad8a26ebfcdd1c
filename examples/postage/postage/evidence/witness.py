"""What postage promises: the price of a parcel, and the parcels it refuses."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, expect_equal, fails, holds
from postage.rates import Quote, price


def _refusal(zone: str, grams: int) -> str | None:
    try:
        price(zone, grams)
    except ValueError as error:
        return str(error)
    return None


@claim(ClaimKind.PLANNED_SHAPE)
def a_domestic_parcel_of_250_g_costs_205_cents() -> Verdict:
    """250 g within the country: the base 100 cents and three started steps of 35."""
    return expect_equal(Quote("domestic", 250, 205), price("domestic", 250), "quote")


@claim(ClaimKind.PLANNED_SHAPE)
def a_started_step_is_charged_whole() -> Verdict:
    """100 g is one step and 101 g two: the step is charged as soon as it starts."""
    cents = (price("europe", 100).cents, price("europe", 101).cents)
    return expect_equal((285, 320), cents, "100 g and 101 g to europe")


@claim(ClaimKind.REFUSAL)
def an_empty_parcel_is_refused_naming_its_weight() -> Verdict:
    """A parcel of 0 g is refused, and the refusal names the weight it was given."""
    refusal = _refusal("world", 0)
    if refusal is None or "weight 0 g" not in refusal:
        return fails(f"0 g was not refused by weight: {refusal!r}")
    return holds(refusal)


@claim(ClaimKind.REFUSAL)
def an_unknown_zone_is_refused_listing_the_zones() -> Verdict:
    """A zone the table lacks is refused, and the refusal lists the zones there are."""
    refusal = _refusal("moon", 500)
    if refusal is None or "domestic, europe, world" not in refusal:
        return fails(f"the moon was not refused with the zones: {refusal!r}")
    return holds(refusal)


@claim(ClaimKind.POSITIVE_CONTROL)
def the_lightest_and_the_heaviest_parcels_are_priced() -> Verdict:
    """1 g and 30 kg, the limits themselves, are priced, not refused: the refusals above are
    not blanket."""
    refused = {grams: r for grams in (1, 30_000) if (r := _refusal("world", grams)) is not None}
    if refused:
        return fails(f"a parcel within the limits was refused: {refused}")
    return holds("1 g and 30 kg to the world are priced")
