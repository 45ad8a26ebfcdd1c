"""The project's own ledger under ``claims frontiers``, on recorded PR states and a real clone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRS = ROOT / "fixtures" / "prs"


def _frontiers(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [sys.executable, "-m", "claims.cli", "frontiers", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_all_open_is_green() -> None:
    done = _frontiers("--prs", str(PRS / "all_open.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(" open ") >= 5


def test_a_merged_pr_whose_obligation_is_still_declared_is_stale() -> None:
    done = _frontiers("--prs", str(PRS / "occupancy_merged.json"))
    assert done.returncode == 1
    stale = [line for line in done.stdout.splitlines() if "stale" in line]
    assert len(stale) == 1 and "#12351" in stale[0]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True)
    return target


def test_dropping_an_obligation_while_its_pr_is_open_turns_base_red(clone: Path) -> None:
    ledger = clone / "planner" / "arms" / "v41_group_a.py"
    text = ledger.read_text()
    start = text.index('    DeclaredFrontier(\n        id="host_occupancy"')
    end = text.index('    DeclaredFrontier(\n        id="authority_transition"')
    ledger.write_text(text[:start] + text[end:])
    who = ["-c", "user.name=ci", "-c", "user.email=ci@example.invalid"]
    subprocess.run(["git", "-C", str(clone), *who, "commit", "-qam", "drop #12351"], check=True)
    done = _frontiers("--prs", str(PRS / "all_open.json"), "--base", "HEAD~1", cwd=clone)
    assert done.returncode == 1, done.stdout + done.stderr
    dropped = [line for line in done.stdout.splitlines() if "dropped" in line]
    assert len(dropped) == 1 and "#12351" in dropped[0]
