"""Declared mutants of the claims every arm shares (witness ``arm_launch``).

A defect in the shared launcher turns a claim red for every arm (``arm_launch[<arm>].<claim>``
for each); a defect in one arm's values, for that arm alone; a shared defect that keys on a
flag, for the arms whose expected serve argv has (or lacks) that flag.
"""

from __future__ import annotations

from mutation import mutant
from planner.apply import (
    ApplyContext,
    ApplyStep,
    FrontDoor,
    Stage,
    apply_body,
    apply_steps,
    preflight_body,
)
from planner.arm_launch import ArmCall, DryRun, arm_mounts, plan_arm
from planner.arms import arms
from planner.arms.glm_group_b import glm_group_b_call, glm_group_b_launch_dry_run, glm_row
from planner.arms.v41_group_a import (
    V41_ENGRAM_REQUEST,
    V41_STAIRCASE_CONCURRENCIES,
    V41_UNITS,
    deepseek_v41_flash_row,
    deepseek_v41_measurement_profile,
    v41_group_a_call,
    v41_group_a_launch_dry_run,
)
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest, CheckpointRow, CheckpointVllmParsers
from planner.engram import MANIFEST_ENV, EngramPlacement
from planner.fabric import Fabric, FabricGroup, Host
from planner.frontiers import PlanInputs
from planner.identity import ArmContainerIdentity, ArmUnitIdentity, BindMount
from planner.launch import (
    LaunchPlan,
    RankLaunch,
    ServingRoute,
    host_env,
    plan_arm_launch,
    rank_serve_argv,
)
from planner.profile import ServingLaunchProfile
from planner.realize import STOP_GRACE_SECONDS, create_argv, unit_text
from witnesses.arms.expected import expected

W = "arm_launch"
V41, GLM = f"{W}[v41_group_a].", f"{W}[glm_group_b]."
SERVE = "every_rank_serve_argv_is_planned_whole"
CREATE = "every_host_create_argv_is_planned_whole"
UNIT = "every_unit_is_planned_whole"
LANDS = "apply_lands_each_hosts_whole_unit"
ORDER = "the_apply_order_is_every_stage_head_first"
ENV = "every_rank_runs_on_its_inventory_host_with_its_env"
FOREIGN = "no_rendered_artifact_names_another_arm"
ROW = "the_row_is_the_manifests_model_weighed_once"
FIT = "the_fit_is_the_groups_pool_over_its_ranks"
MINT = "planner.arms.v41_group_a.deepseek_v41_measurement_profile"
V41_CALL = "planner.arms.v41_group_a.v41_group_a_call"
V41_DRY_RUN = "planner.arms.v41_group_a.v41_group_a_launch_dry_run"
CALL_SITE = "planner.arms.glm_group_b.glm_group_b_call"
DRY_RUN = "planner.arms.glm_group_b.glm_group_b_launch_dry_run"
PROFILE_FLAGS_AT = "planner.profile.ServingLaunchProfile.flags"
PARSER_FLAGS = CheckpointVllmParsers.flags
PLACEMENT_ENV = EngramPlacement.env
PROFILE_FLAGS = ServingLaunchProfile.flags
V4_PAIR_CONTAINER = "gunbc-spark-pair"
STAGE_ORDER = {stage: index for index, stage in enumerate(Stage)}


def _every(*claims: str) -> set[str]:
    """``claims`` of every arm of the registry: a defect of the shared launcher turns them red
    for an arm added later too, with no edit here."""
    return {f"{W}[{arm}].{claim}" for arm in arms() for claim in claims}


def _serving(flag: str, present: bool) -> set[str]:
    """The serve argv claim of every arm whose expected serve argv has ``flag`` (``present``)
    or has none: a shared defect that keys on that flag reaches those arms."""
    return {
        f"{W}[{arm}].{SERVE}" for arm in arms() if (flag in expected(arm).head_serve) is present
    }


def _with(call: ArmCall, **update: object) -> ArmCall:
    return call.model_copy(update=update)


