"""Survey workers: the processes that run :mod:`.survey`, watched and restarted.

Each worker gets an interleaved share of the chosen mutants and streams one JSON event per
line. A worker that dies mid-mutant, or falls silent past that mutant's budget, is killed;
the mutant it was on is recorded (RuntimeError or Timeout) and a fresh worker takes the rest
of its share. A worker that dies before its first mutant fails the survey.

With ``waiting_workers``, once the first baseline's coverage is in, the mutants whose covering
claims mostly waited in it (:mod:`..waiting`) go to that many more workers, started from the
first baseline as a restarted one is; the first workers leave them out (the pool's hand-off
file says which), so each mutant is judged once, by the same claims either way.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Generic

from typing_extensions import TypeVar

from claims.exits import Exit
from claims.memo import MEMO_DIR_ENV, private_tmpdir, shared_memo
from filerules import write_atomically
from plugins.mutate.generated import spawned
from plugins.mutate.generated.mutmut_bridge import MUTANTS_DIR, GeneratedMutant
from plugins.mutate.generated.survey import (
    MUTANT_ENV,
    SettledClaim,
    SetupFound,
    SurveyRequest,
    mutant_budget,
)
from plugins.mutate.waiting import mostly_waiting

M = TypeVar("M", default=GeneratedMutant)
"""What a survey's mutants are: mutmut's by default, value sites for ``--values``."""

STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a survey where it is (:meth:`Pool._stoppable`)."""
SETUP_SILENCE_SECONDS = 600.0
MUTANT_SILENCE_SECONDS = 60.0
POOL_DIR = ".survey"
"""Under the scratch directory (the generated survey's workers' working directory), what the
pool writes: each worker's request and log, and the hand-off. Never the scratch directory
itself while workers run: a file made there changes its mtime, and Python's import system
then lists it again inside whichever claim imports next, into that claim's key."""
HANDOFF = "handoff.json"
"""The pool's hand-off file (:attr:`.survey.SurveyRequest.handoff`)."""


class SurveyFailed(RuntimeError):
    """The survey could not run (a red baseline, a worker that never came up, a leak)."""

    def __init__(self, message: str, exit_code: Exit) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class MutantResult(Generic[M]):
    """What the survey found for one generated mutant."""

    mutant: M
    status: str
    covered: tuple[str, ...] = ()
    killed: Mapping[str, str] = field(default_factory=dict)
    ran: tuple[str, ...] = ()
    ms: float = 0.0
    reason: str = ""
    skipped: Mapping[str, str] = field(default_factory=dict)
    """Claim -> why the survey decided its cell without running it (a covering claim only;
    a claim that does not call the mutated function is ``not_reached``)."""
    timed_out: str = ""
    """The claim that outlived its budget, when the status is ``Timeout``."""


