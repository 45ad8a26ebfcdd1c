"""Benchmarks, as ratios against a baseline measured in the same run (machines are noisy).

Each figure is a ratio of two costs measured here, now, on this machine; none is asserted.
``make bench`` prints the table and writes ``target/bench.json`` (one entry per figure: its
value, its baseline, the ratio, the goal and its direction, whether it holds on this run).

- Lines, not time: the Python lines of the planner's verification (``witnesses/``,
  ``mutation/``, ``tests/``) against ``planner/``'s (goal ≤ 3×).
- ``claims run W`` against its realistic floor, per witness: a fresh ``python`` that imports
  W's module and calls its claims (goal ≤ 1.15×). Medians of paired, interleaved runs.
- ``claims mutate --all`` against its ideal: one interpreter start plus, for every run the
  harness plans, the in-process time of the claims that run must execute (the claims that
  call a patched target; the baseline's reach). Goal ≤ 1.5×.
- Planning at scale: the per-host cost of planning, realizing and admitting V4.1 on a group
  of 1,024 hosts against a group of 4 (goal ≤ 1.2×).
- Recipe checks: the per-arg cost of reading and checking a recipe of 200,000 args against
  one of 2,000 (distinct dotted keys; unknown flags and fields all declared in
  ``[image_extensions]``), goal ≤ 1.5× (flat: linear).
- The authority log: folding 1,000,000 events against ``json.loads`` of each line (goal ≤
  1.5×), and the fold's peak memory at 10⁶ events against 10⁴ (goal ≤ 1.2×: flat), on two
  logs (:data:`MIXES`): hosts held, and every kind of event in turn.
- The generated survey against mutmut 3.8 (goal ≥ 4×, a speed: the ratio must reach it):
  mutants per second of ``claims mutate --generated --file planner/fit.py`` and of mutmut's
  own ``mutmut run`` on the same file with the same claims (every witness, as pytest items)
  and processes, each in a fresh copy of the checkout; the mutant phase (mutmut's printed
  mutations/second) and end to end, counting only the mutants each ran; ``--no-deletion``,
  so both run mutmut's mutants. The same against ``--first-kill`` (goal ≥ 4×): mutmut's
  question, killed or not, answered by stopping at the first red claim (mutmut measured once).
- The whole generated survey, estimated from its shard 1/40 (no goal on the ratio: the
  issue's is 15 minutes), against its floor: the killed cells alone at the mean red cell.
- The survey workers' trampoline dispatch: in a whole trampolined ``mutants/`` tree, the
  in-process time of a round of claims (:data:`DISPATCH_WITNESSES`) with the faster dispatch
  (:mod:`plugins.mutate.generated.dispatch`) against mutmut's own trampoline, and against the
  sources with no trampoline (no goal: the cost the dispatch leaves).
- Kernel overhead and planning cost, as before: claims through the session against the same
  functions called directly; a full V4.1 dry run against reading and folding its inputs.

``--quick`` shrinks the repeats and sizes (for a smoke run); the figures are then marked so.
``--page FILE`` also writes the table as a Markdown page with the run's date, commit and
machine (``make bench`` writes docs/benchmarks-measured.md): the figures in the docs are
this page, never numbers copied by hand.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from claims import Session  # noqa: E402
from claims.witness import Witness  # noqa: E402
from tools.provenance import provenance  # noqa: E402

OUT = ROOT / "target" / "bench.json"
FAST_WITNESSES = ("v41_group_a_launch", "glm_group_b_launch", "engram_staging")


@dataclass(frozen=True)
class Figure:
    """One measured ratio and what it is held against."""

    name: str
    value: float
    baseline: float
    unit: str
    goal: float | None
    what: str
    direction: str = "at most"
    """How the ratio is held to the goal: ``at most`` (a cost) or ``at least`` (a speed)."""
    step: str = ""
    """The step of :data:`STEPS` that measured it."""

    @property
    def ratio(self) -> float:
        return self.value / self.baseline if self.baseline else float("inf")

    @property
    def holds(self) -> bool | None:
        if self.goal is None:
            return None
        return self.ratio >= self.goal if self.direction == "at least" else self.ratio <= self.goal

    @property
    def goal_text(self) -> str:
        if self.goal is None:
            return "-"
        return f"{'>=' if self.direction == 'at least' else '<='} {self.goal}x"


def _median(action: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _timed_process(argv: Sequence[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=_env(), capture_output=True, check=False)
    return time.perf_counter() - start


FLOOR = textwrap.dedent(
    """
    import importlib, sys
    module = importlib.import_module(sys.argv[1])
    if callable(getattr(module, "setup", None)):
        module.setup()
    for name, value in list(vars(module).items()):
        if callable(value) and getattr(value, "__claim_kind__", None) is not None:
            value()
    """
)


def bench_claims_run(session: Session, repeats: int) -> list[Figure]:
    """``claims run W`` against a script importing W's module and calling its claims."""
    figures = []
    for witness in session.witness_names:
        entry = session.registry.witness(witness)
        assert entry is not None
        module = entry.module
        run = [sys.executable, "-m", "claims.cli", "run", witness]
        floor = [sys.executable, "-c", FLOOR, module]
        pairs = [(_timed_process(run), _timed_process(floor)) for _ in range(repeats)]
        ratio = statistics.median(a / b for a, b in pairs)
        floor_s = statistics.median(b for _, b in pairs)
        figures.append(
            Figure(
                f"claims run {witness}",
                floor_s * ratio,
                floor_s,
                "s",
                1.15,
                "claims run W / a python importing W and calling its claims (median pair ratio)",
            )
        )
    return figures


