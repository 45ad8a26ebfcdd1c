"""``claims mutate --generated``: mutmut's mutants, the full kill matrix, a Stryker report.

1. ``mutants/`` is removed and mutmut regenerates it (:mod:`.mutmut_bridge`).
2. The mutants are chosen (``--since``, then ``--shard``) in a stable order.
3. ``--jobs`` survey workers (:mod:`.survey`, watched by :mod:`.workers`)
   run inside ``mutants/``, each on an interleaved share; a worker that dies or hangs costs
   only the mutant it was on.
4. Each witness is scored on the mutants its claims cover; survivors are listed with
   mutmut's diff; mutants ``equivalent.toml`` vouches for are shown as equivalent.
5. The matrix is written as a Stryker report, atomically.
"""

from __future__ import annotations

import argparse
import importlib.util
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from claims import Session, UsageError
from claims.exits import Exit
from claims.files import shown as printable
from claims.loader import BUILT_IN
from claims.revisions import RevisionError, commit_of
from plugins.mutate.floors import Scope, hold_floors, load_floors, merged_scope
from plugins.mutate.generated.audit import DEFAULT_CELLS, DEFAULT_SEED, Audit, Runner, run_audit
from plugins.mutate.generated.cellkeys import (
    REUSED,
    WHOLE,
    Keys,
    base_key,
    reuse_table,
    settled_claims,
    variant_digests,
    write_table,
)
from plugins.mutate.generated.first_kill import check_options, setup
from plugins.mutate.generated.infection import WORTH_SECONDS
from plugins.mutate.generated.mutmut_bridge import (
    MUTANTS_DIR,
    GeneratedMutant,
    generate,
    read_generated,
    require_mutmut,
    source_paths,
    untrampoline,
)
from plugins.mutate.generated.selection import changed_lines, parse_shard, shard, since
from plugins.mutate.generated.survey import CellKeys, SettledClaim, SurveyRequest
from plugins.mutate.generated.survey_report import build_report, score, summarize_report
from plugins.mutate.generated.timing import survey_timing
from plugins.mutate.generated.workers import MutantResult, Pool, Survey, SurveyFailed, mutmut_key
from plugins.mutate.ledgers import Equivalence, load_equivalents
from plugins.mutate.stryker import Report, is_first_kill, merge, read_report, write_report

DEFAULT_REPORT = Path("target/mutation-report.json")
PROGRESS_EVERY_SECONDS = 5.0
RATE_AFTER_SECONDS = 30.0
"""How long after the first worker is ready the progress line starts giving a rate."""
BLIND_LISTED = 10
"""The claims that call no mutated function listed by name; past that, counted."""


@dataclass(frozen=True)
class SurveyPlan:
    """What a survey (``--generated`` or ``--values``) was asked to do, the parts both read."""

    root: Path
    scope: tuple[str, ...]
    plugins: tuple[str, ...]
    pythonpath: tuple[str, ...]
    jobs: int
    exhaustive: bool
    shard: tuple[int, int] | None
    files: tuple[str, ...]
    report: Path
    floors: Path | None
    evidence: tuple[str, ...]
    """The files of the witness, mutant and plugin modules (:func:`evidence_files`): never
    surveyed, though they sit in a source path."""
    partial: str | None
    """Why this run surveys only part of the planner or part of the claims, if it does."""
    stop_after: float | None
    """``--stop-after``: the seconds the workers may run before the survey stops where it is."""
    waiting_workers: int
    """Workers beside ``jobs`` for the mutants whose claims mostly wait (:mod:`..waiting`)."""


