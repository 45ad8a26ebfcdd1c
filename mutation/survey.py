"""The generated survey's worker: every claim under every mutant, in one process.

``python -m mutation.survey REQUEST.json`` runs inside ``mutants/`` (the trampolined
planner first on the import path, the project's own sources never). It streams one JSON
object per line on stdout:

- ``baseline``: every claim with no mutant (``MUTANT_UNDER_TEST=""``) and its time; a red
  claim stops the survey here;
- ``coverage``: per claim, the mutated functions it calls (mutmut's ``stats`` mode);
- ``forced_fail``: the claims that go red when every trampoline raises (``"fail"``);
- ``mutant``: per mutant, the claims that call its function (``coveredBy``; every claim
  with ``exhaustive``) and the ones that went red (``killedBy``), all of them — no claim
  stops the others. A mutant gets a budget of ``2 s + 10 ×`` its claims' baseline time,
  enforced with SIGALRM; a mutant past it is a timeout;
- ``canary``: every so often and at the end, the claims again with no mutant, to prove no
  mutant left state behind (a red canary ends the worker);
- ``done``.

Claims never cache: each one re-plans on every call, so switching ``MUTANT_UNDER_TEST``
between calls is all a mutant needs. The environment and working directory are restored
after every mutant.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict

from claims import Session, Unresolved
from claims.witness import Claim
from mutation.profile import load_verdict_profile

BUDGET_SECONDS = 2.0
BUDGET_FACTOR = 10.0
CANARY_EVERY = 250
REASON_LIMIT = 400


class SurveyRequest(BaseModel):
    """What one survey worker does: which plugins, witnesses and mutants."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    plugins: tuple[str, ...] = ()
    witnesses: tuple[str, ...]
    mutants: tuple[str, ...]
    exhaustive: bool = False
    project_root: str


class MutantTimeout(BaseException):
    """Raised by SIGALRM when a mutant outlives its budget; no claim code catches it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise MutantTimeout


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Raise :class:`MutantTimeout` in this thread after ``seconds``."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def isolate_imports(project_root: Path) -> None:
    """Import from ``mutants/`` (the working directory), never from the project's sources."""
    root = project_root.resolve()
    here = Path.cwd().resolve()
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != root]
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))


def set_mutant(name: str) -> None:
    """Switch every trampoline (``""`` original, ``stats``, ``fail``, or a mutant name)."""
    from mutmut.mutation.trampoline import set_mutant_under_test

    set_mutant_under_test(name)


def recorded_hits() -> set[str]:
    """The functions mutmut's ``stats`` mode saw called since the last :func:`clear_hits`."""
    from mutmut.state import state

    return set(state()._stats)


def clear_hits() -> None:
    from mutmut.state import state

    state()._stats.clear()


