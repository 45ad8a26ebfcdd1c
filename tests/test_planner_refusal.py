"""planner.refusal: refusals as data, their rendered location and line, input errors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.refusal import (
    PlannerInputError,
    Refusal,
    refusal,
    render_location,
)


@pytest.mark.parametrize(
    ("location", "text"),
    [
        ((), "<root>"),
        (("plan",), "plan"),
        (("authority", "groups", "group_a"), "authority.groups.group_a"),
        (("authority", "holdings", "srv7"), "authority.holdings.srv7"),
        (("engram_manifest", "row_stores", 1, "path"), "engram_manifest.row_stores[1].path"),
        ((0, "x"), "[0].x"),
    ],
)
def test_render_location(location: tuple[str | int, ...], text: str) -> None:
    assert render_location(location) == text


def test_refusal_is_data_with_a_one_line_form() -> None:
    r = refusal("fit.exceeds_pool", ("plan", "fit"), "declared allowance 242 GiB", hint="raise")
    assert isinstance(r, Refusal)
    assert (r.code, r.location, r.message, r.hint) == (
        "fit.exceeds_pool",
        ("plan", "fit"),
        "declared allowance 242 GiB",
        "raise",
    )
    assert r.where == "plan.fit"
    assert r.line() == "refused: fit.exceeds_pool at plan.fit: declared allowance 242 GiB"


def test_refusal_hint_defaults_to_empty() -> None:
    assert refusal("a.b", ("x",), "m").hint == ""


def test_refusal_is_frozen_and_forbids_unknown_fields() -> None:
    r = refusal("a.b", ("x",), "m")
    with pytest.raises(ValidationError):
        r.code = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Refusal.model_validate({"code": "a", "location": (), "message": "m", "colour": "red"})


def test_planner_input_error_names_source_place_and_message() -> None:
    err = PlannerInputError("fabric.json", "hosts[4].rail_address", "not an IPv4 rail address")
    assert (err.source, err.where, err.message) == (
        "fabric.json",
        "hosts[4].rail_address",
        "not an IPv4 rail address",
    )
    assert str(err) == "fabric.json: hosts[4].rail_address: not an IPv4 rail address"
    assert isinstance(err, Exception)


def test_lines_put_the_hint_on_a_line_of_its_own() -> None:
    hinted = refusal("a.b", ("x", 0), "no", hint="do this")
    assert hinted.lines() == ("refused: a.b at x[0]: no", "  hint: do this")
    assert refusal("a.b", ("x",), "no").lines() == ("refused: a.b at x: no",)
