"""Files the framework writes: always whole, never half-written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so a reader sees the old file or the new one, never half:
    a temp file in the same directory, then a rename; the temp file never outlives a failure."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
