"""``tools/bench.py``'s figures: how a ratio is held to its goal, in the table, the JSON and
the page ``make bench`` writes with the run's commit (``tools/provenance.py``)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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


def _provenance() -> ModuleType:
    spec = importlib.util.spec_from_file_location("provenance", REPO / "tools" / "provenance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUN = {
    "commit": "0123456789ab",
    "date": "2026-12-02 14:00 UTC",
    "cpus": 2,
    "machine": "x86_64",
    "python": "3.11.7",
    "quick": False,
    "load": [0.25, 3.5],
}


def _shown(bench: ModuleType, run: dict[str, object], *figures: Any) -> list[dict[str, object]]:
    return [
        {
            **vars(f),
            "ratio": round(f.ratio, 4),
            "goal_text": f.goal_text,
            "holds": f.holds,
            "run": run,
        }
        for f in figures
    ]


def test_the_page_says_which_run_measured_each_figure_and_shows_every_figure() -> None:
    bench = _bench()
    cost = bench.Figure("a | b", 1.2, 1.0, "s", 1.15, "cost\nof a", step="sizes")
    free = bench.Figure("info", 1.0, 2.0, "s", None, "no goal", step="kernel")
    older = {**RUN, "date": "2026-11-30 09:00 UTC", "commit": "fedcba987654", "load": [1, 2]}
    body = {
        "skipped": ["claims mutate --all (--skip-mutate)"],
        "failed": {"kernel": "OSError: gone"},
        "figures": [*_shown(bench, RUN, cost), *_shown(bench, older, free)],
    }
    text = bench.page(body, "docs/benchmarks-measured.json")
    assert "- Run A: 2026-12-02 14:00 UTC on commit `0123456789ab`, 2 cores, x86_64, " in text
    assert "Python 3.11.7, load average 0.25 at the start and 3.5 at the end." in text
    assert "- Run B: 2026-11-30 09:00 UTC on commit `fedcba987654`" in text
    assert "from `docs/benchmarks-measured.json`; do not edit by hand" in text
    assert "| a \\| b | 1.2 s | 1 s | 1.20× | <= 1.15× | **MISSED** | A |" in text
    assert "| info | 1 s | 2 s | 0.50× | - |  | B |" in text
    assert "- a \\| b: cost of a" in text
    assert "- kernel: OSError: gone" in text and "- claims mutate --all (--skip-mutate)" in text


def test_a_step_left_out_or_failed_keeps_its_last_figures_and_one_that_ran_replaces_them() -> None:
    bench = _bench()
    older = {**RUN, "date": "2026-11-30 09:00 UTC"}
    earlier = _shown(
        bench,
        older,
        bench.Figure("old sizes", 3.5, 1.0, "lines", 3.0, "lines", step="sizes"),
        bench.Figure("old kernel", 1.1, 1.0, "s", None, "kernel", step="kernel"),
        bench.Figure("old reuse", 249.0, 180.0, "s", None, "reuse", step="survey --reuse"),
    )
    now = _shown(bench, RUN, bench.Figure("new sizes", 3.4, 1.0, "lines", 3.0, "x", step="sizes"))
    body = {"skipped": [], "failed": {"kernel": "OSError: gone"}, "figures": now}
    shown = bench.merged(earlier, body, ["sizes"])
    assert [(f["name"], f["run"]["date"]) for f in shown["figures"]] == [
        ("new sizes", RUN["date"]),
        ("old kernel", older["date"]),
        ("old reuse", older["date"]),
    ]


def test_the_commit_is_the_checkouts_and_uncommitted_changes_are_marked(tmp_path: Path) -> None:
    provenance = _provenance()
    assert provenance.commit_of(tmp_path) == "unknown"
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "page.md").write_text("old\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert provenance.commit_of(tmp_path) == head[:12]
    (tmp_path / "page.md").write_text("new\n")  # the page the run itself rewrites
    assert provenance.commit_of(tmp_path, ("page.md",)) == head[:12]
    assert provenance.commit_of(tmp_path) == head[:12] + "+changes"
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.commit_of(tmp_path, ("page.md",)) == head[:12] + "+changes"


def test_a_test_reaches_the_planner_through_its_imports_or_a_rig_that_does(tmp_path: Path) -> None:
    bench = _bench()
    sources = {
        "tests/rig.py": "from fixtures.fleet import Fleet\n",
        "tests/test_through_rig.py": "import tests.rig\n",
        "tests/test_direct.py": "import witnesses.support as s\n",
        "tests/test_framework.py": "from claims import claim\nimport tests.fakes\n",
        "tests/test_named_in_text.py": "'''from planner import cli'''\n",
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    files = [tmp_path / name for name in sources]
    found = bench.planner_tests(files, tmp_path)
    assert [f.name for f in found] == ["rig.py", "test_direct.py", "test_through_rig.py"]


def test_the_whole_survey_s_floor_counts_killed_cells_at_the_mean_red_cell() -> None:
    """Red cells are timed on the mutants whose every run cell was red; a skipped cell is
    neither run nor counted, and a survivor's time is no red cell's."""
    report = {
        "files": {
            "a.py": {
                "mutants": [
                    {"coveredBy": ["x", "y"], "killedBy": ["x", "y"], "duration": 40.0},
                    {
                        "coveredBy": ["x", "y", "z"],
                        "killedBy": ["x", "z"],
                        "skippedCells": {"z": "same_as:m1"},
                        "duration": 20.0,
                    },
                    {"coveredBy": ["x", "y"], "killedBy": ["y"], "duration": 900.0},
                    {"coveredBy": ["x"], "killedBy": [], "duration": 500.0},
                ]
            }
        }
    }
    killed, red = _bench().red_cell_seconds(report)
    # killed cells run: 2 + 1 + 1; red cells timed: 2 (40 ms) + 1 (20 ms) = 60 ms over 3
    assert (killed, round(red, 6)) == (4, 0.02)
