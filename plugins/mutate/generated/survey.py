"""The generated survey's worker: every claim under every mutant, in one process.

``python -m plugins.mutate.generated.survey REQUEST.json`` runs inside ``mutants/`` (the trampolined
planner first on the import path, the project's own sources never). It streams one JSON
object per line on stdout:

- ``baseline``: every claim with no mutant and its time, in wall and CPU seconds (the pool
  gives mutants whose claims mostly waited workers of their own: :mod:`..waiting`); a red
  claim stops the survey here;
  with it, what importing the witnesses' modules ran (``setup["(import)"]``) and, per
  witness, what its ``setup()`` ran (``setup``): the mutated functions called then, and
  whether a process was started. Imports and setup run once, with no mutant, so a claim
  that reads what they computed is judged on it as the original made it: a fresh run on the
  mutated source may differ there (the audit names such cells);
- ``baseline_progress``: every few seconds during the baseline, how many claims it has run;
- ``coverage``: per mutated function, the claims that call it, recorded in the baseline's
  own pass (mutmut's ``stats`` mode calls the originals, so its verdicts are the baseline's);
- ``forced_fail``: which of the claims that call a mutated function go red when every
  trampoline raises (``"fail"``);
- ``mutant``: per mutant, the claims that call its function (``coveredBy``; every claim
  with ``exhaustive``) and the ones that went red (``killedBy``), all of them — no claim
  stops the others. Each claim gets the smaller of its mutant's budget (``2 s + 10 ×`` its
  claims' baseline time) and the larger of 30 s and its own (:func:`claim_budgets`),
  enforced with SIGALRM; a mutant with a claim past its budget is a timeout;
- ``canary``: every so often and at the end, with no mutant, the claims that ran under a
  mutant since the last canary, to prove no mutant left state behind that changed one of
  their verdicts (a red canary ends the worker). A claim that ran under no mutant has no
  verdict such state could have changed, so no canary runs it;
- ``done``.

Claims re-plan on every call; what the planner keeps between calls (a parser, a parsed file)
is dropped at every switch (:func:`plugins.mutate.patching.drop_caches`), so switching the
active mutant between claims is all a mutant needs. The environment and working directory
are restored after every mutant.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict

from claims import PassThrough, Session, Unresolved
from claims.config import NO_CONFIG
from claims.exits import Exit
from claims.memo import memo_dir
from claims.profile import deterministic_hypothesis
from claims.witness import Claim
from plugins.mutate.generated import dispatch
from plugins.mutate.generated.cellkeys import (
    REUSED,
    Keys,
    Scope,
    Trace,
    Tracer,
    cell_key,
    trace_json,
)
from plugins.mutate.generated.infection import (
    SPAWN_EVENTS,
    WORTH_SECONDS,
    Decided,
    Infection,
    Watch,
    may_run_python,
)
from plugins.mutate.generated.mutmut_bridge import source_paths
from plugins.mutate.generated.spawned import SpawnLog
from plugins.mutate.patching import drop_caches
from plugins.mutate.profile import load_verdict_profile
from plugins.mutate.waiting import cpu_seconds

STATS = "stats"
BASELINE_PROGRESS_SECONDS = 10.0
"""How often a worker says how far its baseline is (``baseline_progress``)."""

MUTANT_ENV = "MUTANT_UNDER_TEST"
BUDGET_SECONDS = 2.0
BUDGET_FACTOR = 10.0
CANARY_EVERY = 250
REASON_LIMIT = 400
AGAIN_SECONDS = 1.0
HUNG_SECONDS = 30.0
"""A claim under a mutant runs at least this long (within its mutant's budget) before it
counts as hung (:func:`claim_budgets`)."""
HANDOFF_SECONDS = 600.0
"""How long a worker waits for the pool's hand-off (:attr:`SurveyRequest.handoff`)."""


class SettledClaim(BaseModel):
    """What the baseline would have found of a claim it does not run: a settled claim's, from
    the reused report; or, for a restarted worker, what the first baseline found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str | None
    """Its key (:mod:`.cellkeys`), or none when the survey keys no cell."""
    seconds: float
    covers: tuple[str, ...]


IMPORTED = "(import)"
"""The ``setup`` key of what importing the witnesses' modules ran: module-level code runs
once per process, when the first witness imports the module, and what it made (a table, a
parser) serves every witness's claims, so it is recorded for all of them, apart from each
witness's own ``setup()``."""


class SetupFound(BaseModel):
    """What importing the witnesses (key :data:`IMPORTED`) or running one's ``setup()`` ran,
    with no mutant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    functions: tuple[str, ...] = ()
    """The mutated functions called (their coverage keys, as in the ``coverage`` event)."""
    spawned: bool = False
    """Whether a process that may run the project's code was started (a fork, a Python
    interpreter, a shell): what it ran, no recording in this one sees."""
    seconds: float = 0.0
    """Its wall time (the imports': all of them). What a fresh process running one of the
    witness's claims pays before the claim: the audit's allowance for it."""

    def then(self, more: SetupFound) -> SetupFound:
        """This and a later part of the same setup in one worker (the imports go in parts):
        both wall times together."""
        return self._with(more, round(self.seconds + more.seconds, 3))

    def across(self, other: SetupFound) -> SetupFound:
        """The same setup as another worker saw it: the longer wall time (a worker that found
        a run another one remembered was quicker than a fresh process would be)."""
        return self._with(other, max(self.seconds, other.seconds))

    def _with(self, other: SetupFound, seconds: float) -> SetupFound:
        """Both together: the functions either called, spawned when either did."""
        return SetupFound(
            functions=tuple(sorted({*self.functions, *other.functions})),
            spawned=self.spawned or other.spawned,
            seconds=seconds,
        )


class CellKeys(BaseModel):
    """What a worker needs to key its cells (:mod:`.cellkeys`) and reuse an earlier report's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: str
    tree: str
    variants: dict[str, str] = {}
    """Mutant -> the digest of its code (this worker's share)."""
    reuse: str | None = None
    """A JSON file of cell key -> red (``--reuse``), or none."""
    settled: dict[str, SettledClaim] = {}
    """Claims the baseline does not run again (:func:`.cellkeys.settled_claims`)."""


class SurveyRequest(BaseModel):
    """What one survey worker does: which plugins, witnesses and mutants."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    plugins: tuple[str, ...] = ()
    witnesses: tuple[str, ...]
    mutants: tuple[str, ...]
    exhaustive: bool = False
    skip: bool = True
    """Decide the cells of a mutant that is not infected on a claim's calls without running
    them (:mod:`.infection`); never with ``exhaustive``."""
    skip_worth: float = WORTH_SECONDS
    """Only claims whose baseline took at least this long are replayed (speed, not verdict)."""
    plain_trampoline: bool = False
    """mutmut's trampoline decides every call (:mod:`.dispatch` is not installed)."""
    project_root: str
    pythonpath: tuple[str, ...] = ()
    """The project's ``[tool.claims] pythonpath``, relative to its root (the pool puts each
    first on the worker's ``PYTHONPATH``, under ``mutants/`` for the generated survey)."""
    keys: CellKeys | None = None
    """Record each claim's key in the baseline and key every cell (:mod:`.cellkeys`)."""
    resumed: dict[str, SettledClaim] = {}
    """A restarted worker's: every claim's baseline as the pool kept it from the first, so
    the worker runs no claim before its mutants (its forced-fail run was the first's too).
    It records no calls, so it decides no cell by infection: each covering claim runs."""
    handoff: str | None = None
    """A file the pool writes once it has the first baseline's coverage: a JSON list of the
    mutants given to the waiting workers (:mod:`..waiting`), which this worker leaves out of
    its share. It judges no mutant before the file is there."""


class MutantTimeout(PassThrough):
    """Raised by SIGALRM when a claim outlives its budget under a mutant; no claim code
    catches it."""


def mutant_budget(baselines: Iterable[float]) -> float:
    """A mutant's budget, 2 s + 10 × its claims' baseline time: the most any one of them may
    take under it (:func:`claim_budgets`)."""
    return BUDGET_SECONDS + BUDGET_FACTOR * sum(baselines)


def claim_budgets(baselines: Sequence[float]) -> list[float]:
    """Each claim's budget under a mutant whose claims took ``baselines``: the mutant's, but
    at most the claim's own (its :func:`mutant_budget` alone) or :data:`HUNG_SECONDS`,
    whichever is longer. A claim the mutant hangs is stopped no later than before, and sooner
    when its mutant's other claims are slow (the ssh claims made that 10 minutes); a fast one
    the mutant makes wait on a timeout still has time to end."""
    whole = mutant_budget(baselines)
    return [min(whole, max(HUNG_SECONDS, mutant_budget([b]))) for b in baselines]


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise MutantTimeout


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Raise :class:`MutantTimeout` in this thread after ``seconds``, and again every
    :data:`AGAIN_SECONDS` until the block is left: code under a mutant that swallows the
    first, or then waits forever in a ``finally``, is stopped too (on the planner, a mutant
    that drops a wait's timeout hung the cleanup of the claim it had timed out)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, AGAIN_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def event_stream() -> Iterator[TextIO]:
    """The worker's events go to its stdout and nothing else does: for the duration, file
    descriptor 1 and ``sys.stdout`` point at stderr, so what a claim prints, or a process a
    mutant starts writes, lands in the worker's log, not in the event stream."""
    sys.stdout.flush()
    events = os.dup(1)
    os.dup2(2, 1)
    saved = sys.stdout
    sys.stdout = sys.stderr
    out = os.fdopen(events, "w", encoding="utf-8", errors="replace")
    try:
        yield out
    finally:
        out.flush()
        sys.stdout = saved
        os.dup2(out.fileno(), 1)
        out.close()


def isolate_imports(project_root: Path) -> None:
    """Import from ``mutants/`` (the working directory), never from the project's sources."""
    root = project_root.resolve()
    here = Path.cwd().resolve()
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != root]
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))


