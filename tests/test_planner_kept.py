"""planner.kept: values kept per key, the least recently used dropped, errors never kept."""

from __future__ import annotations

from typing import Any, cast

import pytest

from planner import cli
from planner.kept import Kept, KeptInfo
from plugins.mutate.patching import drop_caches


def test_a_value_is_computed_once_per_key() -> None:
    calls: list[str] = []
    kept: Kept[str, int] = Kept(4)

    def get(key: str) -> int:
        def compute() -> int:
            calls.append(key)
            return len(key)

        return kept.keep(key, compute)

    assert [get(k) for k in ("a", "bb", "a", "bb")] == [1, 2, 1, 2]
    assert calls == ["a", "bb"]


def test_past_its_size_the_least_recently_used_goes() -> None:
    kept: Kept[str, str] = Kept(2)
    kept.keep("a", lambda: "A")
    kept.keep("b", lambda: "B")
    kept.keep("a", lambda: "not again")  # a is now the most recently used
    kept.keep("c", lambda: "C")  # so b goes
    assert kept.keep("a", lambda: "recomputed") == "A"
    assert kept.keep("b", lambda: "recomputed") == "recomputed"
    assert kept.cache_info() == KeptInfo(entries=2, size=2)


def test_an_error_keeps_nothing_and_clear_empties() -> None:
    kept: Kept[str, str] = Kept(2)

    def fail() -> str:
        raise ValueError("bad input")

    with pytest.raises(ValueError):
        kept.keep("x", fail)
    assert kept.keep("x", lambda: "ok") == "ok"
    kept.cache_clear()
    assert kept.cache_info().entries == 0


def test_a_table_of_a_planner_module_is_dropped_with_the_functools_caches() -> None:
    """The mutation engines empty every cache of the planner's modules at each mutant switch
    (``drop_caches``, which reads any object answering ``cache_info`` and ``cache_clear``):
    a parser kept under one mutant is not served under the next."""
    cli._PARSERS.keep(((), "probe"), lambda: cast(Any, object()))
    assert cli._PARSERS.cache_info().entries >= 1
    drop_caches(["planner"])
    assert cli._PARSERS.cache_info().entries == 0
