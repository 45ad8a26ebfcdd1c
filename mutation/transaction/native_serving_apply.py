"""Declared mutants of the transactional apply (witness ``native_serving_apply``).

Each stage body (``preflight_body``, ``apply_body``, ``readback_body``, ...) is looked up by
name when a script is rendered, so a mutant replaces exactly the stage it breaks. Two
mutants of ``apply_body`` cannot be combined; the other one is declared dependent.
"""

from __future__ import annotations

import shlex

from mutation import mutant
from planner.apply import (
    ApplyContext,
    Stage,
    apply_body,
    apply_contexts,
    readback_body,
    rollback_body,
    stage_script,
)
from planner.launch import LaunchPlan
from planner.realize import HostRealization

W = "native_serving_apply"
CONTEXT = f"{W}.each_apply_context_carries_its_ranks_whole_values"
ONE_FLAG_A_LINE = f"{W}.create_lists_one_flag_and_its_value_per_line"


@mutant(
    replaces="planner.apply.apply_contexts",
    turns_red={CONTEXT, f"{W}.preflight_checks_image_mounts_and_names"},
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


@mutant(
    replaces="planner.apply.apply_body",
    turns_red={f"{W}.stage_scripts_take_the_container_name", ONE_FLAG_A_LINE},
)
def apply_creates_under_the_literal_name(ctx: ApplyContext) -> list[str]:
    """The apply stage creates the container under its planned literal name instead of
    the name the script is invoked with ($1)."""
    literal = f"--name {shlex.quote(ctx.realization.container_name)}"
    return [line.replace('--name "$container_name"', literal) for line in apply_body(ctx)]


@mutant(
    replaces="planner.apply.readback_body",
    turns_red={f"{W}.readback_compares_what_runs_with_the_plan"},
)
def readback_skips_the_env(ctx: ApplyContext) -> list[str]:
    """Readback compares the running command and image but no longer the env."""
    return [line for line in readback_body(ctx) if not line.startswith("grep -qFx")]


@mutant(
    replaces="planner.apply.apply_body",
    turns_red={f"{W}.followers_wait_for_the_head_rendezvous"},
    independent=False,
)
def followers_wait_on_their_own_address(ctx: ApplyContext) -> list[str]:
    """A follower waits for the rendezvous port on its own rail address instead of the
    head's, so it can start before the head answers."""
    head, own = f"/dev/tcp/{ctx.head_rail_address}/", f"/dev/tcp/{ctx.launch.host.rail_address}/"
    return [line.replace(head, own) for line in apply_body(ctx)]


@mutant(
    replaces="planner.apply.rollback_body",
    turns_red={f"{W}.rollback_restores_what_preserve_saved"},
)
def rollback_leaves_the_preserved_container(ctx: ApplyContext) -> list[str]:
    """Rollback no longer renames the preserved container back, so the old arm stays
    under its -preserved name."""
    return [line for line in rollback_body(ctx) if "docker rename" not in line]


@mutant(replaces="planner.apply.apply_body", turns_red={ONE_FLAG_A_LINE}, independent=False)
def create_on_one_line(ctx: ApplyContext) -> list[str]:
    """The apply stage writes the whole ``docker create`` on one line: the same words, but
    a reviewer can no longer read one flag per line."""
    return [line.replace(" \\\n  ", " ") for line in apply_body(ctx)]


@mutant(
    replaces="planner.apply.apply_body",
    turns_red={f"{W}.a_unit_text_that_would_end_the_heredoc_is_refused"},
    independent=False,
)
def apply_drops_heredoc_terminator_lines(ctx: ApplyContext) -> list[str]:
    """The apply stage silently drops the unit text's lines that equal the heredoc
    terminator instead of refusing the unit."""
    text = ctx.realization.unit_text
    kept = "".join(line for line in text.splitlines(keepends=True) if line != "GUNBC_UNIT_TEXT\n")
    real = ctx.realization.model_copy(update={"unit_text": kept})
    return apply_body(ctx.model_copy(update={"realization": real}))


@mutant(
    replaces="planner.apply.apply_contexts",
    turns_red={f"{W}.apply_contexts_pair_each_rank_with_its_own_host"},
    independent=False,
)
def contexts_drop_unmatched_hosts(
    plan: LaunchPlan,
    arm: str,
    realizations: tuple[HostRealization, ...],
    mount_sources: tuple[str, ...],
    rendezvous_port: int,
    serve_port: int,
) -> tuple[ApplyContext, ...]:
    """Apply contexts pair ranks and realizations as far as both go, silently dropping a
    rank with no host (or a host with no rank)."""
    n = min(len(plan.ranks), len(realizations))
    return apply_contexts(
        plan.model_copy(update={"ranks": plan.ranks[:n]}),
        arm,
        realizations[:n],
        mount_sources,
        rendezvous_port,
        serve_port,
    )


@mutant(replaces="planner.apply.apply_contexts", turns_red={CONTEXT}, independent=False)
def followers_carry_the_head_launch(
    plan: LaunchPlan,
    arm: str,
    realizations: tuple[HostRealization, ...],
    mount_sources: tuple[str, ...],
    rendezvous_port: int,
    serve_port: int,
) -> tuple[ApplyContext, ...]:
    """Every context's launch host is the head's host (the follower's argv and env kept),
    so a value read from a follower's host in a script would be the head's."""
    contexts = apply_contexts(plan, arm, realizations, mount_sources, rendezvous_port, serve_port)
    head = plan.ranks[0].host
    return tuple(
        c.model_copy(update={"launch": c.launch.model_copy(update={"host": head})})
        for c in contexts
    )


@mutant(
    replaces="planner.apply.stage_script",
    turns_red={f"{W}.every_stage_script_is_strict_from_its_first_command"},
    independent=False,
)
def strict_mode_set_after_reading_the_name(stage: Stage, ctx: ApplyContext) -> str:
    """Each script reads its container name before it sets ``-euo pipefail``."""
    lines = stage_script(stage, ctx).split("\n")
    lines[2], lines[3] = lines[3], lines[2]
    return "\n".join(lines)