def survey_plan(args: argparse.Namespace, session: Session, report: Path) -> dict[str, Any]:
    """The :class:`SurveyPlan` fields of the command line (``report``: the default report);
    an unknown or pending witness, or a ``--file`` that is not there, is a usage error."""
    scope = survey_scope(args, session)
    common = SurveyPlan(
        root=Path.cwd(),
        scope=scope,
        plugins=session.plugin_arguments(getattr(args, "plugins", ()) or ()),
        pythonpath=session.config.relative_pythonpath(),
        jobs=args.jobs,
        exhaustive=args.exhaustive,
        shard=parse_shard(args.shard) if args.shard is not None else None,
        files=survey_files(args),
        report=args.report or report,
        floors=args.floors,
        evidence=tuple(sorted(evidence_files(session, Path.cwd()))),
        partial=partial_survey(args, scope != session.witness_names),
        stop_after=_stop_after(args.stop_after),
        waiting_workers=_waiting_workers(args),
    )
    return {f.name: getattr(common, f.name) for f in fields(SurveyPlan)}


@dataclass(frozen=True)
class Plan(SurveyPlan):
    """What ``claims mutate --generated`` was asked to do."""

    since: str | None
    equivalents: Mapping[str, Equivalence]
    break_below: float | None
    show_survivors: int | None
    deletion: bool = True
    """Our statement deletions beside mutmut's mutants (``--no-deletion``: mutmut's alone)."""
    first_kill: bool = False
    """Stop each mutant at its first red claim (:mod:`.first_kill`): no full matrix."""
    order_from: Path | None = None
    audit: int = DEFAULT_CELLS
    """How many cells the verdict audit re-judges (:mod:`.audit`); 0: none."""
    audit_seed: int = DEFAULT_SEED
    skip: bool = True
    """Decide cells by replaying the baseline's calls (:mod:`.infection`)."""
    skip_worth: float = WORTH_SECONDS
    plain_trampoline: bool = False
    """mutmut's trampoline decides every call (:mod:`.dispatch` not installed)."""
    keys: bool = False
    """Record the cells' keys in the report (:mod:`.cellkeys`)."""
    reuse: Path | None = None
    """An earlier report whose cells are reused where their keys are unchanged."""
    reusable: Mapping[str, bool] = field(default_factory=dict)
    """The reused report's decided cells: cell key -> red."""
    prior: Mapping[str, Any] = field(default_factory=dict)
    """The reused report itself (its claims' traces settle the baseline)."""


def generated_plan(args: argparse.Namespace, session: Session) -> Plan:
    equivalents = load_equivalents(args.equivalent)  # the inputs are read before any work
    check_options(args.first_kill, args.order_from, args.exhaustive)
    if args.order_from is not None:
        read_report(args.order_from)
    if args.first_kill and args.keys:
        raise UsageError("--keys records a full matrix's cells: it does not go with --first-kill")
    prior = reused_report(args.reuse, args.first_kill)
    common = survey_plan(args, session, DEFAULT_REPORT)
    if args.since:
        # Checked before mutmut regenerates mutants/: a bad revision costs nothing.
        try:
            commit_of(Path.cwd(), args.since)
        except RevisionError as error:
            raise UsageError(f"--since: {error}") from error
    return Plan(
        **common,
        since=args.since,
        equivalents=equivalents,
        break_below=args.break_below,
        show_survivors=args.show_survivors,
        deletion=not args.no_deletion,
        first_kill=args.first_kill,
        order_from=args.order_from,
        audit=_audit_cells(args.audit),
        audit_seed=DEFAULT_SEED if args.audit_seed is None else args.audit_seed,
        skip=not args.no_skip,
        skip_worth=_skip_worth(args.skip_worth),
        plain_trampoline=args.plain_trampoline,
        keys=args.keys or args.reuse is not None,
        reuse=args.reuse,
        reusable=reuse_table(prior),
        prior=prior,
    )


def reused_report(path: Path | None, first_kill: bool) -> Report:
    """The ``--reuse`` report, read before any work; one that keyed no cell (made without
    ``--keys``, or a first-kill survey's) is a usage error."""
    if path is None:
        return {}
    if first_kill:
        raise UsageError("--reuse needs the full matrix: it does not go with --first-kill")
    report = read_report(path)
    if is_first_kill(report):
        raise UsageError(f"--reuse {path}: a first-kill report decides one cell per mutant")
    if not reuse_table(report):
        raise UsageError(
            f"--reuse {path}: the report keys no cell (make it with --keys, or --reuse)"
        )
    return report


