"""Witnesses and their claims: importing a witness module and discovering what it claims.

A witness module holds module-level functions stamped ``@claim(kind)``, each taking no
arguments, with a docstring that states the claim, and returning a Verdict. It may define
``setup()`` (not a claim), run once before its claims, and ``artifacts()`` (not a claim,
used by revision-pair controls). Helpers must be private (``_name``).
Claims are discovered in source order. The floor rules (:mod:`claims.floor`) are checked
here, at resolution; a module that cannot be imported is *unresolved*, not a floor breach.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import FunctionType, ModuleType

from claims.errors import FloorViolation, describe
from claims.floor import check_floor, claim_kind, defined_functions, source_line
from claims.model import ClaimKind, CustomKind
from claims.profile import deterministic_hypothesis

SETUP = "setup"


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

    @property
    def id(self) -> str:
        """``<witness>.<function>``: the same string in tables, fixtures and mutants."""
        return f"{self.witness}.{self.name}"


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
    return _witness(name, module, functions)


def _witness(name: str, module: ModuleType, functions: Mapping[str, FunctionType]) -> Witness:
    setup = functions.get(SETUP)
    return Witness(
        name=name,
        module=module.__name__,
        claims=discover_claims(name, module.__name__, functions),
        setup=setup if setup is not None and claim_kind(setup) is None else None,
        path=getattr(module, "__file__", None),
    )


def discover_claims(
    witness: str, module: str, functions: Mapping[str, FunctionType]
) -> tuple[Claim, ...]:
    """The stamped functions of a witness module as claims, in source order."""
    claims = [
        Claim(
            witness=witness,
            name=fn_name,
            kind=kind,
            statement=inspect.getdoc(fn) or "",
            function=fn,
            module=module,
            lineno=source_line(fn),
        )
        for fn_name, fn in functions.items()
        if (kind := claim_kind(fn)) is not None
    ]
    return tuple(sorted(claims, key=lambda c: c.lineno))