@mutant(
    replaces="planner.launch.rank_serve_argv",
    turns_red=_every(SERVE),
    independent=False,
)
def served_model_name_on_the_head_only(
    rank: int,
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
) -> tuple[str, ...]:
    """--served-model-name is told to the head only, so the followers' engine arguments
    differ from the head's."""
    argv = rank_serve_argv(rank, group, row, profile, container, route)
    if rank == 0:
        return argv
    at = argv.index("--served-model-name")
    return argv[:at] + argv[at + 2 :]


@mutant(
    replaces="planner.launch.rank_serve_argv",
    turns_red=_every(SERVE),
    independent=False,
)
def followers_rendezvous_on_the_serve_port(
    rank: int,
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
) -> tuple[str, ...]:
    """The followers are told the route's serving port as the master port, so they never
    meet the head at its rendezvous port."""
    argv = list(rank_serve_argv(rank, group, row, profile, container, route))
    if rank != 0:
        argv[argv.index("--master-port") + 1] = str(route.serve_port)
    return tuple(argv)


@mutant(
    replaces=V41_CALL,
    turns_red={V41 + CREATE},
    independent=False,
)
def v41_created_with_the_glm_shm_size(
    fabric: Fabric, manifest: CheckpointManifest, inputs: PlanInputs, source: str = "inputs"
) -> ArmCall:
    """V4.1's container identity carries GLM's 16g shared memory instead of its own 32g."""
    call = v41_group_a_call(fabric, manifest, inputs, source)
    container = call.container.model_copy(update={"shm_size": "16g"})
    return call.model_copy(update={"container": container})


@mutant(
    replaces="planner.realize.unit_text",
    turns_red=_every(UNIT, LANDS),
    independent=False,
)
def unit_stop_grace_off_by_one(
    container: ArmContainerIdentity, units: ArmUnitIdentity, rank: int
) -> str:
    """The unit's ExecStop gives docker a grace one second short of the planned 120 s."""
    text = unit_text(container, units, rank)
    return text.replace(f"--time {STOP_GRACE_SECONDS} ", f"--time {STOP_GRACE_SECONDS - 1} ")


@mutant(
    replaces="planner.realize.unit_text",
    turns_red=_every(UNIT, LANDS),
    independent=False,
)
def units_restart_on_their_own(
    container: ArmContainerIdentity, units: ArmUnitIdentity, rank: int
) -> str:
    """The unit restarts the container on its own (Restart=always), behind the
    transactional apply's back."""
    return unit_text(container, units, rank).replace("Restart=no", "Restart=always")


@mutant(
    replaces="planner.identity.ArmUnitIdentity.log_path_for_rank",
    turns_red=_every(UNIT, LANDS, ORDER),
)
def followers_log_to_the_head_log(self: ArmUnitIdentity, rank: int) -> str:
    """Every rank's unit appends to the head's log file, so a follower's failure lands in
    the head's log."""
    return f"{self.log_root}/{self.head_unit.removesuffix('.service')}.log"


@mutant(
    replaces=V41_DRY_RUN,
    turns_red={V41 + ORDER},
    independent=False,
)
def the_order_runs_rollback_before_commit(
    fabric: Fabric,
    manifest: CheckpointManifest,
    inputs: PlanInputs,
    state: AuthorityState,
    source: str = "inputs",
) -> DryRun:
    """The apply order puts every rollback step before the commit steps (each host's own
    steps unchanged), so an executor following it undoes a successful apply."""
    run = v41_group_a_launch_dry_run(fabric, manifest, inputs, state, source)
    first = ("rollback", "commit")
    order = sorted(run.apply_order, key=lambda s: s.stage.value not in first)
    return run.model_copy(update={"apply_order": tuple(order)})


@mutant(
    replaces=V41_DRY_RUN,
    turns_red={V41 + ENV},
    independent=False,
)
def the_launch_drops_the_receipt_dir_from_each_env(
    fabric: Fabric,
    manifest: CheckpointManifest,
    inputs: PlanInputs,
    state: AuthorityState,
    source: str = "inputs",
) -> DryRun:
    """The launch plan's ranks carry their env without the Engram receipt dir."""
    run = v41_group_a_launch_dry_run(fabric, manifest, inputs, state, source)
    if run.launch is None:
        return run
    ranks = tuple(r.model_copy(update={"env": r.env[:-1]}) for r in run.launch.ranks)
    return run.model_copy(update={"launch": run.launch.model_copy(update={"ranks": ranks})})