def _waiting_workers(args: argparse.Namespace) -> int:
    """``--waiting-workers``: twice ``--jobs`` unless given (they mostly wait); none with
    ``--first-kill``, whose bench against mutmut gives both sides the same processes, so
    giving it there is a usage error."""
    given: int | None = args.waiting_workers
    if given is not None and given < 0:
        raise UsageError(f"--waiting-workers {given}: give 0 or more")
    if args.first_kill:
        if given is not None:
            raise UsageError(
                f"--waiting-workers {given}: a first-kill survey runs --jobs workers only"
            )
        return 0
    return 2 * args.jobs if given is None else given


def _stop_after(given: float | None) -> float | None:
    if given is not None and not given >= 0:
        raise UsageError(f"--stop-after {given}: give seconds, 0 or more")
    return given


P = TypeVar("P", bound=SurveyPlan)


def after_stop(plan: P, survey: Survey[Any]) -> P:
    """The plan a survey that stopped early reports and answers floors as: a partial run
    that says why (it speaks for the mutants it judged, not for any whole file)."""
    if not survey.stopped:
        return plan
    partial = ", ".join(p for p in (plan.partial, f"stopped early ({survey.stopped})") if p)
    return replace(plan, partial=partial)


def stopped_exit(survey: Survey[Any], code: int) -> int:
    """``code``, unless a signal stopped the survey: then, its report written, SIGINT exits
    130 and SIGTERM or SIGHUP ends the process as the signal says."""
    if survey.signal is None:
        return code
    if survey.signal == signal.SIGINT:
        return Exit.INTERRUPTED
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(survey.signal, signal.SIG_DFL)
    signal.raise_signal(survey.signal)
    return 128 + survey.signal  # not reached: the default action ends the process


def _skip_worth(given: float | None) -> float:
    if given is not None and not given >= 0:
        raise UsageError(f"--skip-worth {given}: give seconds, 0 or more")
    return WORTH_SECONDS if given is None else given


def _audit_cells(given: int | None) -> int:
    if given is not None and given < 0:
        raise UsageError(f"--audit {given}: give how many cells to re-judge, 0 or more")
    return DEFAULT_CELLS if given is None else given


def partial_survey(args: argparse.Namespace, scoped: bool) -> str | None:
    """Why a run cannot speak for whole files: it then prints its table but holds no floor."""
    given = [
        f"shard {args.shard}" if args.shard else "",
        f"--since {args.since}" if args.since else "",
        "--file" if args.file else "",
        "only some witnesses" if scoped else "",
    ]
    return ", ".join(g for g in given if g) or None


def survey_scope(args: argparse.Namespace, session: Session) -> tuple[str, ...]:
    """The witnesses a survey runs (named, or every one); pending ones are refused."""
    if args.all and args.witnesses:
        raise UsageError("give witness names or --all, not both")
    scope = tuple(dict.fromkeys(args.witnesses)) if args.witnesses else session.witness_names
    session.check_known(scope)
    pending = [w for w in scope if w in session.pending_names]
    if pending:
        raise UsageError(f"{', '.join(pending)} is pending: its claims are red by design")
    return scope


def survey_files(args: argparse.Namespace) -> tuple[str, ...]:
    """``--file`` paths as the surveys name them (relative, forward slashes); each must exist."""
    files = tuple(Path(p).as_posix().removeprefix("./") for p in args.file or ())
    missing = [f for f in files if not (Path.cwd() / f).is_file()]
    if missing:
        raise UsageError(f"--file {missing[0]}: no such source file")
    return files


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def evidence_files(session: Session, root: Path) -> set[str]:
    """The files (relative to ``root``, as mutmut names them) of every registered witness
    and mutant module and of every plugin not built in: the evidence, which a survey of the
    code it checks never mutates."""
    modules = {e.module for e in session.registry.witnesses}
    modules |= {m for found in session.mutants.values() for m in found}
    pm = session.pm
    modules |= {n for n in pm.load_order if pm.origins.get(n) not in (None, BUILT_IN)}
    files: set[str] = set()
    for module in sorted(modules):
        origin = _module_file(module)
        if origin is not None and origin.is_relative_to(root.resolve()):
            files.add(origin.relative_to(root.resolve()).as_posix())
    return files


