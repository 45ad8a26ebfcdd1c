"""Strength per file and the floors CI holds it to (mutation/floors.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims import UsageError
from plugins.mutate.floors import (
    Floor,
    Score,
    below_floors,
    hold_floors,
    load_floors,
    score_table,
    scores,
    total,
)


def _report(**files: list[str]) -> dict[str, Any]:
    return {
        "files": {
            f"planner/{name}.py": {"mutants": [{"status": status} for status in statuses]}
            for name, statuses in files.items()
        }
    }


def test_strength_counts_timeouts_as_killed_and_leaves_out_the_unjudged() -> None:
    report = _report(
        a=["Killed", "Timeout", "Survived", "NoCoverage", "Ignored", "RuntimeError", "Killed"]
    )
    (a,) = scores(report)
    assert (a.killed, a.survived, a.no_coverage, a.equivalent, a.crashed) == (3, 1, 1, 1, 1)
    assert a.strength == 75.0


def test_a_file_with_no_judged_mutant_has_no_strength() -> None:
    (a,) = scores(_report(a=["NoCoverage"]))
    assert a.strength is None
    assert "—" in score_table([a])


def test_total_adds_every_file() -> None:
    every = total(scores(_report(a=["Killed", "Survived"], b=["Killed", "NoCoverage"])))
    assert (every.path, every.killed, every.survived, every.no_coverage) == ("all", 2, 1, 1)


def test_below_floors_names_the_file_its_strength_and_its_floor() -> None:
    per_file = [Score("planner/a.py", killed=8, survived=2), Score("planner/b.py", killed=1)]
    floors = {"planner/a.py": Floor(85.0), "planner/b.py": Floor(100.0)}
    assert below_floors(per_file, floors) == [
        "planner/a.py: strength 80.0% is below its floor 85% (2 survived)"
    ]


def test_exactly_at_the_floor_holds() -> None:
    assert below_floors([Score("p.py", killed=4, survived=1)], {"p.py": Floor(80.0)}) == []


def test_uncovered_mutants_beyond_the_allowance_fail() -> None:
    per_file = [Score("p.py", killed=1, no_coverage=3)]
    assert below_floors(per_file, {"p.py": Floor(0.0, no_coverage=3)}) == []
    assert below_floors(per_file, {"p.py": Floor(0.0, no_coverage=2)}) == [
        "p.py: 3 mutants reached by no claim, 2 allowed"
    ]


def test_a_file_without_a_floor_fails() -> None:
    assert below_floors([Score("planner/new.py", killed=1)], {}) == [
        "planner/new.py: no floor recorded; add one to the floors file"
    ]


def test_floors_read_both_forms(tmp_path: Path) -> None:
    path = tmp_path / "floors.toml"
    path.write_text(
        '[generated]\nall = 90\n"planner/a.py" = { strength = 80.5, no_coverage = 2 }\n'
    )
    assert load_floors(path, "generated") == {
        "all": Floor(90.0),
        "planner/a.py": Floor(80.5, 2),
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[generated]\n"a.py" = "high"\n', "'a.py': the floor must be a percent, not 'high'"),
        ('[generated]\n"a.py" = 101\n', "'a.py': the floor 101 is not between 0 and 100"),
        ('[generated]\n"a.py" = true\n', "'a.py': the floor must be a percent, not True"),
        (
            '[generated]\n"a.py" = { strength = 1, no_coverage = -1 }\n',
            "'a.py': no_coverage must be a count, not -1",
        ),
        ('[generated]\n"a.py" = { strength = 1, floor = 2 }\n', "'a.py': unknown key 'floor'"),
        ("[values]\n", "no [generated] table of floors"),
        ("[generated\n", "cannot read the floors"),
    ],
)
def test_a_bad_floors_file_is_a_located_usage_error(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "floors.toml"
    path.write_text(text)
    with pytest.raises(UsageError) as raised:
        load_floors(path, "generated")
    assert str(path) in str(raised.value)
    assert message in str(raised.value)


def test_a_whole_survey_below_a_floor_exits_3_and_a_partial_one_holds_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "floors.toml"
    path.write_text('[generated]\nall = 50\n"planner/a.py" = 90\n')
    report = _report(a=["Killed", "Survived"])
    assert hold_floors(report, path, None, "generated") == 3
    assert "below floor: planner/a.py: strength 50.0% is below its floor 90%" in (
        capsys.readouterr().out
    )
    assert hold_floors(report, path, "shard 1/4", "generated") == 0
    assert "floors not held: a partial survey (shard 1/4)" in capsys.readouterr().out


def test_the_whole_survey_is_held_to_the_all_floor(tmp_path: Path) -> None:
    path = tmp_path / "floors.toml"
    path.write_text('[generated]\nall = 90\n"planner/a.py" = 50\n"planner/b.py" = 50\n')
    report = _report(a=["Killed", "Survived"], b=["Killed", "Survived"])
    assert hold_floors(report, path, None, "generated") == 3
    path.write_text('[generated]\nall = 50\n"planner/a.py" = 50\n"planner/b.py" = 50\n')
    assert hold_floors(report, path, None, "generated") == 0


def test_the_committed_floors_cover_every_planner_module() -> None:
    floors = load_floors(Path(__file__).resolve().parents[1] / "mutation/floors.toml", "generated")
    # planner/__init__.py holds only a docstring; a subpackage's __init__ (planner/arms) is code
    modules = sorted(
        p.relative_to(Path(__file__).resolve().parents[1]).as_posix()
        for p in (Path(__file__).resolve().parents[1] / "planner").rglob("*.py")
        if p.relative_to(Path(__file__).resolve().parents[1]).as_posix() != "planner/__init__.py"
    )
    assert sorted(set(floors) - {"all"}) == modules


def test_a_project_without_a_floors_file_holds_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert hold_floors(_report(a=["Survived"]), None, None, "generated") == 0
    assert "floors not held: no floors file (--floors FILE, or floors in [tool.claims])" in (
        capsys.readouterr().out
    )
