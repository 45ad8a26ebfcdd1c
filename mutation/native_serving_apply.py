"""Declared mutants of the transactional apply (witness ``native_serving_apply``).

The stage bodies (``_preflight``, ``_apply``, ``_readback``, ``_rollback``, ...) are bound
into the ``planner.apply._BODIES`` table at import, so a patch of one body would never be
called: these mutants go through ``stage_script`` instead, and since they share that target
only one of them is independent.
"""

from __future__ import annotations

import shlex

from mutation import mutant
from planner.apply import (
    ApplyContext,
    ApplyStep,
    FrontDoor,
    Stage,
    apply_contexts,
    apply_steps,
    stage_script,
)
from planner.launch import LaunchPlan
from planner.realize import HostRealization

W = "native_serving_apply"
STAGE_SCRIPT = "planner.apply.stage_script"
STAGE_ORDER = {stage: index for index, stage in enumerate(Stage)}


def _edited(stage: Stage, ctx: ApplyContext, wanted: Stage, old: str, new: str) -> str:
    script = stage_script(stage, ctx)
    return script.replace(old, new) if stage is wanted else script


@mutant(
    replaces="planner.apply.apply_steps",
    turns_red={f"{W}.every_stage_runs_head_first"},
)
def followers_go_before_the_head(contexts: tuple[ApplyContext, ...]) -> tuple[ApplyStep, ...]:
    """Within each stage the followers run before node rank 0."""
    steps = apply_steps(contexts)
    return tuple(sorted(steps, key=lambda s: (STAGE_ORDER[s.stage], -s.rank)))


@mutant(
    replaces="planner.apply.front_door",
    turns_red={f"{W}.each_step_has_its_own_front_door_and_log"},
)
def followers_get_the_head_health_check(ctx: ApplyContext) -> FrontDoor:
    """Every rank's front door is /health on its host, which a headless follower never
    answers."""
    url = f"http://{ctx.launch.host.rail_address}:{ctx.serve_port}/health"
    return FrontDoor(
        check=("curl", "-fsS", "--max-time", "5", url), log_path=ctx.realization.log_path
    )


@mutant(
    replaces="planner.apply.apply_contexts",
    turns_red={f"{W}.preflight_checks_image_mounts_and_names"},
)
def preflight_skips_the_checkpoint_mount(
    plan: LaunchPlan,
    arm: str,
    realizations: tuple[HostRealization, ...],
    mount_sources: tuple[str, ...],
    rendezvous_port: int,
    serve_port: int,
) -> tuple[ApplyContext, ...]:
    """Preflight is told every mount source but the checkpoint's, so a missing checkpoint
    directory passes preflight."""
    return apply_contexts(plan, arm, realizations, mount_sources[1:], rendezvous_port, serve_port)


@mutant(replaces=STAGE_SCRIPT, turns_red={f"{W}.stage_scripts_take_the_container_name"})
def apply_creates_under_the_literal_name(stage: Stage, ctx: ApplyContext) -> str:
    """The apply stage creates the container under its planned literal name instead of
    the name the script is invoked with ($1)."""
    literal = f"--name {shlex.quote(ctx.realization.container_name)}"
    return _edited(stage, ctx, Stage.APPLY, '--name "$container_name"', literal)


@mutant(
    replaces=STAGE_SCRIPT,
    turns_red={f"{W}.no_stage_script_names_glm"},
    independent=False,
)
def occupancy_check_spells_the_glm_arm(stage: Stage, ctx: ApplyContext) -> str:
    """Preflight's occupancy check keeps the GLM launcher's literal arm label, so it only
    sees GLM containers."""
    return _edited(
        stage,
        ctx,
        Stage.PREFLIGHT,
        "--filter label=gunbc.arm ",
        "--filter label=gunbc.arm=glm_group_b ",
    )


@mutant(
    replaces=STAGE_SCRIPT,
    turns_red={f"{W}.readback_compares_what_runs_with_the_plan"},
    independent=False,
)
def readback_skips_the_env(stage: Stage, ctx: ApplyContext) -> str:
    """Readback compares the running command and image but no longer the env."""
    script = stage_script(stage, ctx)
    if stage is not Stage.READBACK:
        return script
    return "".join(
        line for line in script.splitlines(keepends=True) if not line.startswith("grep -qFx")
    )


@mutant(
    replaces=STAGE_SCRIPT,
    turns_red={f"{W}.followers_wait_for_the_head_rendezvous"},
    independent=False,
)
def followers_wait_on_their_own_address(stage: Stage, ctx: ApplyContext) -> str:
    """A follower waits for the rendezvous port on its own rail address instead of the
    head's, so it can start before the head answers."""
    own = f"/dev/tcp/{ctx.launch.host.rail_address}/"
    return _edited(stage, ctx, Stage.APPLY, f"/dev/tcp/{ctx.head_rail_address}/", own)


@mutant(
    replaces=STAGE_SCRIPT,
    turns_red={f"{W}.rollback_restores_what_preserve_saved"},
    independent=False,
)
def rollback_leaves_the_preserved_container(stage: Stage, ctx: ApplyContext) -> str:
    """Rollback no longer renames the preserved container back, so the old arm stays
    under its -preserved name."""
    script = stage_script(stage, ctx)
    if stage is not Stage.ROLLBACK:
        return script
    return "".join(line for line in script.splitlines(keepends=True) if "docker rename" not in line)
