"""Choosing generated mutants: ``--shard K/N`` and ``--since REV`` (diff-only selection).

A shard is every N-th mutant of the survey's stable order, starting with the K-th: the N
shards partition the mutants. ``--since REV`` keeps the mutants of functions whose lines
changed since REV (``git diff --unified=0 REV``, working tree included) and every mutant of
a file git does not track yet. Git is only read, never written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from claims import UsageError
from claims.revisions import RevisionError, git
from plugins.mutate.generated.mutmut_bridge import CLASS_SEPARATOR, GeneratedMutant

T = TypeVar("T")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
WHOLE_FILE = frozenset({0})


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> (K, N) with 1 <= K <= N."""
    match = re.fullmatch(r"(\d{1,9})/(\d{1,9})", text.strip())  # no huge or unreadable ints
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise UsageError(
            f"--shard {text[:40]!r}: write K/N with 1 <= K <= N, each at most 9 digits "
            "(example: --shard 2/4)"
        )
    return int(match[1]), int(match[2])


def shard(items: Sequence[T], k: int, n: int) -> list[T]:
    """Every ``n``-th item starting with the ``k``-th (1-based)."""
    return [item for index, item in enumerate(items) if index % n == k - 1]


def _git(root: Path, *args: str) -> str:
    try:
        return git(root, *args)
    except RevisionError as error:
        raise UsageError(str(error)) from error


def changed_lines(root: Path, rev: str, paths: Sequence[Path]) -> dict[str, frozenset[int]]:
    """File (relative) -> changed line numbers since ``rev``; ``{0}`` means the whole file."""
    names = [p.as_posix() for p in paths]
    diff = _git(root, "diff", "--unified=0", "--no-color", "--no-ext-diff", rev, "--", *names)
    result = parse_diff(diff)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "--", *names)
    result.update({path: WHOLE_FILE for path in untracked.splitlines() if path.endswith(".py")})
    return result


def parse_diff(diff: str) -> dict[str, frozenset[int]]:
    """New-side line numbers each file's hunks touch; a pure deletion touches the lines
    on both sides of where it was."""
    found: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            target = line[4:].removeprefix("b/")
            current = None if target == "/dev/null" else found.setdefault(target, set())
        elif (hunk := _HUNK.match(line)) and current is not None:
            start, count = int(hunk[1]), int(hunk[2] if hunk[2] is not None else 1)
            current.update(range(start, start + max(count, 1) + (count == 0)))
    return {path: frozenset(lines) for path, lines in found.items()}


def function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Trampoline key (``x_f`` / ``xǁCǁm``) -> first and last line, decorators included."""
    spans: dict[str, tuple[int, int]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans[f"x_{node.name}"] = _span(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    spans[f"x{CLASS_SEPARATOR}{node.name}{CLASS_SEPARATOR}{item.name}"] = _span(
                        item
                    )
    return spans


def _span(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


def since(
    mutants: Sequence[GeneratedMutant], root: Path, rev: str, paths: Sequence[Path]
) -> list[GeneratedMutant]:
    """The mutants of functions that changed since ``rev``."""
    changed = changed_lines(root, rev, paths)
    spans = {path: function_spans((root / path).read_text(encoding="utf-8")) for path in changed}
    return [m for m in mutants if _touched(m, changed, spans)]


def _touched(
    mutant: GeneratedMutant,
    changed: dict[str, frozenset[int]],
    spans: dict[str, dict[str, tuple[int, int]]],
) -> bool:
    lines = changed.get(mutant.path)
    if lines is None:
        return False
    if lines == WHOLE_FILE:
        return True
    first, last = spans[mutant.path].get(mutant.function, (0, -1))
    return any(first <= line <= last for line in lines)