@dataclass
class Survey(Generic[M]):
    """Everything the workers reported."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    baseline_seconds: dict[str, float] = field(default_factory=dict)
    baseline_cpu: dict[str, float] = field(default_factory=dict)
    """Claim -> its CPU seconds in the first baseline (none of a settled claim)."""
    coverage: dict[str, list[str]] = field(default_factory=dict)
    forced_fail_red: list[str] = field(default_factory=list)
    results: dict[str, MutantResult[M]] = field(default_factory=dict)
    claim_keys: dict[str, str] = field(default_factory=dict)
    """Claim -> its key (:mod:`.cellkeys`; ``--keys``), from the first worker's baseline."""
    variant_keys: dict[str, str] = field(default_factory=dict)
    """Mutant -> the digest of its code (``--keys``)."""
    claim_traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Claim -> what it touched (``--keys``; :func:`.cellkeys.trace_json`)."""
    settled: list[str] = field(default_factory=list)
    """The claims the baseline took from the reused report instead of running them."""
    replay: dict[str, Any] = field(default_factory=dict)
    """What cell skipping had to work with, over every worker's share (:meth:`.infection.
    Infection.summary`): the functions admitted and refused, the claims that spawn."""
    setup: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Witness -> what its ``setup()`` ran, and ``"(import)"`` -> what importing the
    witnesses' modules ran (:class:`.survey.SetupFound`)."""
    trampoline: str = ""
    """How the workers' trampolines dispatched: ``faster`` (:mod:`.dispatch`) or ``mutmut``."""
    waiting: list[str] = field(default_factory=list)
    """The mutants whose covering claims mostly waited in the baseline, judged by the
    waiting workers (:mod:`..waiting`)."""
    waiting_started: int = 0
    """How many waiting workers judged :attr:`waiting` (at most ``--waiting-workers``)."""
    restarts: int = 0
    resumed: int = 0
    """Restarted workers that took the first baseline instead of running it again."""
    canaries: int = 0
    canary_runs: int = 0
    """How many claim runs the canaries made (each reruns what ran under a mutant since the
    last one)."""
    started: float | None = None
    """When the pool started the first workers (``time.monotonic``)."""
    ended: float | None = None
    """When the last worker was stopped."""
    baseline_done: int = 0
    baseline_total: int = 0
    """How far the furthest first worker's baseline is, of how many claims (progress only)."""
    start_seconds: float = 0.0
    """The first worker's start: spawn to baseline, less the baseline's claims (:mod:`.timing`)."""
    first_ready: float | None = None
    """When the first worker finished its forced-fail run (``time.monotonic``)."""
    last_result: float | None = None
    """When the last mutant's result arrived."""
    stopped: str = ""
    """Why the survey ended before judging every mutant (``--stop-after``, a signal): its
    report then speaks for the mutants judged before, and for no whole file."""
    signal: int | None = None
    """The signal that stopped it, which the command ends with once the report is written."""

    def covers(self) -> dict[str, list[str]]:
        """Claim -> the mutated functions it calls (the coverage, read the other way)."""
        found: dict[str, list[str]] = {}
        for function, claims in self.coverage.items():
            for claim in claims:
                found.setdefault(claim, []).append(function)
        return found

    @property
    def mutant_seconds(self) -> float:
        """The mutant phase: from the first worker ready to the last result (no
        generation, baseline, coverage, forced fail or worker start-up)."""
        if self.first_ready is None or self.last_result is None:
            return 0.0
        return max(0.0, self.last_result - self.first_ready)


def event_of(line: str) -> dict[str, Any] | None:
    """The event a worker's stdout line carries; ``None`` for a line that is none (output a
    mutant leaked past the worker's redirection, undecodable bytes shown as U+FFFD)."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("event"), str) else None


def mutmut_key(mutant: str) -> str:
    """The trampolined function a mutmut mutant belongs to (its coverage key)."""
    return mutant.partition("__mutmut_")[0]


@dataclass(frozen=True)
class Launch:
    """How a survey worker process is started, and how a mutant finds its covering claims."""

    module: str
    cwd: Path
    scratch: Path
    env: Mapping[str, str]
    key: Callable[[str], str] = mutmut_key

    @classmethod
    def mutmut(cls, root: Path, pythonpath: Sequence[str] = ()) -> Launch:
        """:mod:`.survey` inside ``mutants/``, importing the trampolined sources."""
        here = root / MUTANTS_DIR
        env = worker_environment(root, pythonpath)
        spawned.install(here)  # before any worker starts (see there)
        return cls("plugins.mutate.generated.survey", here, here, env)


def worker_environment(
    root: Path, pythonpath: Sequence[str] = (), tree: Path | None = None
) -> dict[str, str]:
    """Import from ``mutants/`` (or another copy of the tree) first and never from the
    project's own sources: the root and each ``pythonpath`` directory (relative to it) are
    replaced by their copies under it."""
    env = dict(os.environ)
    mutants = tree or root / MUTANTS_DIR
    sources = {root.resolve(), *((root / p).resolve() for p in pythonpath)}
    copies = [str(mutants), *(str(mutants / p) for p in pythonpath)]
    rest = [p for p in sys.path if p and Path(p).is_dir() and Path(p).resolve() not in sources]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([*copies, *rest]))
    env[MUTANT_ENV] = ""
    return env


class WorkerProcess:
    """One survey process, its share of mutants, and what it reported so far: the pool's
    handle on a :class:`.survey.Worker` (or a subclass) running in that process."""

    def __init__(
        self,
        index: int,
        launch: Launch,
        request: SurveyRequest,
        events: queue.Queue[Any],
        waiting: bool = False,
        restarted: bool = False,
    ):
        self.index, self.launch, self.events = index, launch, events
        self.waiting = waiting
        """Whether it judges the mutants whose claims mostly wait (see :class:`Pool`)."""
        self.restarted = restarted
        self.pending = list(request.mutants)
        self.request = request
        self.ready = False
        self.started = self.last = time.monotonic()
        (launch.scratch / POOL_DIR).mkdir(parents=True, exist_ok=True)  # before any worker
        path = launch.scratch / POOL_DIR / f"worker-{index}.json"
        path.write_text(request.model_dump_json(), encoding="utf-8")
        log = self.log.open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", launch.module, str(path)],
            cwd=launch.cwd,
            stdout=subprocess.PIPE,
            stderr=log,
            encoding="utf-8",
            errors="replace",
            env=dict(launch.env),
            start_new_session=True,  # a terminal's Ctrl-C reaches the pool, which stops it
        )
        log.close()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            self.events.put((self, line))
        self.events.put((self, None))

    @property
    def log(self) -> Path:
        return self.launch.scratch / POOL_DIR / f"worker-{self.index}.log"

    def note(self, text: str) -> None:
        """Add a line to the worker's log (beside its stderr)."""
        with self.log.open("a", encoding="utf-8") as log:
            print(f"survey pool: {text}", file=log)

    def kill(self) -> None:
        """Kill the worker and what it started in its group, then reap it."""
        self._kill_group()
        self.process.wait()

    def reap(self) -> int:
        """Wait for the worker to exit, kill what it left running in its group (processes of
        claims a mutant left hanging), then reap it; its exit code."""
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOWAIT)  # not reaped yet
        self._kill_group()
        return self.process.wait()

    def _kill_group(self) -> None:
        """SIGKILL to the worker's process group (its own: ``start_new_session``); its pid is
        not reaped yet, so the group is the worker's."""
        if self.process.returncode is not None:
            return  # reaped: the number may name another group now
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)


def _reasons(red: Mapping[str, str]) -> str:
    """Each red claim with why (a worker's words, each cut short by the worker)."""
    return "; ".join(f"{claim}: {why}" for claim, why in sorted(red.items()))


def _budget(survey: Survey[Any], claims: Sequence[str]) -> float:
    return mutant_budget(survey.baseline_seconds.get(c, 0) for c in claims)


@dataclass
class Pool(Generic[M]):
    """The workers of one survey, restarted on death until every mutant is accounted for.

    ``launch`` says which worker module runs where (default: mutmut's, in ``mutants/``).
    """

    root: Path
    base: SurveyRequest
    mutants: dict[str, M]
    survey: Survey[M]
    progress: Callable[[Survey[M], int], None]
    events: queue.Queue[Any] = field(default_factory=queue.Queue)
    workers: list[WorkerProcess] = field(default_factory=list)
    launch: Launch | None = None
    stop_after: float | None = None
    """Seconds from the start after which the survey stops where it is (``--stop-after``)."""
    received: int | None = None
    """The first stopping signal received while the workers run (a second ends at once)."""
    waiting_workers: int = 0
    """At most this many workers beside ``jobs`` for the mutants whose covering claims
    mostly waited (``--waiting-workers``)."""
    until_coverage: bool = False
    """Stop once the first baseline's coverage is in, judging no mutant (``--reach``)."""

    def __post_init__(self) -> None:
        if self.launch is None:
            self.launch = Launch.mutmut(self.root, self.base.pythonpath)

    def _covering(self, mutant: str) -> tuple[str, ...]:
        assert self.launch is not None
        return tuple(self.survey.coverage.get(self.launch.key(mutant), ()))

    def _silence_allowed(self, worker: WorkerProcess) -> float:
        if not worker.ready or not worker.pending:
            return SETUP_SILENCE_SECONDS
        return MUTANT_SILENCE_SECONDS + 2 * _budget(self.survey, self._covering(worker.pending[0]))

    def run_all(self, jobs: int) -> None:
        """Start ``jobs`` workers and run them until every mutant is accounted for; they
        share one memo directory and one private ``TMPDIR`` (:mod:`claims.memo`) for the
        length of the survey."""
        assert self.launch is not None
        with shared_memo() as memo, private_tmpdir() as tmp, self._stoppable():
            env = {**self.launch.env, MEMO_DIR_ENV: str(memo), "TMPDIR": str(tmp)}
            self.launch = replace(self.launch, env=env)
            try:
                self.survey.started = time.monotonic()
                self.start(jobs)
                self.run()
            finally:
                self.stop()
                self.survey.ended = time.monotonic()

    @contextlib.contextmanager
    def _stoppable(self) -> Iterator[None]:
        """SIGINT, SIGTERM and SIGHUP stop the survey where it is, so what was judged is
        reported (main thread only); a second one ends the process as it says, at once."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {s: signal.getsignal(s) for s in STOPPING}

        def caught(signum: int, _frame: object) -> None:
            if self.received is None:
                self.received = signum
                return
            self.stop()  # the workers run in their own sessions: none outlives the survey
            for s, handler in previous.items():
                signal.signal(s, handler)
            signal.raise_signal(signum)

        for s, handler in previous.items():
            if handler is not signal.SIG_IGN:
                signal.signal(s, caught)
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    def start(self, jobs: int) -> None:
        assert self.launch is not None
        names = list(self.mutants)
        handoff = None
        if self.waiting_workers > 0:
            self._handoff.unlink(missing_ok=True)  # an earlier survey's
            handoff = str(self._handoff)
        for index in range(max(1, min(jobs, len(names) or 1))):
            self._spawn(index, names[index::jobs], handoff=handoff)

    @property
    def _handoff(self) -> Path:
        assert self.launch is not None
        return self.launch.scratch / POOL_DIR / HANDOFF

    def _spawn(
        self,
        index: int,
        names: Sequence[str],
        restarted: bool = False,
        handoff: str | None = None,
        waiting: bool = False,
    ) -> None:
        assert self.launch is not None
        update: dict[str, Any] = {"mutants": tuple(names), "handoff": handoff}
        if restarted or waiting:
            update["resumed"] = self._kept_baseline()
        request = self.base.model_copy(update=update)
        worker = WorkerProcess(index, self.launch, request, self.events, waiting, restarted)
        self.workers.append(worker)

    def _hand_off(self) -> None:
        """Give the mutants whose covering claims mostly waited in the baseline to
        ``waiting_workers`` workers of their own, and tell the first workers (which judge no
        mutant before) to leave them out."""
        self.survey.waiting = waiting = waiting_mutants(
            list(self.mutants),
            self._covering,
            self.survey.baseline_seconds,
            self.survey.baseline_cpu,
        )
        write_atomically(self._handoff, json.dumps(waiting))
        gone = set(waiting)
        for worker in self.workers:
            worker.pending = [m for m in worker.pending if m not in gone]
        count = min(self.waiting_workers, len(waiting))
        self.survey.waiting_started = count
        first = 1 + max((worker.index for worker in self.workers), default=-1)
        for k in range(count):
            self._spawn(first + k, waiting[k::count], waiting=True)

    def _kept_baseline(self) -> dict[str, SettledClaim]:
        """What the first baseline found of each claim, for a restarted worker: it then runs
        none before its mutants (a whole baseline took minutes on the planner)."""
        covers = self.survey.covers()
        return {
            claim: SettledClaim(
                key=self.survey.claim_keys.get(claim),
                seconds=seconds,
                covers=tuple(covers.get(claim, ())),
            )
            for claim, seconds in self.survey.baseline_seconds.items()
        }

    def run(self) -> None:
        deadline = None if self.stop_after is None else time.monotonic() + self.stop_after
        while self.workers:
            if self._stopping(deadline) or (self.until_coverage and self._covered()):
                return
            try:
                worker, line = self.events.get(timeout=1.0)
            except queue.Empty:
                self._watch()
                continue
            worker.last = time.monotonic()
            if line is None:
                self._ended(worker)
            elif (event := event_of(line)) is not None:
                self._event(worker, event)
            else:
                worker.note(f"not an event on the worker's stdout: {line.rstrip()[:200]!r}")
            self.progress(self.survey, len(self.mutants))

    def _stopping(self, deadline: float | None) -> bool:
        """Whether a signal or ``--stop-after`` ends the survey now (``survey.stopped`` says
        which); the workers are then killed and their pending mutants left unjudged."""
        done = f"{len(self.survey.results)} of {len(self.mutants)} mutants judged"
        if self.received is not None:
            name = signal.Signals(self.received).name
            self.survey.stopped, self.survey.signal = (
                f"interrupted by {name}: {done}",
                self.received,
            )
        elif deadline is not None and time.monotonic() >= deadline and not self._all_judged():
            self.survey.stopped = f"--stop-after {self.stop_after:g} s: {done}"
        return bool(self.survey.stopped)

    def _covered(self) -> bool:
        """Whether a worker has said which claims call each mutated function."""
        return any(worker.ready for worker in self.workers)

    def _all_judged(self) -> bool:
        """Whether every mutant has its result: what is left (the last canary) is not cut
        short by ``--stop-after``, which would make the report partial for nothing."""
        return len(self.survey.results) >= len(self.mutants)

    def _watch(self) -> None:
        now = time.monotonic()
        for worker in list(self.workers):
            if now - worker.last > self._silence_allowed(worker):
                worker.kill()
                self._lost(worker, "Timeout", "the worker fell silent past the mutant's budget")

    def _ended(self, worker: WorkerProcess) -> None:
        code = worker.reap()
        if worker in self.workers and worker.pending:
            self._lost(worker, "RuntimeError", f"the worker died (exit code {code})")
        elif worker in self.workers:
            self.workers.remove(worker)

    def _lost(self, worker: WorkerProcess, status: str, why: str) -> None:
        self.workers.remove(worker)
        if not worker.ready:
            raise SurveyFailed(
                f"survey worker {worker.index} failed before its first mutant "
                f"({why}); see {_shown(self.root, worker.log)}",
                Exit.TIMEOUT,
            )
        lost, rest = worker.pending[0], worker.pending[1:]
        covered = self._covering(lost)
        self.survey.results[lost] = MutantResult(self.mutants[lost], status, covered, reason=why)
        self.survey.restarts += 1
        if rest:
            self._spawn(worker.index, rest, restarted=True, waiting=worker.waiting)

    def _event(self, worker: WorkerProcess, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "baseline_progress":
            if not worker.waiting and not worker.restarted:
                self.survey.baseline_done = max(self.survey.baseline_done, event["done"])
                self.survey.baseline_total = event["total"]
        elif kind == "baseline":
            self._baseline(worker, event)
        elif kind == "coverage":
            self.survey.coverage = event["functions"]
            worker.ready = True
            if self.waiting_workers > 0 and not self._handoff.exists():  # the first coverage
                self._hand_off()
        elif kind == "forced_fail":  # a settled claim's was the reused report's
            settled = [c for c in self.survey.forced_fail_red if c in self.survey.settled]
            self.survey.forced_fail_red = sorted({*event["red"], *settled})
            if self.survey.first_ready is None:
                self.survey.first_ready = time.monotonic()
        elif kind == "mutant":
            self._mutant(worker, event)
        elif kind == "canary":
            self._canary(event)

    def _baseline(self, worker: WorkerProcess, event: dict[str, Any]) -> None:
        if event["red"]:
            raise SurveyFailed(
                f"baseline NOT green in mutants/ (no mutant applied): {_reasons(event['red'])}",
                Exit.BASELINE,
            )
        if self.survey.started is not None and not self.survey.baseline_seconds:  # the first
            settled = set(event.get("settled") or ())
            ran = sum(s for c, s in event["seconds"].items() if c not in settled)
            self.survey.start_seconds = max(0.0, worker.last - self.survey.started - ran)
        self.survey.claims = event["claims"]
        self.survey.baseline_seconds = event["seconds"]
        self.survey.baseline_cpu |= event.get("cpu") or {}
        self.survey.claim_keys = event.get("keys") or self.survey.claim_keys
        self.survey.claim_traces |= event.get("traces") or {}
        self.survey.settled = event.get("settled") or []
        self.survey.replay = merged_replay(self.survey.replay, event.get("replay"))
        self.survey.resumed += bool(event.get("resumed")) and worker.restarted
        self.survey.setup = merged_setup(self.survey.setup, event.get("setup") or {})
        self.survey.trampoline = str(event.get("trampoline") or "")

    def _canary(self, event: dict[str, Any]) -> None:
        if event["red"]:
            raise SurveyFailed(
                f"state leaked: after {event['after']} these claims are red with no mutant "
                f"applied: {_reasons(event['red'])}",
                Exit.TIMEOUT,
            )
        self.survey.canaries += 1
        self.survey.canary_runs += int(event.get("ran") or 0)

    def _mutant(self, worker: WorkerProcess, event: dict[str, Any]) -> None:
        name = event["name"]
        if worker.pending and worker.pending[0] == name:
            worker.pending.pop(0)
        self.survey.results[name] = _result(self.mutants[name], event)
        self.survey.last_result = time.monotonic()

    def stop(self) -> None:
        for worker in self.workers:
            worker.kill()


def merged_setup(
    known: Mapping[str, Mapping[str, Any]], found: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """What each worker's imports and setups ran (:class:`.survey.SetupFound`), over every
    worker (:meth:`.survey.SetupFound.across`), as the ``baseline`` events carry it."""
    merged = {name: SetupFound.model_validate(value) for name, value in known.items()}
    for name, value in found.items():
        seen = SetupFound.model_validate(value)
        merged[name] = merged[name].across(seen) if name in merged else seen
    return {name: value.model_dump() for name, value in merged.items()}


def waiting_mutants(
    names: Sequence[str],
    covering: Callable[[str], Sequence[str]],
    seconds: Mapping[str, float],
    cpu: Mapping[str, float],
) -> list[str]:
    """The mutants whose covering claims, together, mostly waited in the baseline (a claim
    whose CPU time is unknown, a settled one, counts as computing all along)."""
    found = []
    for name in names:
        claims = covering(name)
        wall = sum(seconds.get(c, 0.0) for c in claims)
        used = sum(cpu.get(c, seconds.get(c, 0.0)) for c in claims)
        if mostly_waiting(wall, used):
            found.append(name)
    return found


def merged_replay(have: Mapping[str, Any], found: object) -> dict[str, Any]:
    """Two workers' replay summaries as one: each worker admits or refuses the functions of
    its own share; every worker sees the same claims spawn."""
    if not isinstance(found, dict):
        return dict(have)
    admitted = {*have.get("admitted", ()), *found.get("admitted", ())}
    refused = {**have.get("refused", {}), **found.get("refused", {})}
    spawning = {*have.get("spawning", ()), *found.get("spawning", ())}
    return {
        "admitted": sorted(admitted),
        "refused": dict(sorted(refused.items())),
        "spawning": sorted(spawning),
    }


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _result(mutant: M, event: Mapping[str, Any]) -> MutantResult[M]:
    red: dict[str, str] = dict(event["red"])
    covered = tuple(event["covered"])
    if event["status"] == "timeout":
        status = "Timeout"
    elif red:
        status = "Killed"
    else:
        status = "Survived" if covered else "NoCoverage"
    skipped = dict(event.get("skipped", {}))
    ran, timed_out = tuple(event["ran"]), str(event.get("timed_out") or "")
    return MutantResult(
        mutant, status, covered, red, ran, event["ms"], skipped=skipped, timed_out=timed_out
    )
