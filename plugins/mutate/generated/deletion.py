"""Statement deletion: our own operator beside mutmut's (mutmut 3 deletes no statement).

For each eligible statement of a function mutmut would trampoline, one mutant that removes
it, or replaces it with ``pass`` when it is the only statement of its block. The mutants are
handed to mutmut's own trampoline writer (:func:`install` wraps mutmut's
``create_mutations`` in the generation process and appends them after mutmut's own), so
each is one more copy of its function, switched in by ``MUTANT_UNDER_TEST`` exactly like
mutmut's: same naming (``pkg.mod.x_f__mutmut_N``, numbered after mutmut's mutants of that
function, so mutmut's numbers do not move), same ``.meta``/``.spans`` index, same diff.
Which of the names are deletions, and what each deleted, goes to a sidecar beside the
mutated file (``mutants/<path>.deletions``, JSON), which :mod:`.deleted` reads back;
the report names their operator ``StatementDeletion``.

What is deleted, decided statement by statement (a deletion that cannot change anything,
or that a type checker would reject, is not made):

- simple statements: assignments, augmented assignments, expression statements (calls),
  ``return``/``raise`` not ending a function that must return, ``assert``, ``del``,
  ``break``, ``continue`` (not as a loop body's last statement: a no-op there);
- not docstrings nor any bare string expression: deleting one changes nothing;
- not ``pass`` nor ``...``: already nothing;
- not a ``return`` or ``raise`` that ends a function whose annotation is not ``None`` (the
  last statement of its body, or of a branch of an ``if``/``with``/``try``/``match`` that
  itself ends it): the function would fall off its end and return ``None``, a mutant the
  type checker rejects. A function with no return annotation may return ``None``, so its
  returns are deleted; a bare ``return`` that ends a function is never deleted (a no-op);
- not ``global``/``nonlocal``: declarations, not actions; the assignments they govern are
  deleted on their own;
- not ``import``/``from … import`` inside a function: a used import always crashes its
  callers (a kill that says nothing) and an unused one is ruff's to find;
- not a ``def`` or ``class`` inside a function (the same as an import: a name every use
  crashes without); the statements of a nested function are deleted like any other, under
  its own annotation;
- compound statements (``if``, ``for``, ``while``, ``with``, ``try``, ``match``) are not
  deleted whole: their statements are, one by one, and mutmut already mutates their
  conditions;
- annotated names with no value (``x: int``): a declaration, nothing runs.

Only functions mutmut already trampolines (it made a mutant of its own there) get deletions:
a function trampolined for our deletions alone would change what runs through a trampoline,
and the survey calls some of those functions itself (the cache-clearing methods it calls at
every switch, which raise once every trampoline is switched to fail). So functions mutmut
leaves alone (decorated ones other than ``@staticmethod``/``@classmethod``,
``__new__``/``__getattribute__``/``__setattr__``, an enum's hooks, ``# pragma: no mutate``
functions and classes, and any with no mutmut mutant) get no deletion either.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from plugins.mutate.generated.deleted import Deletion, sidecar

NEVER_DELETED = (cst.Pass, cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom)
STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


@dataclass(frozen=True)
class Site:
    """A statement to delete: the node mutmut's writer replaces and what it becomes."""

    statement: cst.BaseSmallStatement
    target: cst.CSTNode
    replacement: cst.CSTNode | cst.RemovalSentinel


@dataclass(frozen=True)
class Context:
    """What decides a statement's eligibility: whether it ends the function, whether it ends
    a loop body, whether its function must return a value."""

    ends_function: bool
    ends_loop: bool
    must_return: bool


def must_return(function: cst.FunctionDef) -> bool:
    """An annotation other than ``None``: falling off the end would break its type."""
    returns = function.returns
    if returns is None:
        return False
    annotation = returns.annotation
    return not (isinstance(annotation, cst.Name) and annotation.value == "None")


