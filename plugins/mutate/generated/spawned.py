"""Which processes a claim started ran this project's Python: what lets exact cell skipping
(:mod:`.infection`) decide the cells of a claim that starts programs (an ssh client, a shell
script, a checker) as it decides any other claim's.

A mutated function called in another process is a call no recording sees, so a claim that
started a process used to have every cell run. But a mutant reaches another process only
when that process is Python and imports the project's copy in ``mutants/`` (and inherits
``MUTANT_UNDER_TEST``); an ``ssh`` client, a ``/bin/sh`` script or ``git`` run none of it,
and neither does what an ``sshd`` starts (its sessions get an environment of their own).
So the baseline notes, per claim:

- each process event in the claim's own process (:class:`.infection.Watch`), keeping those
  it cannot follow (:meth:`SpawnLog.unfollowed`): a fork (the child is this process, with
  its trampolines), a process given an environment of its own that drops the variable below
  or changes ``PYTHONPATH``, and a Python interpreter started with ``-E`` or ``-I`` (which
  ignore ``PYTHONPATH``, and with it the module below);
- each Python process, at any depth, that starts with the copy on its ``PYTHONPATH``: the
  survey writes a ``sitecustomize`` module at the copy's root (:func:`install`, before the
  workers start), which every
  such interpreter imports at start-up, and which appends the process id to the file named
  by :data:`VARIABLE` (a file per claim, set around the claim). A process that cannot write
  it stops at once (exit 70): a claim whose child stops goes red in the baseline, so it is
  never silently unseen.

A claim with either is *spawning*: none of its cells is skipped. The files are read when
cells are decided, after the whole baseline, so a Python process that started after its
claim returned is still seen.

What this leaves unseen, and why it is judged acceptable: a Python process started deeper
down (by a shell the claim ran) with ``-E`` or an emptied environment, whose working
directory is the copy itself; and a project with a ``sitecustomize`` module of its own at its
root, where :func:`install` writes nothing and every process a claim starts counts, as
before. The verdict audit re-judges a sample of skipped cells in a fresh process on the
mutated source, whatever the claim started.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from filerules import write_atomically

VARIABLE = "CLAIMS_SPAWN_LOG"
"""The environment variable naming the file a starting Python process notes itself in."""
MODULE = "sitecustomize.py"
MARK = "# claims: written by the generated survey (plugins/mutate/generated/spawned.py)"
EXIT_UNNOTED = 70
"""The exit of a Python process that could not note itself."""
SOURCE = f'''{MARK}
"""A Python process started under a survey's claim notes that it ran (see that module)."""
import os as _os

_log = _os.environ.get("{VARIABLE}")
if _log:
    try:
        _fd = _os.open(_log, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o600)
        _os.write(_fd, b"%d\\n" % _os.getpid())
        _os.close(_fd)
    except OSError as _error:
        _os.write(2, f"claims: cannot note this process in {{_log}}: {{_error}}\\n".encode())
        _os._exit({EXIT_UNNOTED})
