"""The floor every witness module keeps, checked statically when the witness is resolved.

Rules (the ``rule`` code of each :class:`claims.errors.Violation`):

- ``aggregator``: a claim reaches another claim of its witness (directly or through the
  module's private helpers). A mutant that breaks one would turn both red.
- ``no-statement``: a stamped claim has no docstring; the docstring is the statement.
- ``no-kind``: a public function of the module carries no ``@claim(kind)`` stamp (only
  ``setup``, ``artifacts`` and ``cases`` are reserved names that need none).
- ``takes-arguments``: a claim needs arguments; the runner calls it with none. The one
  exception is a claim over cases: exactly one parameter, ``case``, in a module that defines
  ``cases()`` (:mod:`claims.witness`); such a claim in a module without ``cases()`` breaks
  this rule too.
- ``bad-case``: ``cases()`` returned something other than a mapping of valid case ids
  (checked when it runs, at resolution, by :mod:`claims.witness`).
- ``duplicate-claim``: one claim id is defined twice, or bound under two names.

Every violation is collected, not just the first.
"""

from __future__ import annotations

import ast
import dis
import functools
import inspect
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from types import CodeType, FunctionType, ModuleType

from claims.errors import Violation
from claims.model import CLAIM_KIND_ATTR, ClaimKind, CustomKind

#: The witness function naming the cases a claim taking ``case`` is expanded over.
CASES = "cases"
#: The one parameter of a claim over cases.
CASE_PARAMETER = "case"
#: Public names a witness module may define that are not claims: ``setup()`` runs once
#: before its claims; ``artifacts()`` renders what revision-pair controls compare
#: (:mod:`claims.revisions`); ``cases()`` names the cases of the claims taking ``case``.
ALLOWED_PUBLIC = frozenset({"setup", "artifacts", CASES})
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
_TOP_LEVEL_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)


def claim_kind(fn: object) -> ClaimKind | CustomKind | None:
    """The kind stamped on ``fn`` by ``@claim``, or None for an unstamped function."""
    kind = getattr(fn, CLAIM_KIND_ATTR, None)
    return kind if isinstance(kind, (ClaimKind, CustomKind)) else None


def defined_functions(module: ModuleType) -> dict[str, FunctionType]:
    """Module-level functions defined in ``module`` itself (imported ones are skipped)."""
    return {
        name: obj
        for name, obj in vars(module).items()
        if inspect.isfunction(obj) and obj.__module__ == module.__name__
    }


