"""``claims mutate --annotate REV``: survivors on lines changed since REV as GitHub warning
annotations, one a line, chosen by operator history, every report value escaped; in a real
temporary git repository."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugins.mutate.stryker import add_file, add_tests, empty_report, location
from tests.fakes_mutation.support import copy_project, run_generated
from tests.hostile_support import claims_main

SOURCE = "".join(f"line {n}\n" for n in range(1, 11))


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose ``pkg/x.py`` changed on lines 3 and 5 since its first commit
    (line 5 in the working tree only), with an untracked ``pkg/new.py``."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.invalid")
    _git(root, "config", "user.name", "t")
    (root / "pkg" / "x.py").write_text(SOURCE)
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "tag", "base")
    (root / "pkg" / "x.py").write_text(SOURCE.replace("line 3\n", "line three\n"))
    _git(root, "commit", "-q", "-am", "line 3")
    (root / "pkg" / "x.py").write_text(
        SOURCE.replace("line 3\n", "line three\n").replace("line 5\n", "line five\n")
    )
    (root / "pkg" / "new.py").write_text("new\n")
    monkeypatch.chdir(root)
    return root


def _mutant(mid: str, line: int, operator: str, status: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "mutatorName": operator,
        "location": location((line, 1), (line, 5)),
        "status": status,
        "killedBy": ["w.a"] if status == "Killed" else [],
        "coveredBy": ["w.a", "w.b"],
        "statusReason": f"--- pkg/x.py\n+++ pkg/x.py\n-line {line}\n+{mid}",
        **extra,
    }


def _report(path: Path, mutants: list[dict[str, Any]], new: list[dict[str, Any]]) -> Path:
    report = empty_report("annotate test")
    add_file(report, "pkg/x.py", SOURCE).extend(mutants)
    add_file(report, "pkg/new.py", "new\n").extend(new)
    add_tests(report, "w.py", [("w.a", "a", 1), ("w.b", "b", 2)])
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def _history_report(repo: Path) -> Path:
    # Equality mutants are killed 3 of the 4 other times; Number mutants never elsewhere.
    kills = [_mutant(f"k{n}", 9, "Equality", "Killed") for n in range(3)]
    kills += [_mutant("s9", 9, "Equality", "Survived"), _mutant("n9", 10, "Number", "Survived")]
    on_three = [
        _mutant("a3", 3, "Number", "Survived"),
        _mutant("b3", 3, "Equality", "Survived"),
    ]
    others = [
        _mutant("c4", 4, "Number", "Survived"),  # line 4 did not change
        _mutant("d5", 5, "Number", "Survived"),  # changed in the working tree
        _mutant("e5", 5, "Number", "Killed"),
    ]
    new = [_mutant("f1", 1, "Number", "Survived")]
    return _report(repo / "report.json", [*kills, *on_three, *others], new)


def test_survivors_on_changed_lines_are_annotated_one_a_line_by_operator_history(
    repo: Path,
) -> None:
    report = _history_report(repo)
    ran = claims_main("mutate", "--annotate", "base", "--report", report)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    where = [re.match(r"::warning file=([^,]*),line=(\d+),title=([^:]*)::(\S+)", x) for x in lines]
    found = [(m[1], m[2], m[4]) for m in where if m]
    # Line 3: b3 (Equality: killed 3 of 4 other times) over a3 (Number: 1 of 4); line 5 has
    # one survivor; the untracked file changed whole; line 4, 9 and 10 did not change.
    assert found == [("pkg/new.py", "1", "f1"), ("pkg/x.py", "3", "b3"), ("pkg/x.py", "5", "d5")]
    assert lines[-1] == (
        "annotated 3 survivors on changed lines since base (4 on changed lines, 7 in "
        f"{report}; one a line)"
    )
    b3 = next(x for x in lines if "::b3" in x)
    assert b3.startswith("::warning file=pkg/x.py,line=3,title=mutant survived%3A Equality::")
    assert b3.endswith(
        "::b3 survived: 2 claims cover it, none turned red; Equality mutants are killed 3 of 4 "
        "times elsewhere in this report%0A--- pkg/x.py%0A+++ pkg/x.py%0A-line 3%0A+b3"
    )


def test_an_operator_with_no_other_judged_mutant_says_so(repo: Path) -> None:
    report = _report(repo / "r.json", [_mutant("a3", 3, "Lonely", "Survived")], [])
    ran = claims_main("mutate", "--annotate", "base", "--report", report)
    assert "no other Lonely mutant was judged in this report%0A" in ran.out


def test_nothing_a_report_holds_leaves_its_annotation(repo: Path) -> None:
    hostile = "x\r\n::error::owned 100% \x1b[31m,a:b"
    report = _report(
        repo / "r.json",
        [_mutant(f"h{hostile}", 3, f"Op{hostile}", "Survived", statusReason=hostile)],
        [],
    )
    ran = claims_main("mutate", "--annotate", "base", "--report", report)
    assert ran.code == 0, ran.err
    annotation, summary = ran.out.splitlines()
    assert annotation.startswith("::warning file=pkg/x.py,line=3,title=mutant survived%3A Opx")
    assert "\x1b" not in ran.out and "\r" not in ran.out
    # The title (a property) escapes , and : too; the message keeps them.
    title = "title=mutant survived%3A Opx\\r\\n%3A%3Aerror%3A%3Aowned 100%25 \\x1b[31m%2Ca%3Ab::"
    assert title in annotation
    # The diff's lines are joined by %0A: a line that looks like a command stays inside.
    assert annotation.endswith("report%0Ax%0A::error::owned 100%25 \\x1b[31m,a:b")
    assert summary.startswith("annotated 1 survivors")


def test_a_long_diff_is_cut_and_points_at_explain(repo: Path) -> None:
    diff = "\n".join(f"+{n}" for n in range(40))
    report = _report(repo / "r.json", [_mutant("a3", 3, "Op", "Survived", statusReason=diff)], [])
    ran = claims_main("mutate", "--annotate", "base", "--report", report)
    assert "%0A+29%0A… 10 more lines: claims mutate --explain a3" in ran.out
    assert "+30" not in ran.out


def test_a_revision_git_does_not_know_is_one_located_line(repo: Path) -> None:
    report = _history_report(repo)
    for rev in ("no-such-rev", "--output=x"):
        ran = claims_main("mutate", f"--annotate={rev}", "--report", report)
        assert ran.code == 2, ran.out + ran.err
        assert ran.out == "" and len(ran.err.splitlines()) == 1
        assert f"--annotate {rev}" in ran.err or f"{rev!r} is not a commit" in ran.err
    assert not (repo / "x").exists()


def test_a_missing_report_and_both_questions_are_usage_errors(repo: Path) -> None:
    ran = claims_main("mutate", "--annotate", "base", "--report", repo / "none.json")
    assert ran.code == 2 and "none.json" in ran.err and "Traceback" not in ran.err
    ran = claims_main("mutate", "--annotate", "base", "--explain", "x")
    assert ran.code == 2 and "not both" in ran.err


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(project, report): the fake gate project in git, lines 31 and 38 of gate/rules.py
    changed after the base commit (comments only), and the survey of that file."""
    tmp_path = tmp_path_factory.mktemp("gate")
    project = copy_project(tmp_path)
    _git(project, "init", "-q", "-b", "main")
    _git(project, "config", "user.email", "t@example.invalid")
    _git(project, "config", "user.name", "t")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "base")
    _git(project, "tag", "base")
    rules = project / "gate" / "rules.py"
    lines = rules.read_text().splitlines(keepends=True)
    for number in (31, 38):
        lines[number - 1] = lines[number - 1].rstrip("\n") + "  # changed\n"
    rules.write_text("".join(lines))
    report = tmp_path / "report.json"
    # mutmut's mutants alone, unaudited: the figures below are counted on those by hand (the
    # deletions' place in the matrix and the audit have their own tests)
    options = ("--file", "gate/rules.py", "--no-deletion", "--audit", "0")
    surveyed = run_generated(project, "--report", str(report), *options)
    assert surveyed.returncode == 6, surveyed.stdout + surveyed.stderr  # the crashing mutant
    return project, report


