"""Declared mutants of Group B's GLM arm (witness ``glm_group_b_launch``).

GLM goes through the same launcher as V4.1, so these defects sit in the shared pieces GLM
relies on differently: an absent tokenizer mode, an unset Engram request, the content key,
the serving head, and GLM's own call site.
"""

from __future__ import annotations

import hashlib
import json

from mutation import mutant
from planner.apply import ApplyContext, Stage, apply_body
from planner.arm_launch import ArmCall, DryRun
from planner.arms.glm_group_b import glm_group_b_call, glm_group_b_launch_dry_run, glm_row
from planner.arms.v41_group_a import V41_ENGRAM_REQUEST, V41_UNITS
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest, CheckpointRow, CheckpointVllmParsers
from planner.fabric import Fabric, FabricGroup, Host
from planner.profile import ServingLaunchProfile

W = "glm_group_b_launch"
CALL_SITE = "planner.arms.glm_group_b.glm_group_b_call"
CONTENT_KEY = "planner.profile.ServingLaunchProfile.content_key"
PARSER_FLAGS = CheckpointVllmParsers.flags
PROFILE_FLAGS = ServingLaunchProfile.flags
SERVE = f"{W}.glm_every_rank_serve_argv_is_planned_whole"
CREATE = f"{W}.glm_every_host_create_argv_is_planned_whole"
UNIT = f"{W}.glm_every_unit_is_planned_whole"
DOORS = f"{W}.glm_front_doors_are_its_own"
KEY = f"{W}.the_engram_request_enters_the_key_by_its_content"
DRY_RUN = "planner.arms.glm_group_b.glm_group_b_launch_dry_run"
ORDER = f"{W}.glm_apply_order_is_every_stage_head_first_on_group_b"
FIT = f"{W}.glm_is_fitted_on_its_manifest_weights_and_group_b_pool"
RANKS = f"{W}.glm_every_rank_runs_on_its_inventory_host_with_its_rail_env"


