"""A fake module that keeps what it computes: a ``functools`` cache and a table of its own
(answering ``cache_info`` and ``cache_clear``, as any cache the engines drop does) in front
of a helper a patch replaces."""

from __future__ import annotations

import functools
from collections.abc import Callable


def greeting(name: str) -> str:
    return f"hello {name}"


@functools.cache
def cached_greeting(name: str) -> str:
    return greeting(name)


class Table:
    """Values by key, computed once each."""

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}

    def keep(self, key: str, make: Callable[[], str]) -> str:
        if key not in self.entries:
            self.entries[key] = make()
        return self.entries[key]

    def cache_info(self) -> int:
        return len(self.entries)

    def cache_clear(self) -> None:
        self.entries.clear()


KEPT = Table()


def kept_greeting(name: str) -> str:
    return KEPT.keep(name, lambda: greeting(name))
