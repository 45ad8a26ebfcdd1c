"""Command handlers imported when their command runs, not when the plugin that adds it loads.

A plugin's ``claims_add_commands`` runs on every ``claims`` invocation; a handler that imports
a heavy module (a revision control, a mutation engine) would make ``claims run`` pay for
commands it never runs. ``parser.set_defaults(handler=lazy_handler("pkg.mod:function"))``
defers the import to the call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_handler(reference: str) -> Callable[..., int]:
    """A handler that imports ``module:function`` on its first call and calls it."""
    module, _, name = reference.partition(":")

    def handler(*args: Any, **kwargs: Any) -> int:
        function: Callable[..., int] = getattr(importlib.import_module(module), name)
        return function(*args, **kwargs)

    handler.__qualname__ = handler.__name__ = name
    return handler
