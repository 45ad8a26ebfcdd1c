"""Hostile PR states (``claims frontiers --prs FILE`` and ``--git-log REPO``): exit 2 naming the
file and the place (``[i].field``, a line and column), nothing from the file used, never a
traceback. The command runs in this process with only the built-in plugins (no witness
runs), so each example costs milliseconds."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given

from fixtures.builders import DATA_ROOT, Ran
from tests.hostile_support import HOSTILE, Corruption, claims_main, corruptions, no_crash

PRS = json.loads((DATA_ROOT / "prs" / "all_open.json").read_text(encoding="utf-8"))
NULLABLE = frozenset((i, "mergedAt") for i in range(len(PRS)))


def pr_error(ran: Ran, source: str) -> list[str]:
    """Exit 2, nothing on stdout, stderr `claims: error: SOURCE: cannot read PR states (N
    problem(s)):` then one indented line per problem; returns the problem lines."""
    no_crash(ran)
    assert (ran.code, ran.out) == (2, ""), (ran.code, ran.out, ran.err)
    lines = ran.err_lines
    head = re.escape(f"claims: error: {source}: cannot read PR states (") + r"(\d+) problem\(s\)\):"
    found = re.fullmatch(head, lines[0])
    assert found is not None, lines[0]
    count = int(found.group(1))
    problems = lines[1 : 1 + count]
    assert all(p.startswith("  ") for p in problems), lines
    return [p.strip() for p in problems]


def _place(corruption: Corruption) -> str:
    if corruption.family in ("binary", "cut"):
        return ""
    if corruption.family == "deep":
        return "line 1, column "
    path = corruption.path or ()
    if corruption.family == "retype":  # the PR reader names the item, or the item's field
        return "" if not path else f"[{path[0]}]" + (f".{path[1]}" if len(path) > 1 else "")
    return corruption.dotted()


@HOSTILE
@given(corruption=corruptions(PRS, nullable=NULLABLE))
def test_a_hostile_pr_list_is_a_located_error(corruption: Corruption) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        prs = Path(tmp) / "prs.json"
        prs.write_bytes(corruption.data)
        ran = claims_main("frontiers", "--prs", prs)
        problems = pr_error(ran, str(prs))
        assert len(problems) >= 1
        place = _place(corruption)
        assert any(p.startswith(place) for p in problems), (place, problems)
        assert any(corruption.says in p for p in problems), problems
        if corruption.family == "binary":
            assert problems[0].startswith("<file>: cannot read the file: ")
        if corruption.family == "cut":
            assert problems[0].startswith("not JSON at line ")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize(
    "subject",
    [
        "Land it (#" + "9" * 19 + ")",
        "Land it (#" + "9" * 5000 + ")",
        "Merge pull request #" + "1" * 4400 + " from someone/branch",
        'Revert "Land it (#' + "7" * 4301 + ')"',
    ],
)
def test_a_git_subject_naming_a_pr_number_no_pr_can_have_is_located(
    tmp_path: Path, subject: str
) -> None:
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "commit", "-q", "--allow-empty", "-m", "First (#12)")
    _git(tmp_path, "commit", "-q", "--allow-empty", "-m", subject)
    ran = claims_main("frontiers", "--git-log", tmp_path)
    no_crash(ran)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err.startswith(f"claims: error: git log of {tmp_path} at 'HEAD': cannot read PR")
    assert re.search(
        r"commit [0-9a-f]{12}: its subject names PR #\d{1,20}… \([\d,]+ digits\)", ran.err
    )
