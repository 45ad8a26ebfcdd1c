"""Realization per host: the ``docker create`` argv and the systemd unit that runs it."""

from __future__ import annotations

from planner.identity import ArmContainerIdentity, ArmUnitIdentity, BindMount
from planner.launch import LaunchPlan, RankLaunch
from planner.values import Frozen, SafeName

DOCKER_BIN = "/usr/bin/docker"
STOP_GRACE_SECONDS = 120


class HostRealization(Frozen):
    """What one host runs: its rank, the create argv, and the unit that starts it."""

    rank: int
    host_name: SafeName
    container_name: SafeName
    create_argv: tuple[str, ...]
    unit_name: SafeName
    unit_text: str
    log_path: str


def mount_flag(mount: BindMount) -> tuple[str, str]:
    """A bind mount (at the same path inside the container unless it names a target),
    read-only unless writable."""
    spec = f"type=bind,source={mount.source},target={mount.target or mount.source}"
    return ("--mount", spec + (",readonly" if mount.read_only else ""))


def create_argv(
    launch: RankLaunch,
    arm: str,
    container: ArmContainerIdentity,
    mounts: tuple[BindMount, ...],
    image: str,
) -> tuple[str, ...]:
    """The ``docker create`` argv for one rank, as a tuple of strings; ``image`` is the
    reference docker creates from (an arm's digest, a recipe's digest or tag)."""
    labels = ("--label", f"gunbc.arm={arm}", "--label", f"gunbc.rank={launch.rank}")
    mount_flags = tuple(flag for m in mounts + container.extra_mounts for flag in mount_flag(m))
    env_flags = tuple(flag for k, v in launch.env for flag in ("--env", f"{k}={v}"))
    return (
        "docker", "create",
        "--name", container.name,
        "--network", "host",
        "--ipc", "host",
        "--gpus", "all",
        "--shm-size", container.shm_size,
        *labels, *mount_flags, *env_flags,
        "--entrypoint", container.entrypoint,
        image,
        *launch.serve_argv,
    )  # fmt: skip


def unit_text(container: ArmContainerIdentity, units: ArmUnitIdentity, rank: int) -> str:
    """A unit that starts the created container attached, stops it, and logs to its path."""
    role = "head (node rank 0)" if rank == 0 else "follower"
    return "\n".join(
        (
            "[Unit]",
            f"Description={units.description}: {role}",
            "Requires=docker.service",
            "After=docker.service network-online.target",
            "Wants=network-online.target",
            "",
            "[Service]",
            "Type=simple",
            f"ExecStart={DOCKER_BIN} start --attach {container.name}",
            f"ExecStop={DOCKER_BIN} stop --time {STOP_GRACE_SECONDS} {container.name}",
            f"TimeoutStopSec={STOP_GRACE_SECONDS + 30}",
            "Restart=no",
            f"StandardOutput=append:{units.log_path_for_rank(rank)}",
            "StandardError=inherit",
            "",
            "[Install]",
            "WantedBy=multi-user.target",
            "",
        )
    )


def realize_hosts(
    plan: LaunchPlan,
    arm: str,
    container: ArmContainerIdentity,
    units: ArmUnitIdentity,
    mounts: tuple[BindMount, ...],
) -> tuple[HostRealization, ...]:
    """Every host's argv and unit, head first."""
    return tuple(
        HostRealization(
            rank=launch.rank,
            host_name=launch.host.name,
            container_name=container.name,
            create_argv=create_argv(launch, arm, container, mounts, plan.image_digest),
            unit_name=units.unit_for_rank(launch.rank),
            unit_text=unit_text(container, units, launch.rank),
            log_path=units.log_path_for_rank(launch.rank),
        )
        for launch in plan.ranks
    )
