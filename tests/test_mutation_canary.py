"""The survey's canaries: a mutant that leaves state behind fails the survey, and a canary
runs again only the claims that ran under a mutant (no other claim has a verdict to lose)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes_mutation.support import copy_project, run_generated

RULES = '''"""A door that keeps a log, and what a nameless guest does to it."""

from __future__ import annotations

LEFT: list[str] = []


def sign(name: str) -> str:
    """The guest's name as signed."""
    if not name:
        LEFT.{nameless}
    return name.title()


def tidy() -> bool:
    """Whether the log is empty."""
    return len(LEFT) == 0
'''

WITNESS = '''"""Witness ``gate``: a signature, the log, and a claim that reaches no mutant."""

from __future__ import annotations

from gate.rules import sign, tidy  # type: ignore[import-not-found]

from claims import ClaimKind, Verdict, claim, expect, expect_equal


@claim(ClaimKind.PLANNED_SHAPE)
def a_guest_signs_in_title_case() -> Verdict:
    """ann signs as Ann."""
    return expect_equal("Ann", sign("ann"), "sign('ann')")


@claim(ClaimKind.PLANNED_SHAPE)
def the_log_starts_tidy() -> Verdict:
    """Nobody is in the log."""
    return expect(tidy(), "tidy", "someone is in the log")


@claim(ClaimKind.PLANNED_SHAPE)
def arithmetic_holds() -> Verdict:
    """Calls nothing mutated."""
    return expect(1 + 1 == 2, "two", "not two")
'''


def _door(tmp_path: Path, nameless: str) -> Path:
    """The gate project with the logging door: ``sign``'s mutants come before ``tidy``'s,
    so a mutant of ``sign`` that writes the log runs before ``tidy``'s claim is judged."""
    project = copy_project(tmp_path)
    (project / "gate" / "rules.py").write_text(RULES.format(nameless=nameless))
    (project / "gate_witness.py").write_text(WITNESS)
    return project


def test_a_mutant_that_leaves_state_behind_fails_the_survey_naming_the_claim(
    tmp_path: Path,
) -> None:
    # `if name:` appends every guest: tidy's mutants then see a full log and survive falsely
    project = _door(tmp_path, "append(name)")
    done = run_generated(project, "--jobs", "1", "--audit", "0", "--report", "r.json")
    assert done.returncode == 6, done.stdout + done.stderr
    assert (
        "state leaked: after the last mutant these claims are red with no mutant applied: "
        "gate.the_log_starts_tidy: someone is in the log"
    ) in done.stdout
    assert not (project / "r.json").exists()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_canary_runs_only_the_claims_that_ran_under_a_mutant(tmp_path: Path, jobs: int) -> None:
    project = _door(tmp_path, "clear()")
    done = run_generated(project, "--jobs", str(jobs), "--audit", "0", "--report", "r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    # each worker's share holds a mutant of sign and one of tidy, each run by its one claim;
    # gate.arithmetic_holds ran in every baseline and under no mutant: no canary runs it
    assert f"{jobs} canaries green ({2 * jobs} claim runs)" in done.stdout