'''
FOLLOWED = {"subprocess.Popen": (0, 1, 3), "os.exec": (0, 1, 2), "os.posix_spawn": (0, 1, 2)}
"""Events whose process the log can follow: the places of (program, argv, env) in each."""
INHERITING = frozenset({"os.system"})
"""Events whose process inherits this process's environment as it is."""
IGNORING_PATH = frozenset({"E", "I"})
"""Interpreter flags under which ``PYTHONPATH`` (and so ``sitecustomize``) is not read."""


def install(copy: Path) -> bool:
    """Write the noting ``sitecustomize`` at the root of ``copy`` (the tree the workers import
    from), before any worker starts: a file written beside a running worker's imports would
    change what its import system lists there, and with it the cell keys of the claims it
    traces. Whether Python processes started there can note themselves (not when the project
    has a ``sitecustomize`` of its own there, which is left as it is)."""
    if copy.is_dir() and not (copy / MODULE).exists():
        write_atomically(copy / MODULE, SOURCE)
    return installed(copy)


def installed(copy: Path) -> bool:
    """Whether the noting ``sitecustomize`` is at the root of ``copy`` (read only)."""
    try:
        return (copy / MODULE).read_text(encoding="utf-8") == SOURCE
    except (OSError, UnicodeDecodeError):
        return False


class SpawnLog:
    """Per claim of one worker's baseline, whether a process it started may have run the
    project's Python. ``follows`` is False where :func:`install` did not write its
    module, or the copy is not first on ``PYTHONPATH``: every process event then counts,
    as without this log."""

    def __init__(self, copy: Path) -> None:
        self.pythonpath = os.environ.get("PYTHONPATH")
        # a child finds the module through PYTHONPATH: without the copy on it, one started
        # in the copy (the worker's working directory) would import from it unnoted
        first = (self.pythonpath or "").split(os.pathsep)[0]
        self.follows = bool(first) and Path(first).resolve() == copy.resolve() and installed(copy)
        self._dir = tempfile.TemporaryDirectory(prefix="claims-spawned-")
        self.directory = Path(self._dir.name)

    def path(self, claim: str) -> Path:
        return self.directory / hashlib.sha256(claim.encode("utf-8")).hexdigest()[:32]

    @contextmanager
    def noting(self, claim: str) -> Iterator[None]:
        """Name ``claim``'s file to every process started in the block."""
        before = os.environ.get(VARIABLE)
        os.environ[VARIABLE] = str(self.path(claim))
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(VARIABLE, None)
            else:
                os.environ[VARIABLE] = before

    def ran_python(self, claim: str) -> bool:
        """Whether a Python process noted itself in ``claim``'s file."""
        try:
            return self.path(claim).stat().st_size > 0
        except FileNotFoundError:
            return False

    def unfollowed(self, event: str, args: tuple[object, ...]) -> bool:
        """Whether a process event of this process is one the log cannot follow (see the
        module docstring); every event is when the log does not follow at all."""
        if not self.follows:
            return True
        if event in INHERITING:
            return not self._carries(None)
        if event not in FOLLOWED:
            return True  # a fork, a spawn of another kind
        program, argv, env = (args[i] if i < len(args) else None for i in FOLLOWED[event])
        return not self._carries(env) or _ignores_path(program, argv)

    def _carries(self, env: object) -> bool:
        """Whether a process given ``env`` (None: this process's) has the log's variable and
        the workers' ``PYTHONPATH``."""
        if env is None:
            return os.environ.get(VARIABLE) is not None and (
                os.environ.get("PYTHONPATH") == self.pythonpath
            )
        if not isinstance(env, Mapping):
            return False
        got = {_text(k): _text(v) for k, v in env.items()}
        return got.get(VARIABLE) is not None and got.get("PYTHONPATH") == self.pythonpath


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | os.PathLike):
        return os.fsdecode(value)
    return None


def _words(argv: object) -> list[str]:
    """The words of a command, each argument read as a shell would read it too (the
    command line of ``sh -c`` is one argument)."""
    if isinstance(argv, str | bytes):
        argv = [argv]
    if not isinstance(argv, list | tuple):
        return []
    words: list[str] = []
    for arg in argv:
        text = _text(arg)
        if text is None:
            continue
        try:
            words += shlex.split(text) if text.strip() else [text]
        except ValueError:
            words.append(text)
    return words


def _ignores_path(program: object, argv: object) -> bool:
    """Whether the command starts a Python interpreter with ``-E`` or ``-I`` (a shell
    command line counts as its words: ``sh -c 'python3 -I …'`` does)."""
    words = _words(argv)
    name = _text(program)
    if name is not None:
        words = [name, *words]
    python = False
    for word in words:
        base = os.path.basename(word)
        if base.startswith("python") or base == os.path.basename(sys.executable):
            python = True
        elif python and word.startswith("-") and not word.startswith("--"):
            if IGNORING_PATH & set(word[1:]):
                return True
    return False
