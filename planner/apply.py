"""The transactional apply: per-host bash scripts rendered from values.

Stages, in the order an executor runs them: preflight (every host), preserve (every
host), apply (head first, then followers), readback (per rank: what runs equals the
plan), front door (each rank's own health check and log path), then commit — or
rollback (restore what preserve saved) — and cleanup. Each script takes the container
name as its first argument; every other value is quoted into it with ``shlex.quote``.

:func:`apply_steps` is the one place that orders them across hosts (each stage on every
host, head first); the coordinator (:mod:`planner.transaction`) runs that order over ssh.
Preflight changes nothing and refuses a host with an earlier preserve still pending;
preserve's first change is its preserve dir, so rollback on a host without one restores
nothing (its preserve refused or never ran) and is safe on every host preserve was started
on. Preserve then records each thing it sets aside as it goes (the unit file saved, or
``no-unit``; the container renamed, or ``no-container``), and rollback undoes only what
those records show: a preserve cut short anywhere (a dropped session, a refused ``docker
rename``) never leads rollback to remove a container or unit file it had not set aside.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from enum import StrEnum
from typing import Protocol

from planner.launch import LaunchPlan, RankLaunch
from planner.realize import STOP_GRACE_SECONDS, HostRealization
from planner.values import Frozen

UNIT_DIR = "/etc/systemd/system"
PRESERVE_ROOT = "/var/lib/gunbc/preserve"
HEAD_WAIT_SECONDS = 600
HEALTH_WAIT_SECONDS = 1800
_HEREDOC_END = "GUNBC_UNIT_TEXT"


class Stage(StrEnum):
    PREFLIGHT = "preflight"
    PRESERVE = "preserve"
    APPLY = "apply"
    READBACK = "readback"
    FRONT_DOOR = "front_door"
    COMMIT = "commit"
    ROLLBACK = "rollback"
    CLEANUP = "cleanup"


FORWARD_STAGES = (
    Stage.PREFLIGHT,
    Stage.PRESERVE,
    Stage.APPLY,
    Stage.READBACK,
    Stage.FRONT_DOOR,
    Stage.COMMIT,
)
"""The stages of a successful apply; rollback replaces commit on any failure."""


class FrontDoor(Frozen):
    """A step's own health check: the argv that proves it and where its log is."""

    check: tuple[str, ...]
    log_path: str


class Scripted(Protocol):
    """Anything that carries a stage script: a rendered step, a saved one, a transaction's."""

    @property
    def script(self) -> str: ...


def script_sha256(step: Scripted) -> str:
    """The sha256 (hex) of ``step``'s script as UTF-8: the one digest a saved plan records, the
    journal binds, the dry run prints and the host checks before it runs the script."""
    return hashlib.sha256(step.script.encode()).hexdigest()


class ApplyStep(Frozen):
    """One stage on one host: the script, its invocation, its front door."""

    stage: Stage
    rank: int
    host_name: str
    script: str
    invocation: tuple[str, ...]
    front_door: FrontDoor


class ApplyContext(Frozen):
    """The values every stage script of one host is rendered from."""

    arm: str
    realization: HostRealization
    launch: RankLaunch
    image_digest: str
    mount_sources: tuple[str, ...]
    head_rail_address: str
    rendezvous_port: int
    serve_port: int

    @property
    def unit_path(self) -> str:
        return f"{UNIT_DIR}/{self.realization.unit_name}"

    @property
    def preserve_dir(self) -> str:
        return preserve_dir(self.arm, self.realization.unit_name)


def preserve_dir(arm: str, unit_name: str) -> str:
    """Where preserve keeps a host's backup of ``unit_name`` for ``arm``."""
    return f"{PRESERVE_ROOT}/{arm}/{unit_name.removesuffix('.service')}"


def _q(value: object) -> str:
    return shlex.quote(str(value))