@mutant(replaces=CALL_SITE, turns_red={GLM + SERVE, GLM + ORDER}, independent=False)
def glm_serves_on_the_v41_route_port(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's route takes V4.1's serving port 8000, so GLM's clients find nothing on 8100."""
    call = glm_group_b_call(fabric, manifest)
    return _with(call, route=call.route.model_copy(update={"serve_port": 8000}))


@mutant(replaces=CALL_SITE, turns_red={GLM + SERVE}, independent=False)
def glm_rendezvous_on_the_v41_port(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's container identity takes V4.1's rendezvous port 29511 instead of its own 29500."""
    call = glm_group_b_call(fabric, manifest)
    return _with(call, container=call.container.model_copy(update={"rendezvous_port": 29511}))


@mutant(replaces=CALL_SITE, turns_red={GLM + CREATE}, independent=False)
def glm_created_with_the_v41_shm_size(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's containers are created with V4.1's 32g shared memory instead of GLM's 16g."""
    call = glm_group_b_call(fabric, manifest)
    return _with(call, container=call.container.model_copy(update={"shm_size": "32g"}))


@mutant(
    replaces=CALL_SITE,
    turns_red={GLM + UNIT, GLM + LANDS},
    independent=False,
)
def glm_units_described_as_group_a(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's unit description names Group A, so an operator reading srv1's units is told
    the wrong group."""
    call = glm_group_b_call(fabric, manifest)
    described = "GLM native serving arm (Group A)"
    return _with(call, units=call.units.model_copy(update={"description": described}))


@mutant(replaces=DRY_RUN, turns_red={GLM + ORDER})
def glm_followers_apply_before_srv1(
    fabric: Fabric, manifest: CheckpointManifest, state: AuthorityState
) -> DryRun:
    """GLM's apply order runs each stage on the followers before srv1 (each host's own
    steps unchanged), so a follower waits for a head that has not applied yet."""
    run = glm_group_b_launch_dry_run(fabric, manifest, state)
    order = sorted(run.apply_order, key=lambda s: (list(Stage).index(s.stage), s.rank == 0))
    return run.model_copy(update={"apply_order": tuple(order)})


@mutant(replaces=DRY_RUN, turns_red={GLM + ENV}, independent=False)
def glm_ranks_name_their_host_ip_last(
    fabric: Fabric, manifest: CheckpointManifest, state: AuthorityState
) -> DryRun:
    """The launch plan lists each GLM rank's env with VLLM_HOST_IP after the interfaces."""
    run = glm_group_b_launch_dry_run(fabric, manifest, state)
    assert run.launch is not None
    ranks = tuple(r.model_copy(update={"env": (*r.env[1:], r.env[0])}) for r in run.launch.ranks)
    return run.model_copy(update={"launch": run.launch.model_copy(update={"ranks": ranks})})


@mutant(
    replaces="planner.apply.apply_body",
    turns_red=_every(LANDS),
)
def the_landed_unit_loses_its_install_section(ctx: ApplyContext) -> list[str]:
    """The apply script's heredoc stops before the unit's [Install] section, so the unit
    that lands cannot be enabled at boot."""
    lines = apply_body(ctx)
    start = lines.index("[Install]")
    end = lines.index("GUNBC_UNIT_TEXT")
    return [*lines[:start], *lines[end:]]


@mutant(
    replaces="planner.launch.rank_serve_argv",
    turns_red=_every(SERVE),
)
def head_serves_on_the_rendezvous_port(
    rank: int,
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
) -> tuple[str, ...]:
    """Rank 0 serves on the container's rendezvous port instead of the route's port."""
    argv = list(rank_serve_argv(rank, group, row, profile, container, route))
    if rank == 0:
        argv[argv.index("--port") + 1] = str(container.rendezvous_port)
    return tuple(argv)


@mutant(
    replaces="planner.launch.rank_serve_argv",
    turns_red=_every(SERVE),
    independent=False,
)
def one_follower_loses_headless(
    rank: int,
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
) -> tuple[str, ...]:
    """Node rank 2 is started without --headless, so it would try to serve an API of its
    own instead of only joining the head's engine."""
    argv = rank_serve_argv(rank, group, row, profile, container, route)
    return tuple(a for a in argv if a != "--headless") if rank == 2 else argv


@mutant(
    replaces="planner.fabric.serving_head",
    turns_red=_every(SERVE),
)
def serving_head_is_the_last_host(group: FabricGroup) -> Host:
    """The serving head is derived as the group's last host, not node rank 0, so followers
    rendezvous at the wrong rail address."""
    return group.hosts[-1]


@mutant(
    replaces="planner.realize.create_argv",
    turns_red=_every(CREATE),
)
def image_named_by_a_floating_tag(
    launch: RankLaunch,
    arm: str,
    container: ArmContainerIdentity,
    mounts: tuple[BindMount, ...],
    image: str,
) -> tuple[str, ...]:
    """Each host creates its container from a floating image tag, not the produced image's
    config digest."""
    return create_argv(launch, arm, container, mounts, "vllm/vllm-openai:latest")


@mutant(
    replaces="planner.realize.create_argv",
    turns_red=_every(CREATE),
    independent=False,
)
def containers_left_unlabelled(
    launch: RankLaunch,
    arm: str,
    container: ArmContainerIdentity,
    mounts: tuple[BindMount, ...],
    image: str,
) -> tuple[str, ...]:
    """Containers are created without their gunbc.arm/gunbc.rank labels, so the occupancy
    check cannot tell another arm's container from this one's."""
    argv = create_argv(launch, arm, container, mounts, image)
    at = argv.index("--label")
    return argv[:at] + argv[at + 4 :]


@mutant(
    replaces="planner.arm_launch.arm_mounts",
    turns_red={V41 + CREATE},
)
def checkpoint_mount_lost_beside_the_engram_mounts(call: ArmCall) -> tuple[BindMount, ...]:
    """With Engram set, the Engram mounts replace the mount list instead of extending it,
    so the checkpoint is not mounted."""
    mounts = arm_mounts(call)
    return mounts[1:] if call.engram is not None else mounts


@mutant(
    replaces="planner.engram.EngramPlacement.env",
    turns_red={V41 + CREATE, V41 + ENV},
)
def manifest_env_names_the_directory(self: EngramPlacement) -> tuple[tuple[str, str], ...]:
    """The manifest env names the manifest directory instead of the manifest file."""
    return tuple((k, self.manifest_dir if k == MANIFEST_ENV else v) for k, v in PLACEMENT_ENV(self))


@mutant(
    replaces="planner.arm_launch.arm_mounts",
    turns_red={V41 + CREATE},
)
def receipts_mounted_read_only(call: ArmCall) -> tuple[BindMount, ...]:
    """The touch-receipt directory is mounted read-only like the row stores."""
    return tuple(m.model_copy(update={"read_only": True}) for m in arm_mounts(call))


@mutant(
    replaces="planner.launch.host_env",
    turns_red=_every(CREATE, ENV),
)
def nccl_left_on_the_default_interface(host: Host) -> tuple[tuple[str, str], ...]:
    """NCCL is not pinned to the fabric rail, so it picks whatever interface it finds."""
    return tuple(pair for pair in host_env(host) if pair[0] != "NCCL_SOCKET_IFNAME")


@mutant(
    replaces="planner.launch.plan_arm_launch",
    turns_red=_every(CREATE, ENV),
)
def rank_two_gets_rank_one_fabric_env(
    group: FabricGroup,
    row: CheckpointRow,
    profile: ServingLaunchProfile,
    container: ArmContainerIdentity,
    route: ServingRoute,
    image_digest: str,
    extra_env: tuple[tuple[str, str], ...] = (),
) -> LaunchPlan:
    """Node rank 2's fabric env is taken from rank 1's host entry, so its VLLM_HOST_IP is
    another host's rail address."""
    plan = plan_arm_launch(group, row, profile, container, route, image_digest, extra_env)
    ranks = list(plan.ranks)
    ranks[2] = ranks[2].model_copy(update={"env": host_env(group.hosts[1]) + extra_env})
    return plan.model_copy(update={"ranks": tuple(ranks)})


@mutant(
    replaces="planner.identity.ArmUnitIdentity.unit_for_rank",
    turns_red=_every(UNIT, LANDS, ORDER),
)
def head_and_follower_units_swapped(self: ArmUnitIdentity, rank: int) -> str:
    """Rank 0 gets the followers' unit and every follower the head's."""
    return self.rank_unit if rank == 0 else self.head_unit


@mutant(
    replaces="planner.arm_launch.plan_arm",
    turns_red=_every(LANDS, ORDER),
)
def each_host_renders_the_next_hosts_steps(call: ArmCall, state: AuthorityState) -> DryRun:
    """Each rendered host carries the next host's stage steps, so srv5's report shows
    srv6's scripts."""
    run = plan_arm(call, state)
    hosts = run.hosts
    shifted = tuple(
        h.model_copy(update={"steps": hosts[(i + 1) % len(hosts)].steps})
        for i, h in enumerate(hosts)
    )
    return run.model_copy(update={"hosts": shifted})


@mutant(replaces=MINT, turns_red={V41 + SERVE}, independent=False)
def kv_cache_dtype_left_to_auto(
    gpu_memory_utilization_bp: int,
    max_num_batched_tokens: int,
    prefix_caching: bool,
    staircase: tuple[int, ...] = V41_STAIRCASE_CONCURRENCIES,
) -> ServingLaunchProfile:
    """The mint leaves the KV-cache dtype to vLLM (auto) instead of fixing fp8_ds_mla."""
    minted = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp, max_num_batched_tokens, prefix_caching, staircase
    )
    return minted.model_copy(update={"kv_cache_dtype": "auto"})


@mutant(replaces=MINT, turns_red={V41 + SERVE}, independent=False)
def max_num_seqs_from_the_first_step(
    gpu_memory_utilization_bp: int,
    max_num_batched_tokens: int,
    prefix_caching: bool,
    staircase: tuple[int, ...] = V41_STAIRCASE_CONCURRENCIES,
) -> ServingLaunchProfile:
    """Max num seqs is the staircase's first concurrency, not its largest, so one serve
    cannot cover the staircase."""
    minted = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp, max_num_batched_tokens, prefix_caching, staircase
    )
    return minted.model_copy(update={"max_num_seqs": staircase[0]})


