"""The mutmut 3.8.1 bridge: generate the mutant tree only, and read back what it made.

``mutmut run`` would generate, then run pytest under ``stats`` and ``-x`` per mutant and
keep one exit code per mutant. Only the generation is wanted here:
``python -m plugins.mutate.generated.mutmut_bridge ROOT`` calls mutmut's own steps (copy the
sources and ``also_copy`` into ``mutants/``, write the trampolined files and their
``.meta``/``.spans`` indexes) in ROOT, in a process of its own, since mutmut reads
``pyproject.toml`` from the working directory and keeps module-level state.
The kill matrix is built by :mod:`.survey`.

A generated mutant is named ``pkg.mod.x_function__mutmut_N`` (``pkg.mod.xǁClassǁmethod__mutmut_N``
for a method). Setting ``MUTANT_UNDER_TEST`` to that name switches the trampoline to it.
Our statement deletions (:mod:`.deletion`) are handed to the same writer, numbered after
mutmut's mutants of their function; their sidecar says which names they are.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from claims import UsageError
from claims.exits import Exit
from filerules import printable
from plugins.mutate.generated.deleted import OPERATOR, SIDECAR, Deletion, read_deletions

MUTANTS_DIR = "mutants"
ONLY = "--only"
"""The generator's argument after which come the only files it mutates."""
CLASS_SEPARATOR = "ǁ"

#: How to install what the generated survey drives (pyproject's ``mutation`` extra).
MUTMUT_INSTALL = "pip install 'gunbc-claims[mutation]'  (or: pip install 'mutmut>=3.8,<3.9')"


def require_mutmut() -> None:
    """A usage error (exit 2) with the install command when mutmut is not importable here:
    its absence is the environment's, not a bug of the survey."""
    if importlib.util.find_spec("mutmut") is None:
        raise UsageError(
            f"the generated survey drives mutmut, which this Python ({sys.executable}) does "
            f"not have; install it: {MUTMUT_INSTALL}"
        )


def source_paths(root: Path) -> tuple[Path, ...]:
    """``[tool.mutmut] source_paths`` of ``root/pyproject.toml``, relative to ``root``."""
    try:
        config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"{root}/pyproject.toml: {error}") from error
    paths = config.get("tool", {}).get("mutmut", {}).get("source_paths")
    if not isinstance(paths, list) or not paths:
        raise UsageError(
            f"{root}/pyproject.toml has no [tool.mutmut] source_paths: the flat layout needs "
            'it (source_paths = ["src/my_project"]); run from the project root'
        )
    missing = [p for p in paths if not isinstance(p, str) or not (root / p).exists()]
    if missing:
        raise UsageError(
            f"{root}/pyproject.toml: [tool.mutmut] source_paths names "
            f"{printable(str(missing[0]))}, which does not exist under {root}"
        )
    return tuple(Path(p) for p in paths)


