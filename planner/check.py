"""``planner apply --check``: see before you apply. Reads every host; changes nothing.

For each planned host, over the transport a real apply uses (:class:`SshTransport`: the same
ssh options, one multiplexed connection, each script's sha256 checked on the host and run
under the host's apply lock), three read-only sessions run:

1. the **probe** (:func:`probe_script`): what the host has now for this arm's planned unit
   and container — the unit file's bytes at ``/etc/systemd/system/UNIT`` (or absent), whether
   the unit is enabled and active, the container (absent, or the image, ``{{json
   .Config.Cmd}}`` and ``{{.State.Running}}`` that readback reads, with the same ``docker
   container inspect --format`` templates), and what an earlier apply left over: the
   ``CONTAINER-preserved`` container, ``UNIT.landing`` and every entry under the arm's preserve
   root (:data:`planner.apply.PRESERVE_ROOT`/ARM);
2. the host's real **preflight** script, as apply would send it: whether it would pass;
3. the host's real **readback** script: whether the host runs what was planned (it also
   compares the environment, which the probe does not read).

:func:`drift` compares the plan with what the probe read, a pure function, and the report
prints per host what apply would change. A host is *in sync* when the probe finds no
difference and readback passes; preflight's verdict is printed but changes no host's verdict
(a preflight that would refuse means apply would stop there: nothing would change).

**The probe's output is untrusted.** The host prints one ``KEY VALUE`` line per field, each
value a fixed word, a number or base64 (:func:`parse_probe`): no byte a host controls (a unit
file, a container's command) can end a line or forge a field, a key seen twice, an unknown
key or a missing ``end`` line makes the output unreadable, and everything shown goes through
:func:`planner.values.printable`. A unit file is read up to :data:`UNIT_READ_LIMIT` bytes
(its size is read whole), a diff is cut at :data:`DIFF_LINES` lines, each shown line at
:data:`LINE_WIDTH` columns.

**Decisions.** The probe runs as a :attr:`Stage.READBACK` step: the transport names a step's
stage in the remote command (``gunbc-apply readback``), and readback is the read-only stage
the host and the transport already know (a signal abandons it, and it never counts as a
change); a new :class:`planner.apply.Stage` value would enter every host's apply order, the
journal's stages and every witness that walks the enum. Every host gets its connection
attempt, one after another (a host that cannot be reached costs at most the connect
timeout); a host that cannot be reached is reported with ssh's reason and the check goes on
with the next. Admission is reported, not required: the check changes nothing, so it reads
the hosts of a plan that is not admitted too (apply itself would refuse it); ``--plan PLAN``
is bound as apply binds it (:func:`planned`), so a saved plan that changed or is no longer
admitted is refused there, exit 2. No journal is
written (``--journal`` is refused), no script set is written. On a host the check writes
nothing of its own; the transport, as for every stage, stores the script in a private temp
file removed when it ends and takes ``/run/lock/gunbc-apply.lock`` (``flock`` creates it
when absent), so a host where an apply is running is read once that stage released it.
SIGINT, SIGTERM and SIGHUP abandon the running session and end the check (exit 130); the
control directory is removed on every path.

Exit codes (precedence in this order): 130 interrupted; 4 a host could not be checked
(unreachable, or its probe's output unreadable); 3 apply would change a host; 1 the plan is
not admitted (apply would refuse it) while every host is in sync; 0 every host is in sync
and the plan is admitted; 2 usage or input error (nothing ran).
"""

from __future__ import annotations

import argparse
import binascii
import difflib
import json
import re
import shlex
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Literal

