"""planner.profile: the utilization over its whole range, the fields' bounds, the axes.

The flags each profile renders, the content key and the Engram request's place in it, and
the utilization at its named points are the claims of witnesses/arms/arm_launch.py,
v41_group_a_launch.py, glm_group_b_launch.py and serving_fit.py.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from planner.arms.v41_group_a import deepseek_v41_measurement_profile
from planner.profile import ServingLaunchProfile


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
