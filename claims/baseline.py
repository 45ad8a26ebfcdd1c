"""Revision-aware runs: which witnesses a change reaches, and which failures it caused.

- :func:`witnesses_reaching` runs the witnesses once under a profiler hook and records
  every source file their claims execute; ``claims run --changed-since REV`` keeps the
  witnesses that reach a file changed since REV (the witness module itself included).
- :func:`baseline_outcomes` runs the same witnesses at REV, in a worktree, with that
  revision's own code, so ``claims run --baseline REV`` labels each failing claim
  ``new`` (it passes at REV, or does not exist there) or ``pre-existing`` (it fails there
  too, as the seed's "fails identically on a clean origin/main worktree").
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from claims.errors import UsageError
from claims.results import RunReport
from claims.revisions import RevisionError, changed_files, run_at_revision
from claims.session import Session


@contextmanager
def _recording(root: Path, into: set[str]) -> Iterator[None]:
    # Only the project's own files: a hidden directory under the root (.venv) is not one.
    prefix = str(root.resolve()) + "/"

    def record(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if event != "call" or code.co_name == "<module>":
            return
        if code.co_filename.startswith(prefix) and code.co_filename[len(prefix)] != ".":
            into.add(code.co_filename[len(prefix) :])

    previous = sys.getprofile()
    sys.setprofile(record)
    try:
        yield
    finally:
        sys.setprofile(previous)


def witnesses_reaching(session: Session, names: Sequence[str], root: Path) -> dict[str, set[str]]:
    """Repo-relative source files each witness's claims execute (setup included).

    Witnesses are imported first, outside the recording: importing a module runs its
    module-level code, which is not something a claim reaches.
    """
    session.resolve_all(names)
    reached: dict[str, set[str]] = {}
    for name in names:
        files: set[str] = set()
        with _recording(root, files):
            session.run([name])
        reached[name] = files
    return reached


def changed_witnesses(session: Session, names: Sequence[str], repo: Path, rev: str) -> list[str]:
    """The witnesses among ``names`` whose claims reach a file changed since ``rev``."""
    try:
        changed = set(changed_files(repo, rev))
    except RevisionError as error:
        raise UsageError(f"--changed-since {rev}: {error}") from error
    reached = witnesses_reaching(session, names, repo)
    return [name for name in names if reached[name] & changed]


def baseline_outcomes(
    repo: Path, rev: str, names: Sequence[str], plugins: Sequence[str] = ()
) -> dict[str, str]:
    """claim id → verdict of the same witnesses run at ``rev`` with that revision's code."""
    loads = [arg for plugin in plugins for arg in ("-p", plugin)]
    argv = [sys.executable, "-m", "claims.cli", *loads, "run", *names, "--format", "json"]
    try:
        done = run_at_revision(repo, rev, argv)
    except RevisionError as error:
        raise UsageError(f"--baseline {rev}: {error}") from error
    try:
        body = json.loads(done.stdout)
    except json.JSONDecodeError:
        # The base may not know a witness at all (usage error): every claim is then new.
        return {}
    return {
        entry["id"]: entry["verdict"]
        for witness in body.get("witnesses", {}).values()
        for entry in witness.get("claims", ())
    }


def label_failures(report: RunReport, base: dict[str, str]) -> list[tuple[str, str]]:
    """(claim id, ``new`` or ``pre-existing``) for every claim that did not pass."""
    return [
        (result.id, "pre-existing" if base.get(result.id) in ("fail", "error") else "new")
        for witness in report.witnesses
        for result in witness.results
        if not result.passed
    ]


def print_labels(labels: list[tuple[str, str]], rev: str, stream: Any) -> None:
    print(f"\nbaseline {rev}:", file=stream)
    for claim_id, label in labels:
        why = f"fails at {rev} too" if label == "pre-existing" else f"passes at {rev} or is absent"
        print(f"  {claim_id}: {label} ({why})", file=stream)
    if not labels:
        print("  no failing claim to label", file=stream)