from planner import coordinator
from planner.apply import PRESERVE_ROOT, UNIT_DIR, Stage, go_json, image_field
from planner.arm_launch import DryRun
from planner.coordinator import (
    EXIT_INTERRUPTED,
    EXIT_REFUSED,
    EXIT_UNCHECKED,
    EXIT_USAGE,
    EXIT_WOULD_CHANGE,
    SshSettings,
    SshTransport,
    caught,
    check_live_read,
    settings_of,
)
from planner.refusal import PlannerInputError
from planner.transaction import (
    HostAddress,
    RunStep,
    StepResult,
    TransactionPlan,
    TransactionStep,
    parse_hosts,
    plan_transaction,
)
from planner.values import Frozen, printable

EXIT_IN_SYNC = 0

UNIT_READ_LIMIT = 16 * 1024
"""Bytes of a host's unit file the probe sends (its size is read whole): a planned unit is
well under 1 KiB, and a bigger file differs from it whatever its other bytes are."""
DIFF_LINES = 40
"""Lines of a unit's unified diff shown; the rest is counted on one line."""
LINE_WIDTH = 120
"""Columns a report line takes at most where it quotes a host (a diff line, a name)."""
LISTED = 10
"""Left-over entries named; the rest is counted."""
FORMAT = "gunbc-check-1"


class PlannedHost(Frozen):
    """What the plan puts on one host, as the probe and :func:`drift` compare it."""

    arm: str
    rank: int
    host_name: str
    container_name: str
    unit_name: str
    unit_text: str
    image: str
    cmd_json: str
    """The planned command as docker's ``{{json .Config.Cmd}}`` prints it (Go's encoder)."""

    @property
    def unit_path(self) -> str:
        return f"{UNIT_DIR}/{self.unit_name}"

    @property
    def preserve_root(self) -> str:
        """Where every preserve dir of this arm is on a host."""
        return f"{PRESERVE_ROOT}/{self.arm}"


def planned_hosts(dry: DryRun) -> tuple[PlannedHost, ...]:
    """Every planned host of a rendered dry run, head first."""
    if dry.launch is None:
        raise PlannerInputError("plan", dry.arm, "the plan did not render: nothing to check")
    return tuple(
        PlannedHost(
            arm=dry.arm,
            rank=launch.rank,
            host_name=host.realization.host_name,
            container_name=host.realization.container_name,
            unit_name=host.realization.unit_name,
            unit_text=host.realization.unit_text,
            image=dry.launch.image_digest,
            cmd_json=go_json(tuple(launch.serve_argv)),
        )
        for launch, host in zip(dry.launch.ranks, dry.hosts, strict=True)
    )


# --- the probe: a read-only script, and its output read strictly ---------------------------


def probe_script(host: PlannedHost) -> str:
    """The bash script that reads ``host``'s state (see the module docstring), changing
    nothing: it only runs ``test``, ``wc``, ``head``, ``find``, ``base64``, ``systemctl
    is-enabled``/``is-active`` and ``docker container inspect``. ``$1`` is the container name,
    as for every stage script, and must be the planned one."""
    q = shlex.quote
    return (
        "\n".join(
            [
                "#!/usr/bin/env bash",
                f"# check: arm {host.arm}, node rank {host.rank} on {host.host_name}: "
                "planner apply --check reads this host; it changes nothing",
                "set -euo pipefail",
                'container_name="${1:?usage: check.sh CONTAINER_NAME}"',
                f'if [ "$container_name" != {q(host.container_name)} ]; then',
                f'  echo "check: this script was planned for container {host.container_name}" >&2',
                "  exit 1",
                "fi",
                f"unit={q(host.unit_name)}",
                f"unit_path={q(host.unit_path)}",
                f"preserve_root={q(host.preserve_root)}",
                "# one KEY VALUE line per field: a word, a number, or base64 of what stdin holds",
                'field() { printf \'%s %s\\n\' "$1" "$2"; }',
                "encoded() { printf '%s ' \"$1\"; base64 -w0; printf '\\n'; }",
                'yes_no() { if "$@" >/dev/null 2>&1; then echo yes; else echo no; fi; }',
                f"field format {FORMAT}",
                *_unit_lines(),
                *_container_lines(host),
                *_leftover_lines(),
                "field end ok",
            ]
        )
        + "\n"
    )