def prepare_process(request: SurveyRequest) -> None:
    """Before the project is imported: its copy in ``mutants/`` first on the import path,
    and the faster trampoline dispatch unless the request says otherwise."""
    isolate_imports(Path(request.project_root))
    if not request.plain_trampoline:
        dispatch.install()


def set_mutant(name: str) -> None:
    """Switch every trampoline (``""`` original, ``stats``, ``fail``, or a mutant name).

    A mutant or ``fail`` reaches the processes a claim starts too (through the environment);
    ``stats`` stays in this process: a subprocess would record into a state of its own that
    no one reads, and, started elsewhere, fail to find mutmut's configuration."""
    from mutmut.mutation.trampoline import set_mutant_under_test

    set_mutant_under_test(name)
    dispatch.select(name)
    if name == STATS:
        os.environ.pop(MUTANT_ENV, None)  # the process-local copy still says "stats"


def _load_mutmut_config() -> None:
    """Read mutmut's configuration now, from ``mutants/``: ``stats`` mode reads it at its
    first recorded call, which may come from a claim working in a directory of its own."""
    from mutmut.configuration import config

    config()


def recorded_hits() -> set[str]:
    """The functions mutmut's ``stats`` mode saw called since the last :func:`clear_hits`."""
    from mutmut.state import state

    return set(state()._stats)