def _digest(body: dict[str, object]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@mutant(
    replaces=CALL_SITE,
    turns_red={
        "glm_group_b_launch.glm_apply_lands_each_hosts_whole_unit",
        f"{W}.glm_keeps_its_own_names_on_four_hosts",
        UNIT,
        DOORS,
        ORDER,
    },
)
def glm_runs_under_the_v41_units(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's call site passes V4.1's unit identity, so GLM's hosts run gunbc-v41 units."""
    return glm_group_b_call(fabric, manifest).model_copy(update={"units": V41_UNITS})


@mutant(
    replaces=CALL_SITE,
    turns_red={
        f"{W}.glm_supplied_admits",
        CREATE,
        FIT,
    },
    independent=False,
)
def glm_asks_under_another_arm_name(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's call site names its arm glm_native, so its candidate is not the one Group B
    was suspended for."""
    return glm_group_b_call(fabric, manifest).model_copy(update={"arm": "glm_native"})


@mutant(
    replaces="planner.checkpoint.CheckpointVllmParsers.flags",
    turns_red={f"{W}.glm_parsers_render_and_no_tokenizer_flag", SERVE},
)
def absent_tokenizer_mode_renders_auto(self: CheckpointVllmParsers) -> tuple[str, ...]:
    """An absent tokenizer mode renders --tokenizer-mode auto instead of no flag at all."""
    flags = PARSER_FLAGS(self)
    return flags if self.tokenizer_mode is not None else (*flags, "--tokenizer-mode", "auto")


@mutant(
    replaces="planner.profile.ServingLaunchProfile.flags",
    turns_red={f"{W}.glm_carries_no_engram_request", SERVE},
)
def unset_engram_request_renders_the_v41_one(self: ServingLaunchProfile) -> tuple[str, ...]:
    """A profile with no Engram request renders V4.1's request anyway."""
    flags = PROFILE_FLAGS(self)
    return flags if self.engram is not None else (*flags, *V41_ENGRAM_REQUEST.flags())


@mutant(
    replaces=CONTENT_KEY,
    turns_red={f"{W}.glm_subject_key_is_unchanged_by_the_engram_field"},
)
def unset_engram_request_enters_the_key(self: ServingLaunchProfile) -> str:
    """The content key always carries the Engram field, so an unset request (null) changes
    every existing GLM subject key."""
    return _digest(self.model_dump())


@mutant(
    replaces=CONTENT_KEY,
    turns_red={f"{W}.an_explicit_engram_request_enters_the_key", KEY},
    independent=False,
)
def engram_request_left_out_of_the_key(self: ServingLaunchProfile) -> str:
    """The content key never carries the Engram request, so setting one leaves the key as
    it was."""
    return _digest(self.model_dump(exclude={"engram"}))


@mutant(
    replaces="planner.fabric.serving_head",
    turns_red={
        f"{W}.glm_followers_are_headless_behind_srv1",
        SERVE,
    },
)
def serving_head_is_the_last_host(group: FabricGroup) -> Host:
    """The serving head is derived as the group's last host, not node rank 0, so followers
    rendezvous at the wrong rail address."""
    return group.hosts[-1]


@mutant(
    replaces="planner.profile.ServingLaunchProfile.flags",
    turns_red={f"{W}.glm_enables_prefix_caching", SERVE},
    independent=False,
)
def prefix_caching_on_renders_no_flag(self: ServingLaunchProfile) -> tuple[str, ...]:
    """A profile with prefix caching on renders no flag for it, leaving it to vLLM's default."""
    return tuple(f for f in PROFILE_FLAGS(self) if f != "--enable-prefix-caching")


# --- GLM's own values ---------------------------------------------------------------------


def _with(call: ArmCall, **update: object) -> ArmCall:
    return call.model_copy(update=update)


@mutant(replaces=CALL_SITE, turns_red={SERVE, DOORS, ORDER}, independent=False)
def glm_serves_on_the_v41_route_port(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's route takes V4.1's serving port 8000, so GLM's clients find nothing on 8100."""
    call = glm_group_b_call(fabric, manifest)
    return _with(call, route=call.route.model_copy(update={"serve_port": 8000}))


@mutant(replaces=CALL_SITE, turns_red={SERVE}, independent=False)
def glm_rendezvous_on_the_v41_port(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's container identity takes V4.1's rendezvous port 29511 instead of its own 29500."""
    call = glm_group_b_call(fabric, manifest)
    return _with(call, container=call.container.model_copy(update={"rendezvous_port": 29511}))


@mutant(replaces=CALL_SITE, turns_red={CREATE}, independent=False)
def glm_created_with_the_v41_shm_size(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's containers are created with V4.1's 32g shared memory instead of GLM's 16g."""
    call = glm_group_b_call(fabric, manifest)
    return _with(call, container=call.container.model_copy(update={"shm_size": "32g"}))


@mutant(
    replaces=CALL_SITE,
    turns_red={"glm_group_b_launch.glm_apply_lands_each_hosts_whole_unit", UNIT},
    independent=False,
)
def glm_units_described_as_group_a(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's unit description names Group A, so an operator reading srv1's units is told
    the wrong group."""
    call = glm_group_b_call(fabric, manifest)
    described = "GLM native serving arm (Group A)"
    return _with(call, units=call.units.model_copy(update={"description": described}))


@mutant(replaces=CONTENT_KEY, turns_red={KEY}, independent=False)
def engram_request_entered_as_null(self: ServingLaunchProfile) -> str:
    """A set Engram request enters the key as null, so two different requests share one
    key."""
    body = self.model_dump(exclude={"engram"})
    if self.engram is not None:
        body["engram"] = None
    return _digest(body)


@mutant(replaces=DRY_RUN, turns_red={ORDER})
def glm_followers_apply_before_srv1(
    fabric: Fabric, manifest: CheckpointManifest, state: AuthorityState
) -> DryRun:
    """GLM's apply order runs each stage on the followers before srv1 (each host's own
    steps unchanged), so a follower waits for a head that has not applied yet."""
    run = glm_group_b_launch_dry_run(fabric, manifest, state)
    order = sorted(run.apply_order, key=lambda s: (list(Stage).index(s.stage), s.rank == 0))
    return run.model_copy(update={"apply_order": tuple(order)})


@mutant(replaces="planner.arms.glm_group_b.glm_row", turns_red={FIT})
def glm_weight_rounded_down(manifest: CheckpointManifest) -> CheckpointRow:
    """GLM's weight is rounded down to whole GiB, so the fit under-counts it."""
    row = glm_row(manifest)
    return row.model_copy(update={"weight_gib": manifest.weight_bytes // 1024**3})


@mutant(replaces=DRY_RUN, turns_red={RANKS}, independent=False)
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
    turns_red={f"{W}.glm_apply_lands_each_hosts_whole_unit"},
)
def the_landed_unit_loses_its_install_section(ctx: ApplyContext) -> list[str]:
    """The apply script's heredoc stops before the unit's [Install] section, so the unit
    that lands cannot be enabled at boot."""
    lines = apply_body(ctx)
    start = lines.index("[Install]")
    end = lines.index("GUNBC_UNIT_TEXT")
    return [*lines[:start], *lines[end:]]
