"""Running the declared harness's requests: one warm parent, a forked child per run.

The parent is the ``claims mutate`` process. It has loaded the plugins and imported the
witnesses, the mutant modules and the code they call. Each run is a child forked from it
(copy-on-write, no interpreter start, no re-import): the child installs the run's patches in
its own memory, runs the chosen claims through the kernel, writes one JSON result to a pipe
and leaves with ``os._exit``, so a patch dies with its child and never reaches the next run.
A child past the timeout is killed (a *timeout*); one that ends without a whole result is a
*crash*, its exit status and last output lines kept. Anything a claim prints goes to the
child's own log, never to the parent's streams.

**Only the claims that can see a patch run.** The baseline runs every claim with every
target of the plan wrapped by a transparent recorder (it calls the original with the same
arguments and notes which claim reached it), so it yields both the clean verdicts and, per
claim, the targets it calls (a witness's ``setup()`` counts for all its claims). A later
run patches some targets: a claim that called none of them executes exactly as in the
baseline (what the planner keeps between calls is dropped before each claim of the baseline
and at every patch: :func:`..patching.drop_caches`), so it is recorded as *not reached* and
not run. ``tests/test_mutation_runs.py`` checks the shortcut against running every claim.

**Waiting runs get their own slots.** The baseline also times each witness's ``setup()`` and
each claim, in wall and CPU seconds. A run whose claims (and their witnesses' setups) spent
the baseline mostly waiting — the sshd fleets of ``transaction_fleet`` and ``ssh_transport``
sit on ssh sessions, timeouts and teardown, using about a sixth of a core — is *waiting*:
up to ``jobs`` of those run beside up to ``jobs`` others, so the fleets no longer hold the
cores' slots idle (at most ``jobs`` waiting runs at once: as many fleets as before). Within
each kind the longest runs start first. Verdicts do not depend on either: every run is the
same child, with the same patches, claims and timeout.
"""

from __future__ import annotations

import importlib
import json
import os
import selectors
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import IO, Any

from pydantic import BaseModel, ConfigDict

from claims import Outcome, Session, Unresolved
from claims.witness import Claim, Witness
from plugins.mutate.patching import Target, drop_caches, forced_failure, patched, resolve
from plugins.mutate.waiting import cpu_seconds, mostly_waiting

