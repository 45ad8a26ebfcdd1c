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
import json
from pathlib import Path

from claims import ClaimKind, claim, expect_equal

@claim(ClaimKind.PLANNED_SHAPE)
def reads_its_data():
    """Touches nothing in core; reads a data file."""
    data = json.loads((Path(__file__).parent / "data.json").read_text())
    return expect_equal(1, data["value"], "value")
'''
CONSTANTS = "LIMIT = 3\n"


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
        "data.json": '{"value": 1}',
        "constants.py": CONSTANTS,
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


def test_a_changed_data_file_selects_the_witness_that_reads_it(repo: Path) -> None:
    (repo / "wpkg" / "data.json").write_text('{"value": 1, "touched": true}')
    done = _claims(repo, "--all", "--changed-since", "HEAD")
    assert "elsewhere:" in done.stdout
    assert "reaches_core:" not in done.stdout


def test_a_changed_module_no_claim_runs_code_of_selects_every_witness(repo: Path) -> None:
    (repo / "wpkg" / "witness_core.py").write_text(WITNESS_CORE + "\nfrom wpkg import constants\n")
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qam",
            "import constants",
        ],
        check=True,
    )
    (repo / "wpkg" / "constants.py").write_text("LIMIT = 4\n")
    done = _claims(repo, "--all", "--changed-since", "HEAD")
    assert "reaches_core:" in done.stdout and "elsewhere:" in done.stdout


def test_a_witness_the_base_lacks_makes_only_its_claims_new(repo: Path) -> None:
    (repo / "wpkg" / "plugin.py").write_text(
        PLUGIN + '    register("brand_new", "wpkg.witness_new")\n'
    )
    (repo / "wpkg" / "witness_new.py").write_text(
        WITNESS_OTHER.replace("reads_its_data", "red_from_birth").replace(
            "return expect_equal(1,", "return expect_equal(2,"
        )
    )
    done = _claims(repo, "reaches_core", "brand_new", "--baseline", "HEAD")
    assert "brand_new.red_from_birth: new" in done.stdout
    assert "reaches_core.always_red: pre-existing" in done.stdout


def test_a_base_that_cannot_run_is_an_error_not_new(repo: Path) -> None:
    (repo / "wpkg" / "plugin.py").write_text("raise RuntimeError('broken at base')\n")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "break")
    (repo / "wpkg" / "plugin.py").write_text(PLUGIN)
    done = _claims(repo, "reaches_core", "--baseline", "HEAD")
    assert done.returncode == 2
    assert "--baseline HEAD: the base run exited 2 without a report" in done.stderr
