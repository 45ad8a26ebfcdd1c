"""pytest's own workflow over claims, run as a user runs it: a pytest subprocess in the
checkout with the project's configuration (pyproject.toml), and its cache in a temp dir."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.ecosystem import REPO_ROOT

WITNESSES = ("tests/fakes/witness_green.py", "tests/fakes/witness_red.py")


def _pytest(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.fakes.plugin",
            "-o",
            f"cache_dir={cache}",
            "-q",
            "-p",
            "no:randomly",
            *args,
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout.strip().splitlines()[-1]


def test_last_failed_reruns_only_the_failed_claims(tmp_path: Path) -> None:
    first = _pytest(tmp_path, *WITNESSES)
    assert _tail(first).startswith("6 failed, 5 passed"), first.stdout[-800:]
    again = _pytest(tmp_path, "--lf", *WITNESSES)
    assert _tail(again).startswith("6 failed") and "passed" not in _tail(again), again.stdout


def test_failed_first_puts_the_failed_claims_first(tmp_path: Path) -> None:
    _pytest(tmp_path, *WITNESSES)
    ordered = _pytest(tmp_path, "--ff", "-vv", *WITNESSES)
    results = [ln for ln in ordered.stdout.splitlines() if "::" in ln and ln.endswith("]")]
    outcomes = [("FAILED" in ln) for ln in results]
    assert outcomes == [True] * 6 + [False] * 5, results


def test_stepwise_stops_at_the_first_failure_and_resumes_there(tmp_path: Path) -> None:
    first = _pytest(tmp_path, "--sw", *WITNESSES)
    assert "1 failed, 5 passed" in _tail(first), first.stdout[-800:]
    second = _pytest(tmp_path, "--sw", *WITNESSES)
    # It starts at the claim that failed, so the five green ones before it are skipped.
    assert "1 failed" in _tail(second) and "5 passed" not in _tail(second), second.stdout[-800:]
