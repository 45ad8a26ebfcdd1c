"""Declared mutants: a replacement for one function of the code under test, named for its
defect.

A mutant module (registered for a witness by a plugin) holds module-level functions stamped
``@mutant(replaces=..., turns_red=...)``. The function's name is the defect, its docstring
states the defect in one sentence, ``replaces`` is the dotted path of what it stands in for
(a module-level function, a method or a property), and ``turns_red`` is the exact set of
claim ids (``<witness>.<function>``) it must turn red. ``independent`` says it may be combined
with the module's other independent mutants (of several that replace one target, the first
is; see :meth:`~plugins.mutate.declared.loading.Declared.combinable`). A mutant reaches the
original it replaces by calling it by its ordinary name (:mod:`plugins.mutate.patching`).
A module may also declare ``CONTROLS``: named combinations (:func:`combined`) run together
as one control.

Stamping only marks the function; :func:`discover` is the separate step that reads a module.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import FunctionType, ModuleType
from typing import Any, TypeVar

MUTANT_ATTR = "__declared_mutant__"
CONTROLS_ATTR = "CONTROLS"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class MutantSpec:
    """What ``@mutant`` stamps on a function: its target, kill set and independence."""

    replaces: str
    turns_red: frozenset[str]
    independent: bool


def mutant(
    *, replaces: str, turns_red: Iterable[str], independent: bool = True
) -> Callable[[F], F]:
    """Stamp a replacement function as a declared mutant of ``replaces``."""
    spec = MutantSpec(replaces=replaces, turns_red=frozenset(turns_red), independent=independent)

    def stamp(fn: F) -> F:
        setattr(fn, MUTANT_ATTR, spec)
        return fn

    return stamp


@dataclass(frozen=True)
class ControlSpec:
    """A named combination as written in a module's ``CONTROLS``."""

    name: str
    statement: str
    members: tuple[Callable[..., Any], ...]


def combined(name: str, statement: str, *members: Callable[..., Any]) -> ControlSpec:
    """Declare a named control: ``members`` (independent mutants) applied together."""
    return ControlSpec(name=name, statement=statement, members=tuple(members))


@dataclass(frozen=True)
class Mutant:
    """One discovered declared mutant."""

    witness: str
    name: str
    module: str
    statement: str
    replaces: str
    turns_red: frozenset[str]
    independent: bool
    lineno: int
    function: Callable[..., Any]

    @property
    def id(self) -> str:
        """``<witness>.<defect>``: how tables and progress lines name the mutant."""
        return f"{self.witness}.{self.name}"

    @property
    def reference(self) -> str:
        """``module:function``, how a child process finds the replacement."""
        return f"{self.module}:{self.name}"

    @property
    def headline(self) -> str:
        return " ".join(self.statement.split("\n\n", 1)[0].split())


@dataclass(frozen=True)
class Control:
    """A discovered named control: members by mutant name, in declaration order."""

    witness: str
    name: str
    statement: str
    members: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.witness}.{self.name}"


@dataclass(frozen=True)
class MutantModule:
    """A mutant module as discovered: its mutants and its named controls."""

    witness: str
    module: str
    mutants: tuple[Mutant, ...]
    controls: tuple[Control, ...]


def spec_of(fn: object) -> MutantSpec | None:
    """The spec stamped on ``fn`` by ``@mutant``, or None."""
    spec = getattr(fn, MUTANT_ATTR, None)
    return spec if isinstance(spec, MutantSpec) else None


def discover(witness: str, module_name: str) -> MutantModule:
    """Import ``module_name`` and read its stamped mutants (source order) and controls."""
    module = importlib.import_module(module_name)
    mutants = sorted(
        (_mutant(witness, module, name, fn) for name, fn in _stamped(module)),
        key=lambda m: m.lineno,
    )
    return MutantModule(
        witness=witness,
        module=module_name,
        mutants=tuple(mutants),
        controls=tuple(_controls(witness, module)),
    )


def _stamped(module: ModuleType) -> list[tuple[str, FunctionType]]:
    return [
        (name, obj)
        for name, obj in vars(module).items()
        if inspect.isfunction(obj) and obj.__module__ == module.__name__ and spec_of(obj)
    ]


def _mutant(witness: str, module: ModuleType, name: str, fn: FunctionType) -> Mutant:
    spec = spec_of(fn)
    assert spec is not None
    return Mutant(
        witness=witness,
        name=name,
        module=module.__name__,
        statement=inspect.getdoc(fn) or "",
        replaces=spec.replaces,
        turns_red=spec.turns_red,
        independent=spec.independent,
        lineno=fn.__code__.co_firstlineno,
        function=fn,
    )


def _controls(witness: str, module: ModuleType) -> list[Control]:
    found = getattr(module, CONTROLS_ATTR, ())
    return [
        Control(
            witness=witness,
            name=spec.name,
            statement=spec.statement,
            members=tuple(getattr(m, "__name__", repr(m)) for m in spec.members),
        )
        for spec in found
        if isinstance(spec, ControlSpec)
    ]