def deletable(statement: cst.BaseSmallStatement, at: Context) -> bool:
    """The module docstring's rules, for one simple statement."""
    if isinstance(statement, NEVER_DELETED):
        return False
    if isinstance(statement, cst.Expr):
        return not isinstance(statement.value, (cst.Ellipsis, *STRINGS))
    if isinstance(statement, cst.AnnAssign):
        return statement.value is not None
    if isinstance(statement, cst.Return) and statement.value is None:
        return not at.ends_function
    if isinstance(statement, (cst.Return, cst.Raise)):
        return not (at.ends_function and at.must_return)
    if isinstance(statement, cst.Continue):
        return not at.ends_loop
    return True


def function_sites(function: cst.FunctionDef) -> list[Site]:
    """Every deletion site of ``function``'s body, in source order."""
    at = Context(ends_function=True, ends_loop=False, must_return=must_return(function))
    return list(_block_sites(function.body, at))


def _block_sites(block: cst.BaseSuite, at: Context) -> Iterator[Site]:
    if isinstance(block, cst.SimpleStatementSuite):
        yield from _line_sites(block.body, None, len(block.body) > 1, at)
        return
    assert isinstance(block, cst.IndentedBlock)
    body = block.body
    for index, statement in enumerate(body):
        last = index == len(body) - 1
        here = Context(at.ends_function and last, at.ends_loop and last, at.must_return)
        if isinstance(statement, cst.SimpleStatementLine):
            yield from _line_sites(statement.body, statement, len(body) > 1, here)
        elif isinstance(statement, cst.BaseCompoundStatement):
            yield from _compound_sites(statement, here)


def _line_sites(
    small: Sequence[cst.BaseSmallStatement],
    line: cst.SimpleStatementLine | None,
    block_keeps_another: bool,
    at: Context,
) -> Iterator[Site]:
    for index, statement in enumerate(small):
        here = Context(
            at.ends_function and index == len(small) - 1,
            at.ends_loop and index == len(small) - 1,
            at.must_return,
        )
        if not deletable(statement, here):
            continue
        if len(small) > 1:  # `a; b`: the line keeps the other
            yield Site(statement, statement, cst.RemovalSentinel.REMOVE)
        elif block_keeps_another and line is not None:
            yield Site(statement, line, cst.RemovalSentinel.REMOVE)
        else:
            yield Site(statement, statement, cst.Pass())


def _compound_sites(statement: cst.BaseCompoundStatement, at: Context) -> Iterator[Site]:
    """The blocks of a compound statement, each with what its last statement ends."""
    for block, ends in _blocks(statement, at):
        yield from _block_sites(block, ends)


def _blocks(
    statement: cst.BaseCompoundStatement, at: Context
) -> Iterator[tuple[cst.BaseSuite, Context]]:
    loop = Context(False, True, at.must_return)
    if isinstance(statement, cst.FunctionDef):
        inner = Context(True, False, must_return(statement))
        yield statement.body, inner
    elif isinstance(statement, cst.If):
        yield statement.body, at
        if statement.orelse is not None:
            yield from _orelse(statement.orelse, at)
    elif isinstance(statement, (cst.For, cst.While)):
        yield statement.body, loop
        if statement.orelse is not None:
            yield statement.orelse.body, at
    elif isinstance(statement, cst.With):
        yield statement.body, at
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        yield from _try_blocks(statement, at)
    elif isinstance(statement, cst.Match):
        for case in statement.cases:
            yield case.body, at
    # a nested class is not entered: its body runs once, where it is defined


def _orelse(orelse: cst.If | cst.Else, at: Context) -> Iterator[tuple[cst.BaseSuite, Context]]:
    if isinstance(orelse, cst.If):
        yield from _blocks(orelse, at)
    else:
        yield orelse.body, at


def _try_blocks(
    statement: cst.Try | cst.TryStar, at: Context
) -> Iterator[tuple[cst.BaseSuite, Context]]:
    neither = Context(False, False, at.must_return)
    yield statement.body, (at if statement.orelse is None else neither)
    for handler in statement.handlers:
        yield handler.body, at
    if statement.orelse is not None:
        yield statement.orelse.body, at
    if statement.finalbody is not None:
        yield statement.finalbody.body, neither


# --- mutmut's side: the functions it trampolines, and the hook into its generation ---------