def _header(stage: Stage, ctx: ApplyContext, body: list[str]) -> list[str]:
    """The shared head of every script; a value the body never reads is not assigned
    (shellcheck SC2034), while ``$1`` and ``fail`` (which names the container) always are."""
    r = ctx.realization
    text = "\n".join(body)
    optional = [
        f"{var}={_q(value)}"
        for var, value in (
            ("unit", r.unit_name),
            ("unit_path", ctx.unit_path),
            ("preserve_dir", ctx.preserve_dir),
        )
        if re.search(rf"\$\{{?{var}\b", text)
    ]
    return [
        "#!/usr/bin/env bash",
        f"# {stage.value}: arm {ctx.arm}, node rank {r.rank} on {r.host_name}",
        "set -euo pipefail",
        f'container_name="${{1:?usage: {stage.value}.sh CONTAINER_NAME}}"',
        *optional,
        f"log_path={_q(r.log_path)}",
        f"fail() {{ printf '{stage.value} of %s on %s: %s (log: %s)\\n' "
        f'"$container_name" {_q(r.host_name)} "$*" "$log_path" >&2; exit 1; }}',
        # The unit this arm writes names the planned container: any other name would
        # create, read back or roll back a container the unit never starts.
        f'[ "$container_name" = {_q(r.container_name)} ] '
        f'|| fail "this script was planned for container {r.container_name}"',
    ]


_ROOT_ONLY = [
    "# only root may change what a container mounts: the source and every directory above",
    "# it, as named and as its real path (symlinks resolved), must be root's and writable",
    "# by no group or other; a directory above it may be a root-owned sticky one (/var/tmp):",
    "# no one else can rename or remove what root made in it",
    "root_only() {  # PATH SOURCE ABOVE INFO: PATH on SOURCE's way (ABOVE=1: a directory",
    "  local owner mode  # above it), INFO its owner and mode as stat prints them",
    '  read -r owner mode <<<"$4"',
    '  [ "$owner" = 0 ] || fail "mount source $2: $1 is owned by uid $owner, not root"',
    '  if (( 8#$mode & 8#022 )) && { [ "$3" = 0 ] || (( ! (8#$mode & 8#1000) )); }; then',
    '    fail "mount source $2: $1 is writable by group or others (mode $mode)"',
    "  fi",
    "}",
    "trusted() {  # SOURCE: its way named and real, read with one stat (a fork a level is slow)",
    "  local real path above info i",
    "  local -a paths=() aboves=() infos=()",
    '  real=$(realpath -e -- "$1" 2>/dev/null) || fail "mount source $1 does not exist"',
    '  [ "$real" != / ] || fail "mount source $1 is / (its real path)"',
    '  for path in "$1" "$real"; do',
    "    above=0",
    '    while paths+=("$path") && aboves+=("$above") && [ "$path" != / ]; do',
    "      path=${path%/*}",
    "      path=${path:-/}",
    "      above=1",
    "    done",
    "  done",
    '  info=$(stat -L -c \'%u %a\' -- "${paths[@]}") || fail "mount source $1: unreadable way"',
    '  mapfile -t infos <<<"$info"',
    '  for i in "${!paths[@]}"; do',
    '    root_only "${paths[$i]}" "$1" "${aboves[$i]}" "${infos[$i]}"',
    "  done",
    "}",
]


def source_checks(sources: tuple[str, ...]) -> list[str]:
    """Every mount source must exist and be root's alone (:data:`_ROOT_ONLY`); a loop over
    one word is no loop (shellcheck SC2043)."""
    if not sources:
        return []
    if len(sources) == 1:
        return [*_ROOT_ONLY, f"trusted {_q(sources[0])}"]
    listed = " ".join(_q(s) for s in sources)
    return [*_ROOT_ONLY, f"for source in {listed}; do", '  trusted "$source"', "done"]


def preflight_body(ctx: ApplyContext) -> list[str]:
    return [
        f"image={_q(ctx.image_digest)}",
        f"arm={_q(ctx.arm)}",
        'docker image inspect "$image" >/dev/null 2>&1 || fail "image $image is not present"',
        *source_checks(ctx.mount_sources),
        "owner=$(docker container inspect --format '{{index .Config.Labels \"gunbc.arm\"}}' "
        '"$container_name" 2>/dev/null || true)',
        'if docker container inspect "$container_name" >/dev/null 2>&1 '
        '&& [ "$owner" != "$arm" ]; then',
        '  fail "container name $container_name is taken by ${owner:-an unlabelled container}"',
        "fi",
        "# a running container of any other arm reads as occupancy, never as this arm",
        "others=$(docker ps --filter label=gunbc.arm --format '{{.Names}} {{.Label \"gunbc.arm\"}}'"
        " | awk -v arm=\"$arm\" '$2 != arm {print $1}')",
        '[ -z "$others" ] || fail "host is occupied by another arm: $others"',
        "# so does any other active unit that attaches a container (an older, unlabelled arm)",
        "while read -r other _; do",
        '  [ "$other" = "$unit" ] && continue',
        '  if systemctl show --property ExecStart --value "$other" '
        "| grep -q 'docker start --attach'; then",
        '    fail "host is occupied by another arm\'s unit $other"',
        "  fi",
        "done < <(systemctl list-units --type=service --state=active --no-legend --plain)",
        'if [ -e "$unit_path" ] \\\n'
        '  && ! grep -qF -- "start --attach $container_name" "$unit_path"; then',
        '  fail "unit $unit exists and runs another container"',
        "fi",
        "# an earlier preserve not yet committed or rolled back holds the only backup: refuse",
        "# here, before anything stops (rollback would restore that backup, not this state)",
        *_pending_checks(),
        "echo \"preflight passed: image present, mount sources exist and are root's alone, "
        'names free"',
    ]