def _unit_lines() -> list[str]:
    return [
        'if [ -f "$unit_path" ]; then',
        "  field unit_file present",
        '  field unit_size "$(wc -c <"$unit_path")"',
        f'  head -c {UNIT_READ_LIMIT} -- "$unit_path" | encoded unit',
        'elif [ -e "$unit_path" ] || [ -L "$unit_path" ]; then',
        "  field unit_file other",
        "else",
        "  field unit_file absent",
        "fi",
        'field unit_enabled "$(yes_no systemctl is-enabled --quiet "$unit")"',
        'field unit_active "$(yes_no systemctl is-active --quiet "$unit")"',
    ]


def _container_lines(host: PlannedHost) -> list[str]:
    """The fields readback compares, with readback's own templates (so a docker stand-in
    that answers readback answers these as docker does)."""
    image = shlex.quote(image_field(host.image))
    return [
        'inspect() { docker container inspect --format "$1" "$container_name"; }',
        'if docker container inspect "$container_name" >/dev/null 2>&1; then',
        "  field container present",
        f"  inspect {image} | encoded image",
        "  inspect '{{json .Config.Cmd}}' | encoded cmd",
        "  inspect '{{.State.Running}}' | encoded running",
        "else",
        "  field container absent",
        "fi",
    ]


def _leftover_lines() -> list[str]:
    return [
        'field preserved_container "$(yes_no docker container inspect '
        '"$container_name-preserved")"',
        'field landing "$(yes_no test -e "$unit_path.landing")"',
        'if [ -d "$preserve_root" ]; then',
        "  find \"$preserve_root\" -mindepth 1 -maxdepth 2 -printf '%P\\0' | encoded backups",
        "else",
        "  encoded backups </dev/null",
        "fi",
    ]


class ProbedUnit(Frozen):
    """The host's unit file: its size, and its first :data:`UNIT_READ_LIMIT` bytes."""

    size: int
    head: bytes


class ProbedContainer(Frozen):
    """The planned container's name on the host: what docker says it was created from, its
    command (``{{json .Config.Cmd}}``) and whether it runs."""

    image: str
    cmd_json: str
    running: str


class HostProbe(Frozen):
    """What the probe read on one host."""

    unit_file: Literal["present", "absent", "other"]
    unit: ProbedUnit | None
    enabled: bool
    active: bool
    container: ProbedContainer | None
    preserved_container: bool
    landing: bool
    backups: tuple[str, ...]


class ProbeUnreadable(ValueError):
    """The probe's output is not what :func:`probe_script` prints: why, in one line."""


_LINE = re.compile(r"([a-z_]+) ([A-Za-z0-9+/=-]*)")
_WORDS = {
    "format": (FORMAT,),
    "unit_file": ("present", "absent", "other"),
    "unit_enabled": ("yes", "no"),
    "unit_active": ("yes", "no"),
    "container": ("present", "absent"),
    "preserved_container": ("yes", "no"),
    "landing": ("yes", "no"),
    "end": ("ok",),
}
_ENCODED = ("unit", "image", "cmd", "running", "backups")
_ORDER = (
    "format",
    "unit_file",
    "unit_size",
    "unit",
    "unit_enabled",
    "unit_active",
    "container",
    "image",
    "cmd",
    "running",
    "preserved_container",
    "landing",
    "backups",
    "end",
)
_WHEN = {"unit_size": ("unit_file", "present"), "unit": ("unit_file", "present")}
_WHEN |= {key: ("container", "present") for key in ("image", "cmd", "running")}


