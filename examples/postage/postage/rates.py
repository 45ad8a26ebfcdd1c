"""The price of a parcel: a zone's base rate plus a step for every started 100 g."""

from __future__ import annotations

from dataclasses import dataclass

BASE_CENTS = {"domestic": 100, "europe": 250, "world": 400}
STEP_GRAMS = 100
STEP_CENTS = 35
MAX_GRAMS = 30_000


@dataclass(frozen=True)
class Quote:
    """What one parcel costs, and what it was priced for."""

    zone: str
    grams: int
    cents: int


def steps(grams: int) -> int:
    """Started steps of :data:`STEP_GRAMS`: 100 g is one step, 101 g two."""
    return (grams + STEP_GRAMS - 1) // STEP_GRAMS


def price(zone: str, grams: int) -> Quote:
    """The quote for a parcel of ``grams`` to ``zone``; a bad weight or zone is refused."""
    if not 0 < grams <= MAX_GRAMS:
        raise ValueError(f"weight {grams} g: a parcel weighs 1 to {MAX_GRAMS} g")
    base = BASE_CENTS.get(zone)
    if base is None:
        raise ValueError(f"zone {zone!r}: not a zone; zones: {', '.join(sorted(BASE_CENTS))}")
    return Quote(zone=zone, grams=grams, cents=base + STEP_CENTS * steps(grams))
