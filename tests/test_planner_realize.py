"""planner.realize: each host's docker create argv and systemd unit text."""

from __future__ import annotations

import pytest

from fixtures.builders import glm_dry_run, v41_dry_run
from planner.arm_launch import DryRun
from planner.identity import BindMount
from planner.realize import DOCKER_BIN, HostRealization, mount_flag

DIGEST = "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22"
GLM_DIGEST = "sha256:d6a537aebef0269609c1613efba5cba9c1c7939695e6095b4f6b467a7ea89dfc"
CHECKPOINT = "/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"
ROW_STORES = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"
MANIFEST_DIR = "/var/lib/gunbc/engram/v41/manifest"
RECEIPTS = "/var/lib/gunbc/engram/v41/receipts"


def _supplied_runs() -> tuple[DryRun, DryRun]:
    v41, glm = v41_dry_run("supplied"), glm_dry_run("supplied")
    assert v41.launch is not None and glm.launch is not None
    return v41, glm


V41_RUN, GLM_RUN = _supplied_runs()
V41_HOSTS = tuple(h.realization for h in V41_RUN.hosts)
GLM_HOSTS = tuple(h.realization for h in GLM_RUN.hosts)


def flag_values(argv: tuple[str, ...], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_four_v41_hosts_head_first() -> None:
    assert [(r.rank, r.host_name) for r in V41_HOSTS] == [
        (0, "srv5"),
        (1, "srv6"),
        (2, "srv7"),
        (3, "srv8"),
    ]


@pytest.mark.parametrize("real", V41_HOSTS, ids=lambda r: r.host_name)
def test_v41_create_argv(real: HostRealization) -> None:
    argv = real.create_argv
    assert argv[:2] == ("docker", "create")
    assert flag_values(argv, "--name") == ["gunbc-v41-tp4"]
    assert flag_values(argv, "--network") == ["host"]
    assert flag_values(argv, "--ipc") == ["host"]
    assert flag_values(argv, "--gpus") == ["all"]
    assert flag_values(argv, "--shm-size") == ["32g"]
    assert flag_values(argv, "--label") == ["gunbc.arm=v41_group_a", f"gunbc.rank={real.rank}"]
    entry = argv.index("--entrypoint")
    assert argv[entry + 1] == "vllm"
    assert argv[entry + 2] == DIGEST
    assert argv[entry + 3] == "serve"


@pytest.mark.parametrize("real", V41_HOSTS, ids=lambda r: r.host_name)
def test_v41_mounts(real: HostRealization) -> None:
    def bind(source: str) -> str:
        return f"type=bind,source={source},target={source}"

    assert flag_values(real.create_argv, "--mount") == [
        bind(CHECKPOINT) + ",readonly",
        bind(ROW_STORES) + ",readonly",
        bind(MANIFEST_DIR) + ",readonly",
        bind(RECEIPTS),
    ]


@pytest.mark.parametrize("real", V41_HOSTS, ids=lambda r: r.host_name)
def test_v41_env(real: HostRealization) -> None:
    env = dict(e.split("=", 1) for e in flag_values(real.create_argv, "--env"))
    rail = {"srv5": "10.77.1.15", "srv6": "10.77.1.16", "srv7": "10.77.1.17", "srv8": "10.77.1.18"}
    assert env == {
        "VLLM_HOST_IP": rail[real.host_name],
        "NCCL_SOCKET_IFNAME": "enp1s0f1np1",
        "GLOO_SOCKET_IFNAME": "enp1s0f1np1",
        "GUNBC_ENGRAM_ROW_STORE_MANIFEST": f"{MANIFEST_DIR}/row-store-manifest.json",
        "GUNBC_ENGRAM_TOUCH_RECEIPT_DIR": RECEIPTS,
    }


def test_every_flag_precedes_the_image() -> None:
    for real in V41_HOSTS + GLM_HOSTS:
        argv = real.create_argv
        image_at = argv.index("--entrypoint") + 2
        create_flags = argv[2:image_at]
        assert all(a.startswith("--") for a in create_flags[::2])


def test_the_serve_argv_follows_the_image_verbatim() -> None:
    assert V41_RUN.launch is not None
    for real, launch in zip(V41_HOSTS, V41_RUN.launch.ranks, strict=True):
        image_at = real.create_argv.index("--entrypoint") + 2
        assert real.create_argv[image_at + 1 :] == launch.serve_argv


@pytest.mark.parametrize("real", V41_HOSTS, ids=lambda r: r.host_name)
def test_v41_unit_text(real: HostRealization) -> None:
    head = real.rank == 0
    name = "gunbc-v41-tp4-head" if head else "gunbc-v41-tp4-rank"
    assert real.unit_name == f"{name}.service"
    assert real.log_path == f"/var/log/gunbc/{name}.log"
    lines = real.unit_text.splitlines()
    assert f"ExecStart={DOCKER_BIN} start --attach gunbc-v41-tp4" in lines
    assert f"ExecStop={DOCKER_BIN} stop --time 120 gunbc-v41-tp4" in lines
    assert f"StandardOutput=append:{real.log_path}" in lines
    assert "Requires=docker.service" in lines
    assert (
        "Description=DeepSeek-V4.1 TP4 serving arm (Group A): head (node rank 0)" in lines
    ) == head
    assert lines[0] == "[Unit]"
    assert real.unit_text.endswith("\n")
    assert [ln for ln in lines if ln.startswith("[")] == ["[Unit]", "[Service]", "[Install]"]


def test_no_other_arms_names_in_v41_artifacts() -> None:
    for real in V41_HOSTS:
        text = "\n".join((*real.create_argv, real.unit_text, real.unit_name, real.log_path))
        assert "glm-native" not in text
        assert "gunbc-spark-pair" not in text
        assert "glm" not in text.lower()


def test_glm_artifacts_use_glm_native_names() -> None:
    assert [r.host_name for r in GLM_HOSTS] == ["srv1", "srv2", "srv3", "srv4"]
    for real in GLM_HOSTS:
        assert real.container_name == "glm-native-tp4"
        assert flag_values(real.create_argv, "--name") == ["glm-native-tp4"]
        assert real.unit_name == (
            "glm-native-head.service" if real.rank == 0 else "glm-native-rank.service"
        )
        assert "ExecStart=/usr/bin/docker start --attach glm-native-tp4" in real.unit_text
        assert real.create_argv[real.create_argv.index("--entrypoint") + 2] == GLM_DIGEST
        text = "\n".join((*real.create_argv, real.unit_text))
        assert "gunbc-v41" not in text
        assert "engram" not in text.lower()


def test_glm_mounts_only_its_checkpoint() -> None:
    for real in GLM_HOSTS:
        (mount,) = flag_values(real.create_argv, "--mount")
        assert mount.endswith(",readonly")
        assert "zai-org--GLM-4.6-FP8/5c7e1f3b" in mount


def test_mount_flag() -> None:
    assert mount_flag(BindMount(source="/a")) == (
        "--mount",
        "type=bind,source=/a,target=/a,readonly",
    )
    assert mount_flag(BindMount(source="/b", read_only=False)) == (
        "--mount",
        "type=bind,source=/b,target=/b",
    )