def generate(
    root: Path, jobs: int, deletion: bool = True, only: Sequence[str] | None = None
) -> float:
    """Remove ``root/mutants`` and let mutmut regenerate it, with our statement deletions
    (:mod:`.deletion`) unless ``deletion`` is off; returns the seconds it took. With
    ``only`` (files, relative), mutmut mutates those alone and copies every other file as
    it is: what a survey that can choose no other file's mutant needs."""
    shutil.rmtree(root / MUTANTS_DIR, ignore_errors=True)
    start = time.perf_counter()
    module = "plugins.mutate.generated.mutmut_bridge"
    scope = [] if only is None else [ONLY, *only]
    argv = [str(root), str(jobs), "deletion" if deletion else "mutmut", *scope]
    done = subprocess.run(
        [sys.executable, "-m", module, *argv],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise RuntimeError(
            f"mutmut could not generate the mutants (exit {done.returncode}):\n{tail}"
        )
    return time.perf_counter() - start


def _generate_here(jobs: int, deletion: bool, only: Sequence[str] | None) -> None:
    # mutmut's own generation steps, in the order `mutmut run` takes them, and nothing else
    # (but our deletions appended to each file's mutations, when asked, and with ``only``
    # the files it mutates narrowed to those: its file workers are forked, so they see it).
    from mutmut.__main__ import create_mutants
    from mutmut.configuration import config
    from mutmut.mutation.trampoline import set_mutant_under_test
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir

    if only is not None:
        settings, wanted = config(), frozenset(only)
        mutates = settings.should_mutate
        settings.should_mutate = lambda path: (  # type: ignore[method-assign]
            Path(path).as_posix() in wanted and mutates(path)
        )
    set_mutant_under_test("mutant_generation")
    if deletion:
        from plugins.mutate.generated.deletion import install  # needs libcst, mutmut's

        install(MUTANTS_DIR)
    Path(MUTANTS_DIR).mkdir(exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    create_mutants(jobs)


def untrampoline(root: Path, mutants: Sequence[GeneratedMutant], surveyed: set[str]) -> int:
    """Put each generated file outside ``surveyed`` back as its original source (a file of
    ``mutants``, or one mutmut processed and found no mutant in: it has a ``.meta``); returns
    how many. Its functions then run as written: every call to a trampolined function pays
    the dispatch to the active mutant, and a survey of a few files need not make the claims
    pay it on the whole planner (no mutant of those files is surveyed). The tree is then the
    one mutmut leaves when it mutates the surveyed files alone (:func:`generate`'s ``only``)."""
    tree = root / MUTANTS_DIR
    processed = {
        m.relative_to(tree).as_posix().removesuffix(".meta") for m in tree.rglob("*.py.meta")
    }
    restored = sorted(({m.path for m in mutants} | processed) - surveyed)
    for path in restored:
        shutil.copyfile(root / path, root / MUTANTS_DIR / path)
        # the tree lists only the mutants it still holds (a directory a claim lists, as
        # mutmut would have left it had it mutated the surveyed files alone)
        for index in (".meta", ".spans", SIDECAR):
            (root / MUTANTS_DIR / f"{path}{index}").unlink(missing_ok=True)
    return len(restored)


@dataclass(frozen=True)
class Span:
    """Where a mutation sits in the original file: 1-based lines and columns, end exclusive."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class GeneratedMutant:
    """One mutant mutmut generated: its name, file, function, and what it changed."""

    name: str
    path: str
    function: str
    before: str
    after: str
    span: Span
    original_line: str
    mutated_line: str
    operator: str = ""
    """The report's ``mutatorName`` when it is ours (``StatementDeletion``); empty for
    mutmut's, named from the change."""

    @property
    def number(self) -> int:
        return int(self.name.rpartition("__mutmut_")[2])


def read_generated(root: Path) -> list[GeneratedMutant]:
    """Every mutant of ``root/mutants``, ordered by file, position and number."""
    found: list[GeneratedMutant] = []
    for base in source_paths(root):
        for meta in sorted((root / MUTANTS_DIR / base).rglob("*.py.meta")):
            relative = meta.relative_to(root / MUTANTS_DIR).as_posix().removesuffix(".meta")
            found += _file_mutants(root, relative, meta)
    return sorted(found, key=lambda m: (m.path, m.span.start_line, m.span.start_column, m.number))


def _file_mutants(root: Path, relative: str, meta: Path) -> list[GeneratedMutant]:
    names = list(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    if not names:
        return []
    spans = json.loads((root / MUTANTS_DIR / f"{relative}.spans").read_text(encoding="utf-8"))
    mutated = (root / MUTANTS_DIR / relative).read_text(encoding="utf-8").splitlines()
    original = (root / relative).read_text(encoding="utf-8")
    lines = _function_def_lines(original)
    deletions = read_deletions(root / MUTANTS_DIR / relative)
    return [
        _deleted(name, relative, deletions[local])
        if (local := name.rpartition(".")[2]) in deletions
        else _mutant(name, relative, spans["spans"], mutated, lines)
        for name in names
    ]


def _deleted(name: str, path: str, deletion: Deletion) -> GeneratedMutant:
    """A statement deletion, as its sidecar recorded it (the textual diff of a removed line
    would name the next line as the mutated one)."""
    d = deletion
    return GeneratedMutant(
        name=name,
        path=path,
        function=name.rpartition(".")[2].partition("__mutmut_")[0],
        before=d.before,
        after=d.after,
        span=Span(d.start_line, d.start_column, d.end_line, d.end_column),
        original_line=d.before.splitlines()[0].strip(),
        mutated_line=d.after,
        operator=OPERATOR,
    )


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(source: str) -> dict[str, Function]:
    """Trampoline key (``x_f`` / ``xǁCǁm``) -> its function node in the original."""
    found: dict[str, Function] = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[f"x_{node.name}"] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[f"x{CLASS_SEPARATOR}{node.name}{CLASS_SEPARATOR}{item.name}"] = item
    return found


def _function_def_lines(source: str) -> dict[str, int]:
    """Trampoline key -> the line of its ``def`` in the original."""
    return {key: node.lineno for key, node in _functions(source).items()}


def mutant_source(root: Path, mutant: GeneratedMutant) -> str:
    """The original text of ``mutant``'s file with its function replaced by mutmut's mutated
    copy of it, renamed back: the mutant as ``mutmut apply`` would write it to disk. The copy
    replaces the original from its first decorator when it carries its decorators, else from
    its ``def``."""
    original = (root / mutant.path).read_text(encoding="utf-8")
    node = _functions(original)[mutant.function]
    spans = json.loads((root / MUTANTS_DIR / f"{mutant.path}.spans").read_text(encoding="utf-8"))
    generated = (root / MUTANTS_DIR / mutant.path).read_text(encoding="utf-8").splitlines()
    local = mutant.name.rpartition(".")[2]
    block = _renamed(_block(spans["spans"], local, generated), local, _own_name(mutant.function))
    while block and not block[0].strip():  # the blank lines mutmut puts before each copy
        block = block[1:]
    decorated = any(line.lstrip().startswith("@") for line in block[: _def_index(block)])
    first = (
        min([node.lineno, *(d.lineno for d in node.decorator_list)]) if decorated else node.lineno
    )
    lines = original.splitlines()
    return "\n".join([*lines[: first - 1], *block, *lines[node.end_lineno or node.lineno :]]) + "\n"


def _block(spans: dict[str, list[int]], name: str, lines: list[str]) -> list[str]:
    start, end = spans[name]
    return lines[start - 1 : end]


def _renamed(block: list[str], name: str, key: str) -> list[str]:
    """The generated copy with its generated name put back, so only the mutation differs."""
    return [line.replace(f"def {name}(", f"def {key}(", 1) for line in block]


def _own_name(key: str) -> str:
    """The function's own name in its trampoline key (``x_f`` -> ``f``, ``xǁCǁm`` -> ``m``)."""
    return key.rpartition(CLASS_SEPARATOR)[2] if CLASS_SEPARATOR in key else key[2:]


def _def_index(block: list[str]) -> int:
    return next(i for i, line in enumerate(block) if line.lstrip().startswith(("def ", "async ")))


def _mutant(
    name: str,
    path: str,
    spans: dict[str, list[int]],
    mutated: list[str],
    def_lines: dict[str, int],
) -> GeneratedMutant:
    local = name.rpartition(".")[2]
    key = local.partition("__mutmut_")[0]
    own = _own_name(key)
    orig = _renamed(_block(spans, f"{key}__mutmut_orig", mutated), f"{key}__mutmut_orig", own)
    mine = _renamed(_block(spans, local, mutated), local, own)
    offset = def_lines[key] - _def_index(orig)
    span, before, after = _changed(orig, mine, offset)
    return GeneratedMutant(
        name=name,
        path=path,
        function=key,
        before=before,
        after=after,
        span=span,
        original_line=_line(orig, span.start_line - offset).strip(),
        mutated_line=_line(mine, span.start_line - offset).strip(),
    )


def _line(block: list[str], index: int) -> str:
    return block[index] if 0 <= index < len(block) else ""


def _changed(orig: list[str], mine: list[str], offset: int) -> tuple[Span, str, str]:
    """The changed region: its span in the original file and the text before and after."""
    a, b = "\n".join(orig), "\n".join(mine)
    prefix = _word_start(a, b, _common_prefix(a, b))
    suffix = _word_end(a, b, prefix, _common_suffix(a[prefix:], b[prefix:]))
    before, after = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    start, end = _position(a, prefix, offset), _position(a, len(a) - suffix, offset)
    return Span(start[0], start[1], end[0], end[1]), before, after


OPERATOR_CHARACTERS = frozenset("<>=!+-*/%&|^~@")


def _kind(text: str, index: int) -> str:
    """The token class of a character: word, operator, or anything else (never joined)."""
    if not 0 <= index < len(text):
        return "edge"
    char = text[index]
    if char.isalnum() or char == "_":
        return "word"
    return "operator" if char in OPERATOR_CHARACTERS else f"other{index}"


def _word_start(a: str, b: str, prefix: int) -> int:
    """Move a cut that falls inside a word or an operator back to its start."""
    while prefix > 0 and _kind(a, prefix - 1) in (_kind(a, prefix), _kind(b, prefix)):
        prefix -= 1
    return prefix


def _word_end(a: str, b: str, prefix: int, suffix: int) -> int:
    """Shrink a common suffix whose cut falls inside a word or an operator."""
    while suffix > 0:
        kind = _kind(a, len(a) - suffix)
        inside_a = len(a) - suffix - 1 >= prefix and _kind(a, len(a) - suffix - 1) == kind
        inside_b = len(b) - suffix - 1 >= prefix and _kind(b, len(b) - suffix - 1) == kind
        if not (inside_a or inside_b):
            break
        suffix -= 1
    return suffix


def _common_prefix(a: str, b: str) -> int:
    size = 0
    while size < min(len(a), len(b)) and a[size] == b[size]:
        size += 1
    return size


def _common_suffix(a: str, b: str) -> int:
    size = 0
    while size < min(len(a), len(b)) and a[-1 - size] == b[-1 - size]:
        size += 1
    return size


def _position(text: str, index: int, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    return line + offset, column + 1


def main(argv: Sequence[str]) -> int:
    """``python -m plugins.mutate.generated.mutmut_bridge ROOT JOBS [deletion|mutmut]
    [--only FILE ...]``: generate the mutants of ROOT (``mutmut``: mutmut's alone, no
    statement deletion; ``--only``: of those files alone, none when none is named)."""
    root, jobs = Path(argv[0]), int(argv[1]) if len(argv) > 1 else 1
    only = list(argv[4:]) if argv[3:4] == [ONLY] else None
    os.chdir(root)
    _generate_here(max(1, jobs), argv[2:3] != ["mutmut"], only)
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