def clear_hits() -> None:
    from mutmut.state import state

    state()._stats.clear()


class Worker:
    """Runs the claims of the survey's witnesses, one at a time, through the kernel, inside a
    survey process (the pool in :mod:`.workers` holds a ``WorkerProcess`` handle on it)."""

    baseline_mode = STATS
    """What the baseline pass switches to: mutmut's ``stats`` mode records the calls."""

    def __init__(self, request: SurveyRequest, out: TextIO) -> None:
        self.request = request
        self.out = out
        self.tracer, self.keys = self._keyed()
        # The parent's configuration arrives as plugin arguments: mutants/ holds a copy of it
        # whose paths would lead back to the sources.
        self.setup: dict[str, SetupFound] = {}
        """Witness (or :data:`IMPORTED`) -> what its ``setup()`` (or importing the witnesses'
        modules) ran: the ``baseline`` event's."""
        with self._tracing() as self.setup_trace:
            self.session = Session.start(request.plugins, config=NO_CONFIG)
            self._import_witnesses()
        self.witness_traces: dict[str, Trace] = {}
        self.claims = self._claims()
        self.scope = self._scope()
        self.claim_keys: dict[str, str] = {}
        self.claim_traces: dict[str, dict[str, Any]] = {}
        self.unchecked: set[str] = set()
        """The claims run under a mutant since the last canary: the ones whose verdicts state
        a mutant left behind could have changed, which the next canary runs again."""
        self.running = ""
        """The claim :meth:`run` is in, or was in last (the one a timeout stopped)."""
        self.settled = self.request.keys.settled if self.request.keys else {}
        self.reusable = self._reusable()
        self.baseline_seconds: dict[str, float] = {}
        self.baseline_cpu: dict[str, float] = {}
        """The CPU seconds of each claim the baseline ran (none of a settled claim)."""
        self.covered: dict[str, list[str]] = {}
        self.packages = self._packages()
        self.infection = self._infection()

    def _keyed(self) -> tuple[Tracer | None, Keys | None]:
        keys = self.request.keys
        if keys is None or self.baseline_mode != STATS:
            return None, None
        root = Path(self.request.project_root)
        tracer = Tracer([Path.cwd(), root], memo_dir())
        return tracer, Keys(root, keys.base, keys.tree)

    def _scope(self) -> Scope | None:
        if self.tracer is None:
            return None
        wanted = set(self.request.witnesses)
        modules = {e.name: e.module for e in self.session.registry.witnesses if e.name in wanted}
        return Scope(self.tracer, Path(self.request.project_root), modules)

    def _tracing(self) -> AbstractContextManager[Trace]:
        return nullcontext(Trace()) if self.tracer is None else self.tracer.recording()

    def _reusable(self) -> dict[str, bool]:
        keys = self.request.keys
        if keys is None or keys.reuse is None:
            return {}
        table: dict[str, bool] = json.loads(Path(keys.reuse).read_text(encoding="utf-8"))
        return table

    def _infection(self) -> Infection | None:
        """Skipping for mutmut's mutants only (a worker whose baseline is ``stats``)."""
        if self.request.resumed:
            return None  # it records no call to replay (see SurveyRequest.resumed)
        if not self.request.skip or self.request.exhaustive or self.baseline_mode != STATS:
            return None
        roots = frozenset(p.partition(".")[0] for p in self.packages)
        # the worker's working directory is the copy it imports from (mutants/)
        return Infection(roots, self.request.mutants, spawns=SpawnLog(Path.cwd()))

    def _packages(self) -> tuple[str, ...]:
        """The packages under test, whose caches a switch drops (mutmut's source paths)."""
        roots = source_paths(Path(self.request.project_root))
        return tuple(p.as_posix().replace("/", ".") for p in roots)

    def _import_witnesses(self) -> None:
        """Import every witness module (and what it imports) before any is resolved, so the
        module-level code they run is in every claim's key and every witness's setup
        (:data:`IMPORTED`), not in the first importer's alone. A module that does not import
        is left to its resolution, which says why."""
        wanted = set(self.request.witnesses)
        for entry in self.session.registry.witnesses:
            if entry.name in wanted:
                # as the kernel imports them: hypothesis settings made at import are derandomized
                with self._setting_up(IMPORTED), contextlib.suppress(Exception):
                    with deterministic_hypothesis():
                        importlib.import_module(entry.module)

    @contextmanager
    def _setting_up(self, witness: str) -> Iterator[None]:
        """Note what the block (``witness``'s ``setup()``, or the imports) runs: the mutated
        functions it calls (in ``stats`` mode, which calls the originals) and whether it
        starts a process that may run the project's code, whose calls no recording sees."""
        stats = self.baseline_mode == STATS
        if stats:
            set_mutant(STATS)
            clear_hits()
        start = time.perf_counter()
        try:
            with Watch.watching(SPAWN_EVENTS, may_run_python) as started:
                yield
        finally:
            called = recorded_hits() if stats else set()
            if stats:
                set_mutant("")
                clear_hits()
            part = SetupFound(
                functions=tuple(called),
                spawned=bool(started),
                seconds=time.perf_counter() - start,
            )
            self.setup[witness] = self.setup.get(witness, SetupFound()).then(part)

    def _claims(self) -> list[Claim]:
        found: list[Claim] = []
        for name in self.request.witnesses:  # each traced apart: its claims' keys hold it
            with self._tracing() as trace, self._setting_up(name):
                (resolution,) = self.session.resolve_all([name])
                if isinstance(resolution, Unresolved):
                    raise RuntimeError(f"witness {name} is unresolved: {resolution.reason}")
                if resolution.claims and self.session.prepare(resolution) is not None:
                    raise RuntimeError(f"witness {name}: setup() failed")
            self.witness_traces[name] = trace
            found += resolution.claims
        return found

    def emit(self, event: str, **body: Any) -> None:
        print(json.dumps({"event": event, **body}), file=self.out, flush=True)

    def run(self, claims: Sequence[Claim], budgets: Sequence[float] = ()) -> dict[str, str]:
        """Claim id -> the reason it is red, for the claims that did not pass; with
        ``budgets``, each claim within its own (:class:`MutantTimeout` past it)."""
        red: dict[str, str] = {}
        for index, claim in enumerate(claims):
            self.running = claim.id
            seconds = budgets[index] if budgets else None
            with budget(seconds) if seconds is not None else nullcontext():
                verdict = self.session.run_claim(claim).verdict
            if not verdict.passed:
                red[claim.id] = (verdict.reason or verdict.outcome.value)[:REASON_LIMIT]
        return red

    def switch(self, name: str) -> None:
        """Make ``name`` the mutant every call reaches (``""``: none); what the code under
        test kept in its caches was computed by the code before the switch, and is dropped."""
        set_mutant(name)
        drop_caches(self.packages)

    def coverage_key(self, mutant: str) -> str:
        """What :meth:`coverage` maps to the claims that reach ``mutant``."""
        return mutant.partition("__mutmut_")[0]

    def baseline(self) -> bool:
        """Every claim with no mutant, timed; in the same pass, which mutated functions each
        claim calls (``baseline_mode``: mutmut's ``stats`` mode, which calls the originals,
        so the verdicts are the baseline's)."""
        self.switch(self.baseline_mode)
        red: dict[str, str] = {}
        ran = 0
        said = time.perf_counter()
        if self.infection is not None:
            self.infection.install()
        try:
            for done, claim in enumerate(self.claims):
                if time.perf_counter() - said >= BASELINE_PROGRESS_SECONDS:
                    self.emit("baseline_progress", done=done, total=len(self.claims))
                    said = time.perf_counter()
                known = self.settled.get(claim.id) or self.request.resumed.get(claim.id)
                if known is not None:
                    self._settle(claim.id, known)
                    continue
                ran += 1
                self.clear_hits()
                drop_caches(self.packages)  # each claim's calls recorded whole
                start, cpu = time.perf_counter(), cpu_seconds()
                with self._recording(claim.id), self._tracing() as trace:
                    red |= self.run([claim])
                self.baseline_seconds[claim.id] = time.perf_counter() - start
                self.baseline_cpu[claim.id] = cpu_seconds() - cpu
                if self.keys is not None and self.scope is not None:
                    own = trace | self.witness_traces[claim.witness]
                    whole = self.scope.narrow(own | self.setup_trace, own, claim.witness)
                    self.claim_keys[claim.id] = self.keys.claim_key(whole, Trace())
                    self.claim_traces[claim.id] = trace_json(whole)
                for function in sorted(self.hits()):
                    self.covered.setdefault(function, []).append(claim.id)
        finally:
            self.switch("")
            if self.infection is not None:
                self.infection.uninstall()
        self.emit(
            "baseline",
            claims=[_describe(c) for c in self.claims],
            red=red,
            seconds=self.baseline_seconds,
            cpu=self.baseline_cpu,
            keys=self.claim_keys,
            traces=self.claim_traces,
            settled=sorted(self.settled),
            replay=self.infection.summary() if self.infection is not None else None,
            resumed=bool(self.request.resumed) and not ran,
            setup={w: found.model_dump() for w, found in sorted(self.setup.items())},
            trampoline=dispatch.installed(),
        )
        return not red

    def _settle(self, claim: str, settled: SettledClaim) -> None:
        self.baseline_seconds[claim] = settled.seconds
        if settled.key is not None:
            self.claim_keys[claim] = settled.key
        for function in settled.covers:
            self.covered.setdefault(function, []).append(claim)

    def _recording(self, claim: str) -> AbstractContextManager[None]:
        """Record ``claim``'s calls of the functions infection may replay."""
        if self.infection is None:
            return nullcontext()
        return self.infection.recording_claim(claim)

    def hits(self) -> set[str]:
        """The functions the baseline pass saw called since :meth:`clear_hits`."""
        return recorded_hits()

    def clear_hits(self) -> None:
        clear_hits()

    def coverage(self) -> dict[str, list[str]]:
        """Emit what the baseline pass recorded: per mutated function, its claims."""
        self.emit("coverage", functions=self.covered)
        return self.covered

    def forced_fail(self) -> None:
        """The claims that call a mutated function, with every trampoline raising: each must
        go red (one that stays green swallows the error, or its coverage is wrong). A claim
        that calls none runs as in the baseline, so it is not run again here."""
        calling = {c for claims in self.covered.values() for c in claims} - set(self.settled)
        self.switch("fail")
        try:
            red = self.run([c for c in self.claims if c.id in calling])
        finally:
            self.switch("")
        self.emit("forced_fail", red=sorted(red))

    def canary(self, after: str) -> bool:
        """The claims run under a mutant since the last canary, again with no mutant: each
        must be green (a persistent leftover that turned one red would have made its kills
        since then false); ``False`` when one is red."""
        self.switch("")
        checked = [c for c in self.claims if c.id in self.unchecked]
        red = self.run(checked)
        self.unchecked.clear()
        self.emit("canary", after=after, red=red, ran=len(checked))
        return not red

    def mutant(self, name: str, covering: Sequence[Claim]) -> None:
        """Run the claims that cover ``name`` (every claim with ``exhaustive``) under it, but
        those whose cells infection decides (:meth:`skips`)."""
        start = time.perf_counter()
        chosen = list(self.claims) if self.request.exhaustive else list(covering)
        skipped = self.reused(name, chosen)
        skipped |= self.skips(name, [c for c in chosen if c.id not in skipped])
        chosen = [c for c in chosen if c.id not in skipped]
        baselines = [self.baseline_seconds[c.id] for c in chosen]
        seconds = mutant_budget(baselines)
        kept = ProcessState.now()
        status, red, timed_out = "ok", {}, ""
        try:
            self.switch(name)
            self.unchecked.update(c.id for c in chosen)
            red = self.run(chosen, claim_budgets(baselines))
        except MutantTimeout:
            status, timed_out = "timeout", self.running
        finally:
            self.switch("")
            kept.restore()
        if status == "ok" and self.infection is not None:
            self.infection.remember(name, red, [c.id for c in chosen])
        red |= {c: f"{why}, which this claim turned red" for c, (why, r) in skipped.items() if r}
        self.emit(
            "mutant",
            name=name,
            status=status,
            ran=[c.id for c in chosen],
            covered=[c.id for c in covering],
            red=red,
            skipped={c: why for c, (why, _) in skipped.items()},
            ms=round((time.perf_counter() - start) * 1000, 1),
            budget=seconds,
            timed_out=timed_out,
        )

    def reused(self, name: str, chosen: Sequence[Claim]) -> Decided:
        """The cells of ``name`` whose key the reused report decided (``--reuse``)."""
        variant = self.request.keys.variants.get(name) if self.request.keys else None
        if variant is None or not self.reusable:
            return {}
        found: Decided = {}
        for claim in chosen:
            key = self.claim_keys.get(claim.id)
            cell = cell_key(variant, key) if key is not None else None
            if cell is not None and cell in self.reusable:
                found[claim.id] = (f"{REUSED}{cell}", self.reusable[cell])
        return found

    def skips(self, name: str, chosen: Sequence[Claim]) -> Decided:
        """The cells of ``name`` decided without a run: not infected, or the same as another
        mutant's (:mod:`.infection`); none with skipping off."""
        if self.infection is None:
            return {}
        kept = ProcessState.now()
        try:
            worth = [c.id for c in chosen if self.baseline_seconds[c.id] >= self.request.skip_worth]
            return self.infection.decide(name, worth, self.switch)
        finally:
            kept.restore()


