"""Declared mutants of the transactional apply, caught by executing it (witness
``executed_apply``).

Each replaces one stage body (or the front door, or the script assembly) of
:mod:`planner.apply`, looked up by name when a script is rendered, with a defect an
operator would only see on the hosts: the scripts still read plausibly.
"""

from __future__ import annotations

import json

from mutation import mutant
from planner.apply import (
    ApplyContext,
    FrontDoor,
    Stage,
    apply_body,
    commit_body,
    front_door,
    go_json,
    preflight_body,
    preserve_body,
    readback_body,
    rollback_body,
    source_checks,
    stage_script,
)
from planner.check import UNIT_READ_LIMIT, PlannedHost, probe_script

W = "executed_apply"
PREFLIGHT = f"{W}.preflight_refuses_occupancy_and_missing_inputs"
FULL = f"{W}.a_full_transaction_leaves_every_host_running_its_plan"
ROLLBACK = f"{W}.rollback_restores_every_host_byte_for_byte"
PRESERVE_CUT = f"{W}.rollback_after_a_preserve_cut_short_puts_back_what_was_there"
READBACK = f"{W}.readback_compares_whole_values"
READBACK_COMMAND = f"{W}.readback_takes_the_command_as_docker_prints_it"
EACH_STAGE = f"{W}.each_stage_changes_its_host_in_order"


@mutant(replaces="planner.apply.commit_body", turns_red={FULL})
def commit_keeps_the_preserve_dir(ctx: ApplyContext) -> list[str]:
    """Commit enables the unit and removes the backup container but leaves the preserve
    dir, so the next preserve on this host refuses until someone cleans up by hand."""
    return [line for line in commit_body(ctx) if not line.startswith("rm -rf")]


@mutant(replaces="planner.apply.preserve_body", turns_red={EACH_STAGE})
def preserve_stops_the_container_before_its_unit(ctx: ApplyContext) -> list[str]:
    """Preserve stops the container before its unit, so systemd sees its service die under
    it (and a unit with Restart= would start it again)."""
    body = preserve_body(ctx)
    stop_unit = next(i for i, line in enumerate(body) if line.strip() == 'systemctl stop "$unit"')
    stop_container = next(i for i, line in enumerate(body) if "docker stop" in line)
    container = body[stop_container].strip()
    body = [line for i, line in enumerate(body) if i != stop_container]
    return [
        *body[:stop_unit],
        f'  docker container inspect "$container_name" >/dev/null 2>&1 && {container} || true',
        *body[stop_unit:],
    ]


@mutant(replaces="planner.apply.rollback_body", turns_red={ROLLBACK, PRESERVE_CUT, EACH_STAGE})
def rollback_forgets_the_saved_unit_file(ctx: ApplyContext) -> list[str]:
    """Rollback removes the unit file instead of restoring the one preserve saved, so the
    previous arm's unit is gone after a failed apply."""
    body = rollback_body(ctx)
    start = body.index('if [ -e "$preserve_dir/unit" ]; then')
    return [*body[:start], 'rm -f "$unit_path"', *body[start + 5 :]]


@mutant(
    replaces="planner.apply.rollback_body",
    turns_red={ROLLBACK, EACH_STAGE},
    independent=False,
)
def a_rollback_run_again_restores_again(ctx: ApplyContext) -> list[str]:
    """Rollback forgets that an earlier run already restored the host: run again (its
    connection dropped as it finished, so the coordinator could not know), it reloads and
    restarts the previous unit a second time under the operator's feet."""
    return [line for line in rollback_body(ctx) if '/restored" ]' not in line]


@mutant(
    replaces="planner.apply.rollback_body",
    turns_red={f"{W}.rollback_where_nothing_was_preserved_changes_nothing"},
    independent=False,
)
def rollback_with_nothing_preserved_fails(ctx: ApplyContext) -> list[str]:
    """Rollback on a host whose preserve never made its dir exits 1, so a host the
    transaction never changed is reported as not restored."""
    return ["  exit 1" if line == "  exit 0" else line for line in rollback_body(ctx)]


@mutant(replaces="planner.apply.rollback_body", turns_red={PRESERVE_CUT}, independent=False)
def rollback_clears_the_name_whatever_preserve_did(ctx: ApplyContext) -> list[str]:
    """Rollback removes whatever container holds the planned name and whatever unit file
    preserve saved no copy of, without asking whether preserve set anything aside: after a
    preserve cut short before its rename, the previous arm's container is deleted."""
    body = rollback_body(ctx)
    start = body.index(
        'if docker container inspect "$container_name-preserved" >/dev/null 2>&1; then'
    )
    end = body.index('elif [ -e "$preserve_dir/no-unit" ]; then')
    return [
        *body[:start],
        'systemctl stop "$unit" 2>/dev/null || true',
        'docker rm -f "$container_name" >/dev/null 2>&1 || true',
        'if docker container inspect "$container_name-preserved" >/dev/null 2>&1; then',
        '  docker rename "$container_name-preserved" "$container_name"',
        "fi",
        'if [ -e "$preserve_dir/unit" ]; then',
        '  cp -p "$preserve_dir/unit" "$unit_path"',
        "else",
        *body[end + 1 :],
    ]


@mutant(replaces="planner.apply.preflight_body", turns_red={PREFLIGHT})
def preflight_ignores_other_arms_containers(ctx: ApplyContext) -> list[str]:
    """Preflight no longer refuses a host where another arm's container runs."""
    return [
        line
        for line in preflight_body(ctx)
        if 'fail "host is occupied by another arm: ' not in line
    ]


