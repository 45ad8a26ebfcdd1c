"""Where PR states come from, offline: recorded ``gh`` output and git history.

Both readers return ``{number: PrRecord}``. A PR a source never mentions is absent, and the
caller treats it as unknown; nothing is guessed.

Precedence when sources are combined (:func:`combine_sources`):

1. Recorded ``gh`` files are read in the order given; a later file's record for the same
   PR replaces an earlier one (record the newer state last).
2. A ``gh`` record wins over git history, because it is an explicit recording and git
   cannot see open or closed-unmerged PRs, nor rebase merges.
3. One exception: a revert seen in git history beats a ``gh`` MERGED record, because a PR
   stays MERGED on GitHub forever after it is reverted; only history can tell.
4. Git history fills in every PR no ``gh`` record mentions.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from claims.files import FileProblem, parse_json, read_text, shown
from claims.frontiers import PrRecord, PrState

__all__ = [
    "PrSourceError",
    "combine_sources",
    "read_gh_pr_list",
    "read_gh_pr_lists",
    "read_git_history",
]

_GH_STATES = {
    "OPEN": PrState.OPEN,
    "MERGED": PrState.MERGED,
    "CLOSED": PrState.CLOSED_UNMERGED,
}


_GH_HINT = (
    "Nothing from this file was used. Record it again with "
    "`gh pr list --state all --limit 1000 --json number,state,mergedAt,title > FILE`."
)
_GIT_HINT = "Point --git-log at a git repository and --base/rev at a commit it contains."


class PrSourceError(ValueError):
    """A PR source that cannot be read; the message lists every located problem."""

    def __init__(self, source: str, problems: Sequence[str], hint: str = _GH_HINT) -> None:
        self.source = source
        self.problems = tuple(problems)
        listed = "\n".join(f"  {shown(p)}" for p in self.problems)
        super().__init__(
            f"{shown(source)}: cannot read PR states ({len(self.problems)} problem(s)):\n"
            f"{listed}\n{hint}"
        )


# ----------------------------------------------------------------------------- gh records


def read_gh_pr_list(path: Path) -> dict[int, PrRecord]:
    """Read recorded ``gh pr list --state all --json number,state,mergedAt,title`` output.

    Also accepts one ``gh pr view --json number,state,mergedAt,mergeCommit,title`` object,
    or an array of those. Every problem is collected before raising :class:`PrSourceError`,
    and a file with any problem yields nothing.
    """
    items = _load_items(path)
    problems: list[str] = []
    records: dict[int, PrRecord] = {}
    first_index: dict[int, int] = {}
    for index, item in enumerate(items):
        record = _gh_record(item, f"[{index}]", str(path), problems)
        if record is None:
            continue
        if record.number in first_index:
            problems.append(
                f"[{index}].number: PR {record.number} is listed again "
                f"(first at [{first_index[record.number]}])"
            )
            continue
        first_index[record.number] = index
        records[record.number] = record
    if problems:
        raise PrSourceError(str(path), problems)
    return records


def read_gh_pr_lists(paths: Sequence[Path]) -> dict[int, PrRecord]:
    """Read several recorded files; a later file's record replaces an earlier one."""
    merged: dict[int, PrRecord] = {}
    for path in paths:
        merged.update(read_gh_pr_list(path))
    return merged


def _load_items(path: Path) -> list[Any]:
    """The file's PR objects; it is read as strict JSON (a key given twice, an integer beyond
    64 bits, a lone surrogate or nesting past 64 levels is a located problem)."""
    try:
        data = parse_json(read_text(path))
    except FileProblem as err:
        syntax = err.syntax
        problem = f"{err.where}: {err.message}"
        if syntax is not None:
            problem = f"not JSON at line {syntax.lineno} column {syntax.colno}: {syntax.msg}"
        raise PrSourceError(str(path), [problem]) from err
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return data
    found = type(data).__name__
    raise PrSourceError(str(path), [f"expected a JSON array of PR objects, got {found}"])


