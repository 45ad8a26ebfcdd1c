"""``claims mutate --explain ID``: one mutant of a survey's report, as the report records it."""

from __future__ import annotations

import json
from pathlib import Path

from plugins.mutate.stryker import add_file, add_tests, empty_report, location
from tests.hostile_support import claims_main


def _report(path: Path) -> Path:
    report = empty_report("explain test")
    mutants = add_file(report, "pkg/x.py", "def f():\n    return 1\n")
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
        "why:",
        "  --- pkg/x.py",
        "  +++ pkg/x.py",
        "  -    return 1",
        "  +    return 2\\x1b[31m",  # what a report holds is escaped before the terminal
        "covered by (2):",
        "  w.a",
        "  w.b",
        "killed by: none",
    ]


def test_an_id_the_report_does_not_hold_names_the_closest(tmp_path: Path) -> None:
    report = _report(tmp_path / "r.json")
    ran = claims_main("mutate", "--explain", "pkg.x.x_f__mutmut_11", "--report", report)
    assert ran.code == 2
    assert ran.out == ""
    assert ran.err.endswith(
        "holds no such mutant (1 mutants); the closest: pkg.x.x_f__mutmut_1\n"
    ), ran.err


def test_a_missing_report_is_a_located_error(tmp_path: Path) -> None:
    ran = claims_main("mutate", "--explain", "x", "--report", tmp_path / "none.json")
    assert ran.code == 2
    assert "none.json" in ran.err and "Traceback" not in ran.err