OUTPUT_TAIL_LINES = 12
CHILD_ERROR_EXIT = 70


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
    """How a child ended: it wrote a result, it was killed at the timeout, or it died."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"


@dataclass(frozen=True)
class RunResult:
    """A finished run: its status, each claim's outcome and reason, and its wall time.

    ``unreached`` are the asked claims that call none of the patched targets: not run, and
    passing by construction (their outcomes are not listed).
    """

    request: RunRequest
    status: RunStatus
    seconds: float
    outcomes: Mapping[str, str] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    unresolved: Mapping[str, str] = field(default_factory=dict)
    detail: str = ""
    unreached: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.OK

    @property
    def red(self) -> frozenset[str]:
        """Claims that did not pass (claims of an unresolved witness are not listed)."""
        return frozenset(c for c, outcome in self.outcomes.items() if outcome != "pass")


Progress = Callable[[RunResult, int, int], None]


def _replacement(spec: PatchSpec, target: Target) -> Callable[..., Any]:
    if spec.mutant is None:
        return forced_failure(target)
    module, _, name = spec.mutant.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


class _Reach:
    """Which claim is running now, and which targets each claim (or setup) called."""

    def __init__(self, targets: Iterable[str]) -> None:
        self.targets = frozenset(targets)
        self.current: str | None = None
        self.hits: dict[str, set[str]] = {}
        self.seconds: dict[str, tuple[float, float]] = {}

    def recorder(self, target: Target) -> Callable[..., Any]:
        original = target.callable()

        def record(*args: Any, **kwargs: Any) -> Any:
            if self.current is not None:
                self.hits.setdefault(self.current, set()).add(target.path)
            return original(*args, **kwargs)

        return record

    @contextmanager
    def as_(self, who: str) -> Iterator[None]:
        drop_caches(self.targets)  # or a claim served from another's cache calls less
        self.current = who
        wall, cpu = time.perf_counter(), cpu_seconds()
        try:
            yield
        finally:
            self.current = None
            self.seconds[who] = (time.perf_counter() - wall, cpu_seconds() - cpu)


class Runner:
    """The warm parent: a session with the witnesses resolved, forking one child per run."""

    def __init__(self, plugins: Sequence[str], witnesses: Sequence[str]) -> None:
        """Start the session and resolve the witnesses; call it inside
        :func:`~plugins.mutate.profile.verdict_profile` (as :func:`.harness.run_harness`
        does), so the witnesses are imported, and the children forked, under it."""
        self.session = Session.start(plugins)
        self.plugins = tuple(plugins)
        self.resolutions = self.session.resolve_all(witnesses)
        self.reach: dict[str, frozenset[str]] | None = None
        self.seconds: dict[str, tuple[float, float]] = {}
        """Baseline wall and CPU seconds of each claim and of each ``setup:W``."""

    # -- in the child -------------------------------------------------------------------

    def _claims(self, witness: Witness, wanted: set[str] | None) -> list[Claim]:
        return [c for c in witness.claims if wanted is None or c.id in wanted]

    def _run_witness(
        self, witness: Witness, chosen: list[Claim], reach: _Reach | None
    ) -> dict[str, dict[str, str]]:
        with reach.as_(f"setup:{witness.name}") if reach else _nothing():
            unresolved = self.session.prepare(witness)
        if unresolved is not None:
            return {c.id: {"outcome": Outcome.ERROR.value, "reason": unresolved} for c in chosen}
        found: dict[str, dict[str, str]] = {}
        for claim in chosen:
            with reach.as_(claim.id) if reach else _nothing():
                verdict = self.session.run_claim(claim).verdict
            found[claim.id] = {"outcome": verdict.outcome.value, "reason": verdict.reason}
        return found

    def execute(
        self,
        request: RunRequest,
        wanted: set[str] | None,
        recorded: Sequence[str] = (),
    ) -> dict[str, Any]:
        """Run ``request`` in this process (the child); ``recorded``: targets to watch."""
        reach = _Reach(recorded) if recorded else None
        replacements = [
            (t, _replacement(p, t)) for p in request.patches for t in [resolve(p.target)]
        ]
        if reach is not None:
            replacements += [(t, reach.recorder(t)) for t in map(resolve, recorded)]
        outcomes: dict[str, dict[str, str]] = {}
        unresolved: dict[str, str] = {}
        with patched(replacements):
            for resolution in self.resolutions:
                if resolution.name not in request.witnesses:
                    continue
                if isinstance(resolution, Unresolved):
                    unresolved[resolution.name] = resolution.reason
                    continue
                chosen = self._claims(resolution, wanted)
                if chosen:
                    outcomes.update(self._run_witness(resolution, chosen, reach))
        hits = {who: sorted(targets) for who, targets in reach.hits.items()} if reach else {}
        seconds = reach.seconds if reach else {}
        return {"outcomes": outcomes, "unresolved": unresolved, "reach": hits, "seconds": seconds}

    # -- in the parent ------------------------------------------------------------------

    def baseline(self, request: RunRequest, targets: Sequence[str], timeout: float) -> RunResult:
        """The clean run, recording which of ``targets`` each claim reaches."""
        child = _Child.fork(self, request, None, tuple(dict.fromkeys(targets)))
        result, body = child.wait(timeout)
        if result.ok:
            self.reach = self._reach_of(body.get("reach", {}))
            self.seconds = {k: (float(w), float(c)) for k, (w, c) in body["seconds"].items()}
        return result

    def _reach_of(self, hits: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
        reach: dict[str, frozenset[str]] = {}
        for resolution in self.resolutions:
            if isinstance(resolution, Unresolved):
                continue
            setup = frozenset(hits.get(f"setup:{resolution.name}", ()))
            for claim in resolution.claims:
                reach[claim.id] = setup | frozenset(hits.get(claim.id, ()))
        return reach

    def _asked(self, request: RunRequest) -> list[str]:
        return [
            c.id
            for r in self.resolutions
            if not isinstance(r, Unresolved) and r.name in request.witnesses
            for c in r.claims
            if request.claims is None or c.id in request.claims
        ]

    def _wanted(self, request: RunRequest) -> tuple[set[str], tuple[str, ...]]:
        """The asked claims that reach a patched target, and the ones that do not."""
        asked = self._asked(request)
        if self.reach is None or not request.patches:
            return set(asked), ()
        patched_targets = {p.target for p in request.patches}
        wanted = {c for c in asked if self.reach.get(c, frozenset()) & patched_targets}
        return wanted, tuple(c for c in asked if c not in wanted)

    def estimate(self, wanted: set[str]) -> tuple[float, float]:
        """Baseline wall and CPU seconds of ``wanted`` and their witnesses' setups."""
        setups = {
            f"setup:{c.witness}" for r in self._resolved() for c in r.claims if c.id in wanted
        }
        spent = [self.seconds.get(who, (0.0, 0.0)) for who in (*wanted, *setups)]
        return sum(w for w, _ in spent), sum(c for _, c in spent)

    def waits(self, wanted: set[str]) -> bool:
        """Whether a run of ``wanted`` spent the baseline mostly waiting, not computing."""
        wall, cpu = self.estimate(wanted)
        return mostly_waiting(wall, cpu)

    def _resolved(self) -> list[Witness]:
        return [r for r in self.resolutions if isinstance(r, Witness)]

    def run_all(
        self,
        requests: Sequence[RunRequest],
        timeout: float,
        jobs: int,
        progress: Progress | None = None,
    ) -> list[RunResult]:
        """Run every request, up to ``jobs`` computing and ``jobs`` waiting children at a
        time, the longest first; results in request order."""
        results: dict[int, RunResult] = {}
        running: dict[int, _Child] = {}
        queues: dict[bool, list[tuple[int, set[str], tuple[str, ...]]]] = {False: [], True: []}

        def finished(index: int, result: RunResult) -> None:
            results[index] = result
            if progress is not None:
                progress(result, len(results), len(requests))

        for index, request in enumerate(requests):
            wanted, unreached = self._wanted(request)
            if not wanted:
                unresolved = self._unresolved(request)
                finished(
                    index,
                    RunResult(request, RunStatus.OK, 0.0, {}, {}, unresolved, "", unreached),
                )
                continue
            queues[self.waits(wanted)].append((index, wanted, unreached))
        for queue in queues.values():
            queue.sort(key=lambda item: -self.estimate(item[1])[0])  # stable: ties keep order
        kinds: dict[int, bool] = {}
        while any(queues.values()) or running:
            for kind, queue in queues.items():
                while queue and sum(1 for k in running if kinds[k] is kind) < max(1, jobs):
                    index, wanted, unreached = queue.pop(0)
                    kinds[index] = kind
                    running[index] = _Child.fork(
                        self, requests[index], wanted, (), unreached, timeout
                    )
            for index in _Child.next_done(running) if running else ():
                result, _ = running.pop(index).wait(timeout)
                finished(index, result)
        return [results[i] for i in range(len(requests))]

    def _unresolved(self, request: RunRequest) -> dict[str, str]:
        return {
            r.name: r.reason
            for r in self.resolutions
            if isinstance(r, Unresolved) and r.name in request.witnesses
        }


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@dataclass
class _Child:
    """One forked run: its pid, the pipe its result comes on, and its output log."""

    request: RunRequest
    pid: int
    result_pipe: int
    log: IO[bytes]
    started: float
    deadline: float
    unreached: tuple[str, ...] = ()
    received: bytearray = field(default_factory=bytearray)
    ended: bool = False

    @classmethod
    def fork(
        cls,
        runner: Runner,
        request: RunRequest,
        wanted: set[str] | None,
        recorded: tuple[str, ...],
        unreached: tuple[str, ...] = (),
        timeout: float = float("inf"),
    ) -> _Child:
        read_end, write_end = os.pipe()
        log = tempfile.TemporaryFile()
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            os.close(read_end)
            _child_main(runner, request, wanted, recorded, write_end, log.fileno())
        os.close(write_end)
        return cls(request, pid, read_end, log, started, started + timeout, unreached)

    @staticmethod
    def next_done(running: Mapping[int, _Child]) -> list[int]:
        """Read every running child's pipe until at least one is done or past its deadline."""
        with selectors.DefaultSelector() as selector:
            for index, child in running.items():
                selector.register(child.result_pipe, selectors.EVENT_READ, index)
            while True:
                now = time.monotonic()
                late = [i for i, c in running.items() if c.deadline <= now]
                if late:
                    return late
                wait = min(c.deadline for c in running.values()) - now
                done = []
                for key, _ in selector.select(timeout=min(wait, 1.0)):
                    index = key.data
                    chunk = os.read(key.fd, 1 << 16)
                    if chunk:
                        running[index].received += chunk
                    else:
                        running[index].ended = True
                        done.append(index)
                if done:
                    return done

    def wait(self, timeout: float) -> tuple[RunResult, dict[str, Any]]:
        """Collect the child: its result, or why there is none (killed at the deadline)."""
        if not self.ended:
            self.deadline = min(self.deadline, self.started + timeout)
            _Child.next_done({0: self})
        timed_out = not self.ended
        if timed_out:
            os.kill(self.pid, signal.SIGKILL)
        _, status = os.waitpid(self.pid, 0)
        os.close(self.result_pipe)
        seconds = time.monotonic() - self.started
        tail = _tail(self.log)
        self.log.close()
        if timed_out:
            detail = f"no result after {timeout:.1f} s; killed" + tail
            return RunResult(self.request, RunStatus.TIMEOUT, seconds, detail=detail), {}
        body = _body(self.received) if os.waitstatus_to_exitcode(status) == 0 else None
        if body is None:
            code = os.waitstatus_to_exitcode(status)
            detail = f"exit code {code}, no result" + tail
            return RunResult(self.request, RunStatus.CRASH, seconds, detail=detail), {}
        outcomes = body["outcomes"]
        result = RunResult(
            self.request,
            RunStatus.OK,
            seconds,
            outcomes={c: o["outcome"] for c, o in outcomes.items()},
            reasons={c: o["reason"] for c, o in outcomes.items() if o["reason"]},
            unresolved=dict(body.get("unresolved", {})),
            unreached=self.unreached,
        )
        return result, body


def _body(received: bytes | bytearray) -> dict[str, Any] | None:
    try:
        body = json.loads(received.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return body if isinstance(body, dict) and "outcomes" in body else None


def _child_main(
    runner: Runner,
    request: RunRequest,
    wanted: set[str] | None,
    recorded: tuple[str, ...],
    result_fd: int,
    log_fd: int,
) -> None:  # pragma: no cover - runs in the forked child, which leaves with os._exit
    """The child's whole life: its output to the log, run, write the result, leave."""
    code = CHILD_ERROR_EXIT
    try:
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # as a process starts
            signal.signal(signum, signal.SIG_DFL)
        payload = json.dumps(runner.execute(request, wanted, recorded)).encode("utf-8")
        view = memoryview(payload)
        while view:
            view = view[os.write(result_fd, view) :]
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    lines = log.read().decode(errors="replace").strip().splitlines()[-OUTPUT_TAIL_LINES:]
    return "; output:\n" + "\n".join(f"    {line}" for line in lines) if lines else ""
