"""``claims mutate --values``: value mutants at the planner's typed boundaries, surveyed.

1. One process (:mod:`.survey`, ``enumerate``) runs the baseline, then every
   claim once with every boundary (:mod:`.boundaries`) recording what it
   returns; each returned value is walked for its sites (:mod:`.operators`).
2. Every site is enumerated; per (boundary, operator) at most ``--per-operator`` of them are
   surveyed (:func:`select_sites`: seeded, stable, spread over the fields), then
   ``--shard K/N`` takes its share (:func:`..generated.selection.shard`). A boundary no claim
   calls is one NoCoverage entry (no value was observed, so there is nothing to mutate).
3. ``--jobs`` workers (:mod:`..generated.workers`, the mutmut survey's pool) each run the
   baseline, forced fail, their share of mutants (each with only the claims that saw its
   site; the full kill matrix) and canaries.
4. A Stryker report (default ``target/mutation-values.json``) and a score table per boundary
   module (:mod:`.report`) with at most ``--show-survivors`` survivors.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims import Session, UsageError
from claims.exits import Exit
from plugins.mutate.floors import hold_floors, load_floors, merged_scope
from plugins.mutate.generated.command import (
    SurveyPlan,
    Ticker,
    after_stop,
    floor_scope,
    stop_lines,
    stopped_exit,
    survey_health,
    survey_plan,
)
from plugins.mutate.generated.mutmut_bridge import source_paths
from plugins.mutate.generated.selection import shard
from plugins.mutate.generated.survey import MUTANT_ENV
from plugins.mutate.generated.timing import survey_timing
from plugins.mutate.generated.workers import (
    Launch,
    MutantResult,
    Pool,
    Survey,
    SurveyFailed,
    event_of,
)
from plugins.mutate.stryker import merge, read_report, write_report
from plugins.mutate.values.boundaries import packages_of
from plugins.mutate.values.operators import Site, render_path
from plugins.mutate.values.report import build_value_report, summarize_values
from plugins.mutate.values.survey import ValueSurveyRequest

DEFAULT_REPORT = Path("target/mutation-values.json")
SCRATCH = Path("target/value-survey")
PER_OPERATOR = 4
SHOW_SURVIVORS = 20
SEED = "value-operators/1"
UNREACHED = "unreached"
ENUMERATION_SECONDS = 900.0


@dataclass(frozen=True)
class ValueMutant:
    """One value mutant (a site, or a boundary no claim reaches) and what the report needs."""

    name: str
    boundary: str
    operator: str
    shape: str
    change: str
    file: str
    line: int
    claims: tuple[str, ...]

    @property
    def module(self) -> str:
        return self.boundary.rpartition(".")[0]

    @property
    def path(self) -> str:
        if self.operator == UNREACHED:
            return ""
        return render_path(Site.parse(self.name).path)


@dataclass(frozen=True)
class ValuePlan(SurveyPlan):
    """What ``claims mutate --values`` was asked to do."""

    per_operator: int
    show_survivors: int

    def config(self) -> dict[str, object]:
        return {
            "scope": list(self.scope),
            "shard": "/".join(map(str, self.shard or (1, 1))),
            "files": list(self.files),
            "perOperator": self.per_operator,
            "seed": SEED,
            "exhaustive": self.exhaustive,
        }


@dataclass
class Enumeration:
    """What the enumerating process found."""

    claims: list[dict[str, Any]]
    mutants: list[ValueMutant]
    unreached: list[ValueMutant]
    seconds: float


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def plan_values(args: argparse.Namespace, session: Session) -> ValuePlan:
    common = survey_plan(args, session, DEFAULT_REPORT)
    per_operator = PER_OPERATOR if args.per_operator is None else args.per_operator
    show = SHOW_SURVIVORS if args.show_survivors is None else args.show_survivors
    if per_operator < 0 or show < 0:
        raise UsageError("--per-operator and --show-survivors take a count (0 or more)")
    return ValuePlan(**common, per_operator=per_operator, show_survivors=show)


def value_environment(root: Path) -> dict[str, str]:
    """Import the project from ``root`` first (nothing is generated: patches live in memory)."""
    env = dict(os.environ)
    rest = [p for p in sys.path if p and Path(p).is_dir()]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([str(root), *rest]))
    env.pop(MUTANT_ENV, None)
    return env


def _request(plan: ValuePlan, **fields: Any) -> ValueSurveyRequest:
    return ValueSurveyRequest(
        plugins=plan.plugins,
        pythonpath=plan.pythonpath,
        witnesses=plan.scope,
        mutants=(),
        exhaustive=plan.exhaustive,
        project_root=str(plan.root),
        packages=packages_of(source_paths(plan.root)),
        files=plan.files,
        evidence=plan.evidence,
        **fields,
    )


def enumerate_mutants(plan: ValuePlan) -> Enumeration:
    """Run the enumerating process; raises :class:`SurveyFailed` when it cannot."""
    scratch = plan.root / SCRATCH
    scratch.mkdir(parents=True, exist_ok=True)
    request = scratch / "enumerate.json"
    request.write_text(_request(plan, enumerate=True).model_dump_json(), encoding="utf-8")
    log = scratch / "enumerate.log"
    start = time.monotonic()
    with log.open("w", encoding="utf-8") as stderr:
        done = subprocess.run(
            [sys.executable, "-m", "plugins.mutate.values.survey", str(request)],
            cwd=plan.root,
            env=value_environment(plan.root),
            stdout=subprocess.PIPE,
            stderr=stderr,
            encoding="utf-8",
            errors="replace",
            timeout=ENUMERATION_SECONDS,
            check=False,
        )
    found = (event_of(line) for line in done.stdout.splitlines())
    events = {e["event"]: e for e in found if e is not None}
    baseline = events.get("baseline")
    if baseline is not None and baseline["red"]:
        red = "; ".join(f"{c}: {why}" for c, why in baseline["red"].items())
        raise SurveyFailed(f"baseline NOT green (no mutant applied): {red}", Exit.BASELINE)
    if done.returncode != 0 or "done" not in events or baseline is None:
        raise SurveyFailed(
            f"the enumerating process failed (exit code {done.returncode}); see {log}", Exit.TIMEOUT
        )
    boundaries: dict[str, dict[str, Any]] = events["boundaries"]["boundaries"]
    sets = [tuple(s) for s in events["sites"]["claim_sets"]]
    mutants = [
        ValueMutant(
            name=s["id"],
            boundary=s["boundary"],
            operator=s["operator"],
            shape=s["shape"],
            change=s["change"],
            file=boundaries[s["boundary"]]["file"],
            line=boundaries[s["boundary"]]["line"],
            claims=sets[s["claims"]],
        )
        for s in events["sites"]["sites"]
    ]
    unreached = [
        ValueMutant(
            name=f"{path}::{UNREACHED}",
            boundary=path,
            operator=UNREACHED,
            shape="",
            change=f"no claim calls {path}: none of its values was observed, none mutated",
            file=b["file"],
            line=b["line"],
            claims=(),
        )
        for path, b in boundaries.items()
        if not b["claims"]
    ]
    order = {path: index for index, path in enumerate(boundaries)}
    mutants.sort(key=lambda m: (order[m.boundary], m.operator, m.name))
    return Enumeration(baseline["claims"], mutants, unreached, time.monotonic() - start)


def _rank(text: str) -> str:
    return hashlib.sha256(f"{SEED}\0{text}".encode()).hexdigest()


def select_sites(mutants: Sequence[ValueMutant], per_operator: int) -> list[ValueMutant]:
    """At most ``per_operator`` mutants per (boundary, operator); 0 keeps every one.

    Where a group has more, they are taken round-robin over its shapes (the field a site is
    in, indices blanked), the shapes and each shape's sites in the order of a hash of their
    names seeded with :data:`SEED`: the same sites are chosen on every run, spread over the
    fields, and a new site displaces at most one. The result keeps the order of ``mutants``.
    """
    if per_operator == 0:
        return list(mutants)
    groups: dict[tuple[str, str], dict[str, list[ValueMutant]]] = {}
    for m in mutants:
        groups.setdefault((m.boundary, m.operator), {}).setdefault(m.shape, []).append(m)
    keep: set[str] = set()
    for (boundary, operator), shapes in groups.items():
        queues = [
            sorted(shapes[shape], key=lambda m: _rank(m.name))
            for shape in sorted(shapes, key=lambda s: _rank(f"{boundary}:{operator}:{s}"))
        ]
        chosen: list[str] = []
        while len(chosen) < per_operator and any(queues):
            for queue in queues:
                if queue and len(chosen) < per_operator:
                    chosen.append(queue.pop(0).name)
        keep.update(chosen)
    return [m for m in mutants if m.name in keep]


def run_values(plan: ValuePlan, chosen: Sequence[ValueMutant]) -> Survey[ValueMutant]:
    """The pool over ``chosen``; raises :class:`SurveyFailed` when it cannot."""
    survey: Survey[ValueMutant] = Survey()
    base = _request(plan, covered={m.name: m.claims for m in chosen})
    launch = Launch(
        "plugins.mutate.values.survey",
        plan.root,
        plan.root / SCRATCH,
        value_environment(plan.root),
        key=str,
    )
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


def values_command(args: argparse.Namespace, session: Session) -> int:
    """Enumerate, choose, survey, report; see the module docstring."""
    plan = plan_values(args, session)
    _say("enumerating value sites: every claim once, every boundary recording ...")
    start = time.monotonic()
    try:
        found = enumerate_mutants(plan)
        if not found.mutants and not found.unreached:
            packages = ", ".join(packages_of(source_paths(plan.root)))
            raise UsageError(
                f"--values found no boundary in {packages}: a boundary is a public function "
                "whose return annotation is a record (a frozen pydantic model, dataclass or "
                "attrs class, a NamedTuple), a str, or a tuple or list of those; witness, "
                "mutant and plugin modules are never boundaries"
            )
        selected = select_sites(found.mutants, plan.per_operator)
        everything = selected + found.unreached
        chosen = shard(everything, *plan.shard) if plan.shard else everything
        run = [m for m in chosen if m.operator != UNREACHED]
        _say(
            f"enumerated {len(found.mutants)} sites in {found.seconds:.1f} s; surveying "
            f"{len(run)} with {plan.jobs} worker(s)"
        )
        survey = run_values(plan, run) if run else Survey[ValueMutant]()
    except SurveyFailed as failure:
        print(f"claims mutate --values: {failure}")
        return failure.exit_code
    plan = after_stop(plan, survey)
    seconds = time.monotonic() - start
    survey.claims = survey.claims or found.claims
    results: list[MutantResult[ValueMutant]] = [
        survey.results[m.name] if m.operator != UNREACHED else MutantResult(m, "NoCoverage")
        for m in chosen
        if m.operator == UNREACHED or m.name in survey.results
    ]
    config = plan.config() | ({"stopped": survey.stopped} if survey.stopped else {})
    report = build_value_report(config, plan.root, survey, results)
    timing = survey_timing(survey, plan.jobs, found.seconds)
    report["timing"] = timing.as_json()
    write_report(report, plan.report)
    print("\n".join(_header(plan, survey, found, selected, len(run), seconds)))
    print(timing.line("enumeration"))
    print(summarize_values(report, plan.show_survivors))
    print("\n".join(_blind_kills(results)))
    print(f"report: {plan.report}")
    held = hold_floors(
        report, plan.floors, floor_scope(plan, stopped=bool(survey.stopped)), "values"
    )
    return stopped_exit(survey, held)


def _header(
    plan: ValuePlan,
    survey: Survey[ValueMutant],
    found: Enumeration,
    selected: Sequence[ValueMutant],
    surveyed: int,
    seconds: float,
) -> list[str]:
    boundaries = len({m.boundary for m in found.mutants}) + len(found.unreached)
    how = [f"at most {plan.per_operator} per boundary and operator" if plan.per_operator else ""]
    how += [f"shard {plan.shard[0]}/{plan.shard[1]}"] if plan.shard else []
    how += [f"only {', '.join(plan.files)}"] if plan.files else []
    detail = ", ".join(h for h in how if h)
    lines = [
        f"{boundaries} boundaries ({len(found.unreached)} called by no claim); enumerated "
        f"{len(found.mutants)}, surveyed {surveyed}"
        + (f" ({detail})" if detail else "")
        + f" in {seconds:.1f} s with {plan.jobs} worker(s)",
    ]
    lines += stop_lines(survey, keyed=False)
    return lines + (survey_health(survey, "boundary", "boundary") if surveyed else [])


def _blind_kills(results: Iterable[MutantResult[ValueMutant]]) -> list[str]:
    """Kills by claims whose values never held the site: coverage or isolation is off."""
    return [
        f"{r.mutant.name} was turned red by {', '.join(sorted(set(r.killed) - set(r.covered)))}, "
        "whose values never held its site: coverage or isolation is wrong"
        for r in results
        if set(r.killed) - set(r.covered)
    ]


def merge_values(
    paths: Sequence[Path], out: Path | None, show: int | None, floors: Path | None
) -> int:
    """Merge value shard reports into ``out`` (default target/mutation-values.json)."""
    merged = merge([read_report(p) for p in paths])
    if floors is not None:  # every input is read before anything is written
        load_floors(floors, "values")
    target = out or DEFAULT_REPORT
    write_report(merged, target)
    print(summarize_values(merged, SHOW_SURVIVORS if show is None else show))
    print(f"merged {len(paths)} reports into {target}")
    return hold_floors(merged, floors, merged_scope(merged), "values")
