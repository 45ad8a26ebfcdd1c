"""planner.arms.glm_group_b: Group B's GLM arm through the same launcher."""

from __future__ import annotations

from planner import data
from planner.arms import arms
from planner.arms.glm_group_b import (
    ARM,
    GLM_GROUP_B_PROFILE,
    GLM_NATIVE_CONTAINER,
    GLM_NATIVE_IMAGE,
    GLM_NATIVE_UNITS,
    GLM_ROUTE,
    GLM_RUNTIME_KEY,
    GROUP,
    NAME,
    glm_group_b_call,
    glm_group_b_launch_dry_run,
)
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.authority import fold, read_log
from planner.checkpoint import NothingBeyondWeights
from planner.runtime import arm_wall
from planner.scenarios import load_scenario

ROOT = data.default_data_root()
FABRIC = data.fabric(ROOT)
MANIFEST = data.manifest(GLM_MANIFEST, ROOT)


def test_call_site_names_glms_own_values() -> None:
    call = glm_group_b_call(FABRIC, MANIFEST)
    assert (call.arm, call.group.name) == (NAME, GROUP) == ("glm_group_b", "group_b")
    assert call.container == GLM_NATIVE_CONTAINER
    assert call.units == GLM_NATIVE_UNITS
    assert call.route == GLM_ROUTE
    assert call.runtime_key == GLM_RUNTIME_KEY == "gunbc-glm-native"
    assert call.profile == GLM_GROUP_B_PROFILE
    assert call.image == GLM_NATIVE_IMAGE
    assert call.engram is None and call.engram_manifest is None
    assert call.obligations == ()
    assert isinstance(call.row.resident_beyond_weights, NothingBeyondWeights)


def test_the_pinned_glm_image_was_probed() -> None:
    assert arm_wall(GLM_NATIVE_IMAGE) is None


def test_glm_supplied_admits() -> None:
    scenario = load_scenario(ROOT, "supplied")
    run = glm_group_b_launch_dry_run(
        FABRIC, MANIFEST, fold(read_log(scenario.authority), scenario.now)
    )
    assert run.admitted
    assert [h.realization.host_name for h in run.hosts] == ["srv1", "srv2", "srv3", "srv4"]
    assert run.fit is not None and run.fit.allowance_gib == 0 and run.fit.fits
    assert run.launch is not None
    assert run.launch.profile_key == GLM_GROUP_B_PROFILE.content_key()


def test_glm_is_refused_while_its_group_is_active() -> None:
    scenario = load_scenario(ROOT, "supplied")
    events = read_log(scenario.authority)
    before_suspension = fold(tuple(e for e in events if e.seq < 12), scenario.now)
    run = glm_group_b_launch_dry_run(FABRIC, MANIFEST, before_suspension)
    assert [r.code for r in run.refusals] == ["admission.active_incumbent"]


def test_glm_rendered_bytes_carry_nothing_of_v41() -> None:
    scenario = load_scenario(ROOT, "supplied")
    run = glm_group_b_launch_dry_run(
        FABRIC, MANIFEST, fold(read_log(scenario.authority), scenario.now)
    )
    for host in run.hosts:
        text = "\n".join(
            (
                *host.realization.create_argv,
                host.realization.unit_text,
                *(s.script for s in host.steps),
            )
        )
        assert "v41" not in text.lower()
        assert "engram" not in text.lower()
        assert "--tokenizer-mode" not in text
        assert "glm-native-tp4" in text


def test_its_module_is_its_arm() -> None:
    assert arms()["glm_group_b"] == ARM
    assert (ARM.name, ARM.group, ARM.report, ARM.uses_inputs) == (
        "glm_group_b",
        "group_b",
        "target/glm-group-b-launch-dry-run.txt",
        False,
    )
