"""A memo directory shared by the processes of one mutation run.

A witness whose claims are costly and depend only on bytes it can name (the executed-apply
witness runs stage scripts; its outcome is a function of the script and seed bytes) may keep
its results keyed by a digest of those bytes. In one process an in-memory dict does; the
mutation harness and the surveys run claims in many processes (a forked child per run, a
worker per shard), so they set ``CLAIMS_MEMO_DIR`` to a directory of their own for the
length of the run, and every process below them reads and adds entries there. The directory
is made fresh per run and removed after it: nothing is remembered between runs, so a
changed tool or machine is always seen.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from claims.files import signals_unwind

MEMO_DIR_ENV = "CLAIMS_MEMO_DIR"


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
    previous = os.environ.get(MEMO_DIR_ENV)
    with signals_unwind():  # the removal below runs before the signal ends the process
        where = Path(tempfile.mkdtemp(prefix="claims-memo-"))
        os.environ[MEMO_DIR_ENV] = str(where)
        try:
            yield where
        finally:
            if previous is None:
                os.environ.pop(MEMO_DIR_ENV, None)
            else:
                os.environ[MEMO_DIR_ENV] = previous
            shutil.rmtree(where, ignore_errors=True)
