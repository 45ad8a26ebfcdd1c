"""The mutation engine, a built-in plugin: it adds ``claims mutate``.

- :mod:`plugins.mutate.declared`: declared mutants with exact kill sets (the harness).
- :mod:`plugins.mutate.generated`: the mutmut survey of the project's source paths.
- :mod:`plugins.mutate.values`: the value survey (mutated return values of boundaries).
- Shared: :mod:`~plugins.mutate.patching`, :mod:`~plugins.mutate.stryker` (the report
  schema), :mod:`~plugins.mutate.html_report`, :mod:`~plugins.mutate.floors`,
  :mod:`~plugins.mutate.ledgers`, :mod:`~plugins.mutate.profile`.

The engine imports no project's code nor its mutant data: declared mutants arrive through
the ``claims_register_mutants`` hook. A mutant module writes::

    from plugins.mutate import mutant

    @mutant(replaces="postage.rates.steps", turns_red={"postage.a_started_step_is_charged_whole"})
    def steps_round_down(grams: int) -> int:
        \"\"\"Only whole steps are charged: 250 g pays for two.\"\"\"
        return grams // 100

Loading this plugin (on every ``claims`` invocation) imports nothing of the engine: the
names below and the command's handlers import their modules on first use.
"""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING, Any

from claims import hookimpl

if TYPE_CHECKING:
    from plugins.mutate.declared.model import Mutant, combined, mutant
    from plugins.mutate.patching import ForcedFailure

__all__ = ["ForcedFailure", "Mutant", "combined", "mutant"]

_WHERE = {
    "ForcedFailure": "plugins.mutate.patching",
    "Mutant": "plugins.mutate.declared.model",
    "combined": "plugins.mutate.declared.model",
    "mutant": "plugins.mutate.declared.model",
}


def __getattr__(name: str) -> Any:
    """Import on first use: loading the plugin must not load the engine."""
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'plugins.mutate' has no attribute {name!r}")


@hookimpl
def claims_add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from plugins.mutate.command import add_parser

    add_parser(subparsers)