def _required(fn: FunctionType) -> list[str]:
    return [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def per_case(fn: FunctionType) -> bool:
    """Whether ``fn`` is a claim over cases: its one required parameter is ``case``."""
    return _required(fn) == [CASE_PARAMETER]


def source_line(fn: FunctionType) -> int:
    """Where ``fn`` starts in its file, seen through decorators such as ``@given``."""
    code: CodeType = inspect.unwrap(fn).__code__
    return code.co_firstlineno


def check_floor(
    witness: str, module: ModuleType, functions: Mapping[str, FunctionType]
) -> tuple[Violation, ...]:
    """Every floor violation of witness ``witness`` defined by ``module``."""
    claims = {name: fn for name, fn in functions.items() if claim_kind(fn) is not None}
    helpers = {name: fn for name, fn in functions.items() if name not in claims}
    return (
        *_unstamped_public(witness, module, helpers),
        *_missing_statements(witness, claims),
        *_taking_arguments(witness, claims, CASES in helpers),
        *_aggregators(witness, claims, helpers),
        *_duplicates(witness, module, claims),
    )


def _unstamped_public(
    witness: str, module: ModuleType, helpers: Mapping[str, FunctionType]
) -> Iterator[Violation]:
    for name in helpers:
        if name.startswith("_") or name in ALLOWED_PUBLIC:
            continue
        yield Violation(
            subject=f"{witness}.{name}",
            rule="no-kind",
            message=(
                f"public function {name}() in witness module {module.__name__} has no "
                "@claim(kind) stamp, so it would be a claim with no kind. Stamp it "
                f"@claim(ClaimKind...) if it is a claim, or rename it _{name} if it is a helper."
            ),
        )


def _missing_statements(witness: str, claims: Mapping[str, FunctionType]) -> Iterator[Violation]:
    for name, fn in claims.items():
        if not (inspect.getdoc(fn) or "").strip():
            yield Violation(
                subject=f"{witness}.{name}",
                rule="no-statement",
                message=(
                    "the claim has no docstring; its docstring is the statement every report "
                    "shows. Write one sentence saying what it holds about the code it checks."
                ),
            )


def _taking_arguments(
    witness: str, claims: Mapping[str, FunctionType], has_cases: bool
) -> Iterator[Violation]:
    for name, fn in claims.items():
        required = _required(fn)
        if required == [CASE_PARAMETER] and not has_cases:
            yield Violation(
                subject=f"{witness}.{name}",
                rule="takes-arguments",
                message=(
                    f"the claim takes {CASE_PARAMETER} but witness module defines no "
                    f"{CASES}(): define {CASES}() returning the case ids and their values, "
                    "or build the claim's inputs inside it"
                ),
            )
        elif required and required != [CASE_PARAMETER]:
            yield Violation(
                subject=f"{witness}.{name}",
                rule="takes-arguments",
                message=(
                    f"the claim requires arguments {', '.join(required)} but is called with "
                    "none. Build its inputs inside the claim (or with @given for a property), "
                    f"or take exactly {CASE_PARAMETER} and define {CASES}()."
                ),
            )


def _aggregators(
    witness: str, claims: Mapping[str, FunctionType], helpers: Mapping[str, FunctionType]
) -> Iterator[Violation]:
    for name, fn in claims.items():
        reached = sorted(_reached_claims(fn, claims, helpers) - {name})
        if reached:
            others = ", ".join(f"{witness}.{other}" for other in reached)
            yield Violation(
                subject=f"{witness}.{name}",
                rule="aggregator",
                message=(
                    f"the claim calls {others} of the same witness; a claim never calls "
                    "another claim, or one defect turns both red. Move the shared check "
                    "into a private helper (_name) that each claim calls."
                ),
            )


def _reached_claims(
    fn: FunctionType, claims: Mapping[str, FunctionType], helpers: Mapping[str, FunctionType]
) -> set[str]:
    """Claim names ``fn`` loads as globals, itself or through the module's helpers.

    Walked first on every name the code names (``co_names``: globals and attributes alike,
    no disassembly), which can only find more; only a claim that finds some is walked again
    on the names it loads as globals."""
    found = _reached(fn, claims, helpers, _named)
    return _reached(fn, claims, helpers, _global_names) if found else found


def _reached(
    fn: FunctionType,
    claims: Mapping[str, FunctionType],
    helpers: Mapping[str, FunctionType],
    names_of: Callable[[CodeType], frozenset[str]],
) -> set[str]:
    found: set[str] = set()
    seen: set[str] = set()
    pending = [inspect.unwrap(fn).__code__]
    while pending:
        for name in names_of(pending.pop()):
            if name in claims:
                found.add(name)
            elif name in helpers and name not in seen:
                seen.add(name)
                pending.append(inspect.unwrap(helpers[name]).__code__)
    return found


@functools.cache
def _named(code: CodeType) -> frozenset[str]:
    """Every name ``code`` and the code objects nested in it use, as globals or attributes."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _named(const)
    return frozenset(names)


@functools.cache
def _global_names(code: CodeType) -> frozenset[str]:
    """Global names loaded by ``code`` and every code object nested in it."""
    names = {str(i.argval) for i in dis.get_instructions(code) if i.opname in _GLOBAL_LOADS}
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _global_names(const)
    return frozenset(names)


def _duplicates(
    witness: str, module: ModuleType, claims: Mapping[str, FunctionType]
) -> Iterator[Violation]:
    redefined = _redefinitions(module)
    for name in claims:
        if name in redefined:
            lines = " and ".join(str(n) for n in redefined[name])
            yield _duplicate(
                witness, name, f"is defined at lines {lines}; the first is silently replaced."
            )
    bound: dict[int, list[str]] = defaultdict(list)
    for name, fn in claims.items():
        bound[id(fn)].append(name)
    for names in bound.values():
        for alias in names[1:]:
            yield _duplicate(witness, alias, f"is the same function as claim {names[0]}.")


def _duplicate(witness: str, name: str, why: str) -> Violation:
    return Violation(
        subject=f"{witness}.{name}",
        rule="duplicate-claim",
        message=f"claim id {witness}.{name} {why} Give every claim its own name.",
    )


def _redefinitions(module: ModuleType) -> dict[str, list[int]]:
    """Top-level function names defined more than once, with their line numbers.

    Every top-level ``def`` starts a line at column 0, so a name the source never starts two
    lines with ``def NAME`` is not redefined, and the module is parsed only when some is."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return {}
    starts = Counter(_TOP_LEVEL_DEF.findall(source))
    if all(count == 1 for count in starts.values()):
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    lines: dict[str, list[int]] = defaultdict(list)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines[node.name].append(node.lineno)
    return {name: found for name, found in lines.items() if len(found) > 1}
