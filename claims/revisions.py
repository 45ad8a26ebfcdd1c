"""Revision-pair controls: run a revision's own code in a git worktree, compare bytes.

:func:`worktree_at` checks a revision out beside the repository (never in it) and always
removes it again. :func:`run_at_revision` runs a command there with ``PYTHONPATH`` set to
the worktree, so the imports resolve to that revision's code. :func:`compare_artifacts`
compares two renderings byte for byte; the oracle is the other revision, never a digest
literal copied into the tree.

``python -m claims.revisions --dump-artifacts MODULE`` prints, as JSON, what the witness module
``W`` (``witnesses.W`` unless ``W`` is dotted) renders through its ``artifacts()`` function.
The identity command runs it once per revision, each in its own subprocess.

Caveat: an editable install's import finder comes after ``PYTHONPATH``, so a package the
revision lacks entirely would still be imported from the installed tree.
"""

from __future__ import annotations

import difflib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from claims.exits import Exit
from claims.files import shown, signals_unwind

__all__ = [
    "ArtifactChange",
    "ArtifactDiff",
    "IdentityResult",
    "RevisionError",
    "changed_files",
    "compare_artifacts",
    "dump_artifacts",
    "identity_at",
    "main",
    "render_artifacts_in",
    "run_at_revision",
    "run_in_tree",
    "worktree_at",
]


class RevisionError(RuntimeError):
    """A git operation on a revision failed; the message quotes the command and git."""


# ----------------------------------------------------------------------------- git


def git(repo: Path, *args: str) -> str:
    """Run ``git -C repo args``; a failure raises :class:`RevisionError` with git's words,
    on one line (the repository's path and git's output escaped: either may hold anything)."""
    argv = ("git", "-C", str(repo), *args)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        raise RevisionError(f"cannot run git in {shown(repo)}: {shown(error)}") from None
    if done.returncode != 0:
        said = shown(done.stderr.strip())
        raise RevisionError(f"`{shown(' '.join(argv))}` exited {done.returncode}: {said}")
    return done.stdout


