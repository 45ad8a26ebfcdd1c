"""planner.profile: launch profiles, their flags and their content key."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from planner.arms.glm_group_b import GLM_GROUP_B_PROFILE
from planner.arms.v41_group_a import (
    V41_ENGRAM_REQUEST,
    V41_MEASUREMENT_MAX_MODEL_LEN,
    V41_STAIRCASE_CONCURRENCIES,
    deepseek_v41_measurement_profile,
)
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest


def profile(bp: int = 8000, **extra: object) -> ServingLaunchProfile:
    fields: dict[str, object] = {
        "gpu_memory_utilization_bp": bp,
        "max_model_len": 131072,
        "max_num_seqs": 8,
        "max_num_batched_tokens": 8192,
        "kv_cache_dtype": "fp8",
        "prefix_caching": True,
        **extra,
    }
    return ServingLaunchProfile.model_validate(fields)


@pytest.mark.parametrize(
    ("bp", "text"),
    [
        (8000, "0.8"),
        (5000, "0.5"),
        (8850, "0.885"),
        (10000, "1.0"),
        (1, "0.0001"),
        (9999, "0.9999"),
        (8500, "0.85"),
        (1000, "0.1"),
    ],
)
def test_utilization_text_is_exact(bp: int, text: str) -> None:
    assert profile(bp).utilization_text == text


@given(st.integers(min_value=1, max_value=10000))
def test_utilization_text_reads_back_as_the_basis_points(bp: int) -> None:
    text = profile(bp).utilization_text
    assert Decimal(text) * 10000 == bp
    assert not text.endswith("0") or text == "1.0"


@pytest.mark.parametrize("bp", [0, -1, 10001])
def test_utilization_outside_zero_to_one_is_refused(bp: int) -> None:
    with pytest.raises(ValidationError):
        profile(bp)


def test_unknown_kv_cache_dtype_is_refused() -> None:
    with pytest.raises(ValidationError):
        profile(kv_cache_dtype="fp4")


def test_content_key_is_stable_and_shaped() -> None:
    key = profile().content_key()
    assert key == profile().content_key()
    assert key.startswith("sha256:") and len(key) == len("sha256:") + 64


def test_content_key_changes_with_content() -> None:
    keys = {
        profile().content_key(),
        profile(8001).content_key(),
        profile(prefix_caching=False).content_key(),
        profile(max_num_seqs=9).content_key(),
        profile(kv_cache_dtype="auto").content_key(),
    }
    assert len(keys) == 5


def test_absent_engram_leaves_the_key_of_the_same_profile_built_without_the_field() -> None:
    without_field = profile()
    explicit_none = profile(engram=None)
    assert "engram" not in without_field.model_fields_set
    assert without_field.content_key() == explicit_none.content_key()


def test_absent_engram_does_not_enter_the_key_at_all() -> None:
    p = profile()
    body = {k: v for k, v in p.model_dump().items() if k != "engram"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert p.content_key() == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def test_setting_engram_changes_the_key() -> None:
    plain = profile().content_key()
    on = profile(engram=VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=False))
    off = profile(engram=VllmEngramConfigRequest(cpu_offload=False, dp_shared_memory=False))
    assert len({plain, on.content_key(), off.content_key()}) == 3


def test_glm_profile_carries_no_engram_request() -> None:
    assert GLM_GROUP_B_PROFILE.engram is None
    assert GLM_GROUP_B_PROFILE.content_key() == profile(8500).content_key()
    assert not any("engram" in flag for flag in GLM_GROUP_B_PROFILE.flags())


def test_engram_request_renders_upstreams_dotted_form() -> None:
    assert V41_ENGRAM_REQUEST.flags() == (
        "--engram-config.cpu_offload",
        "true",
        "--engram-config.dp_shared_memory",
        "false",
    )


def test_profile_flags() -> None:
    assert profile().flags() == (
        "--gpu-memory-utilization",
        "0.8",
        "--max-model-len",
        "131072",
        "--max-num-seqs",
        "8",
        "--max-num-batched-tokens",
        "8192",
        "--kv-cache-dtype",
        "fp8",
        "--enable-prefix-caching",
    )


def test_prefix_caching_is_explicit_either_way() -> None:
    assert profile(prefix_caching=False).flags()[-1] == "--no-enable-prefix-caching"
    assert "--no-enable-prefix-caching" not in profile().flags()


def test_v41_measurement_profile_is_minted() -> None:
    minted = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=8000, max_num_batched_tokens=8192, prefix_caching=False
    )
    assert minted.kv_cache_dtype == "fp8_ds_mla"
    assert minted.engram == VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=False)
    assert minted.max_model_len == V41_MEASUREMENT_MAX_MODEL_LEN == 262144
    assert minted.max_num_seqs == max(V41_STAIRCASE_CONCURRENCIES) == 16
    assert minted.flags() == (
        "--gpu-memory-utilization",
        "0.8",
        "--max-model-len",
        "262144",
        "--max-num-seqs",
        "16",
        "--max-num-batched-tokens",
        "8192",
        "--kv-cache-dtype",
        "fp8_ds_mla",
        "--no-enable-prefix-caching",
        "--engram-config.cpu_offload",
        "true",
        "--engram-config.dp_shared_memory",
        "false",
    )


def test_v41_profile_takes_the_measurements_axes_as_parameters() -> None:
    minted = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=8850,
        max_num_batched_tokens=4096,
        prefix_caching=True,
        staircase=(1, 2, 32),
    )
    assert minted.utilization_text == "0.885"
    assert minted.max_num_batched_tokens == 4096
    assert minted.prefix_caching is True
    assert minted.max_num_seqs == 32
    assert minted.kv_cache_dtype == "fp8_ds_mla"
