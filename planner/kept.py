"""Values the planner computes once per key and keeps for the life of the process.

A key holds everything its value depends on except the code: a parser is kept per arm
listing, a parsed file per exact text. The code changes only under the mutation engines,
which empty every table whenever it does (they call ``cache_clear`` on anything of the
package under test that also answers ``cache_info``, as ``functools`` caches do).

No decorator: mutmut leaves decorated functions unmutated, so the functions that compute
the values stay plain and a table sits in front of them. The table's method is ``keep``, not
``get``: the survey's purity guard resolves a method call by its name alone, and a project
method named ``get`` would stand for every ``dict.get`` the planner calls.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, NamedTuple, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class KeptInfo(NamedTuple):
    entries: int
    size: int


class Kept(Generic[K, V]):
    """A table of values by key, at most ``size`` of them (the least recently used goes)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()

    def keep(self, key: K, compute: Callable[[], V]) -> V:
        """The value kept for ``key``, computed first if it is not; an error keeps nothing."""
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        value = compute()
        self._values[key] = value
        if len(self._values) > self.size:
            self._values.popitem(last=False)
        return value

    def cache_clear(self) -> None:
        self._values.clear()

    def cache_info(self) -> KeptInfo:
        return KeptInfo(len(self._values), self.size)
