"""``claims mutate --generated --first-kill``: stop each mutant at its first red claim.

The full matrix runs every claim that covers a mutant; ``--first-kill`` runs them one at a
time, most likely killer first, and stops at the first red one: mutmut's question (is it
killed?) answered with fewer claim runs. The verdict per mutant does not change: a mutant is
detected under first-kill exactly when some covering claim turns red (or it runs out of the
same budgets, ``2 s + 10 ×`` its covering claims' baseline time), which is when the full
matrix detects it; only Killed and Timeout may trade places (a hanging claim ordered after
a killing one is never reached), and both count as killed. So the strength per file and the
floors hold as they are. What is lost is the matrix: ``killedBy`` holds the first red claim
alone and ``testsCompleted`` the claims run, so a per-claim or per-witness count of kills
(the witness table, the HTML kill matrix, "only it kills") means nothing. The report says so
in ``config.firstKill`` (:func:`plugins.mutate.stryker.is_first_kill`), and every reader of
``killedBy`` as a matrix leaves it out or marks it.

The order, per mutant, over its covering claims:

1. the claims that killed this very mutant in ``--order-from REPORT`` (a previous report
   of the survey, full or first-kill), fastest first;
2. then the others by expected cost of a kill, ``baseline seconds ÷ (1 + the kills the claim
   made of this function's mutants in that report)``, least first.

Without ``--order-from`` every claim has no past, so the order is fastest first by this
run's baseline: with no history, the cheapest claim is the cheapest way to find a red, and
most killed mutants are killed by many claims.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from pydantic import Field

from claims import UsageError
from claims.witness import Claim
from plugins.mutate.generated import survey as base
from plugins.mutate.generated.workers import Launch, mutmut_key
from plugins.mutate.profile import load_verdict_profile
from plugins.mutate.stryker import read_report

MODULE = "plugins.mutate.generated.first_kill"


class FirstKillRequest(base.SurveyRequest):
    """A survey request with the past kills the order reads (mutant name -> claim ids)."""

    past: Mapping[str, tuple[str, ...]] = Field(default_factory=dict)


def past_kills(report_path: Path, keys: set[str]) -> dict[str, tuple[str, ...]]:
    """``killedBy`` of every mutant of ``report_path`` whose function is in ``keys`` (the
    trampoline keys of the mutants this run surveys); a report that does not read is a
    usage error naming it."""
    report = read_report(report_path)
    return {
        str(m["id"]): tuple(m.get("killedBy", ()))
        for entry in report["files"].values()
        for m in entry["mutants"]
        if m.get("killedBy") and mutmut_key(str(m["id"])) in keys
    }


def setup(
    request: base.SurveyRequest, root: Path, order_from: Path | None, keys: set[str]
) -> tuple[FirstKillRequest, Launch]:
    """The request and worker launch of a first-kill survey (the pool is the same)."""
    past = past_kills(order_from, keys) if order_from is not None else {}
    launch = replace(Launch.mutmut(root, request.pythonpath), module=MODULE)
    # the first-kill worker runs its claims and replays none: no calls recorded for skipping
    fields = {**request.model_dump(), "skip": False}
    return FirstKillRequest(**fields, past=past), launch


def check_options(first_kill: bool, order_from: Path | None, exhaustive: bool) -> None:
    """``--order-from`` orders a first-kill run only; ``--exhaustive`` asks for the whole
    matrix, which first-kill does not build."""
    if order_from is not None and not first_kill:
        raise UsageError(f"--order-from {order_from}: it orders a --first-kill run only")
    if first_kill and exhaustive:
        raise UsageError("--first-kill and --exhaustive: one stops at the first red, the other "
                         "runs every claim under every mutant; choose one")  # fmt: skip


def by_function(past: Mapping[str, Sequence[str]]) -> dict[str, Counter[str]]:
    """Per trampoline key: how many of its mutants each claim killed in the past report."""
    kills: dict[str, Counter[str]] = {}
    for name, ids in past.items():
        kills.setdefault(mutmut_key(name), Counter()).update(ids)
    return kills


def ordered(
    covering: Sequence[Claim],
    killed_it: Sequence[str],
    kills: Mapping[str, int],
    seconds: Mapping[str, float],
) -> list[Claim]:
    """The module docstring's order of ``covering``: the claims that killed this mutant
    before (``killed_it``), then by ``seconds ÷ (1 + kills)`` (its function's past kills)."""
    mine = set(killed_it)

    def rank(claim: Claim) -> tuple[bool, float, str]:
        cost = seconds.get(claim.id, 0.0)
        return claim.id not in mine, cost / (1 + kills.get(claim.id, 0)), claim.id

    return sorted(covering, key=rank)


class FirstKillWorker(base.Worker):
    """A survey worker that stops each mutant at its first red claim."""

    request: FirstKillRequest

    def __init__(self, request: FirstKillRequest, out: TextIO) -> None:
        super().__init__(request, out)
        self.kills = by_function(request.past)

    def first_red(self, claims: Sequence[Claim], ran: list[str]) -> dict[str, str]:
        """Run ``claims`` in order, each within its budget (as the full matrix gives it),
        until one is red (appending each to ``ran``)."""
        budgets = base.claim_budgets([self.baseline_seconds[c.id] for c in claims])
        for claim, seconds in zip(claims, budgets, strict=True):
            ran.append(claim.id)
            red = self.run([claim], [seconds])
            if red:
                return red
        return {}

    def mutant(self, name: str, covering: Sequence[Claim]) -> None:
        kills = self.kills.get(mutmut_key(name), Counter())
        past = self.request.past.get(name, ())
        chosen = ordered(covering, past, kills, self.baseline_seconds)
        seconds = base.mutant_budget(self.baseline_seconds[c.id] for c in chosen)
        kept = base.ProcessState.now()
        start = time.perf_counter()
        status, red, ran = "ok", {}, list[str]()
        try:
            self.switch(name)
            red = self.first_red(chosen, ran)
        except base.MutantTimeout:
            status = "timeout"
        finally:
            self.switch("")
            kept.restore()
        self.emit(
            "mutant",
            name=name,
            status=status,
            ran=ran,
            covered=[c.id for c in covering],
            red=red,
            ms=round((time.perf_counter() - start) * 1000, 1),
            budget=seconds,
        )


def survey(request: FirstKillRequest, out: TextIO) -> int:
    return base.survey(request, out, FirstKillWorker(request, out))


def main(argv: Sequence[str]) -> int:
    """``python -m plugins.mutate.generated.first_kill REQUEST.json`` (working directory:
    ``mutants/``), as :func:`plugins.mutate.generated.survey.main`."""
    request = FirstKillRequest.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    base.prepare_process(request)
    base._load_mutmut_config()
    os.environ[base.MUTANT_ENV] = ""
    load_verdict_profile()
    with base.event_stream() as out:
        return survey(request, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
