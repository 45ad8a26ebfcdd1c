"""``tools/bench.py``'s figures: how a ratio is held to its goal, in the table and the JSON."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from tests.fakes.support import REPO


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench", REPO / "tools" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_cost_holds_at_or_below_its_goal_and_a_speed_at_or_above_it() -> None:
    bench = _bench()
    cost = bench.Figure("cost", 1.2, 1.0, "s", 1.15, "cost")
    speed = bench.Figure("speed", 4.4, 1.0, "mutants/s", 4.0, "speed", "at least")
    slow = bench.Figure("slow", 1.0, 1.0, "mutants/s", 4.0, "speed", "at least")
    assert (cost.holds, speed.holds, slow.holds) == (False, True, False)
    assert (cost.goal_text, speed.goal_text) == ("<= 1.15x", ">= 4.0x")
    assert bench.Figure("info", 1.0, 2.0, "s", None, "no goal").holds is None


def test_mutmut_counts_only_the_mutants_it_ran(tmp_path: Path) -> None:
    """No tests (33), skipped (34), type-checked (37) and never tried (null) are left out."""
    bench = _bench()
    meta = tmp_path / "mutants" / "planner" / "fit.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"a": 1, "b": 0, "c": 33, "d": None, "e": 36, "f": 34, "g": 37}
    meta.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")
    assert bench._mutmut_ran(tmp_path, ["planner/fit.py"]) == 3