def _gh_record(item: Any, loc: str, source: str, problems: list[str]) -> PrRecord | None:
    if not isinstance(item, dict):
        problems.append(f"{loc}: expected a PR object, got {json.dumps(item)}")
        return None
    before = len(problems)
    number = _field(item, loc, "number", problems, _is_pr_number, "a positive integer")
    state = _field(item, loc, "state", problems, _is_state, "OPEN/CLOSED/MERGED")
    merged_at = _field(item, loc, "mergedAt", problems, _is_timestamp_or_null, "null or a time")
    title = _field(item, loc, "title", problems, _is_str, "a string")
    if "mergeCommit" in item and not _is_commit_or_null(item["mergeCommit"]):
        problems.append(f"{loc}.mergeCommit: expected null or {{oid}}, got {item['mergeCommit']}")
    if len(problems) == before:
        _check_merged_at(state, merged_at, loc, problems)
    if len(problems) > before:
        return None
    return PrRecord(
        number=number,
        state=_GH_STATES[state],
        merged_at=merged_at,
        title=title,
        source=f"gh:{source}{loc}",
    )


def _field(
    item: dict[str, Any],
    loc: str,
    name: str,
    problems: list[str],
    valid: Callable[[Any], bool],
    expected: str,
) -> Any:
    if name not in item:
        problems.append(f"{loc}.{name}: missing (expected {expected})")
        return None
    value = item[name]
    if not valid(value):
        problems.append(f"{loc}.{name}: expected {expected}, got {json.dumps(value)}")
    return value


def _check_merged_at(state: str, merged_at: str | None, loc: str, problems: list[str]) -> None:
    if state == "MERGED" and merged_at is None:
        problems.append(f"{loc}.mergedAt: a MERGED PR needs its merge time, got null")
    if state != "MERGED" and merged_at is not None:
        problems.append(f"{loc}.mergedAt: a {state} PR was never merged, got {merged_at!r}")


def _is_pr_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_state(value: Any) -> bool:
    return isinstance(value, str) and value in _GH_STATES


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_timestamp_or_null(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_commit_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, dict) and isinstance(value.get("oid"), str))


# ----------------------------------------------------------------------------- git history

_MERGE = re.compile(r"^Merge pull request #(\d+) from \S+")
_SQUASH = re.compile(r"\(#(\d+)\)\s*$")
_PR_DIGITS = 18
"""A PR number a subject names has at most this many digits (it fits in 64 bits); a longer
one is a located problem naming the commit, not a number to guess at."""
_REVERT = re.compile(r'^Revert "(.*)"$')
_REAPPLY = re.compile(r'^Reapply "(.*)"$')
_FORMAT = "%H%x00%cI%x00%s%x00%b%x1e"


@dataclass(frozen=True)
class _Commit:
    sha: str
    date: str
    subject: str
    body: str


def read_git_history(repo: Path, rev: str = "HEAD") -> dict[int, PrRecord]:
    """PR states seen in the history of ``rev``, oldest commit first.

    ``Merge pull request #N from owner/branch`` and a squash subject ending ``(#N)`` mark
    N merged; ``Revert "…(#N)…"`` marks it reverted, and a later re-land (the same subject
    again, or ``Reapply``/``Revert "Revert …"``) marks it merged again. Rebase merges carry
    no number and are not seen. Only subjects are read: a squash body lists the PR's own
    commits, reverts included, which say nothing about the PR itself.
    """
    records: dict[int, PrRecord] = {}
    for commit in _commits(repo, rev):
        for number, state, title in _checked_effects(commit, repo, rev):
            records[number] = PrRecord(
                number=number,
                state=state,
                merged_at=commit.date if state is PrState.MERGED else None,
                title=title,
                source=f"git:{repo}@{rev} {commit.sha[:12]}",
            )
    return records