def test_a_real_survey_of_a_change_is_annotated_on_its_changed_lines(
    gate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, report = gate
    monkeypatch.chdir(project)
    ran = claims_main("mutate", "--annotate", "base", "--report", report)
    assert ran.code == 0, ran.err
    found = re.findall(r"^::warning file=gate/rules.py,line=(\d+),[^:]*::(\S+) ", ran.out, re.M)
    # Line 31: x_guard 2 (NoneReplacement: 5 of its 6 other mutants killed) over x_guard 3
    # (NumberLiteral: 1 of 2). Line 38: x_pairs 9 (Removal: 2 of 2) over x_pairs 6
    # (NoneReplacement: 5 of 6) and x_pairs 10 (BooleanLiteral: no other mutant judged).
    assert found == [("31", "gate.rules.x_guard__mutmut_2"), ("38", "gate.rules.x_pairs__mutmut_9")]
    assert "Removal mutants are killed 2 of 2 times elsewhere in this report" in ran.out
    assert "%0A+    return list(zip(names, shouts, ))" in ran.out
    assert ran.out.splitlines()[-1].startswith(
        "annotated 2 survivors on changed lines since base (5 on changed lines, 6 in "
    )


def test_a_real_surveys_report_carries_its_matrix_scores(gate: tuple[Path, Path]) -> None:
    """The gate survey's kill matrix: three killing sets, each a single claim (admits by the
    adult claim; count_up's by counting; pairs' by the pairs claim), none a subset of
    another, so three killed dominators; with the six survivors the minimal set is nine."""
    body = json.loads(gate[1].read_text())
    scores = body["files"]["gate/rules.py"]["matrixScore"]
    assert (scores["killed"], scores["survived"], scores["unplaced"]) == (11, 6, 2)
    assert (scores["killedDominators"], scores["minimal"], scores["distinguished"]) == (3, 9, 3)
    assert scores["dominatorStrength"] == 33.33
    assert scores["claimsWithoutUniqueKill"] == [
        "gate.a_minor_is_refused",
        "gate.the_guard_lets_ok_through",
    ]
    greeting = "gate.the_greeting_names_the_guest"  # calls nothing mutated: idle everywhere
    assert greeting in body["matrixScores"]["witnesses"]["gate"]["claimsWithoutUniqueKill"]
