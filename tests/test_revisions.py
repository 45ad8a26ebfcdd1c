"""Tests of claims.revisions: worktrees in real git repos, changed files, byte identity."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claims.revisions import (
    ArtifactChange,
    RevisionError,
    changed_files,
    compare_artifacts,
    dump_artifacts,
    identity_at,
    main,
    render_artifacts_in,
    run_at_revision,
    worktree_at,
)
from tests.fakes.support import signals_at_default

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=GIT_ENV
    )
    return done.stdout


def write(repo: Path, name: str, text: str) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def commit_all(repo: Path, subject: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)


WITNESS = 'def artifacts() -> dict[str, str]:\n    return {{"unit.service": "{0}\\n"}}\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "t")
    git(path, "config", "user.email", "t@example.com")
    write(path, "probe_pkg/__init__.py", 'VALUE = "base"\n')
    write(path, "witnesses/__init__.py", "")
    write(path, "witnesses/probe.py", WITNESS.format("ExecStart=serve --port 8000"))
    write(path, ".gitignore", "*.log\n")
    commit_all(path, "Base")
    git(path, "tag", "base")
    return path


def worktrees(repo: Path) -> list[str]:
    listing = git(repo, "worktree", "list", "--porcelain")
    return [line for line in listing.splitlines() if line.startswith("worktree ")]


# ----------------------------------------------------------------------------- worktrees


def test_worktree_holds_the_revision_and_is_removed(repo: Path) -> None:
    write(repo, "probe_pkg/__init__.py", 'VALUE = "head"\n')
    with worktree_at(repo, "base") as tree:
        assert (tree / "probe_pkg" / "__init__.py").read_text() == 'VALUE = "base"\n'
        assert len(worktrees(repo)) == 2
    assert not tree.exists() and not tree.parent.exists()
    assert worktrees(repo) == [f"worktree {repo}"]


@pytest.mark.parametrize("raised", [RuntimeError("boom"), KeyboardInterrupt()])
def test_worktree_is_removed_when_the_block_raises(repo: Path, raised: BaseException) -> None:
    seen: list[Path] = []
    with pytest.raises(type(raised)):
        with worktree_at(repo, "base") as tree:
            seen.append(tree)
            (tree / "scratch.txt").write_text("dirty, untracked")
            raise raised
    assert not seen[0].parent.exists()
    assert worktrees(repo) == [f"worktree {repo}"]


def test_an_unknown_revision_is_refused_naming_it(repo: Path) -> None:
    with pytest.raises(RevisionError, match="'no-such-rev' is not a commit of"):
        with worktree_at(repo, "no-such-rev"):
            pass
    assert worktrees(repo) == [f"worktree {repo}"]


def test_run_at_revision_runs_that_revisions_own_code(repo: Path) -> None:
    write(repo, "probe_pkg/__init__.py", 'VALUE = "head"\n')
    commit_all(repo, "Head")
    argv = [sys.executable, "-c", "import probe_pkg, os; print(probe_pkg.VALUE, os.getcwd())"]
    done = run_at_revision(repo, "base", argv, env={"EXTRA": "1"})
    value, cwd = done.stdout.split()
    assert (done.returncode, value) == (0, "base")
    assert Path(cwd).name == "tree"
    assert worktrees(repo) == [f"worktree {repo}"]


def test_run_at_revision_returns_a_failing_result(repo: Path) -> None:
    done = run_at_revision(repo, "base", [sys.executable, "-c", "raise SystemExit(3)"])
    assert done.returncode == 3


# ----------------------------------------------------------------------------- changed files


def test_changed_files_counts_staged_unstaged_untracked_and_renames(repo: Path) -> None:
    write(repo, "probe_pkg/__init__.py", 'VALUE = "head"\n')
    write(repo, "staged.py", "x = 1\n")
    git(repo, "add", "staged.py")
    write(repo, "untracked.py", "y = 2\n")
    write(repo, "ignored.log", "noise\n")
    git(repo, "mv", "witnesses/probe.py", "witnesses/renamed.py")
    assert changed_files(repo, "base") == (
        "probe_pkg/__init__.py",
        "staged.py",
        "untracked.py",
        "witnesses/probe.py",
        "witnesses/renamed.py",
    )


def test_changed_files_against_an_older_commit_includes_committed_changes(repo: Path) -> None:
    write(repo, "later.py", "z = 3\n")
    commit_all(repo, "Later")
    assert changed_files(repo, "base") == ("later.py",)
    assert changed_files(repo, "HEAD") == ()


# ----------------------------------------------------------------------------- artifacts


def test_identical_renderings_count_bytes() -> None:
    rendering = {"a.service": b"[Unit]\n", "b.sh": b"set -eu\n"}
    result = compare_artifacts(rendering, dict(rendering))
    assert (result.identical, result.artifacts, result.total_bytes) == (True, 2, 15)
    assert result.summary("glm_group_b_launch") == "glm_group_b_launch: identical (15 bytes)"


def test_different_renderings_diff_each_artifact_including_added_and_removed() -> None:
    base = {"unit": b"ExecStart=serve\nPort=8000\n", "gone": b"old\n", "same": b"x\n"}
    head = {"unit": b"ExecStart=serve\nPort=8001\n", "new": b"fresh\n", "same": b"x\n"}
    result = compare_artifacts(base, head)
    assert not result.identical
    by_name = {d.name: d for d in result.diffs}
    assert [d.name for d in result.diffs] == ["gone", "new", "unit"]
    assert by_name["unit"].change is ArtifactChange.CHANGED
    assert "--- base/unit\n+++ head/unit\n" in by_name["unit"].diff
    assert "-Port=8000\n+Port=8001\n" in by_name["unit"].diff
    assert by_name["new"].change is ArtifactChange.ADDED
    assert "--- /dev/null\n+++ head/new\n" in by_name["new"].diff
    assert by_name["gone"].change is ArtifactChange.REMOVED
    assert "+++ /dev/null" in by_name["gone"].diff
    assert result.summary("W") == "W: differs (3 of 4 artifacts: 1 changed, 1 added, 1 removed)"


def test_a_missing_final_newline_is_marked() -> None:
    result = compare_artifacts({"a": b"x\n"}, {"a": b"x"})
    assert "-x\n+x\n\\ No newline at end of file\n" in result.diffs[0].diff


def test_bytes_that_decode_alike_still_differ() -> None:
    result = compare_artifacts({"a": b"\xff\n"}, {"a": b"\xfe\n"})
    assert not result.identical
    assert "bytes differ but decode to the same text" in result.diffs[0].diff


# ----------------------------------------------------------------------------- dumping


def test_dump_artifacts_reads_a_dotted_module(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo, "dotted_probe/__init__.py", "")
    write(repo, "dotted_probe/wit.py", WITNESS.format("x"))
    write(repo, "dotted_probe/bad.py", "def artifacts():\n    return {'a': 1}\n")
    monkeypatch.syspath_prepend(str(repo))
    assert dump_artifacts("dotted_probe.wit") == {"unit.service": "x\n"}
    with pytest.raises(TypeError, match=r"must return dict\[str, str\], got \{'a': 1\}"):
        dump_artifacts("dotted_probe.bad")


def test_dump_main_refuses_a_module_without_artifacts(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "plain_mod/__init__.py", "")
    write(repo, "plain_mod/no_artifacts.py", "X = 1\n")
    monkeypatch.syspath_prepend(str(repo))
    assert main(["--dump-artifacts", "plain_mod.no_artifacts"]) == 2
    assert "defines no artifacts() function" in capsys.readouterr().err
    assert main(["--wrong"]) == 2


def test_render_artifacts_in_runs_the_trees_own_witness(repo: Path) -> None:
    rendered = render_artifacts_in(repo, "witnesses.probe")
    assert rendered == {"unit.service": b"ExecStart=serve --port 8000\n"}


def test_identity_at_a_base_revision(repo: Path) -> None:
    same = identity_at(repo, "base", "witnesses.probe")
    assert same.summary("probe") == "probe: identical (28 bytes)"
    write(repo, "witnesses/probe.py", WITNESS.format("ExecStart=serve --port 8001"))
    result = identity_at(repo, "base", "witnesses.probe")
    assert result.summary("probe") == "probe: differs (1 of 1 artifacts: 1 changed)"
    assert "+ExecStart=serve --port 8001\n" in result.diffs[0].diff
    assert worktrees(repo) == [f"worktree {repo}"]


def test_a_witness_that_cannot_render_is_a_revision_error(repo: Path) -> None:
    write(repo, "witnesses/broken.py", "raise ImportError('planner missing')\n")
    with pytest.raises(RevisionError, match="planner missing"):
        render_artifacts_in(repo, "witnesses.broken")


# ----------------------------------------------------------------------------- the command

ID_PLUGIN = """\
from claims import hookimpl

