"""planner.apply: what the scripts' behaviour cannot show, and the order of the contexts.

What each stage script does, readback and rollback are
witnesses/transaction/native_serving_apply.py's claims, the order and front doors
witnesses/arms/arm_launch.py's, and witnesses/transaction/executed_apply.py runs them on a
sandboxed host; a header assigning a value its body never reads is shellcheck's SC2034 in
tests/test_planner_real_tools.py. What stays here is a container name never spelled outside
the guard and the unit, the log tail of a front door that never answered, and contexts given
out of rank order."""

from __future__ import annotations

import re

import pytest

from fixtures.builders import glm_dry_run, v41_dry_run
from planner import data
from planner.apply import ApplyContext, ApplyStep, Stage, apply_contexts, apply_steps
from planner.arm_launch import DryRun, arm_mounts
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_call
from planner.scenarios import load_inputs, load_scenario


def _supplied_runs() -> tuple[DryRun, DryRun]:
    v41, glm = v41_dry_run("supplied"), glm_dry_run("supplied")
    assert v41.launch is not None and glm.launch is not None
    return v41, glm


V41_RUN, GLM_RUN = _supplied_runs()
ALL_STEPS = V41_RUN.apply_order + GLM_RUN.apply_order


def step_id(step: ApplyStep) -> str:
    return f"{step.host_name}-{step.stage.value}"


def _contexts(run: DryRun) -> tuple[ApplyContext, ...]:
    root = data.default_data_root()
    scenario = load_scenario(root, "supplied")
    call = v41_group_a_call(
        data.fabric(root), data.manifest(V41_MANIFEST, root), load_inputs(scenario.inputs)
    )
    assert run.launch is not None
    return apply_contexts(
        run.launch,
        run.arm,
        tuple(h.realization for h in run.hosts),
        tuple(m.source for m in arm_mounts(call)),
        call.container.rendezvous_port,
        call.route.serve_port,
    )


V41_CONTEXTS = _contexts(V41_RUN)


def test_apply_steps_sorts_contexts_by_rank() -> None:
    shuffled = tuple(reversed(V41_CONTEXTS))
    assert apply_steps(shuffled) == V41_RUN.apply_order


def _outside_unit_heredoc(script: str) -> str:
    return re.sub(r"<<'GUNBC_UNIT_TEXT'\n.*?\nGUNBC_UNIT_TEXT\n", "", script, flags=re.S)


def _guard(name: str) -> str:
    return f'[ "$container_name" = {name} ] || fail "this script was planned for container {name}"'


@pytest.mark.parametrize("step", ALL_STEPS, ids=step_id)
def test_no_script_hard_codes_the_container_name_outside_the_unit(step: ApplyStep) -> None:
    """The name arrives as $1; the one literal is the guard that $1 is the planned name."""
    name = step.invocation[2]
    script = _outside_unit_heredoc(step.script)
    assert script.count(_guard(name)) == 1
    token = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])")
    assert not token.search(script.replace(_guard(name), "")), step.script


def _script(rank: int, stage: Stage) -> str:
    (step,) = [s for s in V41_RUN.apply_order if s.rank == rank and s.stage == stage]
    return step.script


def test_front_door_script_tails_its_own_log_on_timeout() -> None:
    script = _script(0, Stage.FRONT_DOOR)
    assert "until curl -fsS --max-time 5 http://10.77.1.15:8000/health >/dev/null 2>&1" in script
    assert 'tail -n 50 "$log_path"' in script