def _pending_checks() -> list[str]:
    """Refuse a host where an earlier preserve is pending (its dir or its renamed container)."""
    return [
        '[ ! -e "$preserve_dir" ] || fail "an earlier preserve is pending in $preserve_dir: '
        'roll back or commit it first"',
        'if docker container inspect "$container_name-preserved" >/dev/null 2>&1; then',
        '  fail "$container_name-preserved exists: an earlier preserve is pending"',
        "fi",
    ]


def preserve_body(ctx: ApplyContext) -> list[str]:
    return [
        "# an earlier preserve not yet committed or rolled back holds the only backup",
        *_pending_checks(),
        'mkdir -p "$preserve_dir"',
        'if systemctl is-active --quiet "$unit"; then',
        '  touch "$preserve_dir/unit-was-active"',
        '  systemctl stop "$unit"',
        "fi",
        "# each thing set aside is recorded once it is whole: rollback undoes only those",
        'if [ -e "$unit_path" ]; then',
        '  cp -p "$unit_path" "$preserve_dir/unit.copying"',
        '  mv -f "$preserve_dir/unit.copying" "$preserve_dir/unit"',
        "else",
        '  touch "$preserve_dir/no-unit"',
        "fi",
        'if docker container inspect "$container_name" >/dev/null 2>&1; then',
        f'  docker stop --time {STOP_GRACE_SECONDS} "$container_name" >/dev/null',
        '  docker rename "$container_name" "$container_name-preserved"',
        "else",
        '  touch "$preserve_dir/no-container"',
        "fi",
        'echo "preserved into $preserve_dir"',
    ]


def _create_line(ctx: ApplyContext) -> str:
    """The create argv, one flag and its value per line; the name comes from ``$1``."""
    argv = list(ctx.realization.create_argv)
    quoted = [_q(a) for a in argv]
    quoted[argv.index("--name") + 1] = '"$container_name"'
    lines: list[str] = []
    for arg, text in zip(argv, quoted, strict=True):
        if (
            lines
            and lines[-1].startswith("--")
            and " " not in lines[-1]
            and not arg.startswith("-")
        ):
            lines[-1] += f" {text}"
        else:
            lines.append(text)
    return " \\\n  ".join(lines) + " >/dev/null"


def apply_body(ctx: ApplyContext) -> list[str]:
    unit_text = ctx.realization.unit_text
    if any(line == _HEREDOC_END for line in unit_text.splitlines()):
        raise ValueError(f"unit text contains the heredoc terminator {_HEREDOC_END}")
    wait: list[str] = []
    if not ctx.launch.is_head:
        target = f"/dev/tcp/{ctx.head_rail_address}/{ctx.rendezvous_port}"
        wait = [
            "# followers start only once the head's rendezvous port answers",
            f"deadline=$((SECONDS + {HEAD_WAIT_SECONDS}))",
            f"until (exec 3<>{_q(target)}) 2>/dev/null; do",
            '  [ "$SECONDS" -lt "$deadline" ] || fail "head rendezvous never answered"',
            "  sleep 2",
            "done",
        ]
    return [
        *wait,
        _create_line(ctx),
        f"cat > \"$unit_path.landing\" <<'{_HEREDOC_END}'",
        *unit_text.rstrip("\n").splitlines(),
        _HEREDOC_END,
        'mv -f "$unit_path.landing" "$unit_path"',
        "systemctl daemon-reload",
        'systemctl start "$unit"',
        'echo "applied: $unit started $container_name"',
    ]


