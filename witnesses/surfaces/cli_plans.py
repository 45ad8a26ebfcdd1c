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
import io
from contextlib import redirect_stderr
from datetime import datetime

from claims import ClaimKind, Verdict, claim, expect, holds_unless
from fixtures.builders import DATA_ROOT, glm_dry_run, scenario, v41_dry_run
from planner.arm_launch import DryRun
from planner.cli import dry_run, parse

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


_NOW = "2026-11-29T12:00:00+01:00"
_SPELLINGS = {
    "as the help writes it": ["dry-run", "v41_group_a", "--scenario", "supplied", "--now", _NOW],
    "options before the arm": ["dry-run", "--scenario", "supplied", "--now", _NOW, "v41_group_a"],
    "options last first": ["dry-run", "v41_group_a", "--now", _NOW, "--scenario", "supplied"],
    "--option=value": ["dry-run", f"--now={_NOW}", "--scenario=supplied", "v41_group_a"],
    "unique prefixes": ["dry-run", "--scen", "supplied", "--no", _NOW, "v41_group_a"],
}
"""One request, its words in the orders and spellings the command line takes as the same."""


@claim(ClaimKind.PLANNED_SHAPE)
def the_order_and_spelling_of_options_change_no_plan() -> Verdict:
    """The same dry run asked with its options before or after the arm, in another order,
    as ``--option=value`` or by a unique prefix, parses (through the command line's own
    reading of its words, which looks for misspelled options before argparse does) to the
    same plan as the help's spelling: no word's position or spelling decides anything."""
    want = dry_run(_args("v41_group_a", "supplied", _NOW))
    problems = [
        f"{how}: {got if isinstance(got, str) else _first_field(want, got) + ' differs'}"
        for how, words in _SPELLINGS.items()
        if (got := _planned(words)) != want
    ]
    return holds_unless(problems, f"{len(_SPELLINGS)} spellings of one request plan alike")


def _planned(words: list[str]) -> DryRun | str:
    """The dry run ``words`` ask for, parsed as ``planner`` parses them, or how it refused."""
    said = io.StringIO()
    try:
        with redirect_stderr(said):
            return dry_run(parse([*words, "--data", str(DATA_ROOT)]))
    except SystemExit as exc:
        return f"refused with exit {exc.code}: {said.getvalue().strip()[-300:]}"
