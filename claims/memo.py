"""A memo directory shared by the processes of one mutation run.

A witness whose claims are costly and depend only on bytes it can name (the executed-apply
witness runs stage scripts; its outcome is a function of the script and seed bytes) may keep
its results keyed by a digest of those bytes. In one process an in-memory dict does; the
mutation harness and the surveys run claims in many processes (a forked child per run, a
worker per shard), so they set ``CLAIMS_MEMO_DIR`` to a directory of their own for the
length of the run, and every process below them reads and adds entries there. The directory
is made fresh per run and removed after it: nothing is remembered between runs, so a
changed tool or machine is always seen.

A value a memo gives back stands in for the work that made it, which ran somewhere else: in
another process, or in this one before, for another caller. Every such hit, in this
directory or in a witness's own in-process dict, is announced with :func:`recalled` (an audit
event, :data:`RECALL_EVENT`), so a tool that records what a caller depends on (the survey's
cell keys) knows that this caller's record misses the work it was given.

The same runs give their processes a private ``TMPDIR`` (:func:`private_tmpdir`), removed the
same way.
"""

from __future__ import annotations

import os
import pickle
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from claims.files import signals_unwind

MEMO_DIR_ENV = "CLAIMS_MEMO_DIR"
RECALL_EVENT = "claims.memo.recall"
"""The audit event :func:`recalled` raises (its one argument: the key)."""


def recalled(key: str) -> None:
    """Announce that the caller was given a value a memo kept under ``key`` instead of doing
    the work (``sys.audit``: free when no hook listens)."""
    sys.audit(RECALL_EVENT, key)


def memo_dir() -> Path | None:
    """The shared memo directory of the run this process belongs to, if any."""
    found = os.environ.get(MEMO_DIR_ENV)
    return Path(found) if found and Path(found).is_dir() else None


def recall(key: str) -> object | None:
    """What a process of this run remembered under ``key`` (a hex digest), or None."""
    where = memo_dir()
    if where is None:
        return None
    try:
        found: object = pickle.loads((where / key).read_bytes())  # written by this run only
    except (OSError, pickle.UnpicklingError, EOFError):
        return None
    recalled(key)
    return found


def remember(key: str, value: object) -> None:
    """Keep ``value`` under ``key`` for the other processes of this run (whole or not at all)."""
    where = memo_dir()
    if where is None:
        return
    handle, temporary = tempfile.mkstemp(dir=where, prefix=".entry-")
    with os.fdopen(handle, "wb") as out:
        pickle.dump(value, out)
    os.replace(temporary, where / key)


@contextmanager
def shared_memo() -> Iterator[Path]:
    """A fresh memo directory for the processes started inside the block; removed after, on
    SIGTERM and SIGHUP too (:func:`claims.files.signals_unwind`)."""
    with _run_directory(MEMO_DIR_ENV, "claims-memo-") as where:
        yield where


@contextmanager
def private_tmpdir() -> Iterator[Path]:
    """A fresh ``TMPDIR`` for the processes started inside the block, removed after with all
    they left in it. Code under a mutant that breaks its own cleanup (a temporary directory
    made per call, say) then leaves nothing in the operator's ``/tmp``. It sits
    directly in the system's temporary directory: Unix socket paths made inside must stay
    under 108 bytes."""
    with _run_directory("TMPDIR", "claims-tmp-") as where:
        cached, tempfile.tempdir = tempfile.tempdir, str(where)  # for forked children too
        try:
            yield where
        finally:
            tempfile.tempdir = cached


@contextmanager
def _run_directory(variable: str, prefix: str) -> Iterator[Path]:
    """A fresh directory named by ``variable`` in this process's environment (so in every
    process started inside the block) and removed after, on SIGTERM and SIGHUP too."""
    previous = os.environ.get(variable)
    with signals_unwind():  # the removal below runs before the signal ends the process
        where = Path(tempfile.mkdtemp(prefix=prefix))
        os.environ[variable] = str(where)
        try:
            yield where
        finally:
            if previous is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = previous
            shutil.rmtree(where, ignore_errors=True)
