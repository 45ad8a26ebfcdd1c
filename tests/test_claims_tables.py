"""Console tables fit ``$COLUMNS`` (or the terminal), wrapping free text, never the ids."""

from __future__ import annotations

import io

import pytest

from claims.tables import NARROWEST, fitted, terminal_width

ROWS = [
    ["w.first_claim", "PASS", "a reason " * 12],
    ["w.second_claim", "FAIL", "short"],
]
HEADERS = ["claim", "verdict", "reason"]


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_a_pipe_without_columns_keeps_the_natural_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width(io.StringIO()) is None
    table = fitted(ROWS, HEADERS, 2, stream=io.StringIO())
    assert _widest(table) > 100 and len(table.splitlines()) == 4


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_columns_is_the_width_and_only_the_free_text_wraps(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    table = fitted(ROWS, HEADERS, 2)
    assert _widest(table) <= columns
    lines = table.splitlines()
    assert lines[2].startswith("w.first_claim ") and "w.second_claim" in table
    assert " ".join(" ".join(line[len(lines[0]) - len("reason") :].split()) for line in lines[2:])


def test_the_widest_of_several_free_columns_wraps_first_and_none_below_the_narrowest() -> None:
    rows = [["x" * 60, "y" * 30, "id"]]
    table = fitted(rows, ["a", "b", "c"], (0, 1), width=70)
    first = table.splitlines()[2]
    assert _widest(table) <= 70 and "y" * 30 in first  # the 60 wrapped, the 30 left whole
    assert 30 < len(first.split()[0]) <= 34
    squeezed = fitted(rows, ["a", "b", "c"], (0, 1), width=10)
    assert squeezed.splitlines()[2].startswith("x" * NARROWEST + " ")


def test_colour_codes_are_not_counted_as_width() -> None:
    painted = [["\x1b[32mPASS\x1b[0m", "word " * 10]]
    assert fitted(painted, ["verdict", "text"], 1, width=60) == fitted(
        painted, ["verdict", "text"], 1, width=1000
    )


def test_headers_wider_than_their_cells_wrap_between_words_last() -> None:
    rows = [["planner/x.py", 3, 0]]
    table = fitted(rows, ["file", "killed by them all", "no coverage"], 0, width=30)
    assert [line.rstrip() for line in table.splitlines()] == [
        "file            killed          no",
        "                    by    coverage",
        "                  them",
        "                   all",
        "------------  --------  ----------",
        "planner/x.py         3           0",
    ]


def test_a_narrow_terminal_lists_witnesses_with_their_kinds_in_one_column(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from claims.cli import main

    monkeypatch.setenv("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["-p", "tests.fakes.plugin", "-p", "no:junit", "list"]) == 1  # two unresolved
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["witness", "claims", "per", "kind", "total", "status"]
    assert max(len(line) for line in lines) <= 80
    green = next(i for i, line in enumerate(lines) if line.startswith("fake_green "))
    cell = " ".join(line[19:45].strip() for line in lines[green : green + 3])
    assert cell.startswith("planned_shape 1, refusal 1, positive_control 1"), cell