def _describe(claim: Claim) -> dict[str, object]:
    return {
        "id": claim.id,
        "witness": claim.witness,
        "name": claim.name,
        "kind": claim.kind.value,
        "module": claim.module,
        "line": claim.lineno,
    }


KEPT_SIGNALS = (
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGPIPE,
    signal.SIGCHLD,
    signal.SIGUSR1,
    signal.SIGUSR2,
)
"""The signals whose handlers a mutant's claims may leave changed (``SIGALRM`` is the
budget's own)."""


@dataclass(frozen=True)
class ProcessState:
    """What a mutant's claims may leave changed in the worker, put back after each mutant:
    the environment, the working directory and the signal handlers (a mutant of a cleanup
    that forgets to restore a handler must not judge the next mutant's claims)."""

    env: dict[str, str]
    cwd: str
    handlers: dict[signal.Signals, Any]

    @classmethod
    def now(cls) -> ProcessState:
        handlers = {s: signal.getsignal(s) for s in KEPT_SIGNALS}
        return cls(dict(os.environ), os.getcwd(), handlers)

    def restore(self) -> None:
        os.environ.clear()
        os.environ.update(self.env)
        os.chdir(self.cwd)
        for signum, handler in self.handlers.items():
            if handler is not None and signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)


def survey(request: SurveyRequest, out: TextIO, worker: Worker | None = None) -> int:
    """Baseline, coverage, forced fail, then every requested mutant; 0 when it all ran."""
    worker = worker or Worker(request, out)
    if not worker.baseline():
        return Exit.BASELINE
    covered = worker.coverage()
    if not request.resumed:
        worker.forced_fail()
    by_id = {c.id: c for c in worker.claims}
    left = handed_off(request.handoff)
    mutants = [m for m in request.mutants if m not in left]
    for index, name in enumerate(mutants, start=1):
        worker.mutant(name, [by_id[c] for c in covered.get(worker.coverage_key(name), ())])
        if index % CANARY_EVERY == 0 and not worker.canary(after=name):
            return Exit.COLLATERAL
    if not worker.canary(after="the last mutant"):
        return Exit.COLLATERAL
    worker.emit("done")
    return Exit.OK


def handed_off(path: str | None, seconds: float = HANDOFF_SECONDS) -> frozenset[str]:
    """The mutants the pool gave the waiting workers, once its hand-off file is there (none
    without one); a pool that never writes it within ``seconds`` is gone: the worker ends."""
    if path is None:
        return frozenset()
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no hand-off from the survey pool in {seconds:g} s: {path}")
        time.sleep(0.02)
    names = json.loads(Path(path).read_text(encoding="utf-8"))
    return frozenset(str(n) for n in names)


def main(argv: Sequence[str]) -> int:
    """``python -m plugins.mutate.generated.survey REQUEST.json`` (working directory:
    ``mutants/``)."""
    request = SurveyRequest.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    prepare_process(request)
    _load_mutmut_config()
    os.environ[MUTANT_ENV] = ""
    load_verdict_profile()
    with event_stream() as out:
        return survey(request, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
