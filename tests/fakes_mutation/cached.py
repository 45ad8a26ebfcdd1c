"""A fake planner module that keeps what it computes: a ``functools`` cache and a
:class:`planner.kept.Kept` table in front of a helper a patch replaces."""

from __future__ import annotations

import functools

from planner.kept import Kept


def greeting(name: str) -> str:
    return f"hello {name}"


@functools.cache
def cached_greeting(name: str) -> str:
    return greeting(name)


KEPT: Kept[str, str] = Kept(4)


def kept_greeting(name: str) -> str:
    return KEPT.keep(name, lambda: greeting(name))