DISPATCH_WITNESSES = ("launcher_recipe", "dry_run_cli", "transaction_plan", "authority_admission")
ROUND = textwrap.dedent(
    """
    import statistics, sys, time
    if sys.argv[1] == "faster":
        from plugins.mutate.generated import dispatch
        dispatch.install()
    from claims import Session
    session = Session.start()
    claims = []
    for resolution in session.resolve_all(sys.argv[3:]):
        if getattr(resolution, "claims", None) and session.prepare(resolution) is None:
            claims += resolution.claims
    rounds = []
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter()
        for claim in claims:
            session.run_claim(claim)
        rounds.append(time.perf_counter() - start)
    print(statistics.median(rounds[1:] or rounds))
    """
)


def _round_seconds(cwd: Path, env: dict[str, str], mode: str, repeats: int) -> float:
    """The median time of one round of :data:`DISPATCH_WITNESSES`' claims in one process
    (the first round, which fills caches, left out)."""
    argv = [sys.executable, "-c", ROUND, mode, str(repeats + 1), *DISPATCH_WITNESSES]
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"a round of claims ({mode}) failed: {done.stderr[-400:]}")
    return float(done.stdout.split()[-1])


def bench_dispatch(repeats: int) -> list[Figure]:
    """The faster trampoline dispatch against mutmut's, and against no trampoline."""
    from plugins.mutate.generated.mutmut_bridge import generate
    from plugins.mutate.generated.workers import worker_environment

    with tempfile.TemporaryDirectory(prefix="bench-dispatch-") as tree_dir:
        tree = Path(tree_dir)
        _tree_copy(tree)
        generate(tree, os.cpu_count() or 1)
        env = worker_environment(tree)
        sources = {**os.environ, "PYTHONPATH": str(tree)}
        faster = _round_seconds(tree / "mutants", env, "faster", repeats)
        mutmuts = _round_seconds(tree / "mutants", env, "mutmut", repeats)
        plain = _round_seconds(tree, sources, "sources", repeats)
    what = f"a round of {', '.join(DISPATCH_WITNESSES)}'s claims in one process"
    return [
        Figure(
            "trampoline dispatch: faster / mutmut's",
            faster,
            mutmuts,
            "s",
            None,
            f"{what}, every planner function trampolined",
        ),
        Figure(
            "trampoline dispatch: faster / no trampoline",
            faster,
            plain,
            "s",
            None,
            f"{what}: trampolined, faster dispatch / the sources",
        ),
    ]


def bench_mutate_all() -> Figure:
    """``claims mutate --all`` wall time against its ideal."""
    from plugins.mutate.declared.harness import Planner
    from plugins.mutate.declared.loading import claim_book, load
    from plugins.mutate.declared.runs import Runner

    session = Session.start()
    scope = session.witness_names
    book = claim_book(session, scope)
    harness = Planner(scope, book, load(session, scope, book), ())
    plan = harness.plan()
    runner = Runner((), scope)
    runner.baseline(harness.baseline(), [p.target for e in plan for p in e.request.patches], 600)
    assert runner.reach is not None
    warm = Session.start()
    warm.run(list(scope))  # memos warm, as the harness's shared memo is after the baseline
    seconds = {
        c.id: c.duration_ms / 1000 for w in warm.run(list(scope)).witnesses for c in w.results
    }
    must = sum(
        seconds[c]
        for e in plan
        for c in (e.request.claims or [k.id for k in book.of(scope)])
        if runner.reach.get(c, frozenset()) & {p.target for p in e.request.patches}
    )
    start_up = _median(lambda: _timed_process([sys.executable, "-c", "pass"]), 5)
    ideal = start_up + sum(seconds.values()) + must
    wall = _timed_process([sys.executable, "-m", "claims.cli", "mutate", "--all"])
    return Figure(
        "claims mutate --all",
        wall,
        ideal,
        "s",
        1.5,
        "wall time / (one interpreter start + baseline claims + the claims each run must "
        "execute, timed in-process)",
    )


MUTMUT_FILES = ("planner/fit.py",)
"""The planner file both surveys mutate: about 90 mutants, a few minutes for both sides."""
MUTMUT_QUICK_FILES = ("planner/refusal.py",)
MUTMUT_RAN = re.compile(r"([0-9.]+) mutations/second")
OURS_PHASE = re.compile(r"mutant phase: (\d+) mutants in ([0-9.]+) s")
MUTMUT_NOT_RUN = (None, 33, 34, 37)
"""mutmut's exit codes of a mutant it did not run: not tried, no tests, skipped, caught by
the type checker."""


