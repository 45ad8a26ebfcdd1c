"""The single contract between the claims kernel and its plugins.

Every hook is named ``claims_<phase>_<event>`` and its docstring says when the kernel calls
it and what an implementation must do. Built-in plugins (``claims.loader.BUILTIN_PLUGINS``)
implement these hooks exactly like third-party ones, which arrive through the ``claims``
entry-point group or ``claims -p MODULE``.

Order: pluggy calls implementations last-registered first. The kernel does not rely on that
where order is visible. The ``claims_register_*`` hooks and ``claims_add_commands`` are called
once per plugin in *load order* (built-ins, then entry points sorted by name, then ``-p``
modules in command-line order); ``hookwrapper``/``wrapper`` implementations of them are
ignored.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from claims.markers import hookspec

if TYPE_CHECKING:
    from claims.model import Verdict
    from claims.results import RunReport
    from claims.witness import Claim

# ---------------------------------------------------------------------------------------
# register: plugins name what they bring; the kernel owns collection, order and duplicates
# ---------------------------------------------------------------------------------------


@hookspec
def claims_register_witnesses(register: Callable[..., None]) -> None:
    """Register witnesses: call ``register(name, module)`` once per witness.

    ``register(name, module, pending=True)`` registers a *pending* witness: the
    sufficient-for claims of declared frontiers, red by design until their PR lands.
    ``claims frontiers`` runs them; ``claims run --all`` leaves them out; the pytest
    bridge marks them strict xfail, so one turning green turns the suite red.

    Called once per plugin, in load order, the first time the session needs the witness
    list. ``name`` is the witness name (a Python identifier; it prefixes every claim id,
    ``<name>.<function>``); ``module`` is the dotted path of the module holding its claims.
    The module is imported lazily, when the witness is resolved, never here. A name
    registered twice is a floor violation naming both plugins.
    """


@hookspec
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    """Register declared mutants: call ``register(witness, module)`` per mutant module.

    Called once per plugin, in load order, the first time the session needs the mutants.
    ``module`` is the dotted path of a module holding the declared mutants of ``witness``;
    the mutation harness defines what such a module contains. The kernel only keeps, per
    witness, the modules in registration order.
    """


@hookspec
def claims_register_frontiers(register: Callable[[Any], None]) -> None:
    """Register declared frontiers: call ``register(frontier)`` once per frontier object.

    Called once per plugin, in load order, the first time the session needs the frontiers.
    The kernel keeps the objects in registration order without looking inside them; the
    frontier tracker defines their type.
    """


@hookspec
def claims_register_kinds(register: Callable[[str, str], None]) -> None:
    """Register claim kinds of the plugin's own: call ``register(name, description)`` per
    kind (``name`` lower_snake_case, not a built-in kind; ``description``: what a claim of
    that kind states).

    Called once per plugin, in load order, when the session starts, before any witness is
    imported, so ``@claim("name")`` in a witness module finds the kind. ``claims list``
    counts every kind, ``claims run --kind`` selects one, the pytest bridge adds a marker per
    kind. ``claims mutate`` treats a registered kind like any kind but ``positive_control``.
    """


@hookspec
def claims_register_formats(register: Callable[[str, str], None]) -> None:
    """Register report formats: call ``register(name, description)`` per format.

    Called once per plugin, in load order, when the CLI builds ``--format``. A plugin that
    registers a format must also answer :func:`claims_report` for it.
    """


# ---------------------------------------------------------------------------------------
# cli: plugins extend the command line
# ---------------------------------------------------------------------------------------


@hookspec
def claims_add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``claims`` subcommands with ``subparsers.add_parser(...)``.

    Called once per plugin, in load order, while the CLI builds its parser, after the
    kernel's own ``list`` and ``run``. Each subcommand
    must call ``set_defaults(handler=fn)``; the CLI calls ``fn(args, session)`` with the
    parsed namespace and the :class:`claims.session.Session`, and exits with the ``int`` it
    returns. A handler reports misuse by raising :class:`claims.errors.UsageError` (exit 2).
    Give the parser a description and an epilog with an example.
    """


@hookspec
def claims_add_run_options(parser: argparse.ArgumentParser) -> None:
    """Add options to ``claims run`` (for instance ``--junit-xml``).

    Called once per plugin, in load order, while the CLI builds the ``run`` parser. The
    parsed values reach :func:`claims_run_finished` as ``args``.
    """


# ---------------------------------------------------------------------------------------
# run: executing one claim, and learning that a run finished
# ---------------------------------------------------------------------------------------


@hookspec(firstresult=True)
def claims_run_claim(claim: Claim) -> Verdict | None:
    """Run one claim on its own and return its :class:`claims.model.Verdict`.

    Called by the session for every selected claim, after the witness's ``setup()`` ran.
    The built-in implementation (``claims.runner``, ``trylast``) calls the claim function
    under the kernel's deterministic hypothesis profile and turns exceptions into verdicts:
    ``AssertionError`` is FAIL (message plus ``__notes__``), anything else is ERROR. Return
    ``None`` to let the next implementation run the claim. Wrappers (``wrapper=True``) may
    surround the call, e.g. to switch a mutant on. Timing is not the implementation's job:
    the session measures the whole hook call, wrappers included, and stores it in
    :class:`claims.results.ClaimResult.duration_ms`.
    """


@hookspec
def claims_run_finished(report: RunReport, args: argparse.Namespace) -> None:
    """Learn that ``claims run`` finished; ``report`` holds every result.

    Called once, before the report is printed, with the parsed ``run`` options (see
    :func:`claims_add_run_options`). Use it to write side outputs such as JUnit XML; do not
    print to stdout, which belongs to :func:`claims_report`.
    """


# ---------------------------------------------------------------------------------------
# report: showing a run
# ---------------------------------------------------------------------------------------


@hookspec(firstresult=True)
def claims_report(report: RunReport, fmt: str, stream: TextIO) -> bool | None:
    """Write ``report`` to ``stream`` in format ``fmt``; return ``True`` when written.

    Called once at the end of ``claims run`` with the value of ``--format``. Return ``None``
    for a format you do not own so the next implementation gets it. The built-in
    ``plugins.reporters`` owns ``table``, ``json``, ``markdown`` and ``github``.
    """
