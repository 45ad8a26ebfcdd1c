"""Each floor rule, checked on a fake witness module that breaks only that rule."""

from __future__ import annotations

import pytest

from claims import FloorViolation, Violation
from claims.witness import Unresolved, Witness, resolve_witness


def _violations(module: str, witness: str = "w") -> tuple[Violation, ...]:
    with pytest.raises(FloorViolation) as caught:
        resolve_witness(witness, f"tests.fakes.{module}")
    return caught.value.violations


def _rules(violations: tuple[Violation, ...]) -> set[tuple[str, str]]:
    return {(v.subject, v.rule) for v in violations}


def test_a_claim_calling_another_claim_is_an_aggregator() -> None:
    found = _violations("floor_aggregator")
    assert _rules(found) == {
        ("w.everything_is_planned", "aggregator"),
        ("w.refusal_through_a_helper", "aggregator"),
    }
    message = next(v.message for v in found if v.subject == "w.everything_is_planned")
    assert "w.argv_is_planned" in message
    assert "private helper" in message


def test_an_attribute_named_like_a_claim_is_not_an_aggregator() -> None:
    subjects = {v.subject for v in _violations("floor_aggregator")}
    assert "w.attribute_named_like_a_claim" not in subjects


def test_a_claim_without_a_docstring_has_no_statement() -> None:
    assert _rules(_violations("floor_no_statement")) == {
        ("w.refused_without_saying_why", "no-statement")
    }


def test_a_public_unstamped_function_is_a_claim_with_no_kind() -> None:
    found = _violations("floor_no_kind")
    assert _rules(found) == {("w.render_argv", "no-kind")}
    assert "_render_argv" in found[0].message


def test_a_claim_defined_twice_or_aliased_is_a_duplicate() -> None:
    found = _violations("floor_duplicate")
    assert _rules(found) == {
        ("w.head_is_rank_zero", "duplicate-claim"),
        ("w.lease_is_still_live", "duplicate-claim"),
    }
    assert any("lines" in v.message for v in found)


def test_a_def_written_twice_in_text_is_not_a_redefinition() -> None:
    """A top-level ``def`` starts a line at column 0; so can a line of a docstring, and the
    module is then parsed to tell them apart."""
    assert isinstance(resolve_witness("w", "tests.fakes.floor_def_in_text"), Witness)


def test_a_claim_needing_arguments_is_refused() -> None:
    found = _violations("floor_takes_arguments")
    assert _rules(found) == {("w.hosts_are_four", "takes-arguments")}
    assert "hosts" in found[0].message


def test_the_error_lists_every_violation_and_names_the_claim() -> None:
    with pytest.raises(FloorViolation) as caught:
        resolve_witness("w", "tests.fakes.floor_aggregator")
    text = str(caught.value)
    assert text.startswith("2 floor violations")
    assert "w.everything_is_planned [aggregator]" in text
    assert "w.refusal_through_a_helper [aggregator]" in text


def test_clean_witnesses_pass_the_floor() -> None:
    for module in ("witness_green", "witness_red", "witness_order", "witness_setup_error"):
        assert isinstance(resolve_witness("w", f"tests.fakes.{module}"), Witness)


def test_a_misspelled_kind_leaves_the_witness_unresolved_listing_the_kinds() -> None:
    resolution = resolve_witness("w", "tests.fakes.witness_wrong_kind")
    assert isinstance(resolution, Unresolved), resolution
    assert "unknown claim kind 'refusals'; the kinds are: planned_shape, refusal," in (
        resolution.reason
    )


def test_a_claim_taking_case_needs_cases() -> None:
    found = _violations("floor_case_without_cases")
    assert _rules(found) == {("w.over_nothing", "takes-arguments")}
    assert "defines no cases()" in found[0].message


def test_a_case_id_that_cannot_be_spelled_in_a_claim_id_is_named() -> None:
    found = _violations("floor_bad_case", "bw")
    assert _rules(found) == {("bw", "bad-case")}
    named = [v.message.split(": case id ")[1].split(" ")[0] for v in found]
    assert named == ["'a.b'", "'x[1]'", "'two", "''"]
    assert all(v.message.startswith("witness bw: ") for v in found)
