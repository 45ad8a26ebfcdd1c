"""A mutant that kills its process outright."""

from __future__ import annotations

import os

from mutation import mutant


@mutant(
    replaces="tests.fakes_mutation.door.within_hours",
    turns_red={"fake_door.night_is_refused"},
    independent=False,
)
def hours_kill_the_process(hour: int) -> bool:
    """Asking for the opening hours ends the process with exit code 9."""
    os._exit(9)
