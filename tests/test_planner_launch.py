"""planner.launch: the mp-backend launch plan, one serve argv and env per node rank."""

from __future__ import annotations

import pytest

from planner import data
from planner.arms.glm_group_b import GLM_GROUP_B_PROFILE, GLM_NATIVE_CONTAINER, GLM_ROUTE, glm_row
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import (
    V41_CONTAINER,
    V41_ENGRAM_PLACEMENT,
    V41_ROUTE,
    deepseek_v41_flash_row,
    deepseek_v41_measurement_profile,
)
from planner.fabric import Fabric
from planner.launch import LaunchPlan, RankLaunch, host_env, plan_arm_launch, rank_serve_argv

DIGEST = "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22"
PLACEMENT = "/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return data.fabric()


@pytest.fixture(scope="module")
def plan(fabric: Fabric) -> LaunchPlan:
    profile = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=8000, max_num_batched_tokens=8192, prefix_caching=False
    )
    return plan_arm_launch(
        fabric.group("group_a"),
        deepseek_v41_flash_row(data.manifest(V41_MANIFEST)),
        profile,
        V41_CONTAINER,
        V41_ROUTE,
        DIGEST,
        V41_ENGRAM_PLACEMENT.env(),
    )


def value_after(argv: tuple[str, ...], flag: str) -> str:
    assert argv.count(flag) == 1, f"{flag} appears {argv.count(flag)} times in {argv}"
    return argv[argv.index(flag) + 1]


def test_four_ranks_head_first(plan: LaunchPlan) -> None:
    assert [r.rank for r in plan.ranks] == [0, 1, 2, 3]
    assert [r.host.name for r in plan.ranks] == ["srv5", "srv6", "srv7", "srv8"]
    assert plan.head.rank == 0 and plan.head.is_head
    assert [r.is_head for r in plan.ranks] == [True, False, False, False]
    assert plan.image_digest == DIGEST


def test_serve_argv_starts_with_serve_and_the_placement(plan: LaunchPlan) -> None:
    for rank in plan.ranks:
        assert rank.serve_argv[:2] == ("serve", PLACEMENT)
        assert value_after(rank.serve_argv, "--served-model-name") == "dsv41"


def test_rank_zero_serves_on_the_route_port(plan: LaunchPlan) -> None:
    argv = plan.head.serve_argv
    assert value_after(argv, "--host") == "0.0.0.0"
    assert value_after(argv, "--port") == "8000"
    assert "--headless" not in argv


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_followers_are_headless_and_serve_no_port(plan: LaunchPlan, rank: int) -> None:
    argv = plan.ranks[rank].serve_argv
    assert argv.count("--headless") == 1
    assert "--port" not in argv
    assert "--host" not in argv


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_mp_backend_rendezvous_over_the_head_rail(plan: LaunchPlan, rank: int) -> None:
    argv = plan.ranks[rank].serve_argv
    assert value_after(argv, "--distributed-executor-backend") == "mp"
    assert value_after(argv, "--tensor-parallel-size") == "4"
    assert value_after(argv, "--nnodes") == "4"
    assert value_after(argv, "--node-rank") == str(rank)
    assert value_after(argv, "--master-addr") == "10.77.1.15"
    assert value_after(argv, "--master-port") == "29511"


def test_one_serve_covers_the_whole_staircase(plan: LaunchPlan) -> None:
    for rank in plan.ranks:
        argv = rank.serve_argv
        assert value_after(argv, "--max-model-len") == "262144"
        assert value_after(argv, "--max-num-seqs") == "16"
        assert value_after(argv, "--max-num-batched-tokens") == "8192"
        assert value_after(argv, "--gpu-memory-utilization") == "0.8"
        assert value_after(argv, "--kv-cache-dtype") == "fp8_ds_mla"
        assert value_after(argv, "--engram-config.cpu_offload") == "true"
        assert value_after(argv, "--engram-config.dp_shared_memory") == "false"
        assert "--no-enable-prefix-caching" in argv
        assert "--enable-prefix-caching" not in argv
        assert value_after(argv, "--tokenizer-mode") == "deepseek_v41"
        assert value_after(argv, "--tool-call-parser") == "deepseek_v41"
        assert value_after(argv, "--reasoning-parser") == "deepseek_v41"


def test_ranks_differ_only_in_rank_and_serving_flags(plan: LaunchPlan) -> None:
    def stripped(r: RankLaunch) -> list[str]:
        argv = list(r.serve_argv)
        i = argv.index("--node-rank")
        del argv[i : i + 2]
        return [a for a in argv if a not in ("--host", "0.0.0.0", "--port", "8000", "--headless")]

    first = stripped(plan.ranks[0])
    assert all(stripped(r) == first for r in plan.ranks)


def test_every_rank_has_its_own_fabric_env_then_the_engram_env(plan: LaunchPlan) -> None:
    for rank in plan.ranks:
        env = dict(rank.env)
        assert env["VLLM_HOST_IP"] == rank.host.rail_address
        assert env["NCCL_SOCKET_IFNAME"] == "enp1s0f1np1"
        assert env["GLOO_SOCKET_IFNAME"] == "enp1s0f1np1"
        assert env["GUNBC_ENGRAM_ROW_STORE_MANIFEST"] == V41_ENGRAM_PLACEMENT.manifest_path
        assert env["GUNBC_ENGRAM_TOUCH_RECEIPT_DIR"] == V41_ENGRAM_PLACEMENT.receipt_dir
        assert rank.env[:3] == host_env(rank.host)
    assert [dict(r.env)["VLLM_HOST_IP"] for r in plan.ranks] == [
        "10.77.1.15",
        "10.77.1.16",
        "10.77.1.17",
        "10.77.1.18",
    ]


def test_profile_key_is_the_profiles(plan: LaunchPlan) -> None:
    profile = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=8000, max_num_batched_tokens=8192, prefix_caching=False
    )
    assert plan.profile_key == profile.content_key()


def test_glm_serve_argv_on_group_b(fabric: Fabric) -> None:
    group = fabric.group("group_b")
    row = glm_row(data.manifest(GLM_MANIFEST))
    argv = rank_serve_argv(0, group, row, GLM_GROUP_B_PROFILE, GLM_NATIVE_CONTAINER, GLM_ROUTE)
    assert value_after(argv, "--master-addr") == "10.77.1.11"
    assert value_after(argv, "--master-port") == "29500"
    assert value_after(argv, "--port") == "8100"
    assert value_after(argv, "--kv-cache-dtype") == "fp8"
    assert "--enable-prefix-caching" in argv
    assert "--tokenizer-mode" not in argv
    assert not any(a.startswith("--engram-config") for a in argv)
