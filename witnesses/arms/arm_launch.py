"""Witness: what holds for every arm, written once and run over the arm registry.

Its cases are the arms of ``planner/arms/`` (:func:`planner.arms.arms`), so each claim's id
is ``arm_launch[<arm>].<claim>``. Each arm plans under the ``supplied`` scenario, as the
command line plans it, and its plan is compared with the arm's own literal values in
``witnesses/arms/expected/<arm>.py``; what a follower differs from the head in is the
launcher's rule, stated once here (:mod:`witnesses.arms.expected`). An arm rendered but
refused by admission is still checked: these claims are about what is rendered.
"""

from __future__ import annotations

from typing import Any

from claims import ClaimKind, Verdict, claim, difference, expect_equal, holds_unless
from fixtures.builders import DATA_ROOT, rendered
from planner.apply import Stage
from planner.arm_launch import DryRun
from planner.arms import Arm, arms
from witnesses.arms.expected import Expected, expected, supplied
from witnesses.support import hosts_raw, manifest_weight_gib, placement, read_json

HEREDOC_END = "GUNBC_UNIT_TEXT"
RAIL = ("VLLM_HOST_IP", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")


def cases() -> dict[str, Arm]:
    """Every arm of the registry, by its name."""
    return arms()


def _planned(arm: Arm) -> tuple[DryRun, Expected]:
    """The arm's supplied dry run, rendered, and its expected values."""
    return rendered(supplied(arm), arm.name), expected(arm.name)


def _rail(host: dict[str, Any]) -> tuple[str, str, str]:
    """A host's values of the three rail variables: its address, its interface twice."""
    return host["rail_address"], host["rail_interface"], host["rail_interface"]


def _serve(want: Expected, rank: int) -> tuple[str, ...]:
    """Rank ``rank``'s serve argv: the head's, with its own node rank, and a follower
    ``--headless`` where the head has ``--host 0.0.0.0 --port P``."""
    argv = list(want.head_serve)
    argv[argv.index("--node-rank") + 1] = str(rank)
    if rank:
        at = argv.index("--host")
        argv[at : at + 4] = ["--headless"]
    return tuple(argv)


def _create(want: Expected, rank: int) -> tuple[str, ...]:
    """Rank ``rank``'s create argv before its serve argv: the head's, with a follower's own
    rank label and its own host's rail address and interface (from the inventory)."""
    if rank == 0:
        return want.head_create
    host = hosts_raw(want.hosts)[rank]
    own = {"gunbc.rank": str(rank), **dict(zip(RAIL, _rail(host), strict=True))}
    return tuple(
        f"{key}={own[key]}" if sep and key in own else arg
        for arg in want.head_create
        for key, sep, _ in [arg.partition("=")]
    )


def _unit(want: Expected, rank: int) -> tuple[str, str]:
    """Rank ``rank``'s unit name (without ``.service``) and text."""
    if rank == 0:
        return want.head_unit, want.head_unit_text
    return want.rank_unit, want.rank_unit_text


def _door(want: Expected, rank: int) -> tuple[tuple[str, ...], str]:
    """A step's front door and log: the head answers /health, a follower's unit is active."""
    unit = _unit(want, rank)[0]
    check = (
        ("curl", "-fsS", "--max-time", "5", want.health)
        if rank == 0
        else ("systemctl", "is-active", "--quiet", f"{unit}.service")
    )
    return check, f"/var/log/gunbc/{unit}.log"


def _landed_unit(script: str) -> str | None:
    """The unit text an apply script writes to ``$unit_path.landing`` (its heredoc body)."""
    lines = script.splitlines()
    start = f"cat > \"$unit_path.landing\" <<'{HEREDOC_END}'"
    if start not in lines or HEREDOC_END not in lines:
        return None
    begin = lines.index(start) + 1
    return "\n".join(lines[begin : lines.index(HEREDOC_END, begin)]) + "\n"


@claim(ClaimKind.PLANNED_SHAPE)
def every_rank_serve_argv_is_planned_whole(case: Arm) -> Verdict:
    """Ranks 0-3 run on the arm's hosts in node-rank order, and each rank's serve argv is
    exactly the arm's: every flag and value in order, --node-rank its own, --host and --port
    on the head only, --headless on every follower, the rest identical across ranks."""
    run, want = _planned(case)
    assert run.launch is not None
    placed = [(r.rank, r.host.name) for r in run.launch.ranks]
    problems = difference("(rank, host)", list(enumerate(want.hosts)), placed)
    for r in run.launch.ranks:
        problems += difference(f"rank {r.rank} serve argv", _serve(want, r.rank), r.serve_argv)
    return holds_unless(problems, f"{len(placed)} ranks on {want.hosts}, each argv whole")


@claim(ClaimKind.PLANNED_SHAPE)
def every_host_create_argv_is_planned_whole(case: Arm) -> Verdict:
    """Each host's docker create argv is exactly the arm's: its container with its shm size,
    its arm and rank labels, its mounts and their modes, that host's own rail address and
    interface and the arm's env, the arm's image, then that rank's serve argv."""
    run, want = _planned(case)
    assert run.launch is not None
    problems = difference("hosts", len(want.hosts), len(run.hosts))
    for rank, host in enumerate(run.hosts):
        real = host.realization
        where = (real.rank, real.host_name)
        problems += difference(f"host {rank} (rank, name)", (rank, want.hosts[rank]), where)
        whole = _create(want, rank) + run.launch.ranks[rank].serve_argv
        problems += difference(f"{real.host_name} create argv", whole, real.create_argv)
    return holds_unless(problems, f"{len(run.hosts)} create argvs whole")


@claim(ClaimKind.PLANNED_SHAPE)
def every_unit_is_planned_whole(case: Arm) -> Verdict:
    """The head runs the arm's head unit and every follower its rank unit, each logging to
    /var/log/gunbc/<unit>.log, and each unit's text is exactly the arm's: its description
    and role, after docker, ExecStart attaching the container, ExecStop with the 120 s grace,
    TimeoutStopSec beyond it, Restart=no, wanted by multi-user.target."""
    run, want = _planned(case)
    problems = difference("hosts", len(want.hosts), len(run.hosts))
    for rank, host in enumerate(run.hosts):
        real = host.realization
        unit, text = _unit(want, rank)
        named = (real.container_name, real.unit_name, real.log_path)
        wanted = (want.container, f"{unit}.service", f"/var/log/gunbc/{unit}.log")
        problems += difference(f"{real.host_name} (container, unit, log)", wanted, named)
        problems += difference(
            f"{real.host_name} unit", text.splitlines(), real.unit_text.splitlines()
        )
    return holds_unless(problems, f"{len(run.hosts)} units whole")


@claim(ClaimKind.PLANNED_SHAPE)
def apply_lands_each_hosts_whole_unit(case: Arm) -> Verdict:
    """Each host's apply script lands exactly the arm's unit for its rank, every line in
    order, as the file it moves into place."""
    run, want = _planned(case)
    problems = difference("hosts", len(want.hosts), len(run.hosts))
    for rank, host in enumerate(run.hosts):
        apply = next((s for s in host.steps if s.stage is Stage.APPLY), None)
        landed = _landed_unit(apply.script) if apply is not None else None
        problems += difference(f"rank {rank} landed unit", _unit(want, rank)[1], landed)
    return holds_unless(problems, f"{len(run.hosts)} apply scripts land the whole unit")


@claim(ClaimKind.PLANNED_SHAPE)
def the_apply_order_is_every_stage_head_first(case: Arm) -> Verdict:
    """The apply order is every stage in turn (preflight, preserve, apply, readback, front
    door, commit, rollback, cleanup), each on the head (node rank 0) first and then each
    follower, each step invoked as ``bash STAGE.sh <container>`` with its rank's front door
    (the head's /health, a follower's unit active) and log; and each host's rendered steps
    are exactly the apply order's steps of its rank, in order."""
    run, want = _planned(case)
    wanted = [
        (stage.value, rank, name, ("bash", f"{stage.value}.sh", want.container), *_door(want, rank))
        for stage in Stage
        for rank, name in enumerate(want.hosts)
    ]
    got = [
        (
            s.stage.value,
            s.rank,
            s.host_name,
            s.invocation,
            s.front_door.check,
            s.front_door.log_path,
        )
        for s in run.apply_order
    ]
    problems = difference("apply order", wanted, got)
    for rank, host in enumerate(run.hosts):
        own = tuple(s for s in run.apply_order if s.rank == rank)
        if host.steps != own:
            problems.append(f"{want.hosts[rank]}: its steps are not the order's rank {rank}")
    return holds_unless(problems, f"{len(wanted)} steps, stage by stage, head first")


@claim(ClaimKind.PLANNED_SHAPE)
def every_rank_runs_on_its_inventory_host_with_its_env(case: Arm) -> Verdict:
    """Node rank i runs on the arm's i-th host exactly as the inventory lists it (name,
    memory, rail address and interface), with the env VLLM_HOST_IP=its rail address,
    NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME=its rail interface, then the arm's own env and
    nothing else; the plan's image is the arm's; the candidate admission is asked for is the
    arm, its checkpoint and its runtime key."""
    run, want = _planned(case)
    assert run.launch is not None
    wanted = [
        (rank, host, [*zip(RAIL, _rail(host), strict=True), *want.env])
        for rank, host in enumerate(hosts_raw(want.hosts))
    ]
    got = [(r.rank, r.host.model_dump(), [tuple(p) for p in r.env]) for r in run.launch.ranks]
    candidate = (run.candidate.arm, run.candidate.checkpoint, run.candidate.runtime_key)
    problems = [
        *difference("(rank, host, env)", wanted, got),
        *difference("image", want.head_create[-1], run.launch.image_digest),
        *difference("candidate", want.candidate, candidate),
    ]
    return holds_unless(problems, f"{len(got)} ranks on {want.hosts}, each with its whole env")


@claim(ClaimKind.PLANNED_SHAPE)
def no_rendered_artifact_names_another_arm(case: Arm) -> Verdict:
    """No host's create argv, unit text or stage script names another arm of the registry:
    neither its name, nor its container, nor its units."""
    run, _ = _planned(case)
    others = [
        name
        for arm in arms()
        if arm != case.name
        for want in [expected(arm)]
        for name in (arm, want.container, want.head_unit, want.rank_unit)
    ]
    found = [
        f"{real.host_name} {what} names {name}"
        for host in run.hosts
        for real in [host.realization]
        for what, text in (
            ("create argv", " ".join(real.create_argv)),
            ("unit", real.unit_text),
            *((f"{s.stage.value}.sh", s.script) for s in host.steps),
        )
        for name in others
        if name in text
    ]
    return holds_unless(found, f"{len(run.hosts)} hosts name none of {others}")


@claim(ClaimKind.PLANNED_SHAPE)
def the_row_is_the_manifests_model_weighed_once(case: Arm) -> Verdict:
    """The arm plans the checkpoint of its manifest: its candidate names the manifest's model
    at its revision, every rank serves it from the placement rule's directory
    (<root>/<org>--<name>/<revision>), and the fit weighs it at the arm's weight, which is
    the bytes of its weights files (no other role) rounded up to whole GiB once."""
    run, want = _planned(case)
    assert run.launch is not None
    raw = read_json(DATA_ROOT / want.manifest)
    wanted = (
        f"{raw['model']}@{raw['revision']}",
        {placement(raw)},
        want.weight_gib,
        want.weight_gib,
    )
    got = (
        run.candidate.checkpoint,
        {r.serve_argv[1] for r in run.launch.ranks},
        manifest_weight_gib(raw),
        None if run.fit is None else run.fit.weights_gib,
    )
    return expect_equal(wanted, got, "(checkpoint, ranks' model paths, weight, fit's weight)")


@claim(ClaimKind.PLANNED_SHAPE)
def the_fit_is_the_groups_pool_over_its_ranks(case: Arm) -> Verdict:
    """The dry run carries the fit it was planned under: the pool is the sum of the arm's
    hosts' memory as the inventory lists it, over one rank per host, charged the arm's
    weight and allowance."""
    run, want = _planned(case)
    wanted = {
        "pool_gib": sum(h["memory_gib"] for h in hosts_raw(want.hosts)),
        "weights_gib": want.weight_gib,
        "allowance_gib": want.allowance_gib,
        "ranks": len(want.hosts),
    }
    got = None if run.fit is None else run.fit.model_dump()
    return expect_equal(wanted, got, "the dry run's fit")
