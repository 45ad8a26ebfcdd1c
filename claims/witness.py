"""Witnesses and their claims: importing a witness module and discovering what it claims.

A witness module holds module-level functions stamped ``@claim(kind)``, each taking no
arguments, with a docstring that states the claim, and returning a Verdict. It may define
``setup()`` (not a claim), run once before its claims, and ``artifacts()`` (not a claim,
used by revision-pair controls). Helpers must be private (``_name``).
Claims are discovered in source order. The floor rules (:mod:`claims.floor`) are checked
here, at resolution; a module that cannot be imported is *unresolved*, not a floor breach.

Cases: a claim that holds for each of several values is written once. The witness defines
``cases()`` (not a claim), returning an ordered mapping of case id to value, and the claim
takes exactly one parameter, ``case``. At resolution the claim is expanded into one
:class:`Claim` per case, in the mapping's order, with id ``<witness>[<case>].<function>``
(a mutant names it so); each is called with its case's value. A case id is printable text
with no whitespace, ``.``, ``[`` or ``]``; a bad one is a floor violation naming the witness
and the id. ``cases()`` runs at resolution (the ids are needed to list the claims): when it
raises, the witness is unresolved.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import FunctionType, ModuleType

from claims.errors import FloorViolation, Violation, describe
from claims.floor import CASES, check_floor, claim_kind, defined_functions, per_case, source_line
from claims.model import ClaimKind, CustomKind
from claims.profile import deterministic_hypothesis

SETUP = "setup"
_NOT_IN_A_CASE_ID = frozenset(".[]")


@dataclass(frozen=True)
class Claim:
    """One discovered claim: its place, kind, statement and the function that checks it."""

    witness: str
    name: str
    kind: ClaimKind | CustomKind
    statement: str
    function: Callable[[], object]
    module: str
    lineno: int
    case: str | None = None
    """The case id of a claim expanded over its witness's ``cases()``; None otherwise."""

    @property
    def id(self) -> str:
        """``<witness>.<function>``, or ``<witness>[<case>].<function>`` for a case: the same
        string in tables, fixtures and mutants."""
        if self.case is None:
            return f"{self.witness}.{self.name}"
        return f"{self.witness}[{self.case}].{self.name}"

    @property
    def label(self) -> str:
        """The claim's name within its witness: ``<function>`` or ``<function>[<case>]``."""
        return self.name if self.case is None else f"{self.name}[{self.case}]"


def witness_of(claim_id: str) -> str:
    """The witness a claim id names: what comes before its first ``[`` or ``.``."""
    return claim_id.partition(".")[0].partition("[")[0]


@dataclass(frozen=True)
class Witness:
    """A resolved witness: its module imported and its claims discovered in source order."""

    name: str
    module: str
    claims: tuple[Claim, ...]
    setup: Callable[[], object] | None
    path: str | None


@dataclass(frozen=True)
class Unresolved:
    """A witness that could not be set up, and why; reported apart from failing claims."""

    name: str
    module: str
    reason: str


Resolution = Witness | Unresolved


def resolve_witness(name: str, module_name: str) -> Resolution:
    """Import ``module_name`` and discover the claims of witness ``name``.

    Returns :class:`Unresolved` when the import fails; raises :class:`FloorViolation` when
    the module breaks the floor. ``setup()`` is not run here.
    """
    try:
        with deterministic_hypothesis():
            module = importlib.import_module(module_name)
    except Exception as error:
        return Unresolved(name, module_name, f"import of {module_name} failed: {describe(error)}")
    functions = defined_functions(module)
    violations = check_floor(name, module, functions)
    if violations:
        raise FloorViolation(violations)
    cases: Mapping[str, object] = {}
    if CASES in functions:
        try:
            with deterministic_hypothesis():
                cases = _cases(name, functions[CASES]())
        except FloorViolation:
            raise
        except Exception as error:
            return Unresolved(name, module_name, f"{CASES}() failed: {describe(error)}")
    return _witness(name, module, functions, cases)


def _cases(witness: str, returned: object) -> Mapping[str, object]:
    """What ``cases()`` returned, checked: a mapping whose keys are valid case ids."""
    if not isinstance(returned, Mapping):
        raise FloorViolation(
            [
                Violation(
                    subject=witness,
                    rule="bad-case",
                    message=f"{CASES}() returned {type(returned).__name__}, not a mapping of "
                    "case id to value",
                )
            ]
        )
    violations = list(_bad_case_ids(witness, returned))
    if violations:
        raise FloorViolation(violations)
    return returned


def _bad_case_ids(witness: str, cases: Mapping[object, object]) -> Iterator[Violation]:
    for case in cases:
        if (
            isinstance(case, str)
            and case.isprintable()
            and case
            and not any(c.isspace() or c in _NOT_IN_A_CASE_ID for c in case)
        ):
            continue
        yield Violation(
            subject=witness,
            rule="bad-case",
            message=(
                f"witness {witness}: case id {case!r} is not a case id: it must be printable "
                "text, not empty, with no whitespace, '.', '[' or ']' (it is spelled in the "
                f"claim ids {witness}[<case>].<claim>)"
            ),
        )


def _witness(
    name: str,
    module: ModuleType,
    functions: Mapping[str, FunctionType],
    cases: Mapping[str, object],
) -> Witness:
    setup = functions.get(SETUP)
    return Witness(
        name=name,
        module=module.__name__,
        claims=discover_claims(name, module.__name__, functions, cases),
        setup=setup if setup is not None and claim_kind(setup) is None else None,
        path=getattr(module, "__file__", None),
    )


def discover_claims(
    witness: str,
    module: str,
    functions: Mapping[str, FunctionType],
    cases: Mapping[str, object] | None = None,
) -> tuple[Claim, ...]:
    """The stamped functions of a witness module as claims, in source order; a claim taking
    ``case`` once per case of ``cases``, in their order."""
    stamped = sorted(
        (
            (name, fn, kind)
            for name, fn in functions.items()
            if (kind := claim_kind(fn)) is not None
        ),
        key=lambda found: source_line(found[1]),
    )
    claims: list[Claim] = []
    for fn_name, fn, kind in stamped:
        found = functools.partial(
            Claim,
            witness,
            fn_name,
            kind,
            inspect.getdoc(fn) or "",
            module=module,
            lineno=source_line(fn),
        )
        if not per_case(fn):
            claims.append(found(fn))
        else:
            claims.extend(
                found(_bound(fn, value), case=case) for case, value in (cases or {}).items()
            )
    return tuple(claims)


def _bound(fn: FunctionType, value: object) -> Callable[[], object]:
    """``fn`` called with one case's value; unwrapping it (as tracebacks and reports do)
    finds ``fn`` itself."""

    @functools.wraps(fn)
    def bound() -> object:
        __tracebackhide__ = True
        return fn(value)

    return bound
