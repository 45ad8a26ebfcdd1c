"""planner.refusal: a refusal is a frozen value with no field but its own.

Its rendered location, its line and hint line, and how an input error prints are the claims
of witnesses/rules/fabric_inventory.py (a_refusal_renders_its_location_and_one_line) and
witnesses/surfaces/dry_run_cli.py (every_refusal_prints_its_hint_on_the_next_line).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.refusal import Refusal, refusal


def test_refusal_is_frozen_and_forbids_unknown_fields() -> None:
    r = refusal("a.b", ("x",), "m")
    with pytest.raises(ValidationError):
        r.code = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Refusal.model_validate({"code": "a", "location": (), "message": "m", "colour": "red"})
