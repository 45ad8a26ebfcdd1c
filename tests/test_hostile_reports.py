"""Hostile reports given to ``claims mutate --merge-reports`` (both surveys): a report that is
not strict JSON, or whose shape the merge and the summaries read is wrong, is exit 2 naming
the file and the place, and ``--report`` is not written; a report whose only oddity is in a
part nobody reads merges (exit 0, or 3 below the floors). Never a traceback."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plugins.mutate.stryker import add_file, add_tests, empty_report, location
from tests.hostile_support import HOSTILE, Corruption, claims_main, corruptions, no_crash


def _report() -> dict[str, object]:
    report = empty_report("hostile test")
    mutants = add_file(report, "planner/x.py", "def f():\n    return 1\n")
    for number, status in enumerate(("Killed", "Survived"), start=1):
        mutants.append(
            {
                "id": f"m{number}",
                "mutatorName": "number",
                "replacement": "return 2",
                "location": location((2, 5), (2, 13)),
                "status": status,
                "killedBy": ["w.c"] if status == "Killed" else [],
                "coveredBy": ["w.c"],
            }
        )
    add_tests(report, "witnesses/w.py", [("w.c", "c", 3)])
    return report


def _shard(report: dict[str, object], k: int) -> dict[str, object]:
    """``report`` as shard ``k`` of a split in two (merging needs every shard of one split)."""
    copy = json.loads(json.dumps(report))
    copy["config"] = {"shard": f"{k}/2"}
    return dict(copy)


REPORT = _shard(_report(), 2)
"""The report a test corrupts: shard 2/2, merged with :data:`GOOD`, shard 1/2."""
GOOD = _shard(_report(), 1)
_READ = (
    r"thresholds(\.(high|low))?",
    r"config(\.shard)?",
    r"files(\.planner/x\.py(\.(mutants(\.\d+(\.(id|status|killedBy|coveredBy|mutatorName|"
    r"replacement)(\.\d+)?|\.location(\.(start|end)(\.(line|column))?)?)?)?|language|source))?)?",
    r"testFiles(\.witnesses/w\.py(\.tests(\.\d+(\.(id|name)|\.location(\.start(\.line)?)?)?)?)?)?",
)
"""Key paths the merge or a summary reads: a value of another type there is refused."""


def _read_by_merge(path: tuple[str | int, ...]) -> bool:
    dotted = ".".join(str(p) for p in path)
    return any(re.fullmatch(pattern, dotted) for pattern in _READ) or not path


@HOSTILE
@given(corruption=corruptions(REPORT), values=st.booleans(), first=st.booleans())
def test_a_hostile_report_is_refused_naming_it_or_merged(
    corruption: Corruption, values: bool, first: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        good, bad = Path(tmp) / "good.json", Path(tmp) / "bad.json"
        good.write_text(json.dumps(GOOD), encoding="utf-8")
        bad.write_bytes(corruption.data)
        out = Path(tmp) / "out" / "merged.json"
        reports = [bad, good] if first else [good, bad]
        survey = ["--values"] if values else []
        ran = claims_main(
            "-p",
            "mutation.plugin",
            "mutate",
            *survey,
            "--merge-reports",
            *reports,
            "--report",
            out,
        )
        no_crash(ran)
        refused = corruption.family != "retype" or _read_by_merge(corruption.path or ())
        if not refused and ran.code in (0, 3):
            merged = json.loads(out.read_text(encoding="utf-8"))
            assert sorted(m["id"] for m in merged["files"]["planner/x.py"]["mutants"]) == [
                "m1",
                "m2",
            ]
            return
        assert (ran.code, ran.out) == (2, ""), (corruption.path, ran.code, ran.out, ran.err)
        assert ran.err.startswith(f"claims: error: {bad}: "), ran.err
        assert corruption.says in ran.err, ran.err
        assert len(ran.err_lines) == 1, ran.err
        if corruption.family in ("twice", "huge", "surrogate", "constant"):
            assert f"{bad}: {corruption.dotted()}: " in ran.err, ran.err
        elif corruption.family == "deep":
            assert re.search(r": line 1, column \d+: ", ran.err), ran.err
        elif corruption.family == "retype" and corruption.path:
            named = [str(p) for p in corruption.path if not isinstance(p, int)]
            assert named[-1] in ran.err or "not a JSON object" in ran.err, ran.err
        assert not out.parent.exists()


def test_two_reports_disagreeing_on_a_mutant_are_refused() -> None:
    other = json.loads(json.dumps(GOOD))
    other["files"]["planner/x.py"]["mutants"][0]["status"] = "Survived"
    with tempfile.TemporaryDirectory() as tmp:
        one, two = Path(tmp) / "1.json", Path(tmp) / "2.json"
        one.write_text(json.dumps(REPORT), encoding="utf-8")
        two.write_text(json.dumps(other), encoding="utf-8")
        out = Path(tmp) / "merged.json"
        ran = claims_main(
            "-p", "mutation.plugin", "mutate", "--merge-reports", one, two, "--report", out
        )
        assert (ran.code, ran.err) == (
            2,
            "claims: error: mutant m1 is Killed in one report and Survived in another\n",
        )
        assert not out.exists()


@pytest.mark.parametrize("point", ["start", "end"])
def test_a_mutant_location_without_a_column_is_refused_not_a_crash(
    tmp_path: Path, point: str
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    broken = json.loads(json.dumps(REPORT))
    del broken["files"]["planner/x.py"]["mutants"][0]["location"][point]["column"]
    bad.write_text(json.dumps(broken), encoding="utf-8")
    ran = claims_main("mutate", "--merge-reports", good, bad, "--report", tmp_path / "m.json")
    assert ran.code == 2, ran.err
    assert ran.err.strip() == (
        f"claims: error: {bad}: not a mutation-testing report: files['planner/x.py']"
        f".mutants[0] (id 'm1').location.{point}.column: expected an integer"
    )
