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

import functools
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from claims.errors import UsageError
from claims.results import RunReport
from claims.revisions import RevisionError, changed_files, run_in_tree, worktree_at
from claims.session import Session


class _Recorder:
    """Records, while active, the project files a run executes code from or opens.

    Code is seen through a profile hook (function calls; module-level code is import, not
    reach). Data is seen through an audit hook on ``open``, so a changed fixture, log or
    manifest selects the witnesses that read it. Audit hooks cannot be removed, so one
    recorder per process stays installed and is switched on and off.
    """

    def __init__(self) -> None:
        self.prefix = ""
        self.into: set[str] | None = None
        sys.addaudithook(self._audit)

    def _keep(self, path: str) -> None:
        # Only the project's own files: a hidden directory under the root (.venv) is not one.
        if self.into is not None and path.startswith(self.prefix):
            relative = path[len(self.prefix) :]
            if not relative.startswith("."):
                self.into.add(relative)

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and self.into is not None and isinstance(args[0], str | Path):
            self._keep(os.path.abspath(args[0]))

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name != "<module>":
            self._keep(frame.f_code.co_filename)

    @contextmanager
    def recording(self, root: Path, into: set[str]) -> Iterator[None]:
        self.prefix, self.into = str(root.resolve()) + "/", into
        previous = sys.getprofile()
        sys.setprofile(self._profile)
        try:
            yield
        finally:
            sys.setprofile(previous)
            self.into = None


@functools.cache
def _recorder() -> _Recorder:
    return _Recorder()


def witnesses_reaching(session: Session, names: Sequence[str], root: Path) -> dict[str, set[str]]:
    """Repo-relative files each witness's claims execute code from or read (setup included).

    Witnesses are imported first, outside the recording: importing a module runs its
    module-level code, which is not something a claim reaches.
    """
    session.resolve_all(names)
    reached: dict[str, set[str]] = {}
    for name in names:
        files: set[str] = set()
        with _recorder().recording(root, files):
            session.run([name])
        reached[name] = files
    return reached


def changed_witnesses(session: Session, names: Sequence[str], repo: Path, rev: str) -> list[str]:
    """The witnesses among ``names`` whose claims reach a file changed since ``rev``.

    A changed Python file no claim runs any code of (constants, module-level tables) cannot
    be traced to a witness, so it conservatively selects every witness.
    """
    try:
        changed = set(changed_files(repo, rev))
    except RevisionError as error:
        raise UsageError(f"--changed-since {rev}: {error}") from error
    reached = witnesses_reaching(session, names, repo)
    anywhere = set().union(*reached.values()) if reached else set()
    untraced = {f for f in changed if f.endswith(".py") and f not in anywhere}
    if any(_imported(f, repo) for f in untraced):
        return list(names)
    return [name for name in names if reached[name] & changed]


def _imported(relative: str, root: Path) -> bool:
    """Whether the changed Python file is a module this process imported."""
    path = str((root / relative).resolve())
    return any(getattr(m, "__file__", None) == path for m in list(sys.modules.values()))


BASE_TIMEOUT_SECONDS = 900


def baseline_outcomes(
    repo: Path, rev: str, names: Sequence[str], plugins: Sequence[str] = ()
) -> dict[str, str]:
    """claim id → verdict of the same witnesses run at ``rev`` with that revision's code.

    Each witness runs on its own in one worktree, so a witness the base does not have yet
    only makes its own claims new. A base run that neither reports nor says the witness is
    unknown is an error naming the revision and what it printed, never silently "new".
    """
    loads = [arg for plugin in plugins for arg in ("-p", plugin)]
    outcomes: dict[str, str] = {}
    try:
        with worktree_at(repo, rev) as tree:
            for name in names:
                argv = [sys.executable, "-m", "claims.cli", *loads, "run", name, "--format", "json"]
                outcomes |= _outcomes(run_in_tree(tree, argv, timeout=BASE_TIMEOUT_SECONDS), rev)
    except (RevisionError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"--baseline {rev}: {error}") from error
    return outcomes


def _outcomes(done: subprocess.CompletedProcess[str], rev: str) -> dict[str, str]:
    if done.returncode == 2 and "unknown witness" in done.stderr:
        return {}
    try:
        body = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise UsageError(
            f"--baseline {rev}: the base run exited {done.returncode} without a report: "
            + " | ".join(tail)
        ) from None
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
