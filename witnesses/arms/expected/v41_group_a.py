"""V4.1 on Group A (srv5-8): its supplied plan's values, literally."""

from __future__ import annotations

from witnesses.arms.expected import Expected, bind, unit_text

_CHECKPOINT = "/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"
_ROW_STORES = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"
_ENGRAM = "/var/lib/gunbc/engram/v41"
_MANIFEST = f"{_ENGRAM}/manifest/row-store-manifest.json"
_CONTAINER = "gunbc-v41-tp4"
_DESCRIPTION = "DeepSeek-V4.1 TP4 serving arm (Group A)"


EXPECTED = Expected(
    hosts=("srv5", "srv6", "srv7", "srv8"),
    container="gunbc-v41-tp4",
    head_unit="gunbc-v41-tp4-head",
    rank_unit="gunbc-v41-tp4-rank",
    head_create=(
        "docker", "create",
        "--name", "gunbc-v41-tp4",
        "--network", "host",
        "--ipc", "host",
        "--gpus", "all",
        "--shm-size", "32g",
        "--label", "gunbc.arm=v41_group_a",
        "--label", "gunbc.rank=0",
        *bind(_CHECKPOINT),
        *bind(_ROW_STORES),
        *bind(f"{_ENGRAM}/manifest"),
        *bind(f"{_ENGRAM}/receipts", ""),  # touch receipts are written
        "--env", "VLLM_HOST_IP=10.77.1.15",
        "--env", "NCCL_SOCKET_IFNAME=enp1s0f1np1",
        "--env", "GLOO_SOCKET_IFNAME=enp1s0f1np1",
        "--env", f"GUNBC_ENGRAM_ROW_STORE_MANIFEST={_MANIFEST}",
        "--env", f"GUNBC_ENGRAM_TOUCH_RECEIPT_DIR={_ENGRAM}/receipts",
        "--entrypoint", "vllm",
        "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22",
    ),
    head_serve=(
        "serve", _CHECKPOINT,
        "--served-model-name", "dsv41",
        "--distributed-executor-backend", "mp",
        "--tensor-parallel-size", "4",
        "--nnodes", "4",
        "--node-rank", "0",
        "--master-addr", "10.77.1.15",
        "--master-port", "29511",
        "--host", "0.0.0.0",
        "--port", "8000",
        "--gpu-memory-utilization", "0.8",
        "--max-model-len", "262144",
        "--max-num-seqs", "16",
        "--max-num-batched-tokens", "8192",
        "--kv-cache-dtype", "fp8_ds_mla",
        "--no-enable-prefix-caching",
        "--engram-config.cpu_offload", "true",
        "--engram-config.dp_shared_memory", "false",
        "--tool-call-parser", "deepseek_v41",
        "--enable-auto-tool-choice",
        "--reasoning-parser", "deepseek_v41",
        "--tokenizer-mode", "deepseek_v41",
    ),
    env=(
        ("GUNBC_ENGRAM_ROW_STORE_MANIFEST", _MANIFEST),
        ("GUNBC_ENGRAM_TOUCH_RECEIPT_DIR", f"{_ENGRAM}/receipts"),
    ),
    head_unit_text=unit_text(
        f"{_DESCRIPTION}: head (node rank 0)", _CONTAINER, "gunbc-v41-tp4-head"
    ),
    rank_unit_text=unit_text(f"{_DESCRIPTION}: follower", _CONTAINER, "gunbc-v41-tp4-rank"),
    health="http://10.77.1.15:8000/health",
    candidate=(
        "v41_group_a",
        "deepseek-ai/DeepSeek-V4.1-Flash@dba1be0a",
        "gunbc-deepseek-v41-engram-produced",
    ),
    manifest="checkpoints/deepseek-v41-flash-dba1be0a.manifest.json",
    weight_gib=287,
    allowance_gib=97,
    pinned=False,
    admitted=True,
    report="target/v41-group-a-launch-dry-run.txt",
)  # fmt: skip
