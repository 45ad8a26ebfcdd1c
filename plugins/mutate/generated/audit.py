"""The generated survey's verdict audit: a sample of its cells re-judged the slow, obvious way.

The survey decides each (mutant, claim) cell of the kill matrix in one warm process that
switches mutmut's trampolines, and decides some without running them: a claim that never
calls the mutated function is green without a run (``not_reached``). The audit checks both:

1. **The cells.** Every cell of a mutant the survey judged (killed, survived, equivalent or
   uncovered) with its verdict (red or green) and how it was decided (``ran``, or the reason
   it was not run). A seeded sample of ``--audit K`` of them (default 50), taken in turn
   from each reason; ``K`` at least the number of cells audits every cell.
2. **The tree.** A temporary copy of ``mutants/`` with every source file put back as
   written: nothing trampolined, no bytecode of the sources carried over.
3. **A control.** One sampled claim runs there with no mutant: it must pass (else the tree
   cannot judge anything and the audit fails). It is the claim whose witness's ``setup()``
   the survey saw take least, so it costs a start-up; its wall time plus the survey's time
   of a witness's ``setup()`` is that witness's start-up allowance (:class:`Auditor`).
4. **Each sampled cell.** The mutant's function is written into its file in the copy (the
   original file with that one function replaced by mutmut's mutated copy), and a fresh
   ``claims run WITNESS -k CLAIM --format json`` process runs that one claim, within the
   survey's budget for it times :data:`CONFIRM_FACTOR` plus twice the start-up. Its verdict
   (red, green, timeout or crashed) must equal the survey's; any cell that differs fails the
   survey (exit 9), after the report is written — with one exception, by definition: the
   survey sets a witness up once, with no mutant, so it judges each claim on what the
   original computed there, and the fresh run sets it up on the mutated source. A cell
   whose verdicts differ is *setup-bound* when the survey saw that witness's ``setup()``,
   or the import of the witnesses' modules (module-level code runs once per process, for
   every witness: a table a module makes as it is imported), call the mutated function,
   or start a process that may run the project's code (whose calls it cannot see): counted
   and listed apart with both verdicts, not a failure. A cell whose verdicts differ is
   *kernel-bound* when its mutant is of a file the claims kernel itself imports (a leaf
   package both sides share, :func:`kernel_files`): the fresh run's kernel reads its
   configuration and writes its report through the mutant, so what it says is not the
   claim's verdict alone, where the survey switches the mutant on only while claims run;
   listed apart the same way. A disagreement neither explains fails as any other.
   Cells that mostly wait (a witness whose ``setup()`` starts an sshd fleet) run in
   ``waiting`` slots beside the ``jobs`` ones (the command gives as many as ``jobs``, none
   with ``--waiting-workers 0``), the longest first; which slot a cell takes never changes
   its run. The report lists every sampled cell with both verdicts and its seconds
   (``sampledCells``).
5. **Every timeout.** A mutant the survey timed out on is run again the same way, one
   covering claim at a time (the one that timed out first), at :data:`CONFIRM_FACTOR` times
   its budget: a claim that times out again confirms it (Timeout); else the mutant is Killed
   by the claims that went red, or Survived when none did, and is listed apart as an
   unconfirmed timeout. Up to ``jobs`` timeouts are confirmed side by side.

Value mutants (``--values``) have no source to write, so only ``--generated`` is audited.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from queue import Queue
from typing import Any

from claims.memo import MEMO_DIR_ENV, private_tmpdir
from claims.witness import witness_of
from plugins.mutate.generated.mutmut_bridge import (
    MUTANTS_DIR,
    GeneratedMutant,
    mutant_source,
    source_paths,
)
from plugins.mutate.generated.survey import IMPORTED, mutant_budget
from plugins.mutate.generated.workers import MutantResult, Survey, worker_environment
from plugins.mutate.waiting import WAITING_MIN_SECONDS, mostly_waiting

DEFAULT_CELLS = 50
DEFAULT_SEED = 1
CONFIRM_FACTOR = 3.0
"""A cell's audit run, and a timeout's confirmation, get this many times the survey's budget."""
JUDGED = frozenset({"Killed", "Survived", "Ignored", "NoCoverage"})
"""Mutants whose every cell has a verdict (a timeout or a crash decided none of its cells)."""
MEASURE_SECONDS = 600.0
"""The limit of a run with no mutant (the control, a witness's start-up)."""
RAN = "ran"
NOT_REACHED = "not_reached"


