"""Witness: the command line's dry run plans exactly what the arm's call site plans.

``planner.cli.dry_run`` turns the parsed arguments into a plan: it picks the arm's manifest,
reads the scenario's inputs and authority log at the scenario's time (or ``--now``) and calls
the arm's call site. The claim compares its whole plan — every rank, every host's artifacts,
the apply order, the fit, the refusals, the admission — with the call site's own plan from
the same files, so a dry run that plans something else (another manifest, another time, a
value lost on the way) is seen even where the report does not print it.
"""

from __future__ import annotations

import argparse
from datetime import datetime

from claims import ClaimKind, Verdict, claim, expect
from fixtures.builders import DATA_ROOT, glm_dry_run, scenario, v41_dry_run
from planner.arm_launch import DryRun
from planner.cli import dry_run

CASES = (
    ("v41_group_a", "supplied", None),
    ("v41_group_a", "live", None),
    ("glm_group_b", "supplied", None),
    ("v41_group_a", "supplied", "2026-11-29T12:00:00+01:00"),
)
"""(arm, scenario, --now): both arms rendered, one plan refused unrendered, one --now."""


def _args(arm: str, name: str, now: str | None) -> argparse.Namespace:
    return argparse.Namespace(
        arm=arm,
        scenario=name,
        authority=None,
        inputs=None,
        now=now,
        out=None,
        data=DATA_ROOT,
        recipe=None,
        group=None,
        name=None,
    )


def _library(arm: str, name: str, now: str | None) -> DryRun:
    moment = datetime.fromisoformat(now) if now else scenario(name).now
    if arm == "glm_group_b":
        assert now is None
        return glm_dry_run(name)
    return v41_dry_run(name, moment)


def _first_field(want: DryRun, got: DryRun) -> str:
    return next((f for f in type(want).model_fields if getattr(want, f) != getattr(got, f)), "?")


@claim(ClaimKind.PLANNED_SHAPE)
def the_dry_run_command_plans_what_the_call_site_plans() -> Verdict:
    """For V4.1 under ``supplied`` (at the scenario's time and at a ``--now``) and ``live``,
    and for GLM under ``supplied``, the command's dry run is the arm's call site's plan from
    the same inventory, manifest, inputs and authority log, whole: every rank, every host's
    artifacts and steps, the apply order, the fit, the refusals and the admission."""
    problems = []
    for arm, name, now in CASES:
        want, got = _library(arm, name, now), dry_run(_args(arm, name, now))
        if want != got:
            problems.append(f"{arm} {name} now={now}: {_first_field(want, got)} differs")
    return expect(
        not problems, f"{len(CASES)} dry runs planned as the call sites plan", "; ".join(problems)
    )
