"""Strength per file and the floors CI holds it to (mutation/floors.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims import UsageError
from plugins.mutate.floors import (
    WHOLE,
    Floor,
    Scope,
    Score,
    below_floors,
    floor_problems,
    hold_floors,
    load_floors,
    merged_scope,
    score_table,
    scores,
    total,
)
from plugins.mutate.generated.command import SurveyPlan, floor_scope
from plugins.mutate.generated.mutmut_bridge import source_paths


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
    assert hold_floors(report, path, WHOLE, "generated") == 3
    assert "below floor: planner/a.py: strength 50.0% is below its floor 90%" in (
        capsys.readouterr().out
    )
    assert hold_floors(report, path, Scope("shard 1/4"), "generated") == 0
    assert "strength floors not held: a partial survey (shard 1/4)" in capsys.readouterr().out


def test_the_whole_survey_is_held_to_the_all_floor(tmp_path: Path) -> None:
    path = tmp_path / "floors.toml"
    path.write_text('[generated]\nall = 90\n"planner/a.py" = 50\n"planner/b.py" = 50\n')
    report = _report(a=["Killed", "Survived"], b=["Killed", "Survived"])
    assert hold_floors(report, path, WHOLE, "generated") == 3
    path.write_text('[generated]\nall = 50\n"planner/a.py" = 50\n"planner/b.py" = 50\n')
    assert hold_floors(report, path, WHOLE, "generated") == 0


def test_the_committed_floors_cover_every_surveyed_module() -> None:
    """Every Python file under ``[tool.mutmut] source_paths`` has a ``[generated]`` entry (a
    file mutmut makes no mutant of says so with ``no_mutants``, and the gate fails once it
    makes one)."""
    root = Path(__file__).resolve().parents[1]
    floors = load_floors(root / "mutation/floors.toml", "generated")
    modules = sorted(
        p.relative_to(root).as_posix()
        for base in source_paths(root)
        for p in (root / base).rglob("*.py")
    )
    assert sorted(set(floors) - {"all"}) == modules


def test_a_project_without_a_floors_file_holds_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert hold_floors(_report(a=["Survived"]), None, WHOLE, "generated") == 0
    assert "floors not held: no floors file (--floors FILE, or floors in [tool.claims])" in (
        capsys.readouterr().out
    )


def _floors(tmp_path: Path, *files: str, all_: int = 50) -> Path:
    path = tmp_path / "floors.toml"
    path.write_text(
        f"[generated]\nall = {all_}\n" + "".join(f'"planner/{f}.py" = 50\n' for f in files)
    )
    return path


def test_a_whole_survey_holding_one_floored_file_of_four_names_the_three_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _floors(tmp_path, "a", "b", "c", "fit")
    assert hold_floors(_report(a=["Killed"]), path, WHOLE, "generated") == 3
    out = capsys.readouterr().out
    missing = [line for line in out.splitlines() if "missing from the report" in line]
    assert missing == [
        f"below floor: planner/{name}.py: floored at 50% but the survey judged none of its "
        "mutants (missing from the report)"
        for name in ("b", "c", "fit")
    ]
    assert "every file holds its floor" not in out


def test_the_merge_of_every_shard_is_whole_and_so_must_hold_every_floored_file(
    tmp_path: Path,
) -> None:
    merged = {**_report(a=["Killed"]), "config": {"shard": "1/1", "mergedShards": 4}}
    assert merged_scope(merged) == WHOLE
    assert hold_floors(merged, _floors(tmp_path, "a", "b"), merged_scope(merged), "generated") == 3


def test_a_report_with_no_mutant_at_all_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert hold_floors({"files": {}}, _floors(tmp_path, "a"), WHOLE, "generated") == 3
    out = capsys.readouterr().out
    assert (
        "below floor: all: floored at 50% but the survey judged none of its mutants "
        "(the report holds no mutant)"
    ) in out
    assert "below floor: planner/a.py: floored at 50% but" in out


def test_every_mutant_crashed_fails_the_survey_with_its_crash_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(a=["RuntimeError", "RuntimeError"], b=["CompileError"])
    assert hold_floors(report, _floors(tmp_path, "a", "b"), WHOLE, "generated") == 6
    out = capsys.readouterr().out
    assert "planner/a.py: floored at 50% but the survey judged none of its mutants (2 crashed)" in (
        out
    )
    assert "crashed: planner/a.py: 2 mutants crashed (no claim judged them" in out
    assert "crashed: planner/b.py: 1 mutant crashed (no claim judged it" in out
    assert out.rstrip().endswith("3 crashed mutants: the survey fails (exit 6)")


def test_one_crashed_mutant_fails_a_survey_whose_floors_hold_or_that_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(a=["Killed", "RuntimeError"])
    assert hold_floors(report, _floors(tmp_path, "a"), WHOLE, "generated") == 6
    assert hold_floors(report, None, WHOLE, "generated") == 6
    assert hold_floors(report, _floors(tmp_path, "a"), Scope("shard 2/4"), "generated") == 6
    out = capsys.readouterr().out
    assert "every file holds its floor" in out
    assert out.count("1 crashed mutant: the survey fails (exit 6)") == 3


def test_a_whole_survey_holding_every_floored_file_above_its_floor_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _floors(tmp_path, "a", "b")
    report = _report(a=["Killed", "Survived", "Ignored"], b=["Timeout"])
    assert hold_floors(report, path, WHOLE, "generated") == 0
    out = capsys.readouterr().out
    assert f"every file holds its floor ({path} [generated])" in out
    assert "below floor" not in out and "crashed:" not in out


@pytest.mark.parametrize(
    ("statuses", "why"),
    [
        (["NoCoverage"], "1 reached by no claim"),
        (["Ignored", "Ignored"], "2 equivalent"),
        (["Ignored", "RuntimeError"], "1 equivalent, 1 crashed"),
    ],
)
def test_a_floored_file_with_no_judged_mutant_never_holds(statuses: list[str], why: str) -> None:
    per_file = scores(_report(a=["Killed"], b=statuses))
    floors = {"all": Floor(0.0), "planner/a.py": Floor(50.0), "planner/b.py": Floor(0.0, 9)}
    assert floor_problems(per_file, floors) == [
        f"planner/b.py: floored at 0% but the survey judged none of its mutants ({why})"
    ]


def test_a_file_whose_every_mutant_is_equivalent_needs_no_floor() -> None:
    per_file = scores(_report(a=["Killed"], b=["Ignored"]))
    assert floor_problems(per_file, {"all": Floor(0.0), "planner/a.py": Floor(50.0)}) == []


def test_a_partial_run_needs_no_floored_file_outside_its_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _floors(tmp_path, "a", "b", "c", all_=100)
    report = _report(a=["Killed", "Survived"])
    for scope in (Scope("shard 1/4"), Scope("--file", ("planner/a.py",)), Scope("some witnesses")):
        assert hold_floors(report, path, scope, "generated") == 0, scope
    assert "below floor" not in capsys.readouterr().out


def test_a_partial_run_still_fails_where_it_judged_nothing(tmp_path: Path) -> None:
    floors = load_floors(_floors(tmp_path, "a", "b"), "generated")
    uncovered = scores(_report(a=["NoCoverage"]))
    # a shard that surveyed nothing, or judged nothing of what it surveyed
    assert floor_problems([], floors, Scope("shard 3/4")) == [
        "all: floored at 50% but the survey judged none of its mutants (the report holds no mutant)"
    ]
    assert len(floor_problems(uncovered, floors, Scope("shard 3/4"))) == 1
    # --file surveys its files whole: one it names and floors must be judged
    assert floor_problems([], floors, Scope("--file", ("planner/b.py",)))[0] == (
        "planner/b.py: floored at 50% but the survey judged none of its mutants (missing from "
        "the report)"
    )
    assert floor_problems(uncovered, floors, Scope("--file", ("planner/a.py",)))[0] == (
        "planner/a.py: floored at 50% but the survey judged none of its mutants (1 reached by "
        "no claim)"
    )


def test_a_since_run_may_find_nothing_changed() -> None:
    floors = {"all": Floor(50.0), "planner/a.py": Floor(50.0)}
    assert floor_problems([], floors, Scope("--since main", sampled=True)) == []


def test_a_merge_of_a_since_or_file_surveys_shards_is_as_partial_as_they_were() -> None:
    since = {"files": {}, "config": {"shard": "1/1", "since": "main", "files": ["planner/a.py"]}}
    assert merged_scope(since) == Scope("--since main, --file", (), sampled=True)
    files = {"files": {}, "config": {"shard": "1/1", "since": None, "files": ["planner/a.py"]}}
    assert merged_scope(files) == Scope("--file", ("planner/a.py",))
    assert merged_scope({"files": {}, "config": {"since": 3, "files": "planner/a.py"}}) == WHOLE
    assert merged_scope({"files": {}, "config": {"since": "", "files": []}}) == WHOLE


def test_a_file_recorded_as_having_no_mutant_need_not_be_there_and_fails_once_it_is(
    tmp_path: Path,
) -> None:
    path = tmp_path / "floors.toml"
    path.write_text('[generated]\nall = 50\n"planner/data.py" = { no_mutants = "data only" }\n')
    floors = load_floors(path, "generated")
    assert floors["planner/data.py"] == Floor(100.0, no_mutants="data only")
    assert floor_problems(scores(_report(a=["Killed"])), {**floors, "planner/a.py": Floor(0)}) == []
    assert floor_problems(scores(_report(data=["Killed", "Survived"])), floors) == [
        "planner/data.py: recorded as having no mutant (data only) but the survey holds 2; "
        "give it a strength floor"
    ]
    assert "no mutants" in score_table(scores(_report(data=["Killed"])), floors)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('{ no_mutants = "" }', "'a.py': no_mutants must say why the file has none, not ''"),
        ("{ no_mutants = 1 }", "'a.py': no_mutants must say why the file has none, not 1"),
        ('{ no_mutants = "data", strength = 9 }', "'a.py': no_mutants stands alone, without"),
    ],
)
def test_a_bad_no_mutants_entry_is_a_located_usage_error(
    tmp_path: Path, entry: str, message: str
) -> None:
    path = tmp_path / "floors.toml"
    path.write_text(f'[generated]\n"a.py" = {entry}\n')
    with pytest.raises(UsageError, match=message):
        load_floors(path, "generated")
    path.write_text('[generated]\nall = { no_mutants = "none" }\n')
    with pytest.raises(UsageError, match="'all': the whole survey cannot be without mutants"):
        load_floors(path, "generated")


def _plan(**given: Any) -> SurveyPlan:
    fields: dict[str, Any] = dict(
        root=Path("."),
        scope=("w",),
        plugins=(),
        pythonpath=(),
        jobs=1,
        exhaustive=False,
        shard=None,
        files=(),
        report=Path("r.json"),
        floors=None,
        evidence=(),
        partial=None,
        stop_after=None,
        waiting_workers=0,
    )
    return SurveyPlan(**{**fields, **given})


def test_a_survey_says_what_its_report_speaks_for() -> None:
    assert floor_scope(_plan()) == WHOLE
    assert floor_scope(_plan(shard=(1, 4), partial="shard 1/4")) == Scope("shard 1/4")
    named = _plan(files=("planner/a.py",), partial="--file")
    assert floor_scope(named) == Scope("--file", ("planner/a.py",))
    # a shard or --since takes only part of a named file: it need not be judged then
    assert floor_scope(named, "main").files == () and floor_scope(named, "main").sampled
    assert floor_scope(_plan(files=("planner/a.py",), shard=(2, 4), partial="x")).files == ()
    # a survey stopped early judged part of it too
    assert floor_scope(named, stopped=True) == Scope("--file")
