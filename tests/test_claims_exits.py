"""One exit-code enum: docs/claims.md's table is ``claims.Exit``, and the commands return it."""

from __future__ import annotations

import re

import pytest

from claims import Exit, exits
from claims.cli import main as claims_main
from tests.fakes.support import REPO

ROW = re.compile(r"^\| (\d+) \| `(\w+)`(?: \(`(\w+)`\))? \| (.+) \|$")


def _table_rows() -> list[tuple[int, list[str]]]:
    text = (REPO / "docs" / "claims.md").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        found = ROW.match(line)
        if found and found.group(2).isupper():
            rows.append((int(found.group(1)), [n for n in found.group(2, 3) if n]))
    return rows


def test_the_docs_table_names_every_exit_code_from_the_enum() -> None:
    """Each code once, named by its member and then its aliases, in the enum's order."""
    names: dict[int, list[str]] = {}
    for name, member in Exit.__members__.items():
        names.setdefault(int(member), []).append(name)
    assert _table_rows() == list(names.items())


def test_the_numbers_the_docs_document_stay() -> None:
    assert {m.name: int(m) for m in Exit.__members__.values()} == {
        "OK": 0,
        "FAILED": 1,
        "USAGE": 2,
        "SURVIVOR": 3,
        "COLLATERAL": 4,
        "BASELINE": 5,
        "TIMEOUT": 6,
        "UNREACHED": 7,
        "UNWITNESSED": 8,
        "AUDIT": 9,
        "INTERNAL": 70,
        "INTERRUPTED": 130,
        "CLOSED_OUTPUT": 141,
    }
    assert Exit["EXACT"] is Exit.OK


def test_an_unknown_witness_exits_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert claims_main(["run", "no_such_witness"]) == Exit.USAGE
    assert "no_such_witness" in capsys.readouterr().err


def test_the_help_footer_lists_every_exit_code_from_the_enum(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``claims --help`` states each code once, in the enum's order, with the member's name,
    its aliases and its docstring: generated from ``claims.Exit``, so it cannot drift."""
    with pytest.raises(SystemExit):
        claims_main(["--help"])
    footer = capsys.readouterr().out.split("\nexit codes")[1]
    entries = re.findall(r"^  (\d+) +(\w+(?: \(\w+\))*): (.*(?:\n {6}.*)*)", footer, re.M)
    names: dict[int, list[str]] = {}
    for name, member in Exit.__members__.items():
        names.setdefault(int(member), []).append(name)
    assert [(int(code), re.findall(r"\w+", label)) for code, label, _ in entries] == list(
        names.items()
    )
    meanings = exits.meanings()
    for _, label, text in entries:
        said = " ".join(text.split())
        documented = " ".join(meanings[label.split()[0]].replace("``", "`").split()).rstrip(".")
        assert said == documented[:1].lower() + documented[1:]


def test_every_member_has_a_docstring_for_the_help() -> None:
    assert set(exits.meanings()) == set(Exit.__members__)