class Worker:
    """Runs the claims of the survey's witnesses, one at a time, through the kernel."""

    def __init__(self, request: SurveyRequest, out: TextIO) -> None:
        self.request = request
        self.out = out
        self.session = Session.start(request.plugins)
        self.claims = self._claims()
        self.baseline_seconds: dict[str, float] = {}

    def _claims(self) -> list[Claim]:
        found: list[Claim] = []
        for resolution in self.session.resolve_all(self.request.witnesses):
            if isinstance(resolution, Unresolved):
                raise RuntimeError(f"witness {resolution.name} is unresolved: {resolution.reason}")
            if resolution.claims and self.session.prepare(resolution) is not None:
                raise RuntimeError(f"witness {resolution.name}: setup() failed")
            found += resolution.claims
        return found

    def emit(self, event: str, **body: Any) -> None:
        print(json.dumps({"event": event, **body}), file=self.out, flush=True)

    def run(self, claims: Sequence[Claim]) -> dict[str, str]:
        """Claim id -> the reason it is red, for the claims that did not pass."""
        red: dict[str, str] = {}
        for claim in claims:
            verdict = self.session.run_claim(claim).verdict
            if not verdict.passed:
                red[claim.id] = (verdict.reason or verdict.outcome.value)[:REASON_LIMIT]
        return red

    def switch(self, name: str) -> None:
        """Make ``name`` the mutant every call reaches (``""``: none)."""
        set_mutant(name)

    def coverage_key(self, mutant: str) -> str:
        """What :meth:`coverage` maps to the claims that reach ``mutant``."""
        return mutant.partition("__mutmut_")[0]

    def baseline(self) -> bool:
        self.switch("")
        red: dict[str, str] = {}
        for claim in self.claims:
            start = time.perf_counter()
            red |= self.run([claim])
            self.baseline_seconds[claim.id] = time.perf_counter() - start
        self.emit(
            "baseline",
            claims=[_describe(c) for c in self.claims],
            red=red,
            seconds=self.baseline_seconds,
        )
        return not red

    def coverage(self) -> dict[str, list[str]]:
        set_mutant("stats")
        covered: dict[str, list[str]] = {}
        for claim in self.claims:
            clear_hits()
            self.run([claim])
            for function in sorted(recorded_hits()):
                covered.setdefault(function, []).append(claim.id)
        set_mutant("")
        self.emit("coverage", functions=covered)
        return covered

    def forced_fail(self) -> None:
        set_mutant("fail")
        red = self.run(self.claims)
        set_mutant("")
        self.emit("forced_fail", red=sorted(red))

    def canary(self, after: str) -> bool:
        self.switch("")
        red = self.run(self.claims)
        self.emit("canary", after=after, red=red)
        return not red

    def mutant(self, name: str, covering: Sequence[Claim]) -> None:
        chosen = list(self.claims) if self.request.exhaustive else list(covering)
        seconds = BUDGET_SECONDS + BUDGET_FACTOR * sum(self.baseline_seconds[c.id] for c in chosen)
        env, cwd = dict(os.environ), os.getcwd()
        start = time.perf_counter()
        status, red = "ok", {}
        try:
            self.switch(name)
            with budget(seconds):
                red = self.run(chosen)
        except MutantTimeout:
            status = "timeout"
        finally:
            self.switch("")
            _restore(env, cwd)
        self.emit(
            "mutant",
            name=name,
            status=status,
            ran=[c.id for c in chosen],
            covered=[c.id for c in covering],
            red=red,
            ms=round((time.perf_counter() - start) * 1000, 1),
            budget=seconds,
        )


def _describe(claim: Claim) -> dict[str, object]:
    return {
        "id": claim.id,
        "witness": claim.witness,
        "name": claim.name,
        "kind": claim.kind.value,
        "module": claim.module,
        "line": claim.lineno,
    }


def _restore(env: dict[str, str], cwd: str) -> None:
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)


def survey(request: SurveyRequest, out: TextIO, worker: Worker | None = None) -> int:
    """Baseline, coverage, forced fail, then every requested mutant; 0 when it all ran."""
    worker = worker or Worker(request, out)
    if not worker.baseline():
        return 5
    covered = worker.coverage()
    worker.forced_fail()
    by_id = {c.id: c for c in worker.claims}
    for index, name in enumerate(request.mutants, start=1):
        worker.mutant(name, [by_id[c] for c in covered.get(worker.coverage_key(name), ())])
        if index % CANARY_EVERY == 0 and not worker.canary(after=name):
            return 4
    if not worker.canary(after="the last mutant"):
        return 4
    worker.emit("done")
    return 0


def main(argv: Sequence[str]) -> int:
    """``python -m mutation.survey REQUEST.json`` (working directory: ``mutants/``)."""
    request = SurveyRequest.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    isolate_imports(Path(request.project_root))
    os.environ["MUTANT_UNDER_TEST"] = ""
    load_verdict_profile()
    out = protocol_stream()
    try:
        return survey(request, out)
    finally:
        out.flush()


def protocol_stream() -> TextIO:
    """The worker's own channel for its JSON lines: a copy of file descriptor 1, after which
    descriptor 1 (and ``sys.stdout``) is stderr. A claim's subprocess inherits descriptor 1,
    and a mutant may point one's output at it (``stdout=PIPE`` made ``None``): what it writes
    then lands in the log instead of being read as a line of the protocol."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