@dataclass(frozen=True)
class Cell:
    """One cell of the kill matrix as the survey decided it."""

    mutant: str
    claim: str
    verdict: str
    """``red`` or ``green``."""
    reason: str
    """``ran``, or why the survey decided it without a run (``not_reached``,
    ``not_infected``, ``same_as:<mutant>``)."""

    @property
    def kind(self) -> str:
        """The reason without what it names (``same_as``)."""
        return self.reason.partition(":")[0]


@dataclass(frozen=True)
class Judged:
    """A cell re-judged in a fresh process: what that process said, and how long it took."""

    cell: Cell
    verdict: str
    """``red``, ``green``, ``timeout`` or ``crashed``."""
    seconds: float
    detail: str = ""

    setup_bound: bool = False
    """A verdict other than the survey's, on a claim whose witness's setup ran the mutated
    function or started a process (:func:`setup_bound`)."""
    kernel_bound: bool = False
    """A verdict other than the survey's, on a mutant of a file the claims kernel imports
    (:func:`kernel_files`)."""

    @property
    def explained(self) -> bool:
        """A disagreement the audit lists apart: setup or the kernel ran the mutant too."""
        return self.setup_bound or self.kernel_bound

    @property
    def agrees(self) -> bool:
        return self.verdict == self.cell.verdict


