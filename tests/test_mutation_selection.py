"""Choosing generated mutants: shards partition them, a diff picks the changed functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims import UsageError
from plugins.mutate.generated.mutmut_bridge import GeneratedMutant, Span
from plugins.mutate.generated.selection import (
    WHOLE_FILE,
    _touched,
    function_spans,
    parse_diff,
    parse_shard,
    shard,
)


@given(st.integers(0, 80), st.integers(1, 9))
def test_the_n_shards_partition_the_mutants_in_order(size: int, n: int) -> None:
    items = list(range(size))
    parts = [shard(items, k, n) for k in range(1, n + 1)]
    assert sorted(x for part in parts for x in part) == items
    assert all(part == sorted(part) for part in parts)
    assert max(len(p) for p in parts) - min(len(p) for p in parts) <= 1


@pytest.mark.parametrize("text", ["0/4", "5/4", "x", "1/0", "2-4"])
def test_a_malformed_shard_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError):
        parse_shard(text)


def test_a_shard_is_k_of_n() -> None:
    assert parse_shard("2/4") == (2, 4)
    assert shard(list(range(10)), 2, 4) == [1, 5, 9]


DIFF = """\
diff --git a/planner/fit.py b/planner/fit.py
--- a/planner/fit.py
+++ b/planner/fit.py
@@ -10,2 +10,3 @@ x
-old
+new
@@ -40 +41,0 @@ y
-gone
diff --git a/planner/gone.py b/planner/gone.py
--- a/planner/gone.py
+++ /dev/null
@@ -1,3 +0,0 @@
"""


def test_a_diff_gives_the_new_side_lines_and_both_sides_of_a_deletion() -> None:
    assert parse_diff(DIFF) == {"planner/fit.py": frozenset({10, 11, 12, 41, 42})}


SOURCE = """\
def top(x):
    return x


class Box:
    @property
    def size(self):
        return 1
"""


def _mutant(function: str, path: str = "pkg/m.py") -> GeneratedMutant:
    return GeneratedMutant(
        f"pkg.m.{function}__mutmut_1", path, function, "a", "b", Span(1, 1, 1, 2), "a", "b"
    )


def test_a_mutant_is_chosen_when_its_function_changed() -> None:
    spans = {"pkg/m.py": function_spans(SOURCE)}
    assert spans["pkg/m.py"] == {"x_top": (1, 2), "xǁBoxǁsize": (6, 8)}
    changed = {"pkg/m.py": frozenset({7})}
    assert _touched(_mutant("xǁBoxǁsize"), changed, spans)
    assert not _touched(_mutant("x_top"), changed, spans)
    assert _touched(_mutant("x_top"), {"pkg/m.py": WHOLE_FILE}, spans)
    assert not _touched(_mutant("x_top", "pkg/other.py"), changed, spans)
