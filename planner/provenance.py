"""What a plan read: every input file by role, path, size and sha256.

Planning reads its files through two readers, :func:`planner.values.read_text_file` (the
inventory, manifests, scenarios, inputs, a recipe) and :func:`planner.authority.stream_log`
(the authority log). Each tells :func:`note` what it read; inside :func:`recording` the notes
are kept, so the list of inputs a plan stands on is observed, never a hand-kept list of
options that drifts from what the code reads. Outside a recording a note costs one lookup.

The authority log is append-only and read again at apply time: its note is a *prefix*, the
bytes the plan read, and a log that still begins with exactly those bytes is the same log
with events appended (:func:`changed`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

HEX64 = r"^[0-9a-f]{64}$"


class InputRead(BaseModel):
    """One file a plan read: its role (what the planner read it as), its absolute path, and
    the size and sha256 of the bytes read. ``prefix``: only those first bytes are bound (the
    authority log, which may grow by appended events)."""

    role: str
    path: str
    size: int = Field(ge=0)
    sha256: str = Field(pattern=HEX64)
    prefix: bool = False

    # frozen like planner.values.Frozen, which imports this module's readers' notes
    model_config = ConfigDict(frozen=True, extra="forbid")


_RECORDING: ContextVar[dict[tuple[str, str], InputRead] | None] = ContextVar(
    "planner_inputs_read", default=None
)


@contextmanager
def recording() -> Iterator[list[InputRead]]:
    """Keep every note made inside the block; the list is filled when the block ends, each
    (role, path) once, in the order first read (a file read twice keeps its last note)."""
    kept: dict[tuple[str, str], InputRead] = {}
    token = _RECORDING.set(kept)
    found: list[InputRead] = []
    try:
        yield found
    finally:
        _RECORDING.reset(token)
        found.extend(kept.values())


def active() -> bool:
    """Whether a recording is on (a reader hashes only then)."""
    return _RECORDING.get() is not None


def note(path: Path, role: str, data: bytes, prefix: bool = False) -> None:
    """Tell the recording (if any) that ``data`` was read from ``path`` as ``role``."""
    if active():
        note_digest(path, role, len(data), hashlib.sha256(data).hexdigest(), prefix)


def note_digest(path: Path, role: str, size: int, sha256: str, prefix: bool = False) -> None:
    """As :func:`note`, for a reader that hashed as it streamed."""
    kept = _RECORDING.get()
    if kept is None:
        return
    where = os.path.abspath(path)
    kept[(role, where)] = InputRead(role=role, path=where, size=size, sha256=sha256, prefix=prefix)


def changed(read: InputRead) -> str | None:
    """What is at ``read.path`` now, against what was read: None when the same (for a prefix,
    when the file still begins with the bytes read), else why not, in words."""
    try:
        with open(read.path, "rb") as handle:
            data = handle.read(read.size + (0 if read.prefix else 1))
    except OSError as exc:
        return f"cannot be read now: {exc.strerror or exc}"
    if len(data) < read.size:
        return f"is shorter now ({len(data)} bytes; the plan read {read.size})"
    if read.prefix:
        data = data[: read.size]
    elif len(data) > read.size:
        return f"is longer now (the plan read {read.size} bytes)"
    if hashlib.sha256(data).hexdigest() != read.sha256:
        which = f"its first {read.size} bytes" if read.prefix else "its bytes"
        return f"{which} differ from what the plan read (sha256 {read.sha256[:12]}…)"
    return None
