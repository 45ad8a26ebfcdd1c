"""GLM on Group B (srv1-4): its supplied plan's values, literally."""

from __future__ import annotations

from witnesses.arms.expected import Expected, bind, unit_text

_CHECKPOINT = "/var/lib/gunbc/checkpoints/zai-org--GLM-4.6-FP8/5c7e1f3b"
_CONTAINER = "glm-native-tp4"
_DESCRIPTION = "GLM native serving arm (Group B)"

EXPECTED = Expected(
    hosts=("srv1", "srv2", "srv3", "srv4"),
    container="glm-native-tp4",
    head_unit="glm-native-head",
    rank_unit="glm-native-rank",
    head_create=(
        "docker", "create",
        "--name", "glm-native-tp4",
        "--network", "host",
        "--ipc", "host",
        "--gpus", "all",
        "--shm-size", "16g",
        "--label", "gunbc.arm=glm_group_b",
        "--label", "gunbc.rank=0",
        *bind(_CHECKPOINT),
        "--env", "VLLM_HOST_IP=10.77.1.11",
        "--env", "NCCL_SOCKET_IFNAME=enp1s0f1np1",
        "--env", "GLOO_SOCKET_IFNAME=enp1s0f1np1",
        "--entrypoint", "vllm",
        "sha256:d6a537aebef0269609c1613efba5cba9c1c7939695e6095b4f6b467a7ea89dfc",
    ),
    head_serve=(
        "serve", _CHECKPOINT,
        "--served-model-name", "glm",
        "--distributed-executor-backend", "mp",
        "--tensor-parallel-size", "4",
        "--nnodes", "4",
        "--node-rank", "0",
        "--master-addr", "10.77.1.11",
        "--master-port", "29500",
        "--host", "0.0.0.0",
        "--port", "8100",
        "--gpu-memory-utilization", "0.85",
        "--max-model-len", "131072",
        "--max-num-seqs", "8",
        "--max-num-batched-tokens", "8192",
        "--kv-cache-dtype", "fp8",
        "--enable-prefix-caching",
        "--tool-call-parser", "glm45",
        "--enable-auto-tool-choice",
        "--reasoning-parser", "glm45",
    ),
    env=(),
    head_unit_text=unit_text(f"{_DESCRIPTION}: head (node rank 0)", _CONTAINER, "glm-native-head"),
    rank_unit_text=unit_text(f"{_DESCRIPTION}: follower", _CONTAINER, "glm-native-rank"),
    health="http://10.77.1.11:8100/health",
    candidate=("glm_group_b", "zai-org/GLM-4.6-FP8@5c7e1f3b", "gunbc-glm-native"),
    manifest="checkpoints/glm-4.6-fp8-5c7e1f3b.manifest.json",
    weight_gib=331,
    allowance_gib=0,
    pinned=True,
    admitted=True,
    report="target/glm-group-b-launch-dry-run.txt",
)  # fmt: skip