def _module_file(module: str) -> Path | None:
    loaded = sys.modules.get(module)
    found = getattr(loaded, "__file__", None)
    if found is None:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # a parent package that does not import
            return None
        found = spec.origin if spec is not None and spec.has_location else None
    return None if found is None else Path(found).resolve()


def generation_scope(plan: Plan) -> tuple[str, ...] | None:
    """The only files whose mutants the survey can choose: ``--file``'s, and of those (or of
    all) the ones changed since ``--since``'s revision; None when it can choose any file's.
    mutmut then mutates these alone: a survey of one file does not wait for the whole
    planner's mutants, which :func:`select` would leave out and :func:`.untrampoline` put
    back as written (the tree the claims run in is the same either way)."""
    files = set(plan.files) if plan.files else None
    if plan.since is not None:
        changed = set(changed_lines(plan.root, plan.since, source_paths(plan.root)))
        files = changed if files is None else files & changed
    return None if files is None else tuple(sorted(files))


def in_scope(name: str, scope: Sequence[str] | None) -> bool:
    """Whether the mutant ``name`` (``module.xǁClassǁfunction__mutmut_N``) is of a file of
    ``scope`` (None: every file is)."""
    if scope is None:
        return True
    module = name.partition("__mutmut_")[0].rpartition(".")[0].replace(".", "/")
    return f"{module}.py" in scope or f"{module}/__init__.py" in scope


def select(plan: Plan, mutants: list[GeneratedMutant]) -> list[GeneratedMutant]:
    """``--file`` and ``--since`` first, then ``--shard`` over what is left."""
    chosen = [m for m in mutants if m.path in plan.files] if plan.files else mutants
    if plan.since is not None:
        chosen = since(chosen, plan.root, plan.since, source_paths(plan.root))
    if plan.shard is not None:
        chosen = shard(chosen, *plan.shard)
    return chosen


class Ticker:
    """A progress line on stderr every few seconds: the first workers' baseline, then the
    mutants judged, at the rate since the first worker was ready."""

    def __init__(self) -> None:
        self.start = self.last = time.monotonic()
        self.shown: tuple[int, int] = (-1, -1)
        self.ready = False

    def __call__(self, survey: Survey[Any], total: int) -> None:
        now = time.monotonic()
        if survey.first_ready is not None and not self.ready:
            self.ready = True
            _say(
                f"baseline and forced fail done after {survey.first_ready - self.start:.0f} s "
                f"({len(survey.baseline_seconds)} claims); judging {total} mutants"
            )
        due = now - self.last >= PROGRESS_EVERY_SECONDS or len(survey.results) == total
        shown = (survey.baseline_done, len(survey.results))
        if not due or shown == self.shown:
            return
        self.last, self.shown = now, shown
        if not survey.results and not self.ready:
            if survey.baseline_total:
                _say(
                    f"[baseline] {survey.baseline_done}/{survey.baseline_total} claims "
                    f"({now - self.start:.0f} s)"
                )
            return
        counts = _counts(survey.results.values())
        done = len(survey.results)
        tally = "".join(f"{k} {v}, " for k, v in counts.items()).removesuffix(", ")
        since = now - (survey.first_ready or self.start)
        pace = ""
        if since >= RATE_AFTER_SECONDS:  # sooner, mutants decided without a run skew it
            rate = done / since
            left = f", about {(total - done) / rate / 60:.0f} min left" if 0 < done < total else ""
            pace = f"({rate:.2f} mutants/s{left})"
        _say(" ".join(part for part in (f"[{done}/{total}]", tally, pace) if part))