def _tree_copy(dest: Path) -> None:
    """The checkout's files (tracked and untracked, not ignored: no ``mutants/``, no venv)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)


def _timed_in(tree: Path, argv: Sequence[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} failed: {done.stdout[-400:]}{done.stderr[-400:]}")
    return seconds, done.stdout + done.stderr


def _twice(tree: Path, argv: Sequence[str]) -> tuple[float, str]:
    """One retry when a claim flakes (the ssh claims count this machine's ssh processes, and
    other sessions share it); the timed run is the one that finished. ``mutants/`` is
    regenerated from scratch by both tools, so the retry starts clean."""
    try:
        return _timed_in(tree, argv)
    except RuntimeError as error:
        print(f"bench: retrying once: {str(error)[:300]}", file=sys.stderr, flush=True)
        shutil.rmtree(tree / "mutants", ignore_errors=True)
        return _timed_in(tree, argv)


def _mutmut_ran(tree: Path, files: Sequence[str]) -> int:
    """The mutants of ``files`` mutmut actually ran (its ``.meta`` exit code per mutant)."""
    ran = 0
    for name in files:
        meta = json.loads((tree / "mutants" / f"{name}.meta").read_text(encoding="utf-8"))
        ran += sum(1 for c in meta["exit_code_by_key"].values() if c not in MUTMUT_NOT_RUN)
    return ran


def _ours_ran(report: Path, files: Sequence[str]) -> int:
    """The mutants of ``files`` the survey ran some claim under (covered ones)."""
    body = json.loads(report.read_text(encoding="utf-8"))
    return sum(
        1
        for name in files
        for m in body["files"][name]["mutants"]
        if m["status"] not in ("NoCoverage", "Ignored")
    )


@dataclass(frozen=True)
class SurveyRun:
    """One side of a survey comparison: mutants run, its mutant-phase rate, its wall time."""

    ran: int
    phase: float
    wall: float
    timing: dict[str, Any] | None = None
    """Ours only: the report's ``timing`` (:mod:`plugins.mutate.generated.timing`)."""


@functools.cache
def _mutmut_side(files: tuple[str, ...], jobs: int) -> SurveyRun:
    """mutmut 3.8's own ``mutmut run`` on ``files`` in a fresh copy of the checkout (once per
    bench run: the full-matrix and first-kill figures hold the same measurement)."""
    mutmut = Path(sys.executable).parent / "mutmut"
    globs = [name.removesuffix(".py").replace("/", ".") + ".*" for name in files]
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-") as theirs_dir:
        theirs = Path(theirs_dir)
        _tree_copy(theirs)
        wall, out = _twice(theirs, [str(mutmut), "run", "--max-children", str(jobs), *globs])
        ran = _mutmut_ran(theirs, files)
    rate = MUTMUT_RAN.findall(out)
    if not rate:
        raise RuntimeError(f"mutmut printed no mutations/second: {out[-400:]}")
    return SurveyRun(ran, float(rate[-1]), wall)


def _ours_side(files: Sequence[str], jobs: int, *options: str) -> SurveyRun:
    """``claims mutate --generated --no-deletion --file F`` (mutmut's mutants, none of our
    deletions: the same mutants as mutmut's run) with ``options``, in a fresh copy."""
    with tempfile.TemporaryDirectory(prefix="bench-survey-") as ours_dir:
        ours = Path(ours_dir)
        _tree_copy(ours)
        report = ours / "target" / "survey.json"
        argv = [sys.executable, "-m", "claims.cli", "mutate", "--generated", "--no-deletion"]
        argv += ["--jobs", str(jobs), *options]
        argv += [a for name in files for a in ("--file", name)] + ["--report", str(report)]
        wall, out = _twice(ours, argv)
        ran = _ours_ran(report, files)
        timing = json.loads(report.read_text(encoding="utf-8"))["timing"]
    phase = OURS_PHASE.search(out)
    if phase is None:
        raise RuntimeError(f"the survey printed no mutant phase: {out[-400:]}")
    return SurveyRun(ran, int(phase.group(1)) / float(phase.group(2)), wall, timing)


def bench_survey_vs_mutmut(files: Sequence[str], jobs: int) -> list[Figure]:
    """``claims mutate --generated --file F`` against mutmut 3.8's own ``mutmut run`` on the
    same file, the same mutants (``--no-deletion``), the same claims (every witness, as pytest
    items through the bridge) and the same number of processes, each in a fresh copy of the
    checkout. Mutants per second of each: the mutant phase (mutmut's own
    "mutations/second"; ours from the first worker ready to the last result) and end to end
    (wall time of the command, generation and baseline included), counting only the mutants
    each actually ran. No goal: the full matrix runs every covering claim, mutmut stops at the
    first red one (issue 23 holds :func:`bench_first_kill_vs_mutmut` to 4×); kept to compare."""
    theirs = _mutmut_side(tuple(files), jobs)
    ours = _ours_side(files, jobs)
    shown = ", ".join(files)
    timing = ours.timing or {}
    return [
        Figure(
            f"full-matrix survey vs its ideal ({shown})",
            timing["workers"],
            timing["ideal"],
            "s",
            1.5,
            f"the workers' wall time / one start ({timing['start']:.0f} s) + the claims' "
            f"in-process time ({timing['baselineClaims'] + timing['mutantRuns']:.0f} s: the "
            f"baseline's and each mutant's) ÷ {timing['jobs']} jobs; outside both, mutmut's "
            f"generation {timing['before']:.0f} s and the audit {timing['after']:.0f} s",
        ),
        Figure(
            f"survey vs mutmut, mutant phase ({shown})",
            ours.phase,
            theirs.phase,
            "mutants/s",
            None,
            f"mutants per second once set up: ours ({ours.ran} run) / mutmut run's own "
            f"mutations/second ({theirs.ran} run), {jobs} processes each",
            "at least",
        ),
        Figure(
            f"survey vs mutmut, end to end ({shown})",
            ours.ran / ours.wall,
            theirs.ran / theirs.wall,
            "mutants/s",
            None,
            f"mutants run / wall time of the whole command: claims mutate --generated "
            f"({ours.wall:.0f} s) / mutmut run ({theirs.wall:.0f} s), generation and "
            "baseline included",
            "at least",
        ),
    ]


