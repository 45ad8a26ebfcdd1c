"""The planner's version: its release and a digest of its own code.

A saved plan (:mod:`planner.saved_plan`) is bound to the planner that made it, and the
release number alone changes too rarely for that: two commits of one release plan
differently. So the version an operator sees (``planner --version``) and a plan records is
the release plus the sha256 of every ``*.py`` file of the package (relative path and bytes,
in path order), its first 12 hex digits: a planner whose code changed in any way has another
version.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "gunbc-claims"
PACKAGE_ROOT = Path(__file__).resolve().parent


def release() -> str:
    """The installed distribution's version ("0+unknown" when it is not installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def code_digest(root: Path = PACKAGE_ROOT) -> str:
    """sha256 over every ``*.py`` under ``root``: each file's relative path, a NUL, its
    length, a NUL and its bytes, in path order (so moving code between files changes it)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        h.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


@functools.cache
def planner_version() -> str:
    """``RELEASE+CODE``: the release and the first 12 hex digits of :func:`code_digest`."""
    return f"{release()}+{code_digest()[:12]}"
