"""Survey workers: the processes that run :mod:`mutation.survey`, watched and restarted.

Each worker gets an interleaved share of the chosen mutants and streams one JSON event per
line. A worker that dies mid-mutant, or falls silent past that mutant's budget, is killed;
the mutant it was on is recorded (RuntimeError or Timeout) and a fresh worker takes the rest
of its share. A worker that dies before its first mutant fails the survey.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mutation.mutmut_bridge import MUTANTS_DIR, GeneratedMutant
from mutation.survey import BUDGET_FACTOR, BUDGET_SECONDS, SurveyRequest

SETUP_SILENCE_SECONDS = 600.0
MUTANT_SILENCE_SECONDS = 60.0


class SurveyFailed(RuntimeError):
    """The survey could not run (a red baseline, a worker that never came up, a leak)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class MutantResult:
    """What the survey found for one generated mutant."""

    mutant: GeneratedMutant
    status: str
    covered: tuple[str, ...] = ()
    killed: Mapping[str, str] = field(default_factory=dict)
    ran: tuple[str, ...] = ()
    ms: float = 0.0
    reason: str = ""


@dataclass
class Survey:
    """Everything the workers reported."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    baseline_seconds: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, list[str]] = field(default_factory=dict)
    forced_fail_red: list[str] = field(default_factory=list)
    results: dict[str, MutantResult] = field(default_factory=dict)
    restarts: int = 0
    canaries: int = 0


def worker_environment(root: Path) -> dict[str, str]:
    """Import from ``mutants/`` first and never from the project's own sources."""
    env = dict(os.environ)
    mutants, resolved = str(root / MUTANTS_DIR), root.resolve()
    rest = [p for p in sys.path if p and Path(p).is_dir() and Path(p).resolve() != resolved]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([mutants, *rest]))
    env["MUTANT_UNDER_TEST"] = ""
    return env


class Worker:
    """One survey process, its share of mutants, and what it reported so far."""

    def __init__(self, index: int, root: Path, request: SurveyRequest, events: queue.Queue[Any]):
        self.index, self.root, self.events = index, root, events
        self.pending = list(request.mutants)
        self.request = request
        self.ready = False
        self.started = self.last = time.monotonic()
        path = root / MUTANTS_DIR / f".survey-{index}.json"
        path.write_text(request.model_dump_json(), encoding="utf-8")
        log = (root / MUTANTS_DIR / f".survey-{index}.log").open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mutation.survey", str(path)],
            cwd=root / MUTANTS_DIR,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=worker_environment(root),
        )
        log.close()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            self.events.put((self, line))
        self.events.put((self, None))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def _budget(survey: Survey, mutant: str) -> float:
    claims = survey.coverage.get(mutant.partition("__mutmut_")[0], [])
    return BUDGET_SECONDS + BUDGET_FACTOR * sum(survey.baseline_seconds.get(c, 0) for c in claims)


def _silence_allowed(worker: Worker, survey: Survey) -> float:
    if not worker.ready or not worker.pending:
        return SETUP_SILENCE_SECONDS
    return MUTANT_SILENCE_SECONDS + 2 * _budget(survey, worker.pending[0])


@dataclass
class Pool:
    """The workers of one survey, restarted on death until every mutant is accounted for."""

    root: Path
    base: SurveyRequest
    mutants: dict[str, GeneratedMutant]
    survey: Survey
    progress: Callable[[Survey, int], None]
    events: queue.Queue[Any] = field(default_factory=queue.Queue)
    workers: list[Worker] = field(default_factory=list)

    def start(self, jobs: int) -> None:
        names = list(self.mutants)
        for index in range(max(1, min(jobs, len(names) or 1))):
            self._spawn(index, names[index::jobs])

    def _spawn(self, index: int, names: Sequence[str]) -> None:
        request = self.base.model_copy(update={"mutants": tuple(names)})
        self.workers.append(Worker(index, self.root, request, self.events))

    def run(self) -> None:
        while self.workers:
            try:
                worker, line = self.events.get(timeout=1.0)
            except queue.Empty:
                self._watch()
                continue
            worker.last = time.monotonic()
            if line is None:
                self._ended(worker)
            else:
                self._event(worker, json.loads(line))
            self.progress(self.survey, len(self.mutants))

    def _watch(self) -> None:
        now = time.monotonic()
        for worker in list(self.workers):
            if now - worker.last > _silence_allowed(worker, self.survey):
                worker.kill()
                self._lost(worker, "Timeout", "the worker fell silent past the mutant's budget")

    def _ended(self, worker: Worker) -> None:
        code = worker.process.wait()
        if worker in self.workers and worker.pending:
            self._lost(worker, "RuntimeError", f"the worker died (exit code {code})")
        elif worker in self.workers:
            self.workers.remove(worker)

    def _lost(self, worker: Worker, status: str, why: str) -> None:
        self.workers.remove(worker)
        if not worker.ready:
            raise SurveyFailed(
                f"survey worker {worker.index} failed before its first mutant "
                f"({why}); see {MUTANTS_DIR}/.survey-{worker.index}.log",
                6,
            )
        lost, rest = worker.pending[0], worker.pending[1:]
        covered = tuple(self.survey.coverage.get(lost.partition("__mutmut_")[0], ()))
        self.survey.results[lost] = MutantResult(self.mutants[lost], status, covered, reason=why)
        self.survey.restarts += 1
        if rest:
            self._spawn(worker.index, rest)

    def _event(self, worker: Worker, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "baseline":
            self._baseline(event)
        elif kind == "coverage":
            self.survey.coverage = event["functions"]
            worker.ready = True
        elif kind == "forced_fail":
            self.survey.forced_fail_red = event["red"]
        elif kind == "mutant":
            self._mutant(worker, event)
        elif kind == "canary":
            self._canary(event)

    def _baseline(self, event: dict[str, Any]) -> None:
        if event["red"]:
            red = "; ".join(f"{c}: {why}" for c, why in event["red"].items())
            raise SurveyFailed(f"baseline NOT green in mutants/ (no mutant applied): {red}", 5)
        self.survey.claims = event["claims"]
        self.survey.baseline_seconds = event["seconds"]

    def _canary(self, event: dict[str, Any]) -> None:
        if event["red"]:
            raise SurveyFailed(
                f"state leaked: after {event['after']} the claims "
                f"{sorted(event['red'])} are red with no mutant applied",
                6,
            )
        self.survey.canaries += 1

    def _mutant(self, worker: Worker, event: dict[str, Any]) -> None:
        name = event["name"]
        if worker.pending and worker.pending[0] == name:
            worker.pending.pop(0)
        self.survey.results[name] = _result(self.mutants[name], event)

    def stop(self) -> None:
        for worker in self.workers:
            worker.kill()


def _result(mutant: GeneratedMutant, event: Mapping[str, Any]) -> MutantResult:
    red: dict[str, str] = dict(event["red"])
    covered = tuple(event["covered"])
    if event["status"] == "timeout":
        status = "Timeout"
    elif red:
        status = "Killed"
    else:
        status = "Survived" if covered else "NoCoverage"
    return MutantResult(mutant, status, covered, red, tuple(event["ran"]), event["ms"])