def image_field(image: str) -> str:
    """What readback compares with the planned image: the image id for a digest (the content
    created from), the reference as created for a tag (a recipe's ``name:tag``: a tag names
    no content, so readback can only prove the container was created from that name)."""
    return "{{.Image}}" if image.startswith("sha256:") else "{{.Config.Image}}"


_GO_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _go_char(char: str) -> str:
    if char in _GO_SHORT:
        return _GO_SHORT[char]
    point = ord(char)
    if point < 0x20 or point in (0x2028, 0x2029):
        return f"\\u{point:04x}"
    if 0xD800 <= point <= 0xDFFF:  # its three UTF-8 bytes are each invalid to Go
        return "\\ufffd" * 3
    return char


def go_json(values: tuple[str, ...]) -> str:
    """``values`` as docker's ``{{json .}}`` template prints a list of strings: Go's
    ``json.Encoder`` with ``SetEscapeHTML(false)`` (docker/cli ``templates``), its trailing
    newline trimmed, no spaces. Per character: ``"`` and ``\\`` take a backslash; ``\\b \\f
    \\n \\r \\t`` their short escapes; any other control below U+0020 is ``\\u00xx`` (lower
    case); U+2028 and U+2029 are ``\\u2028``/``\\u2029``; a lone surrogate (invalid UTF-8 to
    Go, three bytes) is three ``\\ufffd``; everything else — ``<``, ``>``, ``&``, DEL, any
    other non-ASCII character — is written as itself (UTF-8). Python's ``json.dumps``
    escapes non-ASCII and never matches docker's bytes for it."""
    return "[" + ",".join('"' + "".join(map(_go_char, v)) + '"' for v in values) + "]"


def readback_body(ctx: ApplyContext) -> list[str]:
    # docker prints the command with Go's encoder: compared as its bytes, not Python's
    expected_cmd = go_json(tuple(ctx.launch.serve_argv))
    lines = [
        f"expected_cmd={_q(expected_cmd)}",
        f"expected_image={_q(ctx.image_digest)}",
        'inspect() { docker container inspect --format "$1" "$container_name"; }',
        '[ "$(inspect \'{{.State.Running}}\')" = true ] || fail "$container_name is not running"',
        '[ "$(inspect \'{{json .Config.Cmd}}\')" = "$expected_cmd" ] '
        '|| fail "running command differs from the plan"',
        f'[ "$(inspect {_q(image_field(ctx.image_digest))})" = "$expected_image" ] '
        '|| fail "running image differs from the plan"',
        "env_now=$(inspect '{{range .Config.Env}}{{println .}}{{end}}')",
    ]
    for key, value in ctx.launch.env:
        pair = _q(f"{key}={value}")
        lines.append(f'grep -qFx -- {pair} <<<"$env_now" || fail "env {key} differs from the plan"')
    lines.append(f'echo "readback: rank {ctx.launch.rank} runs what was planned"')
    return lines


def front_door(ctx: ApplyContext) -> FrontDoor:
    """Rank 0 answers /health on the route's port; a follower's unit is active."""
    if ctx.launch.is_head:
        url = f"http://{ctx.launch.host.rail_address}:{ctx.serve_port}/health"
        check: tuple[str, ...] = ("curl", "-fsS", "--max-time", "5", url)
    else:
        check = ("systemctl", "is-active", "--quiet", ctx.realization.unit_name)
    return FrontDoor(check=check, log_path=ctx.realization.log_path)


def front_door_body(ctx: ApplyContext) -> list[str]:
    check = " ".join(_q(a) for a in front_door(ctx).check)
    return [
        f"deadline=$((SECONDS + {HEALTH_WAIT_SECONDS}))",
        f"until {check} >/dev/null 2>&1; do",
        '  if [ "$SECONDS" -ge "$deadline" ]; then',
        '    tail -n 50 "$log_path" >&2 || true',
        f'    fail "front door never answered: {check}"',
        "  fi",
        "  sleep 5",
        "done",
        'echo "front door open; log at $log_path"',
    ]


def commit_body(ctx: ApplyContext) -> list[str]:
    return [
        'systemctl enable "$unit" >/dev/null',
        'if docker container inspect "$container_name-preserved" >/dev/null 2>&1; then',
        '  docker rm "$container_name-preserved" >/dev/null',
        "fi",
        'rm -rf "$preserve_dir"',
        'echo "committed: $unit enabled, preserved state dropped"',
    ]