def bench_first_kill_vs_mutmut(files: Sequence[str], jobs: int) -> list[Figure]:
    """``claims mutate --generated --first-kill`` against ``mutmut run``, as
    :func:`bench_survey_vs_mutmut` measures them: the same file, mutants, claims and
    processes; first-kill answers mutmut's question (killed or not), so this is the like
    for like. Its order is the default one (fastest claim first, no earlier report)."""
    theirs = _mutmut_side(tuple(files), jobs)
    ours = _ours_side(files, jobs, "--first-kill")
    shown = ", ".join(files)
    return [
        Figure(
            f"first-kill vs mutmut, mutant phase ({shown})",
            ours.phase,
            theirs.phase,
            "mutants/s",
            4.0,
            f"mutants per second once set up: --first-kill ({ours.ran} run) / mutmut run's "
            f"own mutations/second ({theirs.ran} run), {jobs} processes each",
            "at least",
        ),
        Figure(
            f"first-kill vs mutmut, end to end ({shown})",
            ours.ran / ours.wall,
            theirs.ran / theirs.wall,
            "mutants/s",
            4.0,
            f"mutants run / wall time of the whole command: --first-kill ({ours.wall:.0f} s: "
            f"{_spent(ours.timing)}) / mutmut run ({theirs.wall:.0f} s), generation and "
            "baseline included",
            "at least",
        ),
    ]


def _spent(timing: dict[str, Any] | None) -> str:
    """Where a survey's time went, from its report's ``timing``."""
    if timing is None:
        return "no timing"
    return (
        f"mutmut {timing['before']:.0f} s, workers {timing['workers']:.0f} s (one start "
        f"{timing['start']:.0f} s, baseline claims {timing['baselineClaims']:.0f} s, mutants "
        f"{timing['mutantRuns']:.0f} s), audit {timing['after']:.0f} s"
    )


REUSE_FILE = "planner/fit.py"
REUSE_EDIT = (
    '        verb = "fits" if self.fits else "does not fit"\n',
    '        verb = "does not fit" if not self.fits else "fits"\n',
)
"""A pull request's change to one planner function (``Fit.summary``), behaving the same."""


def bench_reuse(jobs: int) -> list[Figure]:
    """A pull request's survey: ``--keys`` on :data:`REUSE_FILE` in a fresh copy, then
    :data:`REUSE_EDIT` (one function's body), then ``--reuse`` of the first report; the
    reusing survey's wall time against the keyed one's (the issue's goal is 2 minutes,
    absolute: the note gives the seconds)."""
    with tempfile.TemporaryDirectory(prefix="bench-reuse-") as tree_dir:
        tree = Path(tree_dir)
        _tree_copy(tree)
        first, second = tree / "target" / "keyed.json", tree / "target" / "reused.json"
        argv = [sys.executable, "-m", "claims.cli", "mutate", "--generated", "--file", REUSE_FILE]
        argv += ["--jobs", str(jobs)]
        keyed, _ = _twice(tree, [*argv, "--keys", "--report", str(first)])
        source = tree / REUSE_FILE
        text = source.read_text(encoding="utf-8")
        if REUSE_EDIT[0] not in text:
            raise RuntimeError(f"{REUSE_FILE} no longer holds the line the bench edits")
        source.write_text(text.replace(*REUSE_EDIT), encoding="utf-8")
        reused, out = _timed_in(tree, [*argv, "--reuse", str(first), "--report", str(second)])
        timing = json.loads(second.read_text(encoding="utf-8"))["timing"]
    line = next((x for x in out.splitlines() if x.startswith("reuse: ")), "reuse: (no line)")
    return [
        Figure(
            f"survey --reuse after one function changed ({REUSE_FILE})",
            reused,
            keyed,
            "s",
            None,
            f"wall time of the reusing survey ({reused:.0f} s; the goal is 120 s) / the keyed "
            f"survey it reuses ({keyed:.0f} s), default audit: {_spent(timing)}; "
            f"{line.removeprefix('reuse: ')}",
        )
    ]


WHOLE_SHARDS = 40
"""The whole survey's sample: every 40th mutant of the source paths (``--shard 1/40``, so
each file keeps its share), about 300 of them: ten minutes where the whole takes hours."""


def red_cell_seconds(report: dict[str, Any]) -> tuple[int, float]:
    """(the killed cells the survey ran, the mean in-process seconds of a red cell): a
    mutant's ``duration`` is the time of the cells it ran, so the mean is taken over the
    mutants whose every run cell turned red."""
    killed, red_seconds, red_cells = 0, 0.0, 0
    for entry in report["files"].values():
        for mutant in entry["mutants"]:
            skipped = set(mutant.get("skippedCells", {}))
            ran = set(mutant.get("coveredBy", ())) - skipped
            red = set(mutant.get("killedBy", ())) - skipped
            killed += len(red)
            if ran and ran <= red:
                red_seconds += float(mutant.get("duration") or 0.0) / 1000
                red_cells += len(ran)
    return killed, red_seconds / red_cells if red_cells else 0.0