@mutant(replaces=MINT, turns_red={V41 + SERVE}, independent=False)
def prefix_caching_forced_on(
    gpu_memory_utilization_bp: int,
    max_num_batched_tokens: int,
    prefix_caching: bool,
    staircase: tuple[int, ...] = V41_STAIRCASE_CONCURRENCIES,
) -> ServingLaunchProfile:
    """The mint ignores #12371's prefix-caching axis and always enables prefix caching."""
    return deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp, max_num_batched_tokens, True, staircase
    )


@mutant(replaces="planner.arms.v41_group_a.deepseek_v41_flash_row", turns_red={V41 + SERVE})
def tokenizer_mode_dropped_from_the_v41_row(manifest: CheckpointManifest) -> CheckpointRow:
    """The V4.1 row loses the recipe's tokenizer mode, so no --tokenizer-mode renders."""
    row = deepseek_v41_flash_row(manifest)
    parsers = row.parsers.model_copy(update={"tokenizer_mode": None})
    return row.model_copy(update={"parsers": parsers})


@mutant(replaces=V41_CALL, turns_red={V41 + CREATE, V41 + UNIT, V41 + LANDS, V41 + ORDER})
def v41_runs_under_the_v4_pair_container_name(
    fabric: Fabric, manifest: CheckpointManifest, inputs: PlanInputs, source: str = "inputs"
) -> ArmCall:
    """V4.1 runs under the V4 pair's container name, so a running V4 pair would read as
    this arm instead of as occupancy."""
    call = v41_group_a_call(fabric, manifest, inputs, source)
    container = call.container.model_copy(update={"name": V4_PAIR_CONTAINER})
    return call.model_copy(update={"container": container})


