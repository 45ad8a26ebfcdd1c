"""planner.values: frozen values, and the bulk safe name worded as the safe name is.

The safe-name and safe-path rules are witnesses/rules/fabric_inventory.py's property claims; the
located JSON loading (a file missing, malformed or with a bad field) is stated by
witnesses/surfaces/dry_run_cli.py's claims on the scenario and inputs files.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from planner.values import BulkSafeName, Frozen, SafeName, SafePath, located


class Sample(Frozen):
    name: SafeName
    path: SafePath
    count: int = 0


def sample(name: str = "srv5", path: str = "/var/lib/gunbc") -> Sample:
    return Sample(name=name, path=path)


def test_frozen_values_are_immutable_and_forbid_unknown_fields() -> None:
    value = sample()
    with pytest.raises(ValidationError):
        value.count = 1  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Sample.model_validate({"name": "a", "path": "/a", "colour": "red"})


@pytest.mark.parametrize("value", ["has space", "-dash-first", "semi;colon", "", "ünï"])
def test_a_bulk_safe_name_is_refused_in_safe_names_words(value: str) -> None:
    """BulkSafeName (checked by pydantic's engine) refuses exactly what SafeName refuses, and
    :func:`located` words both refusals alike."""

    class Plain(BaseModel):
        name: SafeName

    class Bulk(BaseModel):
        name: BulkSafeName

    refusals = []
    for model in (Plain, Bulk):
        with pytest.raises(ValidationError) as caught:
            model.model_validate({"name": value})
        refusals.append(located(caught.value))
    assert refusals[0] == refusals[1]
    assert "is not a safe name" in refusals[1][1]
    assert Bulk.model_validate({"name": "ok-1.2@x:y_z"}).name == "ok-1.2@x:y_z"
