"""A faster dispatch for mutmut's trampolines, in a survey worker.

On every call of every mutated function, mutmut's trampoline asks which mutant is active (a
lookup in ``os.environ``), splits its name, and copies the arguments into a list. In a
survey of a whole project every function is trampolined, so every call a claim makes pays
that (``make bench`` measures a round of claims with this dispatch, with mutmut's, and on the
sources: ``docs/benchmarks-measured.md``).

A worker installs this module before it imports the project (:func:`install`). Each plain
function's trampoline is then wrapped once more: while no mode is on (``stats`` records
calls, ``fail`` raises) and the active mutant is not one of that function's own, the wrapper
calls the function's original (as mutmut's table holds it at the time of the call) at once;
otherwise mutmut's trampoline decides, as it did. Those are exactly the calls on which
mutmut's trampoline calls the original, so no verdict changes; a classmethod, a generator
or a coroutine keeps mutmut's trampoline alone.

:func:`select` follows every switch of the active mutant (``set_mutant``). A mutant whose
module is not loaded yet leaves every call to mutmut's trampoline until the next switch.
``--plain-trampoline`` surveys without this module (``tests/test_mutation_skip_planner.py``
compares the two, cell by cell).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from plugins.mutate.generated.infection import mutants_table, split_name

MODES = frozenset({"stats", "fail"})
"""Switches every trampoline must see (mutmut's ``stats`` and ``fail``)."""

Table = dict[str, Callable[..., Any]]
Wrap = Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]


class Active:
    """What every wrapper reads on each call: whether it may call the original at once, and
    the table of the function whose mutant is active (none: no mutant)."""

    direct: bool = True
    table: Table | None = None


def select(name: str) -> None:
    """Follow a switch to ``name`` (``""`` none, a mode, or ``module.x_f__mutmut_N``)."""
    if name in MODES:
        Active.direct, Active.table = False, None
    elif not name:
        Active.direct, Active.table = True, None
    else:
        table = mutants_table(*split_name(name)[:2])
        Active.direct, Active.table = table is not None, table


def _plain(function: object) -> bool:
    return (
        inspect.isfunction(function)
        and not inspect.isgeneratorfunction(function)
        and not inspect.iscoroutinefunction(function)
        and not inspect.isasyncgenfunction(function)
    )


def faster(mutmuts: Wrap) -> Wrap:
    """``mutmuts`` (mutmut's ``wrap_in_trampoline``) with the direct call in front."""

    def wrap_in_trampoline(
        table: Table, is_classmethod: bool = False
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def mutated(decorated: Callable[..., Any]) -> Callable[..., Any]:
            trampoline = mutmuts(table, is_classmethod)(decorated)
            if is_classmethod or not _plain(decorated):
                return trampoline

            @functools.wraps(trampoline)
            def dispatch(*args: Any, **kwargs: Any) -> Any:
                if Active.direct and Active.table is not table:
                    return table["_mutmut_orig"](*args, **kwargs)
                return trampoline(*args, **kwargs)

            return dispatch

        return mutated

    return wrap_in_trampoline


def installed() -> str:
    """Which dispatch the modules imported from now on get: ``faster`` or ``mutmut``."""
    from mutmut.mutation import trampoline

    return "faster" if getattr(trampoline.wrap_in_trampoline, "faster", False) else "mutmut"


def install() -> None:
    """Put :func:`faster` in place of mutmut's ``wrap_in_trampoline``, for the modules of
    ``mutants/`` imported from now on (each imports it when it loads)."""
    from mutmut.mutation import trampoline

    if installed() != "faster":
        wrapped = faster(trampoline.wrap_in_trampoline)
        wrapped.faster = True  # type: ignore[attr-defined]
        trampoline.wrap_in_trampoline = wrapped
