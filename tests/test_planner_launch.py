"""planner.launch: the plan's profile key, which no arm's claim states.

Each rank's serve argv and env, head first, are witnesses/arms/arm_launch.py's claims for every
arm (every_rank_serve_argv_is_planned_whole,
every_rank_runs_on_its_inventory_host_with_its_env).
"""

from __future__ import annotations

from planner import data
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import (
    V41_CONTAINER,
    V41_ENGRAM_PLACEMENT,
    V41_ROUTE,
    deepseek_v41_flash_row,
    deepseek_v41_measurement_profile,
)
from planner.launch import plan_arm_launch

DIGEST = "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22"


def test_profile_key_is_the_profiles() -> None:
    profile = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=8000, max_num_batched_tokens=8192, prefix_caching=False
    )
    plan = plan_arm_launch(
        data.fabric().group("group_a"),
        deepseek_v41_flash_row(data.manifest(V41_MANIFEST)),
        profile,
        V41_CONTAINER,
        V41_ROUTE,
        DIGEST,
        V41_ENGRAM_PLACEMENT.env(),
    )
    assert plan.profile_key == profile.content_key()
