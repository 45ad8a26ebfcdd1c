"""``planner apply --plan`` on the sshd fleet (what the plan and its refusals are is the
``saved_plan`` witness's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.fleet import Fleet
from fixtures.saved_plans import SavedPlanFiles
from planner.cli import main
from planner.saved_plan import SavedPlan
from tests.test_transaction_fleet import fleet_options, hosts  # noqa: F401  # the fleet fixture


def test_the_saved_plan_applies_exactly_on_the_fleet(
    hosts: Fleet,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Saved from the operator's own files, applied with ``--plan`` at the wall clock: every
    session each host ran carried the sha256 of the saved script of its stage, in order."""
    made = SavedPlanFiles(tmp_path)
    assert made.save().code == 0
    code = main(["apply", "--plan", str(made.plan), *fleet_options(hosts)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[-1] == "apply v41_group_a: COMMITTED on every host"
    plan = SavedPlan.model_validate_json(made.plan.read_text())
    forward = ("preflight", "preserve", "apply", "readback", "front_door", "commit")
    for host, sessions in zip(plan.hosts, hosts.commands(), strict=True):
        by_stage = {s.stage.value: s.sha256 for s in host.steps}
        sent = [next(w for w in c.split() if len(w) == 64) for c in sessions]
        assert sent == [by_stage[stage] for stage in forward], host.host
