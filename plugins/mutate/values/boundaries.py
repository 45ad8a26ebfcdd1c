"""The typed boundaries of the code under test: the functions whose returned values are mutated.

The rule, in one place (:func:`carries_values`): a **boundary** is a public (no leading
underscore) module-level function defined in a module of the mutated packages (mutmut's
``[tool.mutmut] source_paths``), outside the evidence (witness, mutant and plugin modules),
whose return annotation, resolved with ``typing.get_type_hints``, is built only from values
and ``None``:

- a record (:mod:`.records`): a frozen pydantic model, dataclass or attrs class, a
  NamedTuple;
- a ``str`` (a rendered text: a unit, a script);
- a ``tuple`` or ``list`` of those (an argv ``tuple[str, ...]``, env pairs
  ``tuple[tuple[str, str], ...]``, script lines ``list[str]``, a tuple of records),
  or a union of those with ``None``.

Nobody lists boundaries or fields: a new function or a new field of a returned model is
mutated on the next survey without anyone writing a mutant.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plugins.mutate.values.records import is_record_type


@dataclass(frozen=True)
class Boundary:
    """One boundary: ``module.name``, its source file (relative) and def line, its return."""

    path: str
    module: str
    name: str
    file: str
    line: int
    returns: Any


def carries_values(annotation: Any) -> bool:
    """Whether a function returning ``annotation`` is a boundary (see the module docstring)."""
    return _carries(annotation, allow_none=False)


def _carries(annotation: Any, allow_none: bool) -> bool:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation is None or annotation is type(None):
        return allow_none
    if annotation is str or is_record_type(annotation):
        return True
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        values = [a for a in args if a is not type(None)]
        return bool(values) and all(_carries(a, allow_none=False) for a in values)
    if origin in (tuple, list):
        members = [a for a in args if a is not Ellipsis]
        return bool(members) and all(_carries(a, allow_none=True) for a in members)
    return False


def modules_of(packages: Sequence[str]) -> Iterator[types.ModuleType]:
    """Every public module of ``packages``, imported, packages themselves included."""
    for name in packages:
        package = importlib.import_module(name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            if not info.name.rpartition(".")[2].startswith("_"):
                yield importlib.import_module(info.name)


def discover(
    packages: Sequence[str], root: Path, skip: frozenset[str] = frozenset()
) -> list[Boundary]:
    """The boundaries of ``packages`` in a stable order (module, then definition), but none
    of a module whose file (relative to ``root``) is in ``skip``."""
    found: list[Boundary] = []
    for module in modules_of(packages):
        if _relative(getattr(module, "__file__", None) or "", root) in skip:
            continue
        for name, function in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(function):
                continue
            if function.__module__ != module.__name__:
                continue
            try:
                returns = typing.get_type_hints(function, include_extras=True).get("return")
            except (NameError, TypeError):
                continue
            if returns is None or not carries_values(returns):
                continue
            found.append(
                Boundary(
                    path=f"{module.__name__}.{name}",
                    module=module.__name__,
                    name=name,
                    file=_relative(inspect.getsourcefile(function) or "", root),
                    line=_def_line(function),
                    returns=returns,
                )
            )
    return sorted(found, key=lambda b: (b.module, b.line))


def _def_line(function: types.FunctionType) -> int:
    """The line of ``def`` itself (past any decorator)."""
    lines, first = inspect.getsourcelines(function)
    for offset, line in enumerate(lines):
        if line.lstrip().startswith(("def ", "async def ")):
            return first + offset
    return first


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def packages_of(source_paths: Sequence[Path]) -> tuple[str, ...]:
    """``planner`` for ``source_paths = ["planner"]``: source directories as package names."""
    return tuple(p.as_posix().strip("/").replace("/", ".") for p in source_paths)