def rollback_body(ctx: ApplyContext) -> list[str]:
    return [
        "# preserve's first change makes the preserve dir: without it this host was never",
        "# changed (its preserve refused or never ran), and there is nothing to restore",
        'if [ ! -d "$preserve_dir" ]; then',
        '  echo "rolled back: nothing was preserved here, so nothing changed"',
        "  exit 0",
        "fi",
        "# a rollback run again (its connection dropped, so the coordinator could not know it",
        "# finished) restores nothing more once an earlier run restored everything",
        '[ ! -e "$preserve_dir/restored" ] '
        '|| { echo "rolled back: an earlier rollback restored it"; exit 0; }',
        "# the container name is apply's only once preserve moved the previous one aside or",
        "# found none; before that it is still the previous container, left where it is",
        'if docker container inspect "$container_name-preserved" >/dev/null 2>&1; then',
        '  systemctl stop "$unit" 2>/dev/null || true',
        '  docker rm -f "$container_name" >/dev/null 2>&1 || true',
        '  docker rename "$container_name-preserved" "$container_name"',
        'elif [ -e "$preserve_dir/no-container" ]; then',
        '  systemctl stop "$unit" 2>/dev/null || true',
        '  docker rm -f "$container_name" >/dev/null 2>&1 || true',
        "fi",
        "# the same for the unit file: restored if saved, removed only if there was none",
        'if [ -e "$preserve_dir/unit" ]; then',
        '  cp -p "$preserve_dir/unit" "$unit_path"',
        'elif [ -e "$preserve_dir/no-unit" ]; then',
        '  rm -f "$unit_path"',
        "fi",
        "systemctl daemon-reload",
        'if [ -e "$preserve_dir/unit-was-active" ]; then',
        '  systemctl start "$unit"',
        "fi",
        'touch "$preserve_dir/restored"',
        'echo "rolled back: restored what preserve saved in $preserve_dir"',
    ]


def cleanup_body(ctx: ApplyContext) -> list[str]:
    return [
        'rm -f "$unit_path.landing"',
        'rm -rf "$preserve_dir"',
        'echo "cleaned up"',
    ]


def stage_body(stage: Stage, ctx: ApplyContext) -> list[str]:
    """The commands of ``stage``, each stage's renderer looked up when it is called."""
    match stage:
        case Stage.PREFLIGHT:
            return preflight_body(ctx)
        case Stage.PRESERVE:
            return preserve_body(ctx)
        case Stage.APPLY:
            return apply_body(ctx)
        case Stage.READBACK:
            return readback_body(ctx)
        case Stage.FRONT_DOOR:
            return front_door_body(ctx)
        case Stage.COMMIT:
            return commit_body(ctx)
        case Stage.ROLLBACK:
            return rollback_body(ctx)
        case Stage.CLEANUP:
            return cleanup_body(ctx)


def stage_script(stage: Stage, ctx: ApplyContext) -> str:
    """The bash script for ``stage`` on the host of ``ctx``."""
    body = stage_body(stage, ctx)
    return "\n".join([*_header(stage, ctx, body), *body]) + "\n"


def apply_steps(contexts: tuple[ApplyContext, ...]) -> tuple[ApplyStep, ...]:
    """Every stage for every host, in execution order: each stage head first."""
    ordered = sorted(contexts, key=lambda c: c.launch.rank)
    return tuple(
        ApplyStep(
            stage=stage,
            rank=ctx.launch.rank,
            host_name=ctx.realization.host_name,
            script=stage_script(stage, ctx),
            invocation=("bash", f"{stage.value}.sh", ctx.realization.container_name),
            front_door=front_door(ctx),
        )
        for stage in Stage
        for ctx in ordered
    )


def apply_contexts(
    plan: LaunchPlan,
    arm: str,
    realizations: tuple[HostRealization, ...],
    mount_sources: tuple[str, ...],
    rendezvous_port: int,
    serve_port: int,
) -> tuple[ApplyContext, ...]:
    return tuple(
        ApplyContext(
            arm=arm,
            realization=real,
            launch=launch,
            image_digest=plan.image_digest,
            mount_sources=mount_sources,
            head_rail_address=plan.head.host.rail_address,
            rendezvous_port=rendezvous_port,
            serve_port=serve_port,
        )
        for launch, real in zip(plan.ranks, realizations, strict=True)
    )
