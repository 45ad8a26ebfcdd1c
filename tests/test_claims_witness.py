"""Resolving a witness: discovery in source order, ids, statements, unresolved imports."""

from __future__ import annotations

import inspect

from claims import ClaimKind, Outcome, Unresolved, Verdict, Witness
from claims.witness import resolve_witness, witness_of


def _witness(module: str, name: str = "w") -> Witness:
    resolved = resolve_witness(name, f"tests.fakes.{module}")
    assert isinstance(resolved, Witness)
    return resolved


def test_claims_are_discovered_in_source_order() -> None:
    names = [c.name for c in _witness("witness_order").claims]
    assert names == ["zebra_comes_first", "apple_comes_second", "mango_comes_third"]


def test_a_claim_id_is_witness_dot_function_and_its_kind_is_the_stamp() -> None:
    first = _witness("witness_order", "fake_order").claims[0]
    assert first.id == "fake_order.zebra_comes_first"
    assert first.kind is ClaimKind.IDENTITY


def test_the_docstring_is_the_statement() -> None:
    claims = {c.name: c for c in _witness("witness_red").claims}
    assert claims["fails_by_verdict"].statement.startswith("Two plus two is five.\n\nA longer")


def test_a_given_property_keeps_its_place_and_kind() -> None:
    claims = _witness("witness_green").claims
    assert [c.kind for c in claims][-1] is ClaimKind.PROPERTY
    assert claims[-1].name == "ceiling_never_rounds_down"


def test_setup_is_found_and_is_not_a_claim() -> None:
    witness = _witness("witness_green")
    assert witness.setup is not None
    assert "setup" not in {c.name for c in witness.claims}


def test_an_import_failure_is_unresolved_with_the_reason() -> None:
    resolved = resolve_witness("w", "tests.fakes.witness_import_error")
    assert isinstance(resolved, Unresolved)
    assert resolved.reason == (
        "import of tests.fakes.witness_import_error failed: ModuleNotFoundError: "
        "No module named 'tests.fakes.no_such_fixture'"
    )


def test_a_missing_module_is_unresolved() -> None:
    resolved = resolve_witness("w", "tests.fakes.witness_not_written_yet")
    assert isinstance(resolved, Unresolved)
    assert "ModuleNotFoundError" in resolved.reason


def test_a_claim_taking_case_is_one_claim_per_case_in_their_order() -> None:
    claims = _witness("witness_cases", "wc").claims
    assert [c.id for c in claims] == [
        "wc.plain_comes_first",
        "wc[two].the_case_is_even",
        "wc[three].the_case_is_even",
        "wc[four-4].the_case_is_even",
    ]
    assert [c.label for c in claims][1] == "the_case_is_even[two]"
    verdicts = [c.function() for c in claims[1:]]
    assert [(v.outcome, v.reason) for v in verdicts if isinstance(v, Verdict)] == [
        (Outcome.PASS, ""),
        (Outcome.FAIL, "3 is odd"),
        (Outcome.PASS, ""),
    ]
    assert witness_of("wc[two].the_case_is_even") == "wc" == witness_of("wc.plain_comes_first")


def test_a_case_claim_runs_as_its_function() -> None:
    """Reports and tracebacks unwrap a case's function to the claim's own code."""
    claim = _witness("witness_cases").claims[1]
    assert inspect.unwrap(claim.function).__name__ == "the_case_is_even"


def test_cases_that_raise_leave_the_witness_unresolved() -> None:
    resolved = resolve_witness("w", "tests.fakes.witness_cases_error")
    assert isinstance(resolved, Unresolved)
    assert resolved.reason == "cases() failed: LookupError: no registry"
