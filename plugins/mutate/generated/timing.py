"""Where a survey's time went, against its ideal.

The ideal is what the survey could not do faster on its ``jobs`` workers: one worker's start
(interpreter, imports, the witnesses' ``setup()``) and then the in-process time of every claim
run it had to make, the baseline's once and each mutant's, divided among the workers. What a
survey adds to it is the cost of the way it is run: each worker's own baseline, the
forced-fail run, canaries, workers waiting on each other at the end, the pool's own work. Time
outside the workers (mutmut's generation, or the value sites' enumeration, before; the verdict
audit after) is shown beside it and counted in the total.

Waiting workers (:mod:`..waiting`) run beside the ``jobs`` workers, so a survey that gave them
mutants whose claims mostly wait can come in under its ideal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from plugins.mutate.generated.workers import Survey


@dataclass(frozen=True)
class Timing:
    """A survey's seconds, each phase and the ideal; ``as_json`` is the report's ``timing``."""

    jobs: int
    before: float
    """Outside the workers, before them: generation or enumeration."""
    workers: float
    """From the first worker's start to the last worker's end."""
    start: float
    """The first worker's start: from its spawn to its baseline, less the baseline's claims."""
    baseline_claims: float
    """The in-process seconds of the baseline's claims (the ones it ran, not settled)."""
    mutant_runs: float
    """The in-process seconds of every mutant's claims, as each worker measured them."""
    after: float
    """Outside the workers, after them: the verdict audit."""

    @property
    def total(self) -> float:
        return self.before + self.workers + self.after

    @property
    def ideal(self) -> float:
        return self.start + (self.baseline_claims + self.mutant_runs) / max(1, self.jobs)

    @property
    def ratio(self) -> float:
        """The workers' time against the ideal (generation and audit are outside both)."""
        return self.workers / self.ideal if self.ideal > 0 else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "jobs": self.jobs,
            "before": round(self.before, 3),
            "workers": round(self.workers, 3),
            "start": round(self.start, 3),
            "baselineClaims": round(self.baseline_claims, 3),
            "mutantRuns": round(self.mutant_runs, 3),
            "after": round(self.after, 3),
            "total": round(self.total, 3),
            "ideal": round(self.ideal, 3),
        }

    def line(self, before: str, after: str | None = None) -> str:
        """The console line; ``before`` and ``after`` name the outer phases (no ``after``:
        the survey has none)."""
        outer = f", {after} {self.after:.0f} s" if after is not None else ""
        return (
            f"time: {self.total:.0f} s in all: {before} {self.before:.0f} s, workers "
            f"{self.workers:.0f} s{outer}; the workers' ideal {self.ideal:.0f} s (one start "
            f"{self.start:.0f} s + claims' in-process time "
            f"{self.baseline_claims + self.mutant_runs:.0f} s ÷ {self.jobs} jobs): "
            f"{self.ratio:.2f}× it"
        )


def survey_timing(survey: Survey[Any], jobs: int, before: float, after: float = 0.0) -> Timing:
    """``survey``'s timing, run on ``jobs`` workers, with ``before`` and ``after`` seconds
    outside them."""
    workers = 0.0
    if survey.started is not None and survey.ended is not None:
        workers = max(0.0, survey.ended - survey.started)
    baseline = sum(s for c, s in survey.baseline_seconds.items() if c not in survey.settled)
    mutants = sum(r.ms for r in survey.results.values()) / 1000
    return Timing(jobs, before, workers, survey.start_seconds, baseline, mutants, after)
