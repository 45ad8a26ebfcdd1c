"""planner.arm_launch: the shared launcher's plan, render, stage, apply and admit."""

from __future__ import annotations

import pytest

from planner import data
from planner.arm_launch import ArmCall, DryRun, arm_mounts, fit_wall, plan_arm
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.glm_group_b import glm_group_b_call
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_call
from planner.authority import AuthorityState, fold, read_log
from planner.engram import MkdirStep, TypedFileWrite
from planner.identity import BindMount
from planner.scenarios import load_inputs, load_scenario

ROOT = data.default_data_root()


def state(name: str = "supplied") -> AuthorityState:
    scenario = load_scenario(ROOT, name)
    return fold(read_log(scenario.authority), scenario.now)


def v41_call(name: str = "supplied") -> ArmCall:
    inputs = load_inputs(load_scenario(ROOT, name).inputs)
    return v41_group_a_call(data.fabric(ROOT), data.manifest(V41_MANIFEST, ROOT), inputs)


def glm_call() -> ArmCall:
    return glm_group_b_call(data.fabric(ROOT), data.manifest(GLM_MANIFEST, ROOT))


@pytest.fixture(scope="module")
def v41_run() -> DryRun:
    return plan_arm(v41_call(), state())


def test_supplied_plan_renders_and_admits(v41_run: DryRun) -> None:
    assert v41_run.rendered
    assert v41_run.admitted
    assert v41_run.refusals == ()
    assert v41_run.admission is not None and v41_run.admission.admitted
    assert len(v41_run.hosts) == 4
    assert v41_run.read_at == state().read_at
    assert v41_run.candidate == v41_call().candidate


def test_v41_mounts_checkpoint_row_stores_manifest_readonly_receipts_writable() -> None:
    assert arm_mounts(v41_call()) == (
        BindMount(source="/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"),
        BindMount(source="/var/tmp/engram-local/DeepSeek-V4.1-Flash"),
        BindMount(source="/var/lib/gunbc/engram/v41/manifest"),
        BindMount(source="/var/lib/gunbc/engram/v41/receipts", read_only=False),
    )


def test_glm_mounts_only_its_checkpoint() -> None:
    (mount,) = arm_mounts(glm_call())
    assert mount.read_only
    assert mount.source.endswith("zai-org--GLM-4.6-FP8/5c7e1f3b")


def test_every_host_stages_the_same_engram_steps(v41_run: DryRun) -> None:
    for host in v41_run.hosts:
        assert host.staging == v41_run.hosts[0].staging
        kinds = [type(step) for step in host.staging]
        assert kinds == [MkdirStep, MkdirStep, TypedFileWrite]
    write = v41_run.hosts[0].staging[2]
    assert isinstance(write, TypedFileWrite)
    inputs = load_inputs(load_scenario(ROOT, "supplied").inputs)
    assert inputs.engram_manifest is not None
    assert write.content == inputs.engram_manifest.encode()


def test_hosts_split_the_apply_order(v41_run: DryRun) -> None:
    flattened = sorted((s for h in v41_run.hosts for s in h.steps), key=v41_run.apply_order.index)
    assert tuple(flattened) == v41_run.apply_order


def test_fit_wall_with_and_without_a_profile() -> None:
    fit, refused = fit_wall(v41_call())
    assert fit is not None and fit.allowance_gib == 97 and refused == ()
    no_profile = v41_call().model_copy(update={"profile": None})
    fit, refused = fit_wall(no_profile)
    assert fit is None
    assert [r.code for r in refused] == ["fit.allowance_unknown"]


@pytest.mark.parametrize("missing", ["profile", "image", "engram_manifest"])
def test_a_missing_input_leaves_the_plan_unrendered_and_admission_unasked(missing: str) -> None:
    run = plan_arm(v41_call().model_copy(update={missing: None}), state())
    assert not run.rendered
    assert run.launch is None
    assert run.hosts == ()
    assert run.apply_order == ()
    assert run.admission is None
    assert not run.admitted


def test_an_unrendered_plan_is_never_admitted_even_without_refusals() -> None:
    run = plan_arm(v41_call().model_copy(update={"image": None}), state())
    assert run.refusals == ()
    assert not run.admitted


def test_plan_refusals_come_before_admission_refusals() -> None:
    run = plan_arm(v41_call("unprobed_image"), state("host_not_held"))
    assert [r.code for r in run.refusals] == ["runtime.unprobed_image", "admission.host_not_held"]


def test_obligations_are_carried_into_the_refusals() -> None:
    run = plan_arm(v41_call("live"), state("live"))
    assert [r.code for r in run.refusals] == [
        "frontier.produced_image",
        "frontier.launch_shape",
        "frontier.engram_manifest",
        "fit.allowance_unknown",
    ]


def test_glm_through_the_same_launcher() -> None:
    run = plan_arm(glm_call(), state())
    assert run.admitted
    assert all(h.staging == () for h in run.hosts)
    assert run.candidate.key == "glm_group_b:zai-org/GLM-4.6-FP8@5c7e1f3b:gunbc-glm-native"


def test_the_launcher_follows_the_identity_it_is_called_with() -> None:
    renamed = glm_call().model_copy(
        update={"container": glm_call().container.model_copy(update={"name": "probe-arm"})}
    )
    run = plan_arm(renamed, state())
    for host in run.hosts:
        assert host.realization.container_name == "probe-arm"
        assert "start --attach probe-arm" in host.realization.unit_text
        assert all(s.invocation[-1] == "probe-arm" for s in host.steps)
