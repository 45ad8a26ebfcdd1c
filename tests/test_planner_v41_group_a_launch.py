"""planner.arms.v41_group_a: the one V4.1 call site and its dry run."""

from __future__ import annotations

import json

import pytest

from planner import data
from planner.arms import arms
from planner.arms.v41_group_a import (
    ARM,
    GROUP,
    NAME,
    SPARK_PAIR_SERVE_PORT,
    V41_CONTAINER,
    V41_ENGRAM_PLACEMENT,
    V41_ROUTE,
    V41_RUNTIME_KEY,
    V41_UNITS,
    v41_group_a_call,
    v41_group_a_launch_dry_run,
    v41_profile,
)
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.authority import fold, read_log
from planner.checkpoint import PageCacheFromNonKvHeadroom
from planner.frontiers import PlanInputs
from planner.refusal import PlannerInputError
from planner.scenarios import load_inputs, load_scenario

ROOT = data.default_data_root()
FABRIC = data.fabric(ROOT)
MANIFEST = data.manifest(V41_MANIFEST, ROOT)
SUPPLIED = load_scenario(ROOT, "supplied")
INPUTS = load_inputs(SUPPLIED.inputs)
STATE = fold(read_log(SUPPLIED.authority), SUPPLIED.now)


def test_call_site_names() -> None:
    call = v41_group_a_call(FABRIC, MANIFEST, INPUTS)
    assert (call.arm, call.group.name) == (NAME, GROUP) == ("v41_group_a", "group_a")
    assert call.container == V41_CONTAINER
    assert call.units == V41_UNITS
    assert call.route == V41_ROUTE
    assert call.route.serve_port == SPARK_PAIR_SERVE_PORT == 8000
    assert call.runtime_key == V41_RUNTIME_KEY == "gunbc-deepseek-v41-engram-produced"
    assert call.engram == V41_ENGRAM_PLACEMENT
    assert call.row.weight_gib == 287
    assert isinstance(call.row.resident_beyond_weights, PageCacheFromNonKvHeadroom)
    assert call.obligations == ()


def test_profile_is_minted_from_the_launch_shape() -> None:
    assert v41_profile(PlanInputs()) is None
    profile = v41_profile(INPUTS)
    assert profile is not None
    assert profile.gpu_memory_utilization_bp == 8000
    assert profile.max_num_batched_tokens == 8192
    assert profile.prefix_caching is False
    assert profile.kv_cache_dtype == "fp8_ds_mla"
    assert profile.engram is not None


def test_no_inputs_carries_the_three_obligations() -> None:
    call = v41_group_a_call(FABRIC, MANIFEST, PlanInputs())
    assert [r.code for r in call.obligations] == [
        "frontier.produced_image",
        "frontier.launch_shape",
        "frontier.engram_manifest",
    ]
    assert call.profile is None and call.image is None and call.engram_manifest is None


def test_dry_run_with_everything_supplied_admits() -> None:
    run = v41_group_a_launch_dry_run(FABRIC, MANIFEST, INPUTS, STATE)
    assert run.admitted
    assert run.arm == "v41_group_a"
    assert run.fit is not None and run.fit.margin_gib == 4
    assert run.launch is not None
    assert run.launch.image_digest == (
        "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22"
    )


def test_a_manifest_escaping_the_row_store_dir_names_its_source() -> None:
    bad = json.dumps({"row_stores": [{"path": "/etc/passwd"}]})
    inputs = INPUTS.model_copy(update={"engram_manifest": bad})
    with pytest.raises(PlannerInputError) as info:
        v41_group_a_launch_dry_run(FABRIC, MANIFEST, inputs, STATE, "scenario/inputs.json")
    assert info.value.source == "scenario/inputs.json"
    assert info.value.where == "engram_manifest.row_stores[0].path"


def test_without_a_source_the_error_still_names_the_inputs() -> None:
    inputs = INPUTS.model_copy(update={"engram_manifest": "nope"})
    with pytest.raises(PlannerInputError) as info:
        v41_group_a_call(FABRIC, MANIFEST, inputs)
    assert info.value.source == "inputs"


def test_its_module_is_its_arm() -> None:
    assert arms()["v41_group_a"] == ARM
    assert (ARM.name, ARM.group, ARM.report, ARM.uses_inputs) == (
        "v41_group_a",
        "group_a",
        "target/v41-group-a-launch-dry-run.txt",
        True,
    )
