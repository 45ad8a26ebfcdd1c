"""``claims mutate --explain ID``: one mutant of a survey's report, as the report records it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from plugins.mutate.stryker import add_file, add_tests, empty_report, location
from tests.hostile_support import claims_main


def _killed(number: int, replacement: str, killed: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "id": f"pkg.x.x_f__mutmut_{number}",
        "mutatorName": "NumberLiteral",
        "replacement": replacement,
        "description": f"return 1  →  return {replacement}",
        "location": location((2, 12), (2, 13)),
        "status": "Killed",
        "statusReason": f"{killed[0]}: AssertionError: 1 != {replacement}",
        "killedBy": killed,
        "coveredBy": ["w.a", "w.b"],
        **extra,
    }


def _report(path: Path) -> Path:
    report = empty_report("explain test")
    mutants = add_file(report, "pkg/x.py", "def f():\n    return 1\n")
    mutants += [
        _killed(2, "0", ["w.a"]),
        _killed(3, "7", ["w.a", "w.b", "w.c"]),
        _killed(4, "9", ["w.a"], description="a change the source does not show"),
    ]
    mutants.append(
        {
            "id": "pkg.x.x_f__mutmut_1",
            "mutatorName": "NumberLiteral",
            "replacement": "2",
            "description": "return 1  →  return 2",
            "location": location((2, 12), (2, 13)),
            "status": "Survived",
            "statusReason": "--- pkg/x.py\n+++ pkg/x.py\n-    return 1\n+    return 2\x1b[31m",
            "killedBy": [],
            "coveredBy": ["w.a", "w.b"],
        }
    )
    add_tests(report, "witnesses/w.py", [("w.a", "a", 3), ("w.b", "b", 4)])
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_a_mutant_is_shown_with_its_change_verdict_diff_and_claims(tmp_path: Path) -> None:
    report = _report(tmp_path / "r.json")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_1", "--report", report)
    assert ran.code == 0, ran.err
    assert ran.out.splitlines() == [
        "pkg.x.x_f__mutmut_1 (pkg/x.py:2, NumberLiteral)",
        "status: Survived",
        "change: return 1  →  return 2",
        "diff:",
        "  --- pkg/x.py",
        "  +++ pkg/x.py",
        "  -    return 1",
        "  +    return 2\\x1b[31m",  # what a report holds is escaped before the terminal
        "claims (2 cover it, 0 red):",
        "  green  w.a",
        "  green  w.b",
        "minimal set: in it (a survivor is a class of its own)",
    ]


def test_a_kill_shows_the_diff_its_span_makes_each_verdict_and_its_place(tmp_path: Path) -> None:
    report = _report(tmp_path / "r.json")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_3", "--report", report)
    assert ran.code == 0, ran.err
    assert ran.out.splitlines() == [
        "pkg.x.x_f__mutmut_3 (pkg/x.py:2, NumberLiteral)",
        "status: Killed",
        "change: return 1  →  return 7",
        "diff:",
        "  --- pkg/x.py",
        "  +++ pkg/x.py",
        "  @@ -2,1 +2,1 @@",
        "  -    return 1",
        "  +    return 7",
        "why:",
        "  w.a: AssertionError: 1 != 7",
        "claims (2 cover it, 2 red):",
        "  red    w.a",
        "  red    w.b",
        "  red    w.c (never calls it: coverage or isolation is wrong)",
        # killed by {w.a} ⊂ {w.a, w.b, w.c}: mutmut_2 subsumes it
        "minimal set: subsumed by pkg.x.x_f__mutmut_2 (killed by a strict subset of its claims)",
    ]


def test_a_change_the_source_does_not_reproduce_has_no_diff(tmp_path: Path) -> None:
    report = _report(tmp_path / "r.json")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_4", "--report", report)
    assert "diff: none in the report" in ran.out.splitlines()
    assert "minimal set: pkg.x.x_f__mutmut_2, killed by the same claims, stands for both" in ran.out
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_2", "--report", report)
    assert ran.out.splitlines()[-1] == (
        "minimal set: in it (no other mutant of the file is killed by a subset of its claims)"
    )


def test_an_id_the_report_does_not_hold_names_the_closest(tmp_path: Path) -> None:
    report = _report(tmp_path / "r.json")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_11", "--report", report)
    assert ran.code == 2
    assert ran.out == ""
    assert "holds no such mutant (4 mutants); the closest: pkg.x.x_f__mutmut_1, " in ran.err


def test_a_missing_report_is_a_located_error(tmp_path: Path) -> None:
    ran = claims_main("mutate", "--explain", "x", "--report", tmp_path / "none.json")
    assert ran.code == 2
    assert "none.json" in ran.err and "Traceback" not in ran.err


def test_in_a_first_kill_report_a_kill_leaves_the_other_claims_unjudged(tmp_path: Path) -> None:
    path = _report(tmp_path / "r.json")
    report = json.loads(path.read_text(encoding="utf-8"))
    report["config"] = {"firstKill": True}
    path.write_text(json.dumps(report), encoding="utf-8")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_2", "--report", path)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    i = lines.index("claims (2 cover it, 1 red; ? the survey stopped at the first red claim):")
    assert lines[i + 1 : i + 3] == ["  red    w.a", "  ?      w.b"]
    assert lines[i + 3].startswith("minimal set: unknown (no scores on the minimal mutant set")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_1", "--report", path)
    assert "  green  w.a" in ran.out.splitlines()  # a survivor ran every covering claim
