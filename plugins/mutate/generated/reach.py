"""``claims mutate --generated --reach``: which mutants some claim reaches, from one baseline.

A whole survey calls a mutant uncovered (NoCoverage) when no claim calls its function in the
baseline, the pass that runs every claim once with mutmut's ``stats`` mode recording the calls.
That pass alone decides it, before any mutant runs. So ``--reach`` generates the mutants as a
survey does, runs one worker's baseline and stops there: the time of one run of every claim,
where the whole survey runs every covering claim under every mutant. It then holds the part of
the floors the baseline decides (:func:`~plugins.mutate.floors.reach_problems`): each file with
mutants has an entry and keeps no more uncovered mutants than its entry allows, and each file
held to a strength has a mutant some claim reaches. Strengths are left to a whole survey.

The counts are the whole survey's own: the same generation, the same coverage, the same
mutant-to-function key (a test holds them equal on a project surveyed both ways). The report
(``--report``, default ``target/mutation-reach.json``) names each file's uncovered functions.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from claims import Session, UsageError
from claims.exits import Exit
from claims.tables import fitted
from filerules import write_atomically
from plugins.mutate.command import given_options
from plugins.mutate.floors import Floor, load_floors, reach_problems
from plugins.mutate.generated.command import (
    Ticker,
    generate_mutants,
    generated_plan,
    stopped_exit,
)
from plugins.mutate.generated.mutmut_bridge import GeneratedMutant
from plugins.mutate.generated.survey import SurveyRequest
from plugins.mutate.generated.workers import Pool, Survey, SurveyFailed, mutmut_key

DEFAULT_REPORT = Path("target/mutation-reach.json")
TAKES = ("--file", "--no-deletion", "--floors", "--plain-trampoline")
"""The survey options ``--reach`` takes (and ``--report``); every other one judges mutants or
shapes a survey's report, and is refused beside it."""


def reach_command(args: argparse.Namespace, session: Session) -> int:
    """Generate, run one baseline, count what no claim reaches, hold the floors' allowances."""
    chosen = [a for a in args.survey_only if a.option_strings[0] not in (*TAKES, "--reach")]
    given = given_options(args, chosen) + (["--html"] if args.html is not None else [])
    if given:
        raise UsageError(
            f"{', '.join(given)}: not with --reach, which runs no mutant (it takes "
            f"{', '.join(TAKES)} and --report)"
        )
    if args.witnesses:
        raise UsageError("--reach counts what every claim reaches: give no witness names")
    floors = load_floors(args.floors, "generated") if args.floors is not None else None
    plan = generated_plan(args, session)
    report = Path(args.report) if args.report is not None else DEFAULT_REPORT
    made = generate_mutants(plan, 1)
    start = time.monotonic()
    survey: Survey[GeneratedMutant] = Survey()
    base = SurveyRequest(
        plugins=plan.plugins,
        pythonpath=plan.pythonpath,
        witnesses=plan.scope,
        mutants=(),
        exhaustive=False,
        skip=False,
        plain_trampoline=plan.plain_trampoline,
        project_root=str(plan.root),
    )
    names = {m.name: m for m in made.chosen}
    pool = Pool(plan.root, base, names, survey, Ticker(), until_coverage=True)
    try:
        pool.run_all(1)
    except SurveyFailed as failure:
        print(f"claims mutate --generated --reach: {failure}")
        return failure.exit_code
    if survey.signal is not None:
        print(f"claims mutate --generated --reach: {survey.stopped}; nothing written")
        return stopped_exit(survey, Exit.INTERRUPTED)
    seconds = time.monotonic() - start
    found = _reached(made.chosen, survey.coverage)
    body = {
        "generator": "claims mutate --generated --reach",
        "config": {"files": list(plan.files), "statementDeletion": plan.deletion},
        "claims": len(survey.claims),
        "seconds": round(seconds, 1),
        "files": found,
    }
    write_atomically(report, json.dumps(body, indent=2, sort_keys=True) + "\n")
    claims = len(survey.claims)
    print(
        f"mutmut generated {len(made.mutants)} mutants in {made.seconds:.1f} s; the baseline "
        f"ran {claims}/{claims} claims green in {seconds:.1f} s and reached "
        f"{sum(f['mutants'] - f['uncovered'] for f in found.values())} of {len(made.chosen)}"
        " (no mutant ran)"
    )
    print(_table(found, floors))
    print(f"report: {report}")
    if floors is None:
        print("floors not held: no floors file (--floors FILE, or floors in [tool.claims])")
        return Exit.OK
    counts = {path: (f["mutants"], f["uncovered"]) for path, f in found.items()}
    problems = reach_problems(counts, floors, whole=not plan.files)
    for line in problems:
        print(f"below floor: {line}")
    if problems:
        return Exit.SURVIVOR
    print(f"every file reaches as its floor allows ({args.floors} [generated])")
    return Exit.OK


def _reached(
    chosen: list[GeneratedMutant], coverage: dict[str, list[str]]
) -> dict[str, dict[str, Any]]:
    """Per file: its mutants, how many no claim reaches, and those per function."""
    mutants: Counter[str] = Counter()
    unreached: dict[str, Counter[str]] = {}
    for m in chosen:
        mutants[m.path] += 1
        key = mutmut_key(m.name)
        if not coverage.get(key):
            unreached.setdefault(m.path, Counter())[_function_name(key)] += 1
    return {
        path: {
            "mutants": count,
            "uncovered": sum(unreached.get(path, Counter()).values()),
            "functions": dict(sorted(unreached.get(path, Counter()).items())),
        }
        for path, count in sorted(mutants.items())
    }


def _table(found: dict[str, dict[str, Any]], floors: Mapping[str, Floor] | None) -> str:
    rows = []
    for path, f in found.items():
        floor = (floors or {}).get(path)
        allowed = "" if floor is None else "none" if floor.no_mutants else floor.no_coverage
        functions = ", ".join(f"{name} {n}" for name, n in f["functions"].items())
        rows.append([path, f["mutants"], f["uncovered"], allowed, functions])
    headers = ["file", "mutants", "uncovered", "allowed", "uncovered by function"]
    return fitted(rows, headers, 4)


def _function_name(key: str) -> str:
    """mutmut's trampoline name of a function as the source names it: ``x_f`` is ``f``,
    ``xǁClassǁmethod`` is ``Class.method``."""
    name = key.rpartition(".")[2]
    if name.startswith("xǁ"):
        return name[2:].replace("ǁ", ".")
    return name.removeprefix("x_")
