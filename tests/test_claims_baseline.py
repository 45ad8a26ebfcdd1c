"""``claims run --baseline REV`` and ``--changed-since REV`` on a real git repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = """
from claims import hookimpl

@hookimpl
def claims_register_witnesses(register):
    register("reaches_core", "wpkg.witness_core")
    register("elsewhere", "wpkg.witness_other")
"""
CORE = "def answer() -> int:\n    return 1\n"
WITNESS_CORE = '''
from claims import ClaimKind, claim, expect_equal, fails
from wpkg.core import answer

@claim(ClaimKind.PLANNED_SHAPE)
def answer_is_one():
    """core.answer() is 1."""
    return expect_equal(1, answer(), "answer")

@claim(ClaimKind.PLANNED_SHAPE)
def always_red():
    """A claim that was already failing before any change."""
    return fails("red since the first commit")
'''
WITNESS_OTHER = '''
from claims import ClaimKind, claim, holds

@claim(ClaimKind.PLANNED_SHAPE)
def unrelated():
    """Touches nothing in core."""
    return holds("fine")
'''


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    package = tmp_path / "wpkg"
    package.mkdir()
    files = {
        "__init__.py": "",
        "plugin.py": PLUGIN,
        "core.py": CORE,
        "witness_core.py": WITNESS_CORE,
        "witness_other.py": WITNESS_OTHER,
    }
    for name, text in files.items():
        (package / name).write_text(text)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return tmp_path


def _claims(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(repo), "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "claims.cli",
            "-p",
            "wpkg.plugin",
            "run",
            *args,
            "--repo",
            str(repo),
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_baseline_labels_new_and_pre_existing_failures(repo: Path) -> None:
    (repo / "wpkg" / "core.py").write_text(CORE.replace("1", "2"))
    done = _claims(repo, "reaches_core", "--baseline", "HEAD")
    assert "reaches_core.answer_is_one: new" in done.stdout
    assert "reaches_core.always_red: pre-existing" in done.stdout
    assert done.returncode == 1
    worktrees = subprocess.run(
        ["git", "-C", str(repo), "worktree", "list"], capture_output=True, text=True, check=True
    ).stdout
    assert len(worktrees.splitlines()) == 1


def test_only_pre_existing_failures_exit_zero(repo: Path) -> None:
    done = _claims(repo, "reaches_core", "--baseline", "HEAD")
    assert "reaches_core.always_red: pre-existing" in done.stdout
    assert done.returncode == 0


def test_changed_since_runs_only_the_witnesses_reaching_the_change(repo: Path) -> None:
    (repo / "wpkg" / "core.py").write_text(CORE + "\n# touched\n")
    done = _claims(repo, "--all", "--changed-since", "HEAD")
    assert "reaches_core:" in done.stdout
    assert "elsewhere:" not in done.stdout


def test_nothing_changed_runs_nothing(repo: Path) -> None:
    done = _claims(repo, "--all", "--changed-since", "HEAD")
    assert done.returncode == 0
    assert "no witness reaches a file changed since HEAD" in done.stdout
