"""The built-in reporters: table, json (round trip), markdown shape, github escaping."""

from __future__ import annotations

import io
import json

import pytest

from claims import RunReport
from plugins.reporters import (
    DETAIL_LIMIT,
    escape_data,
    escape_property,
    github_error,
    render_github,
    render_json,
    render_markdown,
    render_table,
    run_report_from_json,
)
from tests.fakes.support import fake_session


@pytest.fixture(scope="module")
def report() -> RunReport:
    return fake_session().run(["fake_green", "fake_red", "fake_setup_error"])


def test_the_table_lists_claims_then_ends_with_the_summary_lines(report: RunReport) -> None:
    text = render_table(report)
    header = text.splitlines()[0].split()
    assert header == ["claim", "kind", "verdict", "evidence", "or", "reason", "ms"]
    assert "fake_red.fails_by_verdict" in text
    assert text.endswith(
        "\n\nfake_green: 4/4 PASS\nfake_red: 1/7 FAIL\n"
        "fake_setup_error: unresolved: setup() failed: RuntimeError: "
        "authority log fixture is empty\n"
    )


def test_a_long_evidence_is_cut_in_the_table_and_whole_in_json(report: RunReport) -> None:
    """The table shows the first DETAIL_LIMIT characters of a detail and counts the rest;
    ``--format json`` keeps every character."""
    result = report.witnesses[0].results[0]
    long = "word " * 2000  # 10,000 characters
    verdict = result.verdict.model_copy(update={"evidence": long, "reason": long})
    changed = result.model_copy(update={"verdict": verdict})
    witness = report.witnesses[0].model_copy(update={"results": (changed,)})
    alone = report.model_copy(update={"witnesses": (witness,)})
    table = " ".join(render_table(alone).split())  # the cell's wrapped lines, joined again
    assert f"({10_000 - DETAIL_LIMIT:,} more characters: --format json shows them)" in table
    assert table.count("word") == DETAIL_LIMIT // 5
    assert (
        json.loads(render_json(alone))["witnesses"][witness.name]["claims"][0]["evidence"] == long
    )


def test_json_round_trips_to_the_same_report(report: RunReport) -> None:
    stream = io.StringIO()
    fake_session().report(report, "json", stream)
    assert run_report_from_json(stream.getvalue()) == report


def test_json_is_witnesses_to_claims(report: RunReport) -> None:
    stream = io.StringIO()
    fake_session().report(report, "json", stream)
    doc = json.loads(stream.getvalue())
    assert doc["ok"] is False
    assert list(doc["witnesses"]) == ["fake_green", "fake_red", "fake_setup_error"]
    first = doc["witnesses"]["fake_red"]["claims"][1]
    assert set(first) >= {"id", "kind", "verdict", "reason", "evidence", "duration_ms"}
    assert (first["id"], first["verdict"]) == ("fake_red.fails_by_verdict", "fail")
    assert doc["witnesses"]["fake_setup_error"]["unresolved"].startswith("setup() failed")


def test_markdown_is_a_summary_then_claims_grouped_by_kind(report: RunReport) -> None:
    blocks = render_markdown(report).split("\n\n")
    assert blocks[0] == "**fake_green: 4/4 PASS**"
    assert blocks[1] == (
        "_planned_shape_ (1/1)\n- Rank zero serves on the route's port, 8000. — `serve port = 8000`"
    )
    assert "**fake_red: 1/7 FAIL**" in blocks
    assert "- **FAIL** Two plus two is five. — `sum: expected 5, got 4`" in render_markdown(report)
    assert blocks[-1].startswith("**fake_setup_error: unresolved: setup() failed")


def test_markdown_kinds_follow_the_kind_order(report: RunReport) -> None:
    text = render_markdown(report)
    red = text[text.index("**fake_red") :]
    kinds = [line.split("_ (")[0].strip("_") for line in red.splitlines() if line.startswith("_")]
    assert kinds == [
        "planned_shape",
        "refusal",
        "positive_control",
        "pairing_obligation",
        "property",
        "identity",
    ]


def test_github_annotates_what_did_not_pass_then_prints_the_summary(report: RunReport) -> None:
    lines = render_github(report).splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 6 + 1
    assert lines[-3:] == list(report.summary_lines())
    assert errors[0].startswith(
        "::error file=tests/fakes/witness_red.py,line=",
    )
    assert ",title=fake_red.fails_by_verdict FAIL (planned_shape)::" in errors[0]
    assert all("\n" not in line for line in errors)


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("100%", "100%25", "100%25"),
        ("a\nb\r", "a%0Ab%0D", "a%0Ab%0D"),
        ("x: y, z", "x: y, z", "x%3A y%2C z"),
        ("%0A", "%250A", "%250A"),
    ],
)
def test_github_escaping(raw: str, data: str, prop: str) -> None:
    assert (escape_data(raw), escape_property(raw)) == (data, prop)


def test_a_github_error_line() -> None:
    assert github_error("a: b", "50%\nmore") == "::error title=a%3A b::50%25%0Amore"


def test_an_unknown_format_is_a_usage_error(report: RunReport) -> None:
    from claims import UsageError

    with pytest.raises(UsageError, match="known formats: table, json, markdown, github"):
        fake_session().report(report, "yaml", io.StringIO())