def _counts(results: Iterable[MutantResult[Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    return dict(sorted(counts.items()))


def run_survey(plan: Plan, chosen: Sequence[GeneratedMutant]) -> Survey:
    """Run the workers over ``chosen``; raises :class:`SurveyFailed` when it cannot."""
    survey = Survey()
    base = SurveyRequest(
        plugins=plan.plugins,
        pythonpath=plan.pythonpath,
        witnesses=plan.scope,
        mutants=(),
        exhaustive=plan.exhaustive,
        skip=plan.skip,
        skip_worth=plan.skip_worth,
        plain_trampoline=plan.plain_trampoline,
        project_root=str(plan.root),
        keys=cell_keys(plan, chosen, survey),
    )
    launch = None
    if plan.first_kill:
        keys = {mutmut_key(m.name) for m in chosen}
        base, launch = setup(base, plan.root, plan.order_from, keys)
    pool = Pool(
        plan.root,
        base,
        {m.name: m for m in chosen},
        survey,
        Ticker(),
        launch=launch,
        stop_after=plan.stop_after,
        waiting_workers=plan.waiting_workers,
    )
    pool.run_all(plan.jobs)
    return survey


REUSE_TABLE = ".survey-reuse.json"


def cell_keys(plan: Plan, chosen: Sequence[GeneratedMutant], survey: Survey) -> CellKeys | None:
    """What the workers key cells with (``--keys``, ``--reuse``): the base and tree digests,
    each chosen mutant's code digest (kept in ``survey`` for the report), and the reused
    cells in a file under ``mutants/``."""
    if not plan.keys:
        return None
    base, tree = base_key(plan.root)
    by_path: dict[str, list[str]] = {}
    for m in chosen:
        by_path.setdefault(m.path, []).append(m.name)
    for path, names in by_path.items():
        survey.variant_keys |= variant_digests(plan.root, path, names)
    table = None
    if plan.reusable:
        table = plan.root / MUTANTS_DIR / REUSE_TABLE
        write_table(plan.reusable, table)
    settled = settled_claims(plan.prior, Keys(plan.root, base, tree))
    for claim, found in settled.items():  # the new report carries what the old one found
        survey.claim_traces[claim] = dict(found.trace)
        if found.forced_red:
            survey.forced_fail_red.append(claim)
    return CellKeys(
        base=base,
        tree=tree,
        variants=survey.variant_keys,
        reuse=str(table) if table else None,
        settled={
            c: SettledClaim(key=s.key, seconds=s.seconds, covers=s.covers)
            for c, s in settled.items()
        },
    )


def audit_survey(plan: Plan, survey: Survey, chosen: Sequence[GeneratedMutant]) -> Audit | None:
    """The verdict audit of a survey that judged some mutant (:mod:`.audit`); it replaces
    each timeout's result by what its confirmation found."""
    if not survey.results or survey.signal is not None:  # interrupted: the report, at once
        return None
    runner = Runner(plan.root, plan.plugins, plan.pythonpath)
    mutants = {m.name: m for m in chosen}
    _say(f"verdict audit: {plan.audit} cells and every timeout, each in a fresh process ...")
    # at most --jobs cells that wait at once: each may set up fleets of its own, and a
    # witness's start-up allowance is its setup's time in the survey, where it ran once
    waiting = min(plan.waiting_workers, plan.jobs)
    return run_audit(runner, survey, mutants, plan.audit, plan.audit_seed, plan.jobs, waiting)


@dataclass(frozen=True)
class Generated:
    """What mutmut made for a survey (:func:`generate_mutants`)."""

    mutants: list[GeneratedMutant]
    """Every mutant of the source paths but the evidence's."""
    chosen: list[GeneratedMutant]
    """The ones this run surveys (:func:`select`)."""
    seconds: float
    scope: tuple[str, ...] | None
    """The files mutmut was asked to mutate (:func:`generation_scope`; None: every file)."""


def generate_mutants(plan: Plan, workers: int) -> Generated:
    """mutmut's mutants of the source paths (the evidence's left out), those ``plan`` chooses,
    and every other file trampolined back to its code as written."""
    paths = ", ".join(p.as_posix() for p in source_paths(plan.root))
    scope = generation_scope(plan)
    only = "" if scope is None else f" (only {', '.join(scope) or 'no file'})"
    _say(f"generating mutants of {paths}{only} with mutmut ...")
    seconds = generate(plan.root, plan.jobs, plan.deletion, scope)
    generated = read_generated(plan.root)
    mutants = [m for m in generated if m.path not in plan.evidence]
    if len(mutants) < len(generated):
        left = sorted({m.path for m in generated} & set(plan.evidence))
        _say(
            f"left out {len(generated) - len(mutants)} mutants of witness and mutant modules "
            f"(the evidence is not surveyed): {', '.join(left)}"
        )
    chosen = select(plan, mutants)
    # Every file not surveyed runs as written, the witness and mutant modules among them.
    untrampoline(plan.root, generated, {m.path for m in chosen})
    _say(
        f"{len(mutants)} mutants in {seconds:.1f} s; surveying {len(chosen)} with "
        f"{workers} worker(s)"
    )
    return Generated(mutants, chosen, seconds, scope)


def survey_command(args: argparse.Namespace, session: Session) -> int:
    """Generate, choose, survey, report; see the module docstring."""
    require_mutmut()
    if args.reach:
        from plugins.mutate.generated.reach import reach_command

        return reach_command(args, session)
    plan = generated_plan(args, session)
    made = generate_mutants(plan, plan.jobs)
    mutants, chosen, generation, scope = made.mutants, made.chosen, made.seconds, made.scope
    start = time.monotonic()
    try:
        survey = run_survey(plan, chosen) if chosen else Survey()
    except SurveyFailed as failure:
        print(f"claims mutate --generated: {failure}")
        return failure.exit_code
    plan = after_stop(plan, survey)
    audit = audit_survey(plan, survey, chosen)
    seconds = time.monotonic() - start
    results = [survey.results[m.name] for m in chosen if m.name in survey.results]
    entries = {n: e for n, e in plan.equivalents.items() if in_scope(n, scope)}
    vouched, notes = resolve_equivalents(mutants, entries)
    judged, contradicted = judge_equivalents(results, vouched)
    notes += contradicted
    notes += _blind_kills(judged)
    report = build_report(plan, survey, judged, chosen)
    timing = survey_timing(survey, plan.jobs, generation, audit.seconds if audit else 0.0)
    report["timing"] = timing.as_json()  # an extension: where the time went, the ideal
    if audit is not None:
        report["audit"] = audit.as_json()
    write_report(report, plan.report)
    print("\n".join(_header(plan, survey, len(mutants), len(chosen), generation, seconds)))
    print(timing.line("mutmut", "audit"))
    print(summarize_report(report, plan.show_survivors))
    print("\n".join(notes + (audit.lines() if audit is not None else [])))
    print(f"report: {plan.report}")
    held = hold_floors(
        report, plan.floors, floor_scope(plan, plan.since, bool(survey.stopped)), "generated"
    )
    if audit is not None and audit.failed:
        print(f"the verdict audit disagrees with the survey: it fails (exit {int(Exit.AUDIT)})")
        return Exit.AUDIT
    below = plan.break_below is not None and score(judged) < plan.break_below
    return stopped_exit(survey, Exit.SURVIVOR if below and held == Exit.OK else held)


def floor_scope(plan: SurveyPlan, since: str | None = None, stopped: bool = False) -> Scope:
    """What a run's report speaks for (:class:`~plugins.mutate.floors.Scope`): ``--file``
    paths are surveyed whole unless ``--shard``, ``--since`` or an early stop takes part of
    them, and ``--since`` may rightly find no function changed."""
    whole = plan.files if plan.shard is None and since is None and not stopped else ()
    return Scope(plan.partial, whole, sampled=since is not None)


def _header(
    plan: Plan, survey: Survey, generated: int, chosen: int, generation: float, seconds: float
) -> list[str]:
    selected = [f"shard {plan.shard[0]}/{plan.shard[1]}"] if plan.shard else []
    selected += [f"functions changed since {plan.since}"] if plan.since else []
    selected += [f"only {', '.join(plan.files)}"] if plan.files else []
    lines = [
        f"mutmut generated {generated} mutants in {generation:.1f} s; surveyed {chosen}"
        + (f" ({', '.join(selected)})" if selected else "")
        + f" in {seconds:.1f} s with {plan.jobs} worker(s)",
    ]
    if survey.results and survey.mutant_seconds > 0:
        lines.append(
            f"mutant phase: {len(survey.results)} mutants in {survey.mutant_seconds:.1f} s "
            f"({len(survey.results) / survey.mutant_seconds:.2f} mutants/s, from the first "
            "worker ready to the last result)"
        )
    if plan.reuse is not None:
        lines.append(reuse_line(plan.reuse, survey))
    lines += stop_lines(survey, plan.keys) + replay_lines(survey.replay)
    return lines + (survey_health(survey, "trampoline", "mutated function") if chosen else [])


REPLAY_REASONS = 3
"""The purity guard's commonest refusals named in the replay line."""


def replay_lines(replay: Mapping[str, Any]) -> list[str]:
    """What cell skipping had to work with: how many surveyed functions the purity guard
    admitted for replay, its commonest refusals (each without the function it names first),
    and how many claims start a process (none of their cells is skipped)."""
    if not replay:
        return []
    admitted, refused = len(replay["admitted"]), replay["refused"]
    reasons = Counter(why.partition(" ")[2] or why for why in refused.values())
    top = sorted(reasons.items(), key=lambda r: (-r[1], r[0]))[:REPLAY_REASONS]
    commonest = "; ".join(f"{n}× {printable(what)}" for what, n in top)
    return [
        f"cell skipping: the purity guard admitted {admitted} of {admitted + len(refused)} "
        "surveyed functions for replay"
        + (f" (commonest refusals: {commonest})" if top else "")
        + (
            f"; {len(replay['spawning'])} claims start a process (none of their cells is skipped)"
            if replay["spawning"]
            else ""
        )
    ]


def stop_lines(survey: Survey[Any], keyed: bool) -> list[str]:
    """What an early stop left: the report holds the mutants judged before it."""
    if not survey.stopped:
        return []
    again = " (a later survey given it with --reuse takes their cells)" if keyed else ""
    return [f"stopped early, {survey.stopped}: the report holds those{again}"]


def reuse_line(path: Path, survey: Survey) -> str:
    """How many claims' baselines and cells ``--reuse`` took from its report."""
    cells = reused = 0
    for result in survey.results.values():
        if result.status in WHOLE:
            cells += len(result.covered)
            reused += sum(why.startswith(REUSED) for why in result.skipped.values())
    return (
        f"reuse: {reused} of {cells} covering cells and {len(survey.settled)} of "
        f"{len(survey.claims)} claims' baselines taken from {path} (their keys unchanged)"
    )


def survey_health(survey: Survey[Any], target: str, called: str) -> list[str]:
    """The baseline, forced-fail, canary and restart line of a survey that ran, and the claims
    that call no ``called`` (every ``target`` raising left them green)."""
    claims = len(survey.claims)
    lines = [
        f"baseline: {claims}/{claims} claims green; forced fail (every {target} raises): "
        f"{len(survey.forced_fail_red)}/{claims} claims red; {survey.canaries} canaries "
        f"green ({survey.canary_runs} claim runs); {survey.restarts} worker restart(s)"
        + (f", {survey.resumed} from the first baseline" if survey.restarts else "")
    ]
    if survey.waiting:
        lines.append(
            f"{len(survey.waiting)} mutant(s) whose covering claims mostly waited in the "
            f"baseline: judged by {survey.waiting_started} waiting worker(s) of their own"
        )
    blind = [str(c["id"]) for c in survey.claims if c["id"] not in survey.forced_fail_red]
    if len(blind) > BLIND_LISTED:  # a survey of one file: most claims call none of it
        shown = f"{', '.join(blind[:BLIND_LISTED])} and {len(blind) - BLIND_LISTED} more"
    else:
        shown = ", ".join(blind)
    return lines + ([f"claims that call no {called} ({len(blind)}): {shown}"] if blind else [])


def _blind_kills(results: Sequence[MutantResult]) -> list[str]:
    """Kills by claims that never call the mutated function: coverage or isolation is off."""
    return [
        f"{r.mutant.name} was turned red by {', '.join(sorted(set(r.killed) - set(r.covered)))}, "
        "which never call its function: coverage or isolation is wrong"
        for r in results
        if set(r.killed) - set(r.covered)
    ]


def resolve_equivalents(
    mutants: Sequence[GeneratedMutant], equivalents: Mapping[str, Equivalence]
) -> tuple[dict[str, Equivalence], list[str]]:
    """Mutant name -> the equivalence entry that holds for it, and notes on the entries that
    hold for none. An entry holds for the mutant it names when that mutant makes its change;
    else for the one mutant of the same function that does (mutmut numbers a function's
    mutants anew when the function changes), when exactly one does and no entry names it."""
    by_name = {m.name: m for m in mutants}
    held: dict[str, Equivalence] = {}
    loose: dict[tuple[str, str, str], list[Equivalence]] = {}
    for name, entry in equivalents.items():
        m = by_name.get(name)
        if m is not None and entry.matches(m.original_line, m.mutated_line):
            held[name] = entry
        else:
            loose.setdefault((mutmut_key(name), entry.before, entry.after), []).append(entry)
    found: dict[tuple[str, str, str], list[GeneratedMutant]] = {}
    for m in mutants:
        key = (mutmut_key(m.name), m.original_line.strip(), m.mutated_line.strip())
        if key in loose and m.name not in held:
            found.setdefault(key, []).append(m)
    notes = []
    for key, entries in loose.items():
        ms = found.get(key, [])
        for entry in entries:
            if len(entries) == 1 and len(ms) == 1:
                held[ms[0].name] = entry
                notes.append(
                    f"equivalence entry {entry.mutant} holds for {ms[0].name}, the same change "
                    "in the same function (mutmut renumbered it): renumber the entry"
                )
            elif entry.mutant in by_name:
                m = by_name[entry.mutant]
                notes.append(
                    f"stale equivalence entry {m.name}: it now changes {m.original_line!r} "
                    f"into {m.mutated_line!r}; judged like any other mutant"
                )
            else:
                notes.append(
                    f"equivalence entry {entry.mutant} names no mutant mutmut generated: "
                    "renumber or remove it"
                )
    return held, notes


def judge_equivalents(
    results: Sequence[MutantResult], held: Mapping[str, Equivalence]
) -> tuple[list[MutantResult], list[str]]:
    """Survivors an entry holds for (:func:`resolve_equivalents`) become Ignored; an entry
    whose mutant a claim killed is noted as contradicted."""
    judged, notes = [], []
    for result in results:
        entry = held.get(result.mutant.name)
        m = result.mutant
        if entry is not None and result.status != "Survived":
            notes.append(
                f"equivalence entry {m.name} is contradicted: the mutant is "
                f"{result.status} ({', '.join(sorted(result.killed))})"
            )
        elif entry is not None:
            result = MutantResult(
                m,
                "Ignored",
                result.covered,
                result.killed,
                result.ran,
                result.ms,
                f"equivalent: {entry.reason}",
            )
        judged.append(result)
    return judged, notes


def merge_command(
    paths: Sequence[Path],
    out: Path | None,
    floors: Path | None = None,
    show_survivors: int | None = None,
) -> int:
    """Merge shard reports into ``out`` (default target/mutation-report.json), summarize them
    and hold the floors over the merged whole (:func:`~plugins.mutate.floors.merged_scope`)."""
    merged = merge([read_report(p) for p in paths])
    if floors is not None:  # every input is read before anything is written
        load_floors(floors, "generated")
    target = out or DEFAULT_REPORT
    write_report(merged, target)
    print(summarize_report(merged, show_survivors))
    print(f"merged {len(paths)} reports into {target}")
    return hold_floors(merged, floors, merged_scope(merged), "generated")
