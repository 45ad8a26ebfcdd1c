"""Where a measured figure came from: the commit, the time and the machine of its run.

A page of figures written by a make target (``make bench``: docs/benchmarks-measured.md)
carries this, so a reader can tell which tree and which machine a number belongs to. The
commit is ``git rev-parse HEAD`` of the checkout; a tree with changes git has not committed
is marked ``+changes`` (the figure then belongs to no commit exactly).
"""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def commit_of(root: Path, written: tuple[str, ...] = ()) -> str:
    """The checkout's commit (12 hex digits), ``+changes`` when its tracked files differ from
    it (``written``, the pages the run itself rewrites, aside); ``unknown`` outside git."""
    head = _git(root, "rev-parse", "HEAD")
    if head is None:
        return "unknown"
    aside = [f":(exclude){path}" for path in written]
    changes = _git(root, "status", "--porcelain", "--untracked-files=no", "--", ".", *aside)
    return head.strip()[:12] + ("+changes" if changes else "")


def provenance(root: Path, written: tuple[str, ...] = ()) -> dict[str, object]:
    """The run's commit, its UTC start time, and the machine it ran on."""
    return {
        "commit": commit_of(root, written),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