@mutant(replaces=CALL_SITE, turns_red={GLM + UNIT, GLM + LANDS, GLM + ORDER, GLM + FOREIGN})
def glm_runs_under_the_v41_units(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's call site passes V4.1's unit identity, so GLM's hosts run gunbc-v41 units."""
    return glm_group_b_call(fabric, manifest).model_copy(update={"units": V41_UNITS})


@mutant(replaces=CALL_SITE, turns_red={GLM + CREATE, GLM + ENV}, independent=False)
def glm_asks_under_another_arm_name(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's call site names its arm glm_native, so its candidate is not the one Group B
    was suspended for."""
    return glm_group_b_call(fabric, manifest).model_copy(update={"arm": "glm_native"})


@mutant(
    replaces="planner.checkpoint.CheckpointVllmParsers.flags",
    turns_red=_serving("--tokenizer-mode", False),
)
def absent_tokenizer_mode_renders_auto(self: CheckpointVllmParsers) -> tuple[str, ...]:
    """An absent tokenizer mode renders --tokenizer-mode auto instead of no flag at all."""
    flags = PARSER_FLAGS(self)
    return flags if self.tokenizer_mode is not None else (*flags, "--tokenizer-mode", "auto")


@mutant(replaces=PROFILE_FLAGS_AT, turns_red=_serving("--engram-config.cpu_offload", False))
def unset_engram_request_renders_the_v41_one(self: ServingLaunchProfile) -> tuple[str, ...]:
    """A profile with no Engram request renders V4.1's request anyway."""
    flags = PROFILE_FLAGS(self)
    return flags if self.engram is not None else (*flags, *V41_ENGRAM_REQUEST.flags())


@mutant(
    replaces=PROFILE_FLAGS_AT,
    turns_red=_serving("--enable-prefix-caching", True),
    independent=False,
)
def prefix_caching_on_renders_no_flag(self: ServingLaunchProfile) -> tuple[str, ...]:
    """A profile with prefix caching on renders no flag for it, leaving it to vLLM's default."""
    return tuple(f for f in PROFILE_FLAGS(self) if f != "--enable-prefix-caching")


@mutant(replaces="planner.apply.apply_steps", turns_red=_every(ORDER))
def followers_go_before_the_head(contexts: tuple[ApplyContext, ...]) -> tuple[ApplyStep, ...]:
    """Within each stage the followers run before node rank 0."""
    steps = apply_steps(contexts)
    return tuple(sorted(steps, key=lambda s: (STAGE_ORDER[s.stage], -s.rank)))


@mutant(replaces="planner.apply.front_door", turns_red=_every(ORDER))
def followers_get_the_head_health_check(ctx: ApplyContext) -> FrontDoor:
    """Every rank's front door is /health on its host, which a headless follower never
    answers."""
    url = f"http://{ctx.launch.host.rail_address}:{ctx.serve_port}/health"
    return FrontDoor(
        check=("curl", "-fsS", "--max-time", "5", url), log_path=ctx.realization.log_path
    )


@mutant(replaces="planner.apply.preflight_body", turns_red=_every(FOREIGN) - {GLM + FOREIGN})
def occupancy_check_spells_the_glm_arm(ctx: ApplyContext) -> list[str]:
    """Preflight's occupancy check keeps the GLM launcher's literal arm label, so it only
    sees GLM containers."""
    old, new = "--filter label=gunbc.arm ", "--filter label=gunbc.arm=glm_group_b "
    return [line.replace(old, new) for line in preflight_body(ctx)]


@mutant(replaces="planner.arms.glm_group_b.glm_row", turns_red={GLM + ROW, GLM + FIT})
def glm_weight_rounded_down(manifest: CheckpointManifest) -> CheckpointRow:
    """GLM's weight is rounded down to whole GiB, so the fit under-counts it."""
    row = glm_row(manifest)
    return row.model_copy(update={"weight_gib": manifest.weight_bytes // 1024**3})


@mutant(replaces="planner.arm_launch.plan_arm", turns_red=_every(ROW, FIT), independent=False)
def the_dry_run_drops_its_fit(call: ArmCall, state: AuthorityState) -> DryRun:
    """The dry run drops the fit it computed, so the report shows no fit line."""
    return plan_arm(call, state).model_copy(update={"fit": None})