@mutant(replaces="planner.apply.readback_body", turns_red={READBACK})
def readback_accepts_an_env_prefix(ctx: ApplyContext) -> list[str]:
    """Readback matches each env pair as a substring of the running env, so a value with
    anything appended passes."""
    return [line.replace("grep -qFx --", "grep -qF --") for line in readback_body(ctx)]


@mutant(
    replaces="planner.apply.preserve_body",
    turns_red={f"{W}.preserve_refuses_a_pending_backup"},
    independent=False,
)
def preserve_overwrites_a_pending_backup(ctx: ApplyContext) -> list[str]:
    """Preserve no longer checks for an earlier preserve dir, so a second preserve copies
    the new unit over the only saved copy of the old one."""
    return [line for line in preserve_body(ctx) if "an earlier preserve is pending in" not in line]


@mutant(
    replaces="planner.apply.stage_script",
    turns_red={f"{W}.scripts_refuse_a_container_they_were_not_planned_for"},
)
def scripts_take_any_container_name(stage: Stage, ctx: ApplyContext) -> str:
    """The stage scripts run on whatever container name they are given, so rollback or
    readback act on a container the unit never starts."""
    return "".join(
        line
        for line in stage_script(stage, ctx).splitlines(keepends=True)
        if "this script was planned for container" not in line
    )


@mutant(
    replaces="planner.apply.apply_body",
    turns_red={f"{W}.followers_start_only_after_the_head_listens"},
)
def followers_do_not_wait_for_the_head(ctx: ApplyContext) -> list[str]:
    """A follower's apply creates and starts its container at once, without waiting for
    the head's rendezvous port."""
    body = apply_body(ctx)
    if ctx.launch.is_head:
        return body
    return body[body.index("done") + 1 :]


@mutant(
    replaces="planner.apply.front_door",
    turns_red={FULL, f"{W}.front_doors_open_only_when_the_rank_serves"},
)
def head_front_door_asks_the_wrong_path(ctx: ApplyContext) -> FrontDoor:
    """The head's front door asks /healthz, which vLLM does not serve, so a healthy head
    never opens its front door."""
    door = front_door(ctx)
    if not ctx.launch.is_head:
        return door
    return FrontDoor(check=(*door.check[:-1], door.check[-1] + "z"), log_path=door.log_path)


@mutant(
    replaces="planner.apply.preserve_body",
    turns_red={f"{W}.preserve_saves_the_unit_file_even_when_it_is_not_running", ROLLBACK},
    independent=False,
)
def the_unit_file_is_saved_only_when_it_runs(ctx: ApplyContext) -> list[str]:
    """Preserve copies the unit file aside only when the unit was active, so rolling back
    a host whose unit was stopped deletes its unit file instead of restoring it."""
    lines = preserve_body(ctx)
    start = lines.index('if [ -e "$unit_path" ]; then')
    block, rest = lines[start : start + 6], [*lines[:start], *lines[start + 6 :]]
    end = rest.index("fi", rest.index('if systemctl is-active --quiet "$unit"; then'))
    return [*rest[:end], *(f"  {line}" for line in block), *rest[end:]]


@mutant(replaces="planner.apply.readback_body", turns_red={READBACK}, independent=False)
def readback_checks_the_image_before_the_command(ctx: ApplyContext) -> list[str]:
    """Readback compares the image before the command, so a container that differs in both
    is reported for its image."""
    lines = readback_body(ctx)
    cmd = next(i for i, line in enumerate(lines) if "{{json .Config.Cmd}}" in line)
    lines[cmd], lines[cmd + 1] = lines[cmd + 1], lines[cmd]
    return lines


@mutant(replaces="planner.apply.go_json", turns_red={READBACK_COMMAND})
def readback_expects_pythons_json(values: tuple[str, ...]) -> str:
    """Readback expects the command as Python's json.dumps writes it (non-ASCII as \\u
    escapes), so a container whose args hold any non-ASCII character never reads back and
    every apply of it rolls back."""
    return json.dumps(list(values), separators=(",", ":"))


@mutant(replaces="planner.apply.go_json", turns_red={READBACK_COMMAND}, independent=False)
def readback_expects_html_escapes(values: tuple[str, ...]) -> str:
    """Readback expects ``<``, ``>`` and ``&`` escaped, as Go's json.Marshal writes them; the
    docker CLI's ``json`` template turns that escaping off, so an arg holding one never
    reads back."""
    text = go_json(values)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escape)
    return text


@mutant(replaces="planner.apply.source_checks", turns_red={PREFLIGHT})
def a_mount_source_any_user_owns_is_taken(sources: tuple[str, ...]) -> list[str]:
    """Preflight never reads who owns a mount source or a directory above it, so another
    local user who made the directory first swaps the weights the container reads."""
    return [line for line in source_checks(sources) if '"$owner" = 0' not in line]


@mutant(replaces="planner.apply.source_checks", turns_red={PREFLIGHT}, independent=False)
def a_sticky_mount_source_is_taken(sources: tuple[str, ...]) -> list[str]:
    """The sticky bit excuses the mount source itself, not only a directory above it, so a
    world-writable /tmp-like source (anyone may add files to it) passes preflight."""
    return [line.replace('[ "$3" = 0 ] || ', "") for line in source_checks(sources)]


@mutant(
    replaces="planner.check.probe_script",
    turns_red={f"{W}.the_check_probe_reads_each_host_as_it_holds_it"},
)
def the_probe_sends_the_whole_unit_file(host: PlannedHost) -> str:
    """The probe sends the unit file whole, not its first 16 KiB: a huge file left at the
    unit's path travels over ssh whole, and the size read beside it no longer tells the
    check that what it shows was cut."""
    return probe_script(host).replace(f"head -c {UNIT_READ_LIMIT} -- ", "cat -- ")
