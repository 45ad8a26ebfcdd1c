"""planner.fit: the declared bets, a table no claim states whole.

The wall's arithmetic, Group A's numbers, the refusals, the summary, the boundary and the
properties over weights, pools and utilizations are witnesses/rules/serving_fit.py's claims.
"""

from __future__ import annotations

from planner.arms.v41_group_a import V41_ENGRAM_RESIDENT_BETS


def test_resident_bets_are_declared() -> None:
    assert [(b.concurrency, b.per_rank_gib) for b in V41_ENGRAM_RESIDENT_BETS] == [
        (2, 19),
        (4, 30),
        (6, 37),
        (16, 46),
    ]