def bench_whole_sampled(parts: int, jobs: int) -> list[Figure]:
    """The whole generated survey of the source paths (the full matrix, statement deletions
    included, every witness), estimated from one shard of it in a fresh copy: mutmut's
    generation, the workers' start and baseline once, and ``parts`` times the shard's mutant
    phase. Against it, its floor: the killed cells alone (a red cell can be decided only by
    running it, or by the replay of a mutant that behaved alike), ``parts`` times the shard's
    killed cells at the mean time of a red one, over the jobs. No goal on the ratio: the
    issue's goal is 15 minutes, absolute, and the page gives both seconds."""
    with tempfile.TemporaryDirectory(prefix="bench-whole-") as tree_dir:
        tree = Path(tree_dir)
        _tree_copy(tree)
        report_path = tree / "target" / "shard.json"
        argv = [sys.executable, "-m", "claims.cli", "mutate", "--generated"]
        argv += ["--shard", f"1/{parts}", "--jobs", str(jobs), "--audit", "0"]
        _, out = _twice(tree, [*argv, "--report", str(report_path)])
        report = json.loads(report_path.read_text(encoding="utf-8"))
    phase = OURS_PHASE.search(out)
    if phase is None:
        raise RuntimeError(f"the survey printed no mutant phase: {out[-400:]}")
    judged, seconds = int(phase.group(1)), float(phase.group(2))
    timing = report["timing"]
    set_up = timing["before"] + timing["workers"] - seconds
    whole = set_up + parts * seconds
    killed, red = red_cell_seconds(report)
    floor = parts * killed * red / timing["jobs"]
    return [
        Figure(
            f"whole survey, estimated from shard 1/{parts}, vs its floor",
            whole,
            floor,
            "s",
            None,
            f"generation, start and baseline ({set_up:.0f} s) + {parts} × the shard's mutant "
            f"phase ({judged} mutants in {seconds:.0f} s): {whole / 60:.0f} min, the goal being "
            f"15 / the killed cells alone ({parts} × {killed} at {red * 1000:.0f} ms, the mean "
            f"red cell, ÷ {timing['jobs']} jobs): {floor / 60:.0f} min; outside both, the "
            f"timeouts' confirmation ({timing['after']:.0f} s for the shard's)",
        )
    ]


def _group_call(hosts: int) -> tuple[object, object]:
    from fixtures.builders import authority_state, v41_call
    from planner.fabric import FabricGroup, Host

    call = v41_call("supplied")
    template = call.group.hosts[0]
    members = tuple(
        Host(
            name=f"n{i:05d}",
            memory_gib=template.memory_gib,
            rail_address=f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}",
            rail_interface=template.rail_interface,
        )
        for i in range(hosts)
    )
    group = FabricGroup(name=call.group.name, subject=call.group.subject, hosts=members)
    state = authority_state("supplied")
    holdings = tuple((h.name, group.subject) for h in members)
    return call.model_copy(update={"group": group}), state.model_copy(update={"holdings": holdings})