def _fields(stdout: str) -> dict[str, str]:
    """``KEY VALUE`` lines, each key once, in the probe's order, ending with a line end."""
    if not stdout.endswith("\n"):
        raise ProbeUnreadable("its output does not end with a line end (cut short?)")
    fields: dict[str, str] = {}
    for n, line in enumerate(stdout[:-1].split("\n"), 1):
        found = _LINE.fullmatch(line)
        if found is None:
            raise ProbeUnreadable(f"line {n} is not a KEY VALUE field: {_clip(printable(line))}")
        key, value = found.groups()
        if key not in _ORDER or key in fields:
            raise ProbeUnreadable(f"line {n}: field {key} unknown or given twice")
        fields[key] = value
    return fields


def _checked(fields: dict[str, str]) -> dict[str, str]:
    """The fields in the probe's order, each word one it prints, each conditional field
    there exactly when its condition holds."""
    for key, words in _WORDS.items():
        if fields.get(key) not in words:
            raise ProbeUnreadable(f"field {key} missing or not one of {', '.join(words)}")
    for key, (on, word) in _WHEN.items():
        if (key in fields) != (fields[on] == word):
            raise ProbeUnreadable(f"field {key} where {on} is {fields[on]}")
    if "backups" not in fields or list(fields) != [k for k in _ORDER if k in fields]:
        raise ProbeUnreadable("its fields are not in the probe's order")
    size = fields.get("unit_size", "0")
    if not size.isdigit() or len(size) > 15:
        raise ProbeUnreadable("field unit_size is not a size")
    return fields


def _decoded(value: str, key: str) -> bytes:
    """Base64 as ``base64 -w0`` writes it: whole groups of four, padding only at the end."""
    try:
        if len(value) % 4:
            raise binascii.Error("not whole groups of four")
        return binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error:
        raise ProbeUnreadable(f"field {key} is not base64") from None


def _text(data: bytes) -> str:
    """A docker field's answer: its bytes as text, its one trailing line end dropped."""
    return data.decode("utf-8", errors="replace").removesuffix("\n")


def parse_probe(stdout: str) -> HostProbe:
    """What :func:`probe_script` printed on a host, read strictly; anything else (an unknown
    or repeated key, a value that is not its word or base64, a field out of order or out of
    place, no ``end``) raises :class:`ProbeUnreadable`."""
    fields = _checked(_fields(stdout))
    raw = {key: _decoded(fields[key], key) for key in _ENCODED if key in fields}
    unit = None
    if "unit" in raw:
        unit = ProbedUnit(size=int(fields["unit_size"]), head=raw["unit"])
    container = None
    if "image" in raw:
        container = ProbedContainer(
            image=_text(raw["image"]), cmd_json=_text(raw["cmd"]), running=_text(raw["running"])
        )
    listing = raw["backups"].decode("utf-8", errors="replace")
    return HostProbe(
        unit_file=fields["unit_file"],  # one of its words (_checked): pydantic holds it
        unit=unit,
        enabled=fields["unit_enabled"] == "yes",
        active=fields["unit_active"] == "yes",
        container=container,
        preserved_container=fields["preserved_container"] == "yes",
        landing=fields["landing"] == "yes",
        backups=tuple(sorted(e for e in listing.split("\0") if e)),
    )


# --- drift: what apply would change, a pure comparison ---------------------------------------


class Change(StrEnum):
    """One kind of difference between the plan and a host."""

    UNIT_ABSENT = "unit absent"
    UNIT_NOT_FILE = "unit not a file"
    UNIT_DIFFERS = "unit differs"
    UNIT_NOT_ENABLED = "unit not enabled"
    UNIT_NOT_ACTIVE = "unit not active"
    CONTAINER_ABSENT = "container absent"
    IMAGE_DIFFERS = "image differs"
    ARGV_DIFFERS = "argv differs"
    NOT_RUNNING = "not running"
    LEFT_OVER = "left over"


class Difference(Frozen):
    """One difference: its kind, its line, and lines under it (a unit's diff), each
    printable and at most :data:`LINE_WIDTH` columns wide."""

    change: Change
    line: str
    detail: tuple[str, ...] = ()


