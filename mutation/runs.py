"""Running requests in child processes: one process per run, a timeout, several at once.

A run is a :class:`RunRequest` sent to ``python -m mutation.child`` on stdin. The child
prints one JSON object; a child that exceeds the timeout is killed (a *timeout*), one that
exits without a result is a *crash* whose exit code and last stderr lines are kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

CHILD_MODULE = "mutation.child"
STDERR_TAIL_LINES = 12


class PatchSpec(BaseModel):
    """One patch: the target and the mutant replacing it (``None``: a forced failure)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: str
    mutant: str | None = None


class RunRequest(BaseModel):
    """What one child runs: plugins, witnesses, which claims (None: all), the patches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    witnesses: tuple[str, ...]
    claims: tuple[str, ...] | None = None
    patches: tuple[PatchSpec, ...] = ()
    plugins: tuple[str, ...] = ()


class RunStatus(StrEnum):
    """How a child ended: it printed a result, it was killed at the timeout, or it died."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"


@dataclass(frozen=True)
class RunResult:
    """A finished run: its status, each claim's outcome and reason, and its wall time."""

    request: RunRequest
    status: RunStatus
    seconds: float
    outcomes: Mapping[str, str] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    unresolved: Mapping[str, str] = field(default_factory=dict)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.OK

    @property
    def red(self) -> frozenset[str]:
        """Claims that did not pass (claims of an unresolved witness are not listed)."""
        return frozenset(c for c, outcome in self.outcomes.items() if outcome != "pass")


def child_environment() -> dict[str, str]:
    """This process's environment, with its import path, so the child imports the same code."""
    env = dict(os.environ)
    paths = [os.getcwd() if p == "" else p for p in sys.path]
    env["PYTHONPATH"] = os.pathsep.join(p for p in dict.fromkeys(paths) if Path(p).is_dir())
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def run_isolated(request: RunRequest, timeout: float, env: Mapping[str, str]) -> RunResult:
    """Run ``request`` in a fresh interpreter; never raises for what the child does."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", CHILD_MODULE],
            input=request.model_dump_json(),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(env),
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        return RunResult(
            request,
            RunStatus.TIMEOUT,
            time.perf_counter() - start,
            detail=f"no result after {timeout:.1f} s; killed" + _tail(expired.stderr),
        )
    return _parsed(request, done, time.perf_counter() - start)


def _parsed(
    request: RunRequest, done: subprocess.CompletedProcess[str], seconds: float
) -> RunResult:
    lines = done.stdout.strip().splitlines()
    try:
        body = json.loads(lines[-1]) if done.returncode == 0 and lines else None
    except json.JSONDecodeError:
        body = None
    if not isinstance(body, dict):
        return RunResult(
            request,
            RunStatus.CRASH,
            seconds,
            detail=f"exit code {done.returncode}, no result" + _tail(done.stderr),
        )
    outcomes = body.get("outcomes", {})
    return RunResult(
        request,
        RunStatus.OK,
        seconds,
        outcomes={c: o["outcome"] for c, o in outcomes.items()},
        reasons={c: o["reason"] for c, o in outcomes.items() if o["reason"]},
        unresolved=dict(body.get("unresolved", {})),
    )


def _tail(stderr: str | bytes | None) -> str:
    if not stderr:
        return ""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    lines = text.strip().splitlines()[-STDERR_TAIL_LINES:]
    return "; stderr:\n" + "\n".join(f"    {line}" for line in lines) if lines else ""


Progress = Callable[[RunResult, int, int], None]


def run_all(
    requests: Sequence[RunRequest],
    timeout: float,
    jobs: int,
    progress: Progress | None = None,
) -> list[RunResult]:
    """Run every request (``jobs`` at a time); results come back in request order."""
    env = child_environment()
    results: dict[int, RunResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_isolated, r, timeout, env): i for i, r in enumerate(requests)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if progress is not None:
                progress(results[futures[future]], len(results), len(requests))
    return [results[i] for i in range(len(requests))]


def default_jobs() -> int:
    """One run per core."""
    return max(1, os.cpu_count() or 1)