def _commits(repo: Path, rev: str) -> Iterator[_Commit]:
    argv = ["git", "-C", str(repo), "log", "--reverse", "--date-order", f"--format={_FORMAT}"]
    try:
        done = subprocess.run([*argv, rev, "--"], capture_output=True, text=True, check=False)
    except (OSError, ValueError) as error:  # no git, or a NUL byte in the path
        raise PrSourceError(f"git log of {repo} at {rev!r}", [str(error)], _GIT_HINT) from error
    if done.returncode != 0:
        problem = done.stderr.strip() or f"git log exited {done.returncode}"
        raise PrSourceError(f"git log of {repo} at {rev!r}", [problem], _GIT_HINT)
    for chunk in done.stdout.split("\x1e"):
        fields = chunk.strip("\n").split("\x00")
        if len(fields) == 4:
            yield _Commit(*fields)


class _NotAPrNumber(ValueError):
    def __init__(self, digits: str) -> None:
        self.digits = digits
        super().__init__(digits)


def _pr_number(digits: str) -> int:
    if len(digits) > _PR_DIGITS:
        raise _NotAPrNumber(digits)
    return int(digits)


def _checked_effects(commit: _Commit, repo: Path, rev: str) -> list[tuple[int, PrState, str]]:
    """:func:`_effects`, refusing a subject whose PR number no PR can have."""
    try:
        return _effects(commit)
    except _NotAPrNumber as huge:
        problem = (
            f"commit {commit.sha[:12]}: its subject names PR #{huge.digits[:20]}… "
            f"({len(huge.digits):,} digits), which is not a PR number"
        )
        raise PrSourceError(f"git log of {repo} at {rev!r}", [problem], _GIT_HINT) from None


def _effects(commit: _Commit) -> list[tuple[int, PrState, str]]:
    """What one commit says about PRs: the PR it lands, and the PRs it reverts."""
    effects: list[tuple[int, PrState, str]] = []
    landed = _landed(commit.subject, commit.body)
    if landed is not None:
        effects.append((landed[0], PrState.MERGED, landed[1]))
    depth, inner = _peel(_SQUASH.sub("", commit.subject).rstrip())
    target = _landed(inner, "") if depth else None
    if target is not None:
        state = PrState.REVERTED if depth % 2 else PrState.MERGED
        effects.append((target[0], state, target[1]))
    return effects


def _landed(subject: str, body: str) -> tuple[int, str] | None:
    """The PR a subject lands, with its title, if it is a merge or squash subject."""
    merge = _MERGE.match(subject)
    if merge is not None:
        title = body.strip().splitlines()[0] if body.strip() else ""
        return _pr_number(merge.group(1)), title
    squash = _SQUASH.search(subject)
    if squash is not None:
        return _pr_number(squash.group(1)), subject[: squash.start()].rstrip()
    return None


def _peel(subject: str) -> tuple[int, str]:
    """How many reverts wrap a subject (``Reapply`` counts two), and what they wrap."""
    depth = 0
    while True:
        if (revert := _REVERT.match(subject)) is not None:
            depth, subject = depth + 1, revert.group(1)
        elif (reapply := _REAPPLY.match(subject)) is not None:
            depth, subject = depth + 2, reapply.group(1)
        else:
            return depth, subject


# ----------------------------------------------------------------------------- precedence


def combine_sources(gh: Mapping[int, PrRecord], git: Mapping[int, PrRecord]) -> dict[int, PrRecord]:
    """Combine ``gh`` records with git history under the precedence in the module doc."""
    combined = dict(git)
    for number, record in gh.items():
        seen = git.get(number)
        reverted = seen is not None and seen.state is PrState.REVERTED
        if reverted and record.state is PrState.MERGED:
            combined[number] = _reverted_after(record, seen)
        else:
            combined[number] = record
    return combined


def _reverted_after(record: PrRecord, revert: PrRecord | None) -> PrRecord:
    where = revert.source if revert is not None else "git history"
    return record.model_copy(
        update={
            "state": PrState.REVERTED,
            "merged_at": None,
            "source": f"{record.source}; reverted per {where}",
        }
    )
