"""The launch plan for the mp backend: one vLLM serve argv and env per node rank.

``--distributed-executor-backend mp`` across hosts: TP = group size, every rank told
``--nnodes/--node-rank/--master-addr/--master-port``; rank 0 serves on the route's
port and ranks 1..N-1 run ``--headless``.
"""

from __future__ import annotations

from planner.checkpoint import CheckpointRow
from planner.fabric import FabricGroup, Host, serving_head
from planner.identity import ArmContainerIdentity
from planner.profile import ServingLaunchProfile
from planner.values import Frozen, SafeName


class ServingRoute(Frozen):
    """Where clients reach the arm: the head's serving port and the served model name."""

    serve_port: int
    served_model_name: SafeName


class RankLaunch(Frozen):
    """What one node rank runs: its host, the serve argv after ``vllm``, its env."""

    rank: int
    host: Host
    serve_argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]

    @property
    def is_head(self) -> bool:
        return self.rank == 0


class LaunchPlan(Frozen):
    """Every rank's launch, head first, plus the values they were planned from."""

    ranks: tuple[RankLaunch, ...]
    image_digest: str
    profile_key: str

    @property
    def head(self) -> RankLaunch:
        return self.ranks[0]


def rank_serve_argv(
    rank: int,
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
) -> tuple[str, ...]:
    """The ``vllm serve`` argv (after the entrypoint) for node rank ``rank``."""
    size = str(group.size)
    distributed = (
        "--distributed-executor-backend", "mp",
        "--tensor-parallel-size", size,
        "--nnodes", size,
        "--node-rank", str(rank),
        "--master-addr", serving_head(group).rail_address,
        "--master-port", str(container.rendezvous_port),
    )  # fmt: skip
    serving = (
        ("--host", "0.0.0.0", "--port", str(route.serve_port)) if rank == 0 else ("--headless",)
    )
    named = ("--served-model-name", route.served_model_name)
    return (
        "serve",
        row.placement,
        *named,
        *distributed,
        *serving,
        *profile.flags(),
        *row.parsers.flags(),
    )


def host_env(host: Host) -> tuple[tuple[str, str], ...]:
    """Per-host fabric env: vLLM's host IP and the NCCL/Gloo interface on the rail."""
    return (
        ("VLLM_HOST_IP", host.rail_address),
        ("NCCL_SOCKET_IFNAME", host.rail_interface),
        ("GLOO_SOCKET_IFNAME", host.rail_interface),
    )


def plan_arm_launch(
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
    image_digest: str,
    extra_env: tuple[tuple[str, str], ...] = (),
) -> LaunchPlan:
    """Plan every rank of ``group``; rank order is the group's host order (head first)."""
    ranks = tuple(
        RankLaunch(
            rank=rank,
            host=host,
            serve_argv=rank_serve_argv(rank, group, row, profile, container, route),
            env=host_env(host) + extra_env,
        )
        for rank, host in enumerate(group.hosts)
    )
    return LaunchPlan(ranks=ranks, image_digest=image_digest, profile_key=profile.content_key())