def commit_of(repo: Path, rev: str) -> str:
    """The full sha ``rev`` names in ``repo``; anything else raises a readable error."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except RevisionError as err:
        raise RevisionError(
            f"{rev!r} is not a commit of {shown(repo)}; give a branch, tag or sha it contains "
            f"({err})"
        ) from err


@contextmanager
def worktree_at(repo: Path, rev: str) -> Iterator[Path]:
    """Check ``rev`` out, detached, in a fresh temporary directory; yield its path.

    The worktree is removed (``git worktree remove --force``, then ``prune``) and the
    temporary directory deleted when the block ends, however it ends: an exception, a
    KeyboardInterrupt, SIGTERM or SIGHUP included (:func:`claims.files.signals_unwind`).
    """
    commit = commit_of(repo, rev)
    with signals_unwind():
        holder = Path(tempfile.mkdtemp(prefix="claims-worktree-"))
        tree = holder / "tree"
        try:
            git(repo, "worktree", "add", "--detach", str(tree), commit)
            yield tree
        finally:
            _remove_worktree(repo, tree, holder)


def _remove_worktree(repo: Path, tree: Path, holder: Path) -> None:
    # Cleanup must not mask the exception that ended the block, so git failures here are
    # not raised; prune then drops whatever registration the removal left behind.
    subprocess.run(
        ["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)],
        capture_output=True,
        check=False,
    )
    shutil.rmtree(holder, ignore_errors=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True, check=False)


def run_in_tree(
    tree: Path,
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with cwd and ``PYTHONPATH`` set to ``tree``, so its own code runs."""
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": str(tree)}
    return subprocess.run(
        list(argv),
        cwd=tree,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def run_at_revision(
    repo: Path,
    rev: str,
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in a worktree of ``rev``, with that revision's code on ``PYTHONPATH``.

    The result is returned whatever the exit status; the worktree is gone afterwards.
    """
    with worktree_at(repo, rev) as tree:
        return run_in_tree(tree, argv, env, timeout)


def changed_files(repo: Path, rev: str) -> tuple[str, ...]:
    """Paths that differ between ``rev`` and the working tree, sorted, repo-relative.

    Counts staged and unstaged changes (the working tree against ``rev``), both sides of a
    rename, and untracked files that are not ignored: a new witness file changes what runs
    even before anyone adds it.
    """
    commit = commit_of(repo, rev)
    diffed = git(repo, "diff", "--name-only", "--no-renames", "-z", commit, "--")
    untracked = git(repo, "ls-files", "--others", "--exclude-standard", "-z")
    names = {n for n in (diffed + untracked).split("\0") if n}
    return tuple(sorted(names))


# ----------------------------------------------------------------------------- artifacts


class ArtifactChange(StrEnum):
    """How one artifact differs between the base and the head rendering."""

    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"


class ArtifactDiff(BaseModel):
    """One differing artifact and its unified diff (base first)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    change: ArtifactChange
    diff: str


class IdentityResult(BaseModel):
    """Whether two renderings are byte-identical; when not, a diff per artifact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    identical: bool
    artifacts: int
    total_bytes: int
    diffs: tuple[ArtifactDiff, ...] = ()

    def summary(self, witness: str) -> str:
        """``W: identical (N bytes)`` or ``W: differs (…)``, the identity verdict line."""
        if self.identical:
            return f"{witness}: identical ({self.total_bytes} bytes)"
        counts = {c: sum(d.change is c for d in self.diffs) for c in ArtifactChange}
        parts = ", ".join(f"{n} {c.value}" for c, n in counts.items() if n)
        return f"{witness}: differs ({len(self.diffs)} of {self.artifacts} artifacts: {parts})"


def compare_artifacts(base: Mapping[str, bytes], head: Mapping[str, bytes]) -> IdentityResult:
    """Compare two renderings artifact by artifact, bytes only.

    ``total_bytes`` counts the head rendering. Added and removed artifacts differ too.
    """
    names = sorted(set(base) | set(head))
    diffs = tuple(
        _diff(name, base.get(name), head.get(name))
        for name in names
        if base.get(name) != head.get(name)
    )
    return IdentityResult(
        identical=not diffs,
        artifacts=len(names),
        total_bytes=sum(len(b) for b in head.values()),
        diffs=diffs,
    )


def _diff(name: str, old: bytes | None, new: bytes | None) -> ArtifactDiff:
    change = (
        ArtifactChange.ADDED
        if old is None
        else ArtifactChange.REMOVED
        if new is None
        else ArtifactChange.CHANGED
    )
    before = "/dev/null" if old is None else f"base/{name}"
    after = "/dev/null" if new is None else f"head/{name}"
    lines = difflib.unified_diff(_lines(old), _lines(new), before, after)
    text = "".join(_terminated(line) for line in lines)
    if not text:
        text = f"--- {before}\n+++ {after}\n(bytes differ but decode to the same text)\n"
    return ArtifactDiff(name=name, change=change, diff=text)


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)


def _terminated(line: str) -> str:
    # As diff(1) does: a last line without a newline gets one, plus a marker saying so.
    return line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"


# ----------------------------------------------------------------------------- dumping


def dump_artifacts(module_name: str) -> dict[str, str]:
    """Import the witness module ``module_name`` (as its plugin registered it) and return its
    ``artifacts()``, checked to be str → str."""
    module = importlib.import_module(module_name)
    render = getattr(module, "artifacts", None)
    if not callable(render):
        raise TypeError(
            f"{module_name} defines no artifacts() function; a witness that takes part in "
            "identity controls defines `def artifacts() -> dict[str, str]` (name → text)"
        )
    rendered = render()
    if not isinstance(rendered, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in rendered.items()
    ):
        raise TypeError(f"{module_name}.artifacts() must return dict[str, str], got {rendered!r}")
    return rendered


def render_artifacts_in(tree: Path, witness: str, timeout: float | None = None) -> dict[str, bytes]:
    """Render ``witness``'s artifacts with ``tree``'s own code, in a subprocess; utf-8 bytes."""
    argv = (sys.executable, "-m", "claims.revisions", "--dump-artifacts", witness)
    done = run_in_tree(tree, argv, timeout=timeout)
    if done.returncode != 0:
        raise RevisionError(
            f"rendering {witness}'s artifacts in {tree} exited {done.returncode}:\n"
            f"{done.stderr.strip()}"
        )
    try:
        rendered = json.loads(done.stdout)
    except json.JSONDecodeError as err:
        raise RevisionError(f"rendering {witness} in {tree} printed no JSON: {err}") from err
    if not isinstance(rendered, dict):
        raise RevisionError(f"rendering {witness} in {tree} printed {rendered!r}, not an object")
    return {str(name): str(text).encode("utf-8") for name, text in rendered.items()}


def identity_at(repo: Path, rev: str, witness: str, timeout: float | None = None) -> IdentityResult:
    """Compare ``witness``'s artifacts rendered at ``rev`` with the working tree's."""
    with worktree_at(repo, rev) as tree:
        base = render_artifacts_in(tree, witness, timeout)
    head = render_artifacts_in(repo, witness, timeout)
    return compare_artifacts(base, head)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m claims.revisions --dump-artifacts MODULE``: print the artifacts of the
    witness module MODULE as JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] != "--dump-artifacts":
        print("usage: python -m claims.revisions --dump-artifacts MODULE", file=sys.stderr)
        return Exit.USAGE
    try:
        rendered = dump_artifacts(args[1])
    except (ImportError, TypeError) as err:
        print(f"claims.revisions: {err}", file=sys.stderr)
        return Exit.USAGE
    print(json.dumps(rendered, sort_keys=True))
    return Exit.OK


if __name__ == "__main__":
    raise SystemExit(main())