def bench_scale(repeats: int, large: int) -> Figure:
    """Per-host planning cost at ``large`` hosts against 4 hosts."""
    from planner.arm_launch import plan_arm

    small_call, small_state = _group_call(4)
    big_call, big_state = _group_call(large)
    small = _median(lambda: plan_arm(small_call, small_state), repeats) / 4  # type: ignore[arg-type]
    # Three samples at least: one plan of 1,024 hosts is a single noisy reading.
    big = _median(lambda: plan_arm(big_call, big_state), max(3, repeats // 2)) / large  # type: ignore[arg-type]
    return Figure(
        f"planning per host, {large} vs 4 hosts",
        big,
        small,
        "s/host",
        1.2,
        "per-host time of plan_arm on a large group / on a 4-host group",
    )


def _recipe_text(args: int, declared: bool) -> str:
    """tiny with ``args`` args: distinct dotted Engram keys, or (``declared``) unknown flags
    and Engram fields, each declared in ``[image_extensions]``."""
    from fixtures.builders import TINY_RECIPE

    count = args // 2
    if not declared:
        names = [f"--engram-config.k{i}" for i in range(count)]
        tail = ""
    else:
        flags = [f"--zq{i}x" for i in range(count // 2)]
        fields = [f"--engram-config.t{i}" for i in range(count // 2)]
        names = [*flags, *fields]
        tail = f"[image_extensions]\nflags = {json.dumps(flags)}\n"
        tail += f"config_fields = {json.dumps(fields)}\n"
    listed = json.dumps([a for name in names for a in (name, "1")])
    return TINY_RECIPE.read_text(encoding="utf-8") + f"args = {listed}\n" + tail


def _recipe_seconds_per_arg(args: int, declared: bool, repeats: int) -> float:
    from planner.recipe import load_recipe
    from planner.recipe_extensions import stock_parser_findings

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "recipe.toml"
        path.write_text(_recipe_text(args, declared), encoding="utf-8")
        seconds = _median(lambda: stock_parser_findings(load_recipe(path)), repeats)
    return seconds / args


def bench_recipe(repeats: int, small: int, large: int) -> list[Figure]:
    """Per-arg cost of reading and checking a recipe of ``large`` args against ``small``:
    flat when the checks are linear (a scan of what came before makes it grow with size)."""
    return [
        Figure(
            f"recipe checks per arg, {large:,} vs {small:,} args{label}",
            _recipe_seconds_per_arg(large, declared, max(1, repeats // 2)),
            _recipe_seconds_per_arg(small, declared, repeats),
            "s/arg",
            1.5,
            "per-arg time of load_recipe + its stock-parser findings, large / small recipe",
        )
        for declared, label in ((False, ""), (True, ", every flag declared"))
    ]


START = datetime(2026, 1, 1, tzinfo=UTC)


def _stamp(seconds: int) -> str:
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _holding(seq: int) -> str:
    return f'"event":"host_held","host":"n{seq % 1024:05d}","subject":"group-a-serving"'


def _every_kind(seq: int) -> str:
    match seq % 5:
        case 0:
            return f'"event":"group_active","group":"g{seq % 64:03d}","incumbent":"v41-{seq % 7}"'
        case 1:
            return (
                f'"event":"group_suspended","group":"g{seq % 64:03d}",'
                f'"successor":"v42-{seq % 7}","lease_expires_at":"{_stamp(seq + 600)}"'
            )
        case 2:
            return (
                f'"event":"image_admitted","runtime_key":"rk{seq % 16}",'
                f'"config_digest":"sha256:{seq % 97:064x}"'
            )
        case 3:
            return _holding(seq)
    return f'"event":"host_released","host":"n{seq % 1024:05d}"'


MIXES: dict[str, tuple[Callable[[int], str], str]] = {
    "hosts held": (_holding, "a host held each second, over 1,024 hosts (a log that only grows)"),
    "every kind": (
        _every_kind,
        "the five kinds in turn, each second: 64 groups made active and suspended (a "
        "suspension holds a second time, its lease), 97 images admitted again and again "
        "under 16 runtime keys, 1,024 hosts held and released",
    ),
}
"""The logs the fold is timed on."""


def _write_log(path: Path, events: int, mix: Callable[[int], str] = _holding) -> None:
    """``events`` events of ``mix``, one second apart."""
    with path.open("w", encoding="utf-8") as out:
        for seq in range(1, events + 1):
            out.write(f'{{"seq":{seq},"at":"{_stamp(seq)}",{mix(seq)}}}\n')


FOLD = textwrap.dedent(
    """
    import resource, sys, time
    from datetime import datetime, timezone
    from pathlib import Path
    from planner.authority import read_state
    start = time.perf_counter()
    read_state(Path(sys.argv[1]), datetime(2027, 1, 1, tzinfo=timezone.utc))
    print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)
LOADS = textwrap.dedent(
    """
    import json, sys, time
    start = time.perf_counter()
    with open(sys.argv[1], encoding="utf-8") as lines:
        for line in lines:
            json.loads(line)
    print(time.perf_counter() - start)
    """
)


def _fold(path: Path) -> tuple[float, int]:
    done = subprocess.run(
        [sys.executable, "-c", FOLD, str(path)], env=_env(), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"folding {path} failed: {done.stderr.strip()[-400:]}")
    seconds, kib = done.stdout.split()
    return float(seconds), int(kib)


def _loads(path: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", LOADS, str(path)], capture_output=True, text=True, check=True
    )
    return float(done.stdout)


def bench_authority(small: int, large: int) -> list[Figure]:
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (mix, said) in MIXES.items():
            little, big = Path(tmp) / "small.jsonl", Path(tmp) / "large.jsonl"
            _write_log(little, small, mix)
            _write_log(big, large, mix)
            _, small_kib = _fold(little)
            fold_s, large_kib = _fold(big)
            figures += [
                Figure(
                    f"authority fold, {large:,} events, {name}",
                    fold_s,
                    _loads(big),
                    "s",
                    1.5,
                    "read_state (the log folded as the planner streams it) / json.loads of "
                    f"each line, same file; the log: {said}",
                ),
                Figure(
                    f"authority fold peak memory, {large:,} vs {small:,} events, {name}",
                    large_kib / 1024,
                    small_kib / 1024,
                    "MiB",
                    1.2,
                    "peak RSS folding the large log / the small log (flat in the number of events)",
                ),
            ]
    return figures


def bench_kernel(repeats: int) -> list[Figure]:
    from fixtures.builders import authority_state, v41_dry_run, v41_inputs

    session = Session.start()
    witnesses = [w for w in session.resolve_all(FAST_WITNESSES) if isinstance(w, Witness)]
    claims = [c for w in witnesses for c in w.claims]

    def direct() -> None:
        for c in claims:
            c.function()

    def inputs_only() -> None:
        v41_inputs("supplied")
        authority_state("supplied")

    return [
        Figure(
            "claims through the session",
            _median(lambda: session.run(list(FAST_WITNESSES)), repeats),
            _median(direct, repeats),
            "s",
            None,
            "the session's hooks and timing / the same claim functions called directly",
        ),
        Figure(
            "full V4.1 dry run",
            _median(lambda: v41_dry_run("supplied"), repeats),
            _median(inputs_only, repeats),
            "s",
            None,
            "plan, fit, realize, admit / reading and folding its inputs alone",
        ),
    ]


STEPS = (
    "sizes",
    "claims run",
    "planning at scale",
    "authority log",
    "recipe checks",
    "kernel",
    "survey vs mutmut",
    "first-kill vs mutmut",
    "survey --reuse",
    "whole survey, sampled",
    "trampoline dispatch",
    "claims mutate --all",
)
"""Every step of a full run, in the order it runs them (the page's order)."""

VERIFICATION = ("witnesses", "mutation", "tests")
"""What issue 22 counts as the planner's verification, against ``planner/`` (Python lines)."""

PLANNER_SIDE = ("planner", "witnesses", "fixtures", "mutation")
"""The packages a test reaches when it checks the planner rather than the framework."""


def _tracked_python(folder: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", f"{folder}/*.py"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [f for f in (ROOT / name for name in filter(None, listed.split("\0"))) if f.is_file()]


def _lines(files: Iterable[Path]) -> int:
    return sum(len(f.read_bytes().splitlines()) for f in files)


def _python_lines(folder: str) -> int:
    return _lines(_tracked_python(folder))


def _imported(source: Path) -> set[str]:
    """The top-level names of the modules ``source`` imports, and ``tests.X`` as itself."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_bytes(), str(source))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return {n if n.startswith("tests.") else n.split(".")[0] for n in names}


def planner_tests(files: Sequence[Path], root: Path = ROOT) -> list[Path]:
    """The test modules that reach :data:`PLANNER_SIDE`, directly or through another module
    of ``tests`` (a rig such as ``tests/realtools.py``); the rest test the framework."""
    module = {".".join(f.relative_to(root).with_suffix("").parts): f for f in files}
    imports = {name: _imported(f) for name, f in module.items()}
    side = {n for n, got in imports.items() if got & set(PLANNER_SIDE)}
    while grown := {n for n, got in imports.items() if n not in side and got & side}:
        side |= grown
    return [module[n] for n in sorted(side)]


def bench_sizes() -> list[Figure]:
    """Lines, not time: the verification's Python lines against the planner's (tracked files
    as the working tree holds them); then the same with only the tests that reach the
    planner, and the framework's tests against the framework."""
    parts = {folder: _python_lines(folder) for folder in VERIFICATION}
    shown = " + ".join(f"{folder} {n:,}" for folder, n in parts.items())
    tests = _tracked_python("tests")
    planner_side = _lines(planner_tests(tests))
    framework_side = parts["tests"] - planner_side
    planner = _python_lines("planner")
    return [
        Figure(
            "verification lines / planner lines",
            sum(parts.values()),
            planner,
            "lines",
            3.0,
            f"Python lines of {shown} / planner (tracked files)",
        ),
        Figure(
            "the planner's verification / planner lines",
            parts["witnesses"] + parts["mutation"] + planner_side,
            planner,
            "lines",
            None,
            f"witnesses + mutation + the tests that import {', '.join(PLANNER_SIDE)} "
            f"(directly or through a tests module: {planner_side:,} lines) / planner",
        ),
        Figure(
            "framework tests / framework lines",
            framework_side,
            _python_lines("claims") + _python_lines("plugins"),
            "lines",
            None,
            "the other tests (the framework's) / claims + plugins",
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    parser.add_argument("--skip-mutate", action="store_true", help="leave out claims mutate --all")
    parser.add_argument(
        "--skip-mutmut",
        action="store_true",
        help="leave out the surveys (against mutmut, first-kill, --reuse after a change) and "
        "the trampoline dispatch",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=STEPS,
        metavar="STEP",
        help="run this step only (repeat for more; one of: " + ", ".join(STEPS) + "); with "
        "--page, the page keeps every other step's figures from the run that measured them",
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT.relative_to(ROOT)}")
    parser.add_argument(
        "--page", type=Path, help="also write the figures as a Markdown page here, each with "
        "its run's date, commit and machine (make bench: docs/benchmarks-measured.md), and "
        "beside it, as JSON, every figure the page shows: a step this run left out keeps the "
        "figures its last run measured",
    )  # fmt: skip
    args = parser.parse_args(argv)
    twin = args.page.with_suffix(".json") if args.page is not None else None
    written = tuple(_relative(p) for p in (args.page, twin) if p is not None)
    origin = provenance(ROOT, written)
    load_at_start = os.getloadavg()[0]
    repeats = 2 if args.quick else 5
    session = Session.start()
    figures: list[Figure] = []
    steps: list[tuple[str, Callable[[], list[Figure]]]] = [
        ("sizes", bench_sizes),
        ("claims run", lambda: bench_claims_run(session, repeats)),
        ("planning at scale", lambda: [bench_scale(repeats, 64 if args.quick else 1024)]),
        (
            "authority log",
            lambda: (
                bench_authority(1_000, 10_000) if args.quick else bench_authority(10_000, 1_000_000)
            ),
        ),
        (
            "recipe checks",
            lambda: bench_recipe(repeats, *((200, 2_000) if args.quick else (2_000, 200_000))),
        ),
        ("kernel", lambda: bench_kernel(3 if args.quick else 15)),
    ]
    skipped: list[str] = []
    if not args.skip_mutmut:
        files = MUTMUT_QUICK_FILES if args.quick else MUTMUT_FILES
        jobs = os.cpu_count() or 1
        steps.append(("survey vs mutmut", lambda: bench_survey_vs_mutmut(files, jobs)))
        steps.append(("first-kill vs mutmut", lambda: bench_first_kill_vs_mutmut(files, jobs)))
        steps.append(("survey --reuse", lambda: bench_reuse(jobs)))
        parts = WHOLE_SHARDS * 10 if args.quick else WHOLE_SHARDS
        steps.append(("whole survey, sampled", lambda: bench_whole_sampled(parts, jobs)))
        steps.append(("trampoline dispatch", lambda: bench_dispatch(3 if args.quick else 7)))
    else:
        skipped.append(
            "survey and first-kill vs mutmut, --reuse, trampoline dispatch (--skip-mutmut)"
        )
    if not args.skip_mutate:
        steps.append(("claims mutate --all", lambda: [bench_mutate_all()]))
    else:
        skipped.append("claims mutate --all (--skip-mutate)")
    unnamed = [label for label, _ in steps if label not in STEPS]
    if unnamed:
        raise RuntimeError(f"steps missing from STEPS (the page's order, --only): {unnamed}")
    if args.only:
        skipped += [f"{label} (--only)" for label, _ in steps if label not in args.only]
        steps = [(label, step) for label, step in steps if label in args.only]
    failed: dict[str, str] = {}
    measured: list[str] = []
    for label, step in steps:
        print(f"bench: {label} ...", file=sys.stderr, flush=True)
        try:
            figures += [replace(f, step=label) for f in step()]
            measured.append(label)
        except Exception as error:  # one step failing leaves the others' figures standing
            failed[label] = f"{type(error).__name__}: {error}"
            print(f"bench: {label} FAILED: {failed[label]}", file=sys.stderr, flush=True)
    rows = [
        [
            f.name,
            f"{f.value:.4g} {f.unit}",
            f"{f.baseline:.4g} {f.unit}",
            f"{f.ratio:.2f}x",
            f.goal_text,
            {None: "", True: "holds", False: "MISSED"}[f.holds],
        ]
        for f in figures
    ]
    print(tabulate(rows, headers=["figure", "value", "baseline", "ratio", "goal", ""]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    run = {
        **origin,
        "quick": args.quick,
        "load": [round(load_at_start, 2), round(os.getloadavg()[0], 2)],
    }
    body = {
        "provenance": origin,
        "skipped": skipped,
        "quick": args.quick,
        "cpus": os.cpu_count(),
        "load": run["load"],
        "peak_rss_kib_of_this_process": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "failed": failed,
        "figures": [
            {
                **asdict(f),
                "ratio": round(f.ratio, 4),
                "goal_text": f.goal_text,
                "holds": f.holds,
                "run": run,
            }
            for f in figures
        ],
    }
    args.out.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    if args.page is not None and twin is not None:
        shown = merged(_earlier(twin), body, measured)
        args.page.parent.mkdir(parents=True, exist_ok=True)
        twin.write_text(json.dumps(shown, indent=2) + "\n", encoding="utf-8")
        args.page.write_text(page(shown, _relative(twin)), encoding="utf-8")
        print(f"wrote {args.page} and {twin}")
    return 0


def _earlier(twin: Path) -> list[dict[str, Any]]:
    """The figures a page showed before this run (none when there is no page, or it cannot
    be read: the run's own figures are then the whole page)."""
    try:
        figures = json.loads(twin.read_text(encoding="utf-8"))["figures"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [f for f in figures if isinstance(f, dict) and isinstance(f.get("run"), dict)]


def merged(
    earlier: list[dict[str, Any]], body: dict[str, Any], measured: list[str]
) -> dict[str, Any]:
    """What the page shows: this run's figures, and an earlier run's for each step this run
    did not measure (left out, or failed), each figure with the run that measured it. Steps
    in the order of :data:`STEPS`."""
    kept = [f for f in earlier if f.get("step") not in measured]
    figures = [*kept, *body["figures"]]
    order = {step: index for index, step in enumerate(STEPS)}
    figures.sort(key=lambda f: order.get(f.get("step", ""), len(order)))  # stable: run order
    return {**body, "figures": figures}


def _relative(path: Path) -> str:
    resolved = path.resolve()
    return resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else str(path)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _load(run: dict[str, Any]) -> str:
    """The machine's load average (one minute) at the run's start and end: both sides of a
    ratio run under it, but not always alike, so a loaded run's figures are read with it."""
    load = run.get("load")
    if not (isinstance(load, list) and len(load) == 2):
        return ""
    return f", load average {load[0]:g} at the start and {load[1]:g} at the end"


def _said(run: dict[str, Any]) -> str:
    quick = " (`--quick`: a smoke run, smaller sizes and fewer repeats)" if run.get("quick") else ""
    return (
        f"{run['date']} on commit `{run['commit']}`, {run['cpus']} cores, {run['machine']}, "
        f"Python {run['python']}{quick}{_load(run)}"
    )


def page(body: dict[str, Any], source: str) -> str:
    """The figures as a Markdown page: the runs that measured them, then the table (each
    figure with its run), then what each figure measures and any step that failed or was
    left out of the last run."""
    runs: list[dict[str, Any]] = []
    for f in body["figures"]:
        if f["run"] not in runs:
            runs.append(f["run"])
    runs.sort(key=lambda r: str(r["date"]), reverse=True)
    names = {json.dumps(r, sort_keys=True): chr(ord("A") + i) for i, r in enumerate(runs)}
    lines = [
        "# Benchmarks, as last measured",
        "",
        f"Written by `make bench` (`tools/bench.py`) from `{source}`; do not edit by hand. "
        "Each figure is a ratio of two sides measured in the same run; a step the last run "
        "left out keeps the figures of the run that last measured it. How each figure is "
        "measured: [benchmarks.md](benchmarks.md).",
        "",
        *(f"- Run {names[json.dumps(r, sort_keys=True)]}: {_said(r)}." for r in runs),
        "",
        "| figure | value | baseline | ratio | goal | verdict | run |",
        "|---|---|---|---|---|---|---|",
    ]
    verdicts = {None: "", True: "holds", False: "**MISSED**"}
    for f in body["figures"]:
        cells = [
            f["name"],
            f"{f['value']:.4g} {f['unit']}",
            f"{f['baseline']:.4g} {f['unit']}",
            f"{f['ratio']:.2f}×",
            f["goal_text"].replace("x", "×"),
            verdicts[f["holds"]],
            names[json.dumps(f["run"], sort_keys=True)],
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    lines += ["", "What each ratio is:", ""]
    lines += [f"- {_cell(f['name'])}: {_cell(f['what'])}" for f in body["figures"]]
    for title, items in (
        ("Failed in the last run", [f"{k}: {v}" for k, v in body["failed"].items()]),
        ("Left out of the last run", list(body["skipped"])),
    ):
        if items:
            lines += ["", f"{title}:", "", *(f"- {_cell(i)}" for i in items)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
