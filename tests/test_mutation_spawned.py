"""The spawn log: which processes a claim starts may run the project's Python, so that exact
cell skipping may replay the cells of a claim that only starts other programs (see
``plugins.mutate.generated.spawned``). Real processes, real interpreters: a shell, a Python
child, a Python grandchild under a shell, a fork."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from plugins.mutate.generated.infection import SPAWN_EVENTS, Infection, Watch
from plugins.mutate.generated.spawned import (
    EXIT_UNNOTED,
    MODULE,
    SOURCE,
    VARIABLE,
    SpawnLog,
    install,
)


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpawnLog:
    """A spawn log over a copy at ``tmp_path``, which the processes started here import from
    first (as a survey worker's do)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), *sys.path[1:]]))
    assert install(tmp_path)
    return SpawnLog(tmp_path)


def _seen(log: SpawnLog, claim: str, start: object) -> tuple[bool, bool]:
    """(whether the claim started a process the log cannot follow, whether a Python process
    noted itself) after running ``start()`` as ``claim``."""
    with log.noting(claim), Watch.watching(SPAWN_EVENTS, log.unfollowed) as seen:
        assert callable(start)
        start()
    return bool(seen), log.ran_python(claim)


def _run(argv: list[str] | str, **kwargs: object) -> None:
    subprocess.run(argv, check=True, capture_output=True, **kwargs)  # type: ignore[call-overload]


def test_a_program_that_is_not_python_is_followed_and_runs_none(log: SpawnLog) -> None:
    assert log.follows
    assert _seen(log, "sh", lambda: _run(["/bin/sh", "-c", "true"])) == (False, False)
    assert _seen(log, "shell", lambda: _run("echo hi > /dev/null", shell=True)) == (False, False)


def test_a_python_process_at_any_depth_notes_itself(log: SpawnLog) -> None:
    python = [sys.executable, "-c", "pass"]
    assert _seen(log, "child", lambda: _run(python)) == (False, True)
    line = shlex.join(python)
    assert _seen(log, "grandchild", lambda: _run(["/bin/sh", "-c", line])) == (False, True)
    # each claim has its own file: the shell claim above saw none of these
    assert not log.ran_python("sh")


def test_what_the_log_cannot_follow_is_kept(log: SpawnLog) -> None:
    plain = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    assert _seen(log, "own env", lambda: _run(["/bin/true"], env=plain))[0]
    # an environment copied inside the claim carries the variable; one copied before it not
    assert not _seen(log, "env kept", lambda: _run(["/bin/true"], env=dict(os.environ)))[0]
    before = dict(os.environ)
    assert _seen(log, "env before", lambda: _run(["/bin/true"], env=before))[0]
    ignoring = [sys.executable, "-I", "-c", "pass"]
    assert _seen(log, "-I", lambda: _run(ignoring)) == (True, False)
    assert _seen(log, "-I under sh", lambda: _run(shlex.join(ignoring), shell=True))[0]

    def fork() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    assert _seen(log, "fork", fork)[0]


def test_a_python_process_that_cannot_note_itself_stops(log: SpawnLog, tmp_path: Path) -> None:
    env = {**os.environ, VARIABLE: str(tmp_path / "missing" / "log")}
    done = subprocess.run(
        [sys.executable, "-c", "print('ran')"], env=env, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (EXIT_UNNOTED, ""), done
    assert "cannot note this process" in done.stderr


def test_install_leaves_a_sitecustomize_of_the_project_s_own(tmp_path: Path) -> None:
    assert install(tmp_path) and (tmp_path / MODULE).read_text(encoding="utf-8") == SOURCE
    assert install(tmp_path)  # already ours
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / MODULE).write_text("import os\n", encoding="utf-8")
    assert not install(theirs) and (theirs / MODULE).read_text(encoding="utf-8") == "import os\n"
    # a log that cannot follow counts every process event, as without one
    follows_not = SpawnLog(theirs)
    assert not follows_not.follows and follows_not.unfollowed("subprocess.Popen", ("sh",))


def test_a_copy_not_first_on_the_path_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child started in the copy with the copy off its path imports from it unnoted."""
    assert install(tmp_path) and SpawnLog(tmp_path).follows is False  # not on the path here
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path[1:]))
    assert not SpawnLog(tmp_path).follows
    monkeypatch.delenv("PYTHONPATH")
    assert not SpawnLog(tmp_path).follows


def test_infection_keeps_every_cell_of_a_claim_whose_child_ran_python(log: SpawnLog) -> None:
    infection = Infection(frozenset({"gate"}), (), spawns=log)
    with infection.recording_claim("shell"):
        _run(["/bin/sh", "-c", "true"])
    with infection.recording_claim("python"):
        _run([sys.executable, "-c", "pass"])
    with infection.recording_claim("forked"):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    assert infection.spawning() == {"python", "forked"}
    assert infection.summary()["spawning"] == ["forked", "python"]
    assert VARIABLE not in os.environ