@hookimpl
def claims_register_witnesses(register):
    register("probe", "witnesses.probe")
"""


def identity_command(repo: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of `claims identity ARGS` in ``repo``, with its plugin."""
    write(repo, "id_plugin.py", ID_PLUGIN)
    env = {**os.environ, "PYTHONPATH": str(repo), "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    plugins = ["-p", "plugins.frontier_commands", "-p", "id_plugin"]
    return [sys.executable, "-m", "claims.cli", *plugins, "identity", *args], env


def claims_identity(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv, env = identity_command(repo, *args)
    return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=False)


def test_identity_command_identical(repo: Path) -> None:
    done = claims_identity(repo, "probe", "--base", "base")
    assert (done.returncode, done.stdout) == (0, "probe: identical (28 bytes)\n"), done.stderr
    assert worktrees(repo) == [f"worktree {repo}"]


def test_identity_command_differs_with_a_diff(repo: Path) -> None:
    write(repo, "witnesses/probe.py", WITNESS.format("ExecStart=serve --port 8001"))
    done = claims_identity(repo, "probe", "--base", "base")
    assert done.returncode == 1
    assert done.stdout == (
        "--- base/unit.service\n"
        "+++ head/unit.service\n"
        "@@ -1 +1 @@\n"
        "-ExecStart=serve --port 8000\n"
        "+ExecStart=serve --port 8001\n"
        "probe: differs (1 of 1 artifacts: 1 changed)\n"
    )


def test_identity_command_input_errors(repo: Path) -> None:
    unknown = claims_identity(repo, "nobody", "--base", "base")
    assert unknown.returncode == 2 and "unknown witness 'nobody'" in unknown.stderr
    bad_rev = claims_identity(repo, "probe", "--base", "nope")
    assert bad_rev.returncode == 2 and "'nope' is not a commit" in bad_rev.stderr
    assert worktrees(repo) == [f"worktree {repo}"]


HANGING = """\
import os, pathlib, time

def artifacts() -> dict[str, str]:
    pathlib.Path(os.environ["RENDER_STARTED"]).touch()
    time.sleep(300)
    return {}
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_identity_removes_the_worktree(
    repo: Path, tmp_path: Path, signum: int
) -> None:
    """The base revision's render hangs; the signal arrives once it has started (a file, not
    a delay, says when), and the command ends by that signal with nothing left behind."""
    write(repo, "witnesses/probe.py", HANGING)
    commit_all(repo, "Hang")
    git(repo, "tag", "-f", "base")
    started = tmp_path / "started"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    argv, env = identity_command(repo, "probe", "--base", "base")
    env.update(RENDER_STARTED=str(started), TMPDIR=str(scratch))
    process = subprocess.Popen(
        argv,
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=signals_at_default,
    )
    try:
        while not started.exists():
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        assert len(worktrees(repo)) == 2
        process.send_signal(signum)
        process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == -signum
    assert worktrees(repo) == [f"worktree {repo}"]
    assert os.listdir(scratch) == []