def setup_bound(cell: Cell, verdict: str, setup: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether a fresh run's ``verdict`` may differ from the survey's on ``cell`` because
    the survey set the claim's witness up with no mutant: they differ, and that witness's
    setup, or the import of any witness's modules (:data:`.survey.IMPORTED`: module-level
    code runs once, for every witness), called the mutated function or started a process
    that may run the project's code.
    Either way round: what setup computed with the mutant may make a claim red (it reads a
    wrong value), crash it (setup failed), or green (it compares two values the mutant
    changed alike, where the survey's setup changed only one)."""
    if verdict == cell.verdict:
        return False
    function = cell.mutant.partition("__mutmut_")[0]
    for found in (setup.get(witness_of(cell.claim)) or {}, setup.get(IMPORTED) or {}):
        if found.get("spawned") or function in (found.get("functions") or ()):
            return True
    return False


@dataclass
class Audit:
    """What the audit found: the re-judged cells, the control, the confirmed timeouts."""

    seed: int
    cells: int
    decided: dict[str, int] = field(default_factory=dict)
    """How every cell of the judged mutants was decided: reason (``same_as`` as one) -> count."""
    judged: list[Judged] = field(default_factory=list)
    control: str = ""
    """Why the control failed (empty when it passed)."""
    confirmed: list[str] = field(default_factory=list)
    unconfirmed: dict[str, str] = field(default_factory=dict)
    """Mutant -> the status its rerun gave it (Killed or Survived)."""
    seconds: float = 0.0

    @property
    def disagreements(self) -> list[Judged]:
        """The cells where the fresh run's verdict is not the survey's, setup-bound and
        kernel-bound ones aside."""
        return [j for j in self.judged if not j.agrees and not j.explained]

    @property
    def setup_bound(self) -> list[Judged]:
        return [j for j in self.judged if not j.agrees and j.setup_bound]

    @property
    def kernel_bound(self) -> list[Judged]:
        return [j for j in self.judged if not j.agrees and j.kernel_bound and not j.setup_bound]

    @property
    def agreed(self) -> int:
        return sum(j.agrees for j in self.judged)

    @property
    def failed(self) -> bool:
        return bool(self.control or self.disagreements)

    def as_json(self) -> dict[str, Any]:
        """The report's ``audit`` extension (Stryker's schema allows extra properties)."""
        return {
            "seed": self.seed,
            "cells": self.cells,
            "cellsByReason": self.decided,
            "sampled": len(self.judged),
            "agreed": self.agreed,
            "byReason": _by_reason(self.judged),
            "control": self.control or "passed",
            "disagreements": [_judged_json(j) for j in self.disagreements],
            "sampledCells": [
                _judged_json(j) | {"seconds": round(j.seconds, 2)} for j in self.judged
            ],
            "setupBound": [_judged_json(j) for j in self.setup_bound],
            "kernelBound": [_judged_json(j) for j in self.kernel_bound],
            "timeoutsConfirmed": self.confirmed,
            "timeoutsUnconfirmed": self.unconfirmed,
            "seconds": round(self.seconds, 1),
        }

    def lines(self) -> list[str]:
        """What the console says of the audit."""
        agreed = self.agreed
        reasons = ", ".join(f"{r} {n}" for r, n in _by_reason(self.judged).items())
        decided = ", ".join(f"{r} {n}" for r, n in self.decided.items())
        lines = [
            f"cells: {self.cells} ({decided})",
            f"verdict audit (seed {self.seed}): {agreed}/{len(self.judged)} sampled cells of "
            f"{self.cells} agree with a fresh run of the claim on the mutated source "
            f"({reasons}{'; ' if reasons else ''}{self.seconds:.1f} s)",
        ]
        if self.setup_bound:
            cells = _cells(self.setup_bound)
            lines.append(
                f"audit: {len(self.setup_bound)} setup-bound, the survey's verdict (its witness "
                f"set up with no mutant) not the fresh run's (set up on the mutant): {cells}"
            )
        if self.kernel_bound:
            lines.append(
                f"audit: {len(self.kernel_bound)} kernel-bound, the survey's verdict (the mutant "
                "on while claims run) not the fresh run's (its own kernel reads its "
                f"configuration and reports through the mutant): {_cells(self.kernel_bound)}"
            )
        if self.control:
            lines.append(f"audit control failed: {self.control}")
        lines += [_disagreement(j) for j in self.disagreements]
        if self.confirmed or self.unconfirmed:
            lines.append(
                f"timeouts: {len(self.confirmed)} confirmed at {CONFIRM_FACTOR:g}× the budget, "
                f"{len(self.unconfirmed)} not"
                + "".join(f"; {m} is {s}" for m, s in sorted(self.unconfirmed.items()))
            )
        return lines


def _cells(judged: Sequence[Judged]) -> str:
    return "; ".join(
        f"{j.cell.mutant} × {j.cell.claim} ({j.cell.verdict}, fresh {j.verdict})" for j in judged
    )


def _by_reason(judged: Sequence[Judged]) -> dict[str, int]:
    return _by_kind([j.cell for j in judged])


def _by_kind(cells: Sequence[Cell]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for cell in cells:
        counts[cell.kind] = counts.get(cell.kind, 0) + 1
    return dict(sorted(counts.items()))


def _judged_json(j: Judged) -> dict[str, Any]:
    return {
        "mutant": j.cell.mutant,
        "claim": j.cell.claim,
        "reason": j.cell.reason,
        "survey": j.cell.verdict,
        "audit": j.verdict,
        "detail": j.detail,
    }


def _disagreement(j: Judged) -> str:
    detail = f": {j.detail}" if j.detail else ""
    return (
        f"audit disagrees: {j.cell.mutant} × {j.cell.claim} ({j.cell.reason}): the survey "
        f"says {j.cell.verdict}, a fresh run says {j.verdict}{detail}"
    )


# --- the cells ------------------------------------------------------------------------------


def cells_of(results: Sequence[MutantResult[Any]], claims: Sequence[str]) -> list[Cell]:
    """Every cell of every judged mutant, in the survey's order: a claim it ran is red when
    it went red, and one it did not run is green, with the reason it was not run. A covering
    claim neither run nor skipped was never decided (``--first-kill`` stopped at an earlier
    red): it is no cell, and the audit does not sample it."""
    found: list[Cell] = []
    for result in results:
        if result.status not in JUDGED:
            continue
        name, ran = result.mutant.name, set(result.ran)
        undecided = set(result.covered) - ran - set(result.skipped)
        for claim in claims:
            if claim in undecided:
                continue
            verdict = "red" if claim in result.killed else "green"
            reason = RAN if claim in ran else result.skipped.get(claim, NOT_REACHED)
            found.append(Cell(name, claim, verdict, reason))
    return found


def sample(cells: Sequence[Cell], k: int, seed: int) -> list[Cell]:
    """``k`` cells chosen with ``random.Random(seed)``, taken in turn from each way a cell
    was decided (so every reason is represented, and the cells the survey ran are not
    drowned by the many it did not); every cell when ``k`` covers them all. Returned in the
    survey's order."""
    if k >= len(cells):
        return list(cells)
    rng = random.Random(seed)
    by_reason: dict[str, list[int]] = {}
    for index, cell in enumerate(cells):
        by_reason.setdefault(cell.kind, []).append(index)
    queues = [by_reason[r] for r in sorted(by_reason)]
    for queue in queues:
        rng.shuffle(queue)
    chosen: list[int] = []
    while len(chosen) < k:
        chosen += [queue.pop() for queue in queues if queue][: k - len(chosen)]
    return [cells[i] for i in sorted(chosen)]


# --- the tree -------------------------------------------------------------------------------

IGNORED = shutil.ignore_patterns("__pycache__", "*.meta", "*.spans")


def build_tree(root: Path, sources: Sequence[Path], destination: Path) -> Path:
    """A copy of ``root/mutants`` with every file of ``sources`` as written in ``root``."""
    shutil.copytree(root / MUTANTS_DIR, destination, ignore=IGNORED)
    for base in sources:
        shutil.copytree(root / base, destination / base, ignore=IGNORED, dirs_exist_ok=True)
    return destination


@contextmanager
def trees(root: Path, sources: Sequence[Path], count: int) -> Iterator[Queue[Path]]:
    """``count`` audit trees in a temporary directory, handed out one per running cell."""
    with tempfile.TemporaryDirectory(prefix="claims-audit-") as scratch:
        free: Queue[Path] = Queue()
        for index in range(count):
            free.put(build_tree(root, sources, Path(scratch) / f"tree-{index}"))
        yield free


def _drop_bytecode(path: Path) -> None:
    """Remove the cached bytecode of ``path``: a mutant of the same size written within the
    same second would otherwise be served the previous text's code."""
    for cached in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        cached.unlink(missing_ok=True)


@contextmanager
def written(tree: Path, relative: str, text: str) -> Iterator[None]:
    """``text`` in ``tree/relative`` for the duration of the block, then the file as it was."""
    path = tree / relative
    before = path.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    _drop_bytecode(path)
    try:
        yield
    finally:
        path.write_text(before, encoding="utf-8")
        _drop_bytecode(path)


KERNEL_PROBE = """
import importlib, json, pkgutil, sys
import claims
for found in pkgutil.walk_packages(claims.__path__, "claims."):
    importlib.import_module(found.name)
print(json.dumps([getattr(m, "__file__", None) for m in list(sys.modules.values())]))
"""
"""Every module of the claims kernel imported, then the file of every module loaded."""


def kernel_files(runner: Runner, tree: Path) -> frozenset[str]:
    """The files of ``tree`` (relative) that the claims kernel imports by itself, before
    any plugin or witness: found by a fresh process in the unmutated tree, so it holds what
    the kernel shares with the code under test (``filerules``) and nothing the kernel never
    imports. An empty set when the probe fails: then no cell is kernel-bound."""
    done = subprocess.run(
        [sys.executable, "-c", KERNEL_PROBE],
        cwd=tree,
        env=runner.environment(tree),
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        files = json.loads(done.stdout)
    except ValueError:
        return frozenset()
    inside = (Path(f).resolve() for f in files if isinstance(f, str))
    root = tree.resolve()
    return frozenset(str(f.relative_to(root)) for f in inside if f.is_relative_to(root))


# --- one fresh run --------------------------------------------------------------------------


@dataclass(frozen=True)
class Runner:
    """How a fresh process runs one claim in an audit tree: the plugins to load and the
    project's import path."""

    root: Path
    plugins: tuple[str, ...]
    pythonpath: tuple[str, ...]

    def environment(self, tree: Path) -> dict[str, str]:
        """The survey workers' environment with ``tree`` in place of ``mutants/``, and no
        memo: the slow way computes everything again."""
        env = worker_environment(self.root, self.pythonpath, tree)
        env.pop(MEMO_DIR_ENV, None)
        return env

    def run(self, tree: Path, claim: str, seconds: float) -> tuple[str, float, str]:
        """Run ``claim`` alone in a fresh ``claims run`` in ``tree``: its verdict (red,
        green, timeout or crashed), the wall time, and what was wrong when not green."""
        loads = [arg for plugin in self.plugins for arg in ("-p", plugin)]
        argv = [sys.executable, "-m", "claims.cli", *loads, "run", witness_of(claim)]
        argv += ["-k", exact_glob(claim)]
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [*argv, "--format", "json"],
                cwd=tree,
                env=self.environment(tree),
                capture_output=True,
                text=True,
                timeout=seconds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.perf_counter() - start, f"past {seconds:.1f} s"
        verdict, detail = _verdict_of(done, claim)
        return verdict, time.perf_counter() - start, detail


def _verdict_of(done: subprocess.CompletedProcess[str], claim: str) -> tuple[str, str]:
    """``red`` or ``green`` from a ``claims run --format json``; ``crashed`` without one."""
    try:
        body = json.loads(done.stdout)
        entries = [e for w in body["witnesses"].values() for e in w["claims"]]
        verdict = next(e for e in entries if e["id"] == claim)
    except (ValueError, KeyError, TypeError, AttributeError, StopIteration):
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-2:])
        return "crashed", f"exit {done.returncode} with no verdict for {claim}: {tail[:300]}"
    if verdict.get("verdict") == "pass":
        return "green", ""
    return "red", str(verdict.get("reason") or verdict.get("verdict"))[:300]


def claim_budget(survey: Survey[Any], claim: str) -> float:
    """The survey's budget for a mutant that runs ``claim`` alone."""
    return mutant_budget([survey.baseline_seconds.get(claim, 0.0)])


# --- the audit ------------------------------------------------------------------------------


@dataclass
class Auditor:
    """Re-judges cells and confirms timeouts for one survey.

    A fresh process pays the interpreter's start-up and its witness's ``setup()`` before the
    claim: the limit of a run is twice that (``startups``, measured by a run with no mutant)
    plus :data:`CONFIRM_FACTOR` times the survey's budget. A witness not measured yet gets
    the control's; a run that times out on that is measured and run again."""

    runner: Runner
    survey: Survey[Any]
    mutants: Mapping[str, GeneratedMutant]
    jobs: int
    waiting: int = 0
    """Slots beside ``jobs`` for the cells that mostly wait (:meth:`waits`)."""
    startups: dict[str, float] = field(default_factory=dict)
    control_seconds: float = 30.0
    kernel: frozenset[str] = frozenset()
    """The files the claims kernel imports by itself (:func:`kernel_files`)."""

    def setup_seconds(self, claim: str) -> float:
        """The wall time of the claim's witness's ``setup()`` in the survey."""
        found = self.survey.setup.get(witness_of(claim)) or {}
        return float(found.get("seconds") or 0.0)

    def startup(self, claim: str) -> float:
        """What a fresh process pays before the claim: its witness's as measured here, else
        the control's and the witness's setup as the survey timed it."""
        measured = self.startups.get(witness_of(claim))
        if measured is not None:
            return measured
        return self.control_seconds + self.setup_seconds(claim)

    def limit(self, claim: str) -> float:
        return 2 * self.startup(claim) + CONFIRM_FACTOR * claim_budget(self.survey, claim)

    def waits(self, claim: str) -> bool:
        """Whether a fresh run of ``claim`` mostly waits on other processes: its witness's
        setup started one (an sshd fleet, a forked coordinator) and took a second at least,
        or the claim mostly waited in the baseline (:func:`..waiting.mostly_waiting`)."""
        found = self.survey.setup.get(witness_of(claim)) or {}
        if found.get("spawned") and self.setup_seconds(claim) >= WAITING_MIN_SECONDS:
            return True
        wall = self.survey.baseline_seconds.get(claim, 0.0)
        return mostly_waiting(wall, self.survey.baseline_cpu.get(claim, wall))

    def measure(self, free: Queue[Path], claim: str) -> tuple[str, str, float]:
        """Run ``claim`` with no mutant: its verdict, what was wrong, and its wall time,
        kept as its witness's start-up."""
        tree = free.get()
        try:
            verdict, seconds, detail = self.runner.run(tree, claim, MEASURE_SECONDS)
        finally:
            free.put(tree)
        self.startups[witness_of(claim)] = seconds
        return verdict, detail, seconds

    def judge(self, free: Queue[Path], cell: Cell) -> Judged:
        """Run ``cell``'s claim on its mutant, written into a free tree."""
        judged = self._run(free, cell)
        if judged.verdict == "timeout" and witness_of(cell.claim) not in self.startups:
            self.measure(free, cell.claim)
            judged = self._run(free, cell)
        return judged

    def _run(self, free: Queue[Path], cell: Cell) -> Judged:
        mutant = self.mutants[cell.mutant]
        text = mutant_source(self.runner.root, mutant)
        tree = free.get()
        try:
            with written(tree, mutant.path, text):
                verdict, seconds, detail = self.runner.run(tree, cell.claim, self.limit(cell.claim))
        finally:
            free.put(tree)
        setup = setup_bound(cell, verdict, self.survey.setup)
        kernel = verdict != cell.verdict and mutant.path in self.kernel
        return Judged(cell, verdict, seconds, detail, setup, kernel)

    def judge_all(self, free: Queue[Path], cells: Sequence[Cell]) -> list[Judged]:
        """Every cell judged, in ``cells``' order. The cells that mostly wait run in the
        ``waiting`` slots (when there are any), the longest first, beside ``jobs`` slots for
        the rest: which slot a cell takes never changes how it is judged."""
        waiting = [c for c in cells if self.waiting and self.waits(c.claim)]
        waiting.sort(key=lambda c: -self.limit(c.claim))
        rest = [c for c in cells if c not in waiting]
        with (
            ThreadPoolExecutor(max_workers=max(1, self.waiting)) as slow,
            ThreadPoolExecutor(max_workers=self.jobs) as pool,
        ):
            futures = {id(c): slow.submit(self.judge, free, c) for c in waiting}
            futures |= {id(c): pool.submit(self.judge, free, c) for c in rest}
            return [futures[id(c)].result() for c in cells]

    def confirm(self, free: Queue[Path], result: MutantResult[Any]) -> MutantResult[Any]:
        """A timeout rerun one covering claim at a time: Timeout again, or what it gives.
        The claim the survey saw time out goes first: when it times out again, no other
        needs its turn (any order gives the same verdict)."""
        red: dict[str, str] = {}
        first = [c for c in result.covered if c == result.timed_out]
        for claim in [*first, *(c for c in result.covered if c not in first)]:
            judged = self.judge(free, Cell(result.mutant.name, claim, "red", "timeout"))
            if judged.verdict == "timeout":
                return result
            if judged.verdict != "green":
                red[claim] = judged.detail or judged.verdict
        status = "Killed" if red else "Survived"
        why = f"timed out in the survey; a rerun at {CONFIRM_FACTOR:g}× the budget ended {status}"
        return MutantResult(
            result.mutant, status, result.covered, red, result.covered, result.ms, why
        )


def exact_glob(claim: str) -> str:
    """A ``-k`` glob that matches ``claim`` alone: its first character bracketed (so the
    pattern is a glob, not a substring) and every glob character in it bracketed too (a
    case claim's id holds ``[case]``)."""
    first, rest = claim[:1], claim[1:]
    return f"[{first}]" + "".join(f"[{c}]" if c in "*?[" else c for c in rest)


def control_claim(auditor: Auditor, cells: Sequence[Cell]) -> str:
    """The claim the control runs: of the sampled cells' claims, the one whose witness's
    setup took least in the survey, then the quickest (the first of equals), so the control
    costs a start-up, not a fleet."""
    return min(
        (c.claim for c in cells),
        key=lambda c: (auditor.setup_seconds(c), auditor.survey.baseline_seconds.get(c, 0.0)),
    )


def control(auditor: Auditor, free: Queue[Path], claim: str) -> str:
    """Run ``claim`` with no mutant in a tree: why it did not pass (empty when it did). Its
    wall time is the start-up allowance of a witness not measured yet."""
    verdict, detail, seconds = auditor.measure(free, claim)
    auditor.control_seconds = seconds
    if verdict == "green":
        return ""
    return f"{claim} is {verdict} with no mutant in the audit tree: {detail}"


def run_audit(
    runner: Runner,
    survey: Survey[Any],
    mutants: Mapping[str, GeneratedMutant],
    k: int,
    seed: int,
    jobs: int,
    waiting: int = 0,
) -> Audit:
    """Sample and re-judge ``k`` cells and confirm every timeout (module docstring), in
    ``jobs`` slots and ``waiting`` more for the cells that mostly wait; the survey's results
    are replaced by what each timeout's confirmation found."""
    start = time.monotonic()
    results = [survey.results[n] for n in mutants if n in survey.results]
    claims = [str(c["id"]) for c in survey.claims]
    every = cells_of(results, claims)
    chosen = sample(every, k, seed) if k > 0 else []
    timeouts = [r for r in results if r.status == "Timeout" and r.covered]
    audit = Audit(seed=seed, cells=len(every), decided=_by_kind(every))
    if not chosen and not timeouts:
        return audit
    auditor = Auditor(runner, survey, mutants, jobs, waiting)
    slow = sum(auditor.waits(c.claim) for c in chosen) if waiting else 0
    running = min(jobs, len(chosen) - slow) + min(waiting, slow)
    workers = max(1, running, min(jobs, len(timeouts)))
    with trees(runner.root, source_paths(runner.root), workers) as free, private_tmpdir():
        probe = control_claim(auditor, chosen) if chosen else timeouts[0].covered[0]
        tree = free.get()
        auditor.kernel = kernel_files(runner, tree)
        free.put(tree)
        audit.control = control(auditor, free, probe)
        if not audit.control:
            audit.judged = auditor.judge_all(free, chosen)
            _confirm_all(auditor, free, timeouts, survey, audit)
    audit.seconds = time.monotonic() - start
    return audit


def _confirm_all(
    auditor: Auditor,
    free: Queue[Path],
    timeouts: Sequence[MutantResult[Any]],
    survey: Survey[Any],
    audit: Audit,
) -> None:
    with ThreadPoolExecutor(max_workers=auditor.jobs) as pool:  # independent, mostly waiting
        confirmed = list(pool.map(lambda result: auditor.confirm(free, result), timeouts))
    for result, after in zip(timeouts, confirmed, strict=True):
        survey.results[result.mutant.name] = after
        if after.status == "Timeout":
            audit.confirmed.append(result.mutant.name)
        else:
            audit.unconfirmed[result.mutant.name] = after.status