def trampolined(module: cst.Module, left_alone: set[str]) -> Iterator[tuple[str, cst.FunctionDef]]:
    """(trampoline key, function) for every function mutmut would trampoline: module-level
    functions and the methods of a module-level class, undecorated or only
    ``@staticmethod``/``@classmethod``, not skipped by name, enum or pragma."""
    from mutmut.mutation.trampoline_templates import mangle_function_name

    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and _mutable(statement, left_alone):
            yield mangle_function_name(name=statement.name.value, class_name=None), statement
        elif isinstance(statement, cst.ClassDef) and statement.name.value not in left_alone:
            for method in _methods(statement, left_alone):
                key = mangle_function_name(name=method.name.value, class_name=statement.name.value)
                yield key, method


def _methods(cls: cst.ClassDef, left_alone: set[str]) -> Iterator[cst.FunctionDef]:
    from mutmut.mutation import file_mutation as fm

    if not isinstance(cls.body, cst.IndentedBlock):
        return  # mutmut leaves a one-line class alone
    hooks = fm.NEVER_MUTATE_ENUM_FUNCTION_NAMES if fm._is_enum_class(cls) else set()
    for method in cls.body.body:
        if isinstance(method, cst.FunctionDef) and _mutable(method, left_alone):
            if method.name.value not in hooks:
                yield method


def _mutable(function: cst.FunctionDef, left_alone: set[str]) -> bool:
    from mutmut.mutation.file_mutation import NEVER_MUTATE_FUNCTION_NAMES

    if function.name.value in NEVER_MUTATE_FUNCTION_NAMES or function.name.value in left_alone:
        return False
    decorators = [d.decorator for d in function.decorators]
    return not decorators or (
        len(decorators) == 1
        and isinstance(decorators[0], cst.Name)
        and decorators[0].value in ("staticmethod", "classmethod")
    )


def add_deletions(
    filename: str, module: cst.Module, mutations: list[Any], left_alone: set[str]
) -> dict[str, Deletion]:
    """Append a mutmut ``Mutation`` per deletion site to ``mutations`` (after mutmut's own, so
    a function's deletions are numbered after its mutmut mutants) and return each deletion
    by the name mutmut's writer will give it."""
    from mutmut.mutation.file_mutation import Mutation

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    counts: dict[int, int] = {}
    for mutation in mutations:
        owner = id(mutation.contained_by_top_level_function)
        counts[owner] = counts.get(owner, 0) + 1
    found: dict[str, Deletion] = {}
    for key, function in trampolined(module, left_alone):
        if id(function) not in counts:
            continue  # not trampolined by mutmut: see the module docstring
        for site in function_sites(function):
            counts[id(function)] = counts.get(id(function), 0) + 1
            mutations.append(Mutation(site.target, site.replacement, function))  # type: ignore[arg-type]
            name = f"{key}__mutmut_{counts[id(function)]}"
            found[name] = _deletion(module, site, positions[site.statement])
    return found


def _deletion(module: cst.Module, site: Site, where: CodeRange) -> Deletion:
    after = "" if isinstance(site.replacement, cst.RemovalSentinel) else "pass"
    text = module.code_for_node(site.statement).strip().removesuffix(";").strip()
    return Deletion(
        where.start.line, where.start.column + 1, where.end.line, where.end.column + 1, text, after
    )


def install(mutants_dir: str) -> None:
    """Wrap mutmut's ``create_mutations`` in this (generation) process: every file's
    deletions are appended to its mutations and written to its sidecar under
    ``mutants_dir``. Its worker processes are forked, so they inherit the wrapper."""
    from mutmut.mutation import file_mutation

    original: Callable[..., Any] = file_mutation.create_mutations

    def with_deletions(filename: str, code: str, *args: Any, **kwargs: Any) -> Any:
        module, mutations, classes, functions = original(filename, code, *args, **kwargs)
        found = add_deletions(filename, module, mutations, set(classes) | set(functions))
        target = sidecar(Path(mutants_dir) / filename)
        target.parent.mkdir(parents=True, exist_ok=True)
        body = {name: asdict(d) for name, d in found.items()}
        target.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
        return module, mutations, classes, functions

    file_mutation.create_mutations = with_deletions
