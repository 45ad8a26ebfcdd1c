"""The fast paths on the planner: the survey of two planner files with exact cell skipping
and the faster trampoline dispatch gives, cell by cell, the kill matrix of the survey that
runs every covering claim through mutmut's own trampolines (``--no-skip
--plain-trampoline``).

It surveys a copy of the repository in which mutmut mutates only those files
(``[tool.mutmut] only_mutate``), with the witness that covers them, so it takes minutes, not
the hour of the whole survey."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.fakes_mutation.support import REPO

FILES = ("planner/fit.py", "planner/measure.py")
WITNESS = "serving_fit"


def _copied() -> list[str]:
    """What the survey needs of the repository: mutmut's source paths, what it copies beside
    them, and the configuration (read from it, so a new source package is copied too)."""
    mutmut = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    return [*mutmut["source_paths"], *mutmut["also_copy"], "pyproject.toml"]


def _copy(destination: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "mutants")
    for name in _copied():
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, destination / name, ignore=ignore)
        else:
            shutil.copy2(REPO / name, destination / name)
    pyproject = destination / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    only = "only_mutate = [" + ", ".join(f'"{f}"' for f in FILES) + "]\n"
    pyproject.write_text(text.replace("[tool.mutmut]\n", f"[tool.mutmut]\n{only}", 1))
    return destination


def _survey(root: Path, name: str, *args: str) -> dict[str, Any]:
    """``claims mutate --generated WITNESS --file …`` in ``root``; its report."""
    report = root / f"{name}.json"
    files = [arg for f in FILES for arg in ("--file", f)]
    argv = ["mutate", "--generated", WITNESS, *files, "--report", str(report), "--jobs", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "claims.cli", *argv, *args],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    # 0, or 3 when the partial survey's floors speak: never 6 (a crash) nor 9 (the audit)
    assert done.returncode in (0, 3), done.stdout[-3000:] + done.stderr[-3000:]
    return dict(json.loads(report.read_text(encoding="utf-8")))


def _matrix(report: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    return {
        m["id"]: (m["status"], m["killedBy"])
        for entry in report["files"].values()
        for m in entry["mutants"]
    }


@pytest.mark.skipif(sys.platform != "linux", reason="the survey's workers run on Linux")
def test_the_fast_paths_give_the_planner_matrix_of_running_every_cell(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    # serving_fit's claims take milliseconds: --skip-worth 0 replays them all anyway
    skipped = _survey(root, "skip", "--audit", "12", "--skip-worth", "0")
    every = _survey(root, "every", "--no-skip", "--plain-trampoline", "--audit", "0")
    assert (skipped["config"]["trampoline"], every["config"]["trampoline"]) == ("faster", "mutmut")
    assert _matrix(skipped) == _matrix(every)
    assert set(skipped["files"]) == set(FILES)
    decided = skipped["audit"]["cellsByReason"]
    assert decided.get("not_infected", 0) > 0, decided
    assert skipped["audit"]["agreed"] == skipped["audit"]["sampled"] == 12