class Drift(Frozen):
    """Everything apply would change on one host (empty: the probe found it as planned)."""

    host_name: str
    differences: tuple[Difference, ...]

    @property
    def changes(self) -> tuple[Change, ...]:
        return tuple(d.change for d in self.differences)


def _clip(text: str, width: int = LINE_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def shown(text: str, width: int = LINE_WIDTH) -> str:
    """Text a host controls as a report line shows it: escaped (:func:`printable`), then
    cut to ``width`` columns."""
    return _clip(printable(text), width)


def _difference(change: Change, line: str, detail: tuple[str, ...] = ()) -> Difference:
    return Difference(change=change, line=shown(line), detail=detail)


def unit_diff(planned: str, found: bytes, where: str, limit: int = DIFF_LINES) -> tuple[str, ...]:
    """A unified diff of the planned unit against the host's bytes, lines split at ``\\n``
    only, at most ``limit`` lines (the rest counted on the last), each printable."""
    ours = planned.split("\n")
    theirs = found.decode("utf-8", errors="replace").split("\n")
    lines = list(difflib.unified_diff(ours, theirs, "planned", where, lineterm="", n=1))
    if len(lines) > limit:
        lines = [*lines[: limit - 1], f"[… {len(lines) - limit + 1} more diff lines …]"]
    return tuple(shown(line, LINE_WIDTH - 4) for line in lines)


def _unit_drift(plan: PlannedHost, probe: HostProbe) -> list[Difference]:
    unit = plan.unit_name
    if probe.unit_file == "absent":
        return [_difference(Change.UNIT_ABSENT, f"unit {unit}: absent; apply would write it")]
    if probe.unit is None:
        return [_difference(Change.UNIT_NOT_FILE, f"{plan.unit_path}: not a regular file")]
    out = []
    planned = plan.unit_text.encode()
    if probe.unit.size != len(planned) or probe.unit.head != planned:
        cut = (
            f" (its first {len(probe.unit.head)} bytes shown)"
            if probe.unit.size > len(probe.unit.head)
            else ""
        )
        where = f"{plan.host_name}:{plan.unit_path}"
        detail = unit_diff(plan.unit_text, probe.unit.head, where)
        line = f"unit {unit}: differs from the plan, {probe.unit.size} bytes{cut}:"
        out.append(_difference(Change.UNIT_DIFFERS, line, detail))
    if not probe.enabled:
        out.append(_difference(Change.UNIT_NOT_ENABLED, f"unit {unit}: not enabled"))
    if not probe.active:
        out.append(_difference(Change.UNIT_NOT_ACTIVE, f"unit {unit}: not active"))
    return out


def _detail(*pairs: tuple[str, str]) -> tuple[str, ...]:
    """Lines under a difference: ``label: value``, each printable and clipped."""
    return tuple(shown(f"{label}: {value}", LINE_WIDTH - 4) for label, value in pairs)


def argv_difference(planned_json: str, found_json: str) -> tuple[str, tuple[str, ...]]:
    """Where the host's command first differs from the planned one: a line's end, and the
    two arguments (or the host's whole answer, when it is not a list of strings)."""
    try:
        found = json.loads(found_json)
    except ValueError:
        found = None
    if not isinstance(found, list) or not all(isinstance(a, str) for a in found):
        return "the host's is not a list of strings", _detail(("host", found_json))
    planned = json.loads(planned_json)
    for i, (ours, theirs) in enumerate(zip(planned, found, strict=False)):
        if ours != theirs:
            return f"argument {i}", _detail(("planned", repr(ours)), ("host", repr(theirs)))
    return f"planned {len(planned)} arguments, the host has {len(found)}", ()


def _container_drift(plan: PlannedHost, probe: HostProbe) -> list[Difference]:
    name = plan.container_name
    found = probe.container
    if found is None:
        return [_difference(Change.CONTAINER_ABSENT, f"container {name}: absent")]
    out = []
    if found.image != plan.image:
        pairs = _detail(("planned", plan.image), ("host", found.image))
        out.append(_difference(Change.IMAGE_DIFFERS, f"container {name}: image differs:", pairs))
    if found.cmd_json != plan.cmd_json:
        where, pairs = argv_difference(plan.cmd_json, found.cmd_json)
        line = (
            f"container {name}: command differs: {where}:"
            if pairs
            else f"container {name}: command differs: {where}"
        )
        out.append(_difference(Change.ARGV_DIFFERS, line, pairs))
    if found.running != "true":
        out.append(_difference(Change.NOT_RUNNING, f"container {name}: not running"))
    return out


def _leftover_drift(plan: PlannedHost, probe: HostProbe) -> list[Difference]:
    out = []
    if probe.preserved_container:
        line = f"container {plan.container_name}-preserved: left over by an earlier preserve"
        out.append(_difference(Change.LEFT_OVER, line))
    if probe.landing:
        line = f"{plan.unit_path}.landing: left over by an apply cut short"
        out.append(_difference(Change.LEFT_OVER, line))
    if probe.backups:
        more = f" and {len(probe.backups) - LISTED} more" if len(probe.backups) > LISTED else ""
        line = f"{plan.preserve_root}: backups left over: "
        named = shown(", ".join(probe.backups[:LISTED]), LINE_WIDTH - len(line) - len(more))
        out.append(_difference(Change.LEFT_OVER, line + named + more))
    return out


def drift(plan: PlannedHost, probe: HostProbe) -> Drift:
    """Every difference between what the plan puts on a host and what its probe read: the
    unit file (absent, not a file, its bytes, not enabled or active), the container (absent,
    its image, its command, not running) and what an earlier apply left over."""
    found = [
        *_unit_drift(plan, probe),
        *_container_drift(plan, probe),
        *_leftover_drift(plan, probe),
    ]
    return Drift(host_name=plan.host_name, differences=tuple(found))


# --- one host checked over the transport ---------------------------------------------------


class Verdict(StrEnum):
    IN_SYNC = "in sync"
    WOULD_CHANGE = "would change"
    UNREACHABLE = "unreachable"
    UNREADABLE = "unreadable"
    NOT_CHECKED = "not checked"


class HostCheck(Frozen):
    """What the check found on one host: its verdict, why (unreachable, unreadable), the
    drift, and the lines saying what its preflight and readback would do."""

    host: HostAddress
    rank: int
    verdict: Verdict
    reason: str = ""
    drift: Drift | None = None
    stages: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """A header line (the host, its rank and address, its verdict), then one indented
        line per difference (a diff under its line) and per stage."""
        where = self.host.spec().partition("=")[2]
        head = f"{self.host.host_name} (rank {self.rank}, {where}): {self.verdict.value}"
        if self.reason:
            head += f": {self.reason}"
        elif self.verdict is Verdict.WOULD_CHANGE:
            head += ":"
        differences = self.drift.differences if self.drift is not None else ()
        out = [printable(head)]
        for d in differences:
            out += [f"  {d.line}", *(f"    {line}" for line in d.detail)]
        return out + [f"  {line}" for line in self.stages]


def unreachable(result: StepResult) -> str | None:
    """Why a host could not be reached (ssh's last line), or None: it answered. A step with
    no answer, ssh's 255, or one never started for a reason other than a signal."""
    said = [line for line in result.stderr.split("\n") if line.strip()]
    last = shown(said[-1].strip()) if said else ""
    if result.exit_code is None:
        return last or "no answer in time"
    if result.exit_code == 255 or (not result.started and result.exit_code != EXIT_INTERRUPTED):
        return last or f"exit {result.exit_code}"
    return None


def stage_line(stage: Stage, result: StepResult) -> str:
    """What a host's preflight or readback would do, as its script answered."""
    if stage is Stage.PREFLIGHT:
        good, bad = "preflight: would pass", "preflight: would refuse"
    else:
        good, bad = "readback: runs what was planned", "readback: does not run what was planned"
    if result.ok:
        return good
    if result.exit_code != 1:
        bad = f"{stage.value}: could not run"
    return f"{bad} ({result.describe()})"


def probe_step(plan: PlannedHost) -> TransactionStep:
    """The probe as a step the transport runs (see the module docstring: stage readback)."""
    return TransactionStep(
        stage=Stage.READBACK,
        rank=plan.rank,
        host_name=plan.host_name,
        container_name=plan.container_name,
        script=probe_script(plan),
    )


def check_host(
    plan: PlannedHost, transaction: TransactionPlan, run_step: RunStep, stopped: Callable[[], bool]
) -> HostCheck:
    """Probe one host, then run its preflight and readback (unless it cannot be reached or
    a signal came); what it found."""
    host = transaction.host(plan.rank)
    probe = run_step(probe_step(plan))
    why = unreachable(probe)
    if stopped():
        return HostCheck(
            host=host, rank=plan.rank, verdict=Verdict.NOT_CHECKED, reason="interrupted"
        )
    if why is not None:
        return HostCheck(host=host, rank=plan.rank, verdict=Verdict.UNREACHABLE, reason=why)
    stages = []
    readback_ok = False
    for step in transaction.forward:
        if step.rank == plan.rank and step.stage in (Stage.PREFLIGHT, Stage.READBACK):
            result = run_step(step)
            stages.append(stage_line(step.stage, result))
            readback_ok = readback_ok or (step.stage is Stage.READBACK and result.ok)
    return _judged(plan, host, probe, tuple(stages), readback_ok)


def _judged(
    plan: PlannedHost,
    host: HostAddress,
    probe: StepResult,
    stages: tuple[str, ...],
    readback_ok: bool,
) -> HostCheck:
    """The host's verdict from its probe's answer and its readback's."""
    unreadable = Verdict.UNREADABLE
    if not probe.ok:
        why = f"its probe failed ({probe.describe()})"
        return HostCheck(host=host, rank=plan.rank, verdict=unreadable, reason=why, stages=stages)
    try:
        found = drift(plan, parse_probe(probe.stdout))
    except ProbeUnreadable as exc:
        why = f"its probe's output is unreadable: {exc}"
        return HostCheck(host=host, rank=plan.rank, verdict=unreadable, reason=why, stages=stages)
    same = not found.differences and readback_ok
    verdict = Verdict.IN_SYNC if same else Verdict.WOULD_CHANGE
    return HostCheck(host=host, rank=plan.rank, verdict=verdict, drift=found, stages=stages)


# --- the whole check -----------------------------------------------------------------------


def summary(arm: str, checks: tuple[HostCheck, ...], admitted: bool, signals: list[str]) -> str:
    """The last line: how many hosts, which would change, which could not be checked."""

    def named(verdict: Verdict) -> str:
        hosts = [c.host.host_name for c in checks if c.verdict is verdict]
        return f"{len(hosts)} {verdict.value}" + (f" ({', '.join(hosts)})" if hosts else "")

    parts = [f"{len(checks)} hosts", named(Verdict.WOULD_CHANGE), named(Verdict.UNREACHABLE)]
    parts += [named(v) for v in (Verdict.UNREADABLE, Verdict.NOT_CHECKED) if _any(checks, v)]
    line = f"check {arm}: {', '.join(parts)}"
    if not admitted:
        line += "; the plan is not admitted (apply would refuse it)"
    if signals:
        line += f"; interrupted by {', '.join(signals)}"
    return printable(line)


def _any(checks: tuple[HostCheck, ...], verdict: Verdict) -> bool:
    return any(c.verdict is verdict for c in checks)


def exit_code(checks: tuple[HostCheck, ...], admitted: bool, signals: list[str]) -> int:
    """See the module docstring: interrupted, unchecked, would change, not admitted, 0."""
    if signals:
        return EXIT_INTERRUPTED
    if _any(checks, Verdict.UNREACHABLE) or _any(checks, Verdict.UNREADABLE):
        return EXIT_UNCHECKED
    if _any(checks, Verdict.WOULD_CHANGE):
        return EXIT_WOULD_CHANGE
    return EXIT_IN_SYNC if admitted else EXIT_REFUSED


def _say(text: str) -> None:
    try:
        print(text, flush=True)
    except OSError:  # the terminal went away (SIGHUP): the check goes on to its end
        pass


def admission_lines(dry: DryRun) -> list[str]:
    """The admission verdict, and every refusal under it."""
    if dry.admitted:
        return ["admission: ADMITTED"]
    lines = [f"  {text}" for r in dry.refusals for text in r.lines()]
    return [printable(line) for line in ["admission: REFUSED (apply would refuse)", *lines]]


def check_hosts(
    dry: DryRun,
    transaction: TransactionPlan,
    settings: SshSettings,
    progress: Callable[[str], None] | None = None,
) -> tuple[tuple[HostCheck, ...], list[str]]:
    """Every host checked, one after another, each printed as it is done; and the signals
    received (the first one ends the check: the session it waits on is abandoned).
    ``progress`` is told when a session still waits (a host's lock held by an apply; the
    probe shows as its readback step)."""
    checks: list[HostCheck] = []
    with caught() as interruptions:
        with SshTransport(transaction, settings, interruptions, progress=progress) as transport:
            for plan in planned_hosts(dry):
                if interruptions.received:
                    host = transaction.host(plan.rank)
                    checks.append(HostCheck(host=host, rank=plan.rank, verdict=Verdict.NOT_CHECKED))
                else:
                    checks.append(
                        check_host(
                            plan, transaction, transport, lambda: bool(interruptions.received)
                        )
                    )
                for line in checks[-1].lines():
                    _say(line)
        return tuple(checks), list(interruptions.received)


def _error(message: str) -> int:
    print(f"planner: error: {printable(message)}", file=sys.stderr)
    return EXIT_USAGE


def planned(args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]) -> DryRun:
    """The plan apply would run: ``--plan PLAN`` bound as apply binds it (exactly the saved
    plan, still admitted: otherwise refused, exit 2, as apply refuses it), else made from the
    planning inputs, the log read live as for a real apply."""
    if getattr(args, "plan", None) is not None:
        return coordinator._bound(args, plan)[1]
    check_live_read(args)
    return plan(args)


def run(args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]) -> int:
    """``planner apply --check``: plan as apply does, then read every host (see the module
    docstring); prints per host what apply would change, and a summary line."""
    if args.dry_run:
        return _error("--check and --dry-run: choose one (--check runs read-only scripts)")
    if args.journal is not None:
        return _error("--check writes no journal: --journal is for a real apply")
    try:
        settings = settings_of(args)
        hosts = parse_hosts(args.hosts)
        dry = planned(args, plan)
        if dry.launch is None:
            verdict = f"check {dry.arm}: REFUSED: the plan did not render; nothing was checked"
            return coordinator.refused(dry, verdict)
        transaction = plan_transaction(dry, hosts)
    except PlannerInputError as exc:
        return _error(str(exc))
    names = ", ".join(h.host_name for h in transaction.hosts)
    _say(printable(f"check {dry.arm}: {len(transaction.hosts)} hosts ({names}): read only"))
    for line in admission_lines(dry):
        _say(line)
    checks, signals = check_hosts(dry, transaction, settings, coordinator.progress_of(args))
    _say(summary(dry.arm, checks, dry.admitted, signals))
    return exit_code(checks, dry.admitted, signals)
