"""A mutant that never returns."""

from __future__ import annotations

import time

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.within_hours",
    turns_red={"fake_door.night_is_refused"},
    independent=False,
)
def hours_computed_forever(hour: int) -> bool:
    """Working out the opening hours never finishes."""
    while True:
        time.sleep(0.05)
