"""A mutant that declares a claim it does not turn red (the boundary at 18 is unclaimed)."""

from __future__ import annotations

from mutation import mutant
from tests.fakes_mutation.door import CLOSING, OPENING


@mutant(
    replaces="tests.fakes_mutation.door.within_hours",
    turns_red={"fake_door.night_is_refused"},
    independent=False,
)
def closing_hour_still_open(hour: int) -> bool:
    """The door is still open at 18:00."""
    return OPENING <= hour <= CLOSING
