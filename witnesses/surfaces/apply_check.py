"""Witness: ``planner apply --check`` reads every host, changes none, and says what apply would do.

The pure claims give :mod:`planner.check` probe output written here from the format its
module docstring states (one ``KEY VALUE`` line per field, in the probe's order; a word, a
number, or base64 of what the host printed; ``end ok`` last), as a host holding a given unit
file, container and leftovers would print it, and compare what it finds with what the V4.1
plan puts on the host (``fixtures.builders.v41_dry_run("supplied")``: its unit, container,
image and serve argv). The expected differences, exit codes and summary lines are written
from the rules the module docstring states (precedence 130, 4, 3, 1, 0), never copied from
the check's output.

How one host is judged from what its steps answered (``check_host``, given a step runner
that answers from a table, as a transport would) is claimed here too, and so is the command
over hosts nothing answers (real ssh, refused at once on loopback ports nobody listens on:
each host tried and listed, the admission and summary said). The fleet part (before
and after a real apply, a host changed by hand, a host down) is
``tests/test_apply_check_fleet.py``: as claims, every declared mutant of the code it runs
(coordinator, transaction, check, apply scripts) started the fleet again, and the declared
run outgrew CI's budget.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from claims import ClaimKind, Verdict, claim, difference, fails, holds, holds_unless
from fixtures.builders import Ran, captured, run_planner, v41_dry_run
from fixtures.go_json import ANY_TEXT, EDGES
from fixtures.go_json import reference as go_reference
from fixtures.transaction_cases import PREVIOUS_IMAGE
from planner import coordinator
from planner.apply import PRESERVE_ROOT, UNIT_DIR, go_json
from planner.arm_launch import DryRun
from planner.check import (
    DIFF_LINES,
    LINE_WIDTH,
    UNIT_READ_LIMIT,
    Change,
    Difference,
    HostCheck,
    ProbeUnreadable,
    check_host,
    drift,
    exit_code,
    parse_probe,
    planned_hosts,
    probe_script,
    summary,
)
from planner.check import Verdict as HostVerdict
from planner.cli import parse
from planner.transaction import HostAddress, StepResult, TransactionStep, plan_transaction

ARM = "v41_group_a"
RENDERED = v41_dry_run("supplied")
"""The plan, rendered when this witness is imported: before a declared mutant is installed."""
_HEAD = planned_hosts(RENDERED)[0]
_REAL = RENDERED.hosts[0].realization
UNIT, CONTAINER, HOST = _REAL.unit_name, _REAL.container_name, _REAL.host_name
UNIT_PATH = f"{UNIT_DIR}/{UNIT}"
PRESERVED = f"{PRESERVE_ROOT}/{ARM}"
HOSTILE = "\x1b[2J\r\u202e\x85\x9b"
"""ESC (a terminal's clear screen), CR, a bidi override and two C1 controls..."""
SHOWN = "\\x1b[2J\\r\\u202e\\x85\\x9b"
"""... as a report line must show them: escaped, each as Python writes it."""


# --- probe output, written from the format ---------------------------------------------------

YES = {True: "yes", False: "no"}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _answer(text: str) -> str:
    """Base64 of what docker prints for a field: its value and a line end."""
    return _b64((text + "\n").encode())


@dataclass(frozen=True)
class Host:
    """What a host holds, as the probe prints it (``unit`` None: no unit file, or
    ``unit_file`` ``other``; ``container`` None: none, else image, command, running)."""

    unit: bytes | None = None
    unit_size: int | None = None
    unit_file: str = "absent"
    container: tuple[str, str, str] | None = None
    enabled: bool = True
    active: bool = True
    preserved: bool = False
    landing: bool = False
    backups: tuple[str, ...] = ()

    def output(self) -> str:
        """What the probe prints on this host, a field a line."""
        lines = ["format gunbc-check-1", *self._unit_lines()]
        lines += [f"unit_enabled {YES[self.enabled]}", f"unit_active {YES[self.active]}"]
        lines += self._container_lines()
        lines += [f"preserved_container {YES[self.preserved]}", f"landing {YES[self.landing]}"]
        listing = "".join(f"{name}\0" for name in self.backups).encode()
        return "\n".join([*lines, f"backups {_b64(listing)}", "end ok"]) + "\n"

    def _unit_lines(self) -> list[str]:
        if self.unit is None:
            return [f"unit_file {self.unit_file}"]
        size = len(self.unit) if self.unit_size is None else self.unit_size
        return ["unit_file present", f"unit_size {size}", f"unit {_b64(self.unit)}"]

    def _container_lines(self) -> list[str]:
        if self.container is None:
            return ["container absent"]
        image, cmd, running = (_answer(value) for value in self.container)
        return ["container present", f"image {image}", f"cmd {cmd}", f"running {running}"]


def _serve_argv() -> list[str]:
    assert RENDERED.launch is not None
    return list(RENDERED.launch.ranks[0].serve_argv)


def _image() -> str:
    assert RENDERED.launch is not None
    return RENDERED.launch.image_digest


def _cmd_json(argv: list[str]) -> str:
    """An argv as docker's ``{{json .Config.Cmd}}`` prints it (:mod:`fixtures.go_json`)."""
    return go_reference(argv).decode("utf-8", "surrogatepass")


def _as_planned(**changed: Any) -> Host:
    """The head (srv5) as the plan puts it, with ``changed`` fields."""
    planned = {
        "unit": _REAL.unit_text.encode(),
        "container": (_image(), _cmd_json(_serve_argv()), "true"),
    }
    return Host(**{**planned, **changed})


def _unreadable(output: str) -> str | None:
    """Why the probe's output is refused, or None: it was read."""
    try:
        parse_probe(output)
    except ProbeUnreadable as exc:
        return str(exc)
    return None


# --- the probe's output, read strictly ---------------------------------------------------


def _refused_outputs() -> dict[str, tuple[str, str]]:
    """Output the probe never prints, each with the reason it must be refused for."""
    good = _as_planned().output()
    lines = good.split("\n")
    swapped = "\n".join([*lines[:4], lines[5], lines[4], *lines[6:]])
    size = f"unit_size {len(_REAL.unit_text.encode())}"
    twice = "unknown or given twice"
    cut = "its output does not end with a line end (cut short?)"
    return {
        "a field forged after the others": (
            good.replace("end ok\n", "container absent\nend ok\n"),
            f"line 14: field container {twice}",
        ),
        "the format line again": ("format gunbc-check-1\n" + good, f"line 2: field format {twice}"),
        "an unknown field": (
            good.replace("end ok\n", "verdict ok\nend ok\n"),
            f"line 14: field verdict {twice}",
        ),
        "fields out of order": (swapped, "its fields are not in the probe's order"),
        "no end line": (good.removesuffix("end ok\n"), "field end missing or not one of ok"),
        "no last line end": (good.removesuffix("\n"), cut),
        "nothing": ("", cut),
        "a raw line": (
            f"format gunbc-check-1\n{HOSTILE}\n",
            f"line 2 is not a KEY VALUE field: {SHOWN}",
        ),
        "a word it never prints": (
            good.replace("unit_enabled yes", "unit_enabled maybe"),
            "field unit_enabled missing or not one of yes, no",
        ),
        "a field out of place": (
            good.replace("container present", "container absent"),
            "field image where container is absent",
        ),
        "not base64": (good.replace("running ", "running A"), "field running is not base64"),
        "a size no file has": (
            good.replace(size, "unit_size " + "9" * 16),
            "field unit_size is not a size",
        ),
    }


@claim(ClaimKind.REFUSAL)
def probe_output_the_probe_does_not_print_is_refused_saying_why() -> Verdict:
    """A field forged after the others or given twice, an unknown field, fields out of order,
    output with no ``end ok`` or cut before its last line end, a raw line, a word the probe
    never prints, a field its condition excludes, a value that is not base64, a size no file
    has: each is refused (``ProbeUnreadable``) with its own one-line, printable reason; the
    probe's own output is read."""
    refused = _refused_outputs()
    problems = difference("the probe's own output", None, _unreadable(_as_planned().output()))
    for name, (output, why) in refused.items():
        problems += difference(name, why, _unreadable(output))
    return holds_unless(problems, f"{len(refused)} outputs refused, each saying why")


_TEXT = st.text(max_size=40)
_NAMES = st.lists(st.text(st.characters(blacklist_characters="\0"), min_size=1), max_size=4)


@settings(max_examples=60)
@given(unit=st.binary(max_size=300), container=st.tuples(_TEXT, _TEXT, _TEXT), backups=_NAMES)
@example(unit=b"x\nend ok\ncontainer absent\n", container=("i\nend ok", "[]\n", "t"), backups=[])
@example(unit=b"\xff\xfe\x00\n", container=("", "", ""), backups=["a\nb", "c d", "\xe9"])
def _host_bytes_are_read_back(
    unit: bytes, container: tuple[str, str, str], backups: list[str]
) -> None:
    host = Host(unit=unit, container=container, backups=tuple(backups))
    probe = parse_probe(host.output())
    assert probe.unit is not None and probe.container is not None, f"{host!r}: lost"
    found = probe.container
    read = (probe.unit.head, probe.unit.size, found.image, found.cmd_json, found.running)
    assert read == (unit, len(unit), *container), f"{host!r} read as {read!r}"
    assert probe.backups == tuple(sorted(backups)), f"{backups!r} read as {probe.backups!r}"


@claim(ClaimKind.PROPERTY)
def bytes_a_host_controls_stay_inside_their_field() -> Verdict:
    """Any unit file's bytes (a line end, ``end ok``, bytes that are not UTF-8), any image,
    command and state docker prints, and any backup names (a line end, a space) are read back
    exactly as the host holds them, each in its own field: none ends a line or forges one."""
    try:
        _host_bytes_are_read_back()
    except AssertionError as exc:
        return fails(str(exc))
    return holds("60 hosts and 2 forging ones: every field read back as the host holds it")


@settings(max_examples=300)
@given(values=st.lists(ANY_TEXT, max_size=6))
@example(values=[EDGES, ""])
@example(values=[])
def _encoded_as_docker_prints(values: list[str]) -> None:
    problems = difference(repr(values), _cmd_json(values), go_json(tuple(values)))
    assert not problems, problems[0]


@claim(ClaimKind.PROPERTY)
def a_command_is_compared_as_docker_prints_it_whatever_it_holds() -> Verdict:
    """Readback and ``--check`` compare a container's command with the planned argv as
    docker's ``{{json .Config.Cmd}}`` prints it: Go's encoder without HTML escaping
    (:mod:`fixtures.go_json`, written over bytes), for any argv, whatever characters it holds:
    controls, U+2028 and U+2029, lone surrogates, ``<>&``, any other non-ASCII."""
    try:
        _encoded_as_docker_prints()
    except AssertionError as exc:
        return fails(str(exc))
    return holds("300 argvs and the edge characters: compared as docker prints each")


# --- drift: every difference named, nothing when in sync ----------------------------------


Named = tuple[tuple[Change, str, tuple[str, ...]], ...]


def _one(change: Change, line: str, *detail: str) -> Named:
    return ((change, line, detail),)


def _unit_edit(rank: int, old: str, new: str) -> tuple[bytes, tuple[str, ...]]:
    """Rank ``rank``'s planned unit with its line ``old`` made ``new``, and the unified diff
    (one line of context) the check must show for it."""
    real = RENDERED.hosts[rank].realization
    lines = real.unit_text.split("\n")
    at = lines.index(old)
    edited = "\n".join([*lines[:at], new, *lines[at + 1 :]]).encode()
    where = f"{real.host_name}:{UNIT_DIR}/{real.unit_name}"
    head = ("--- planned", f"+++ {where}", f"@@ -{at},3 +{at},3 @@")
    return edited, (*head, f" {lines[at - 1]}", f"-{old}", f"+{new}", f" {lines[at + 1]}")


def _unit_cases() -> dict[str, tuple[Host, Named]]:
    unit, diff = _unit_edit(0, "Restart=no", "Restart=NO")
    u = f"unit {UNIT}"
    return {
        "as planned": (_as_planned(), ()),
        "no unit": (
            _as_planned(unit=None),
            _one(Change.UNIT_ABSENT, f"{u}: absent; apply would write it"),
        ),
        "a unit that is not a file": (
            _as_planned(unit=None, unit_file="other"),
            _one(Change.UNIT_NOT_FILE, f"{UNIT_PATH}: not a regular file"),
        ),
        "one byte of the unit": (
            _as_planned(unit=unit),
            _one(Change.UNIT_DIFFERS, f"{u}: differs from the plan, {len(unit)} bytes:", *diff),
        ),
        "unit not enabled": (
            _as_planned(enabled=False),
            _one(Change.UNIT_NOT_ENABLED, f"{u}: not enabled"),
        ),
        "unit not active": (
            _as_planned(active=False),
            _one(Change.UNIT_NOT_ACTIVE, f"{u}: not active"),
        ),
    }


def _container_cases() -> dict[str, tuple[Host, Named]]:
    argv, image = _serve_argv(), _image()
    c = f"container {CONTAINER}"
    differs = f"{c}: command differs:"

    def running(cmd: list[str] | str, state: str = "true") -> Host:
        return _as_planned(
            container=(image, cmd if isinstance(cmd, str) else _cmd_json(cmd), state)
        )

    return {
        "no container": (
            _as_planned(container=None),
            _one(Change.CONTAINER_ABSENT, f"{c}: absent"),
        ),
        "another image": (
            _as_planned(container=(PREVIOUS_IMAGE, _cmd_json(argv), "true")),
            _one(
                Change.IMAGE_DIFFERS,
                f"{c}: image differs:",
                f"planned: {image}",
                f"host: {PREVIOUS_IMAGE}",
            ),
        ),
        "another argument": (
            running([*argv[:2], "--other", *argv[3:]]),
            _one(
                Change.ARGV_DIFFERS,
                f"{differs} argument 2:",
                f"planned: {argv[2]!r}",
                "host: '--other'",
            ),
        ),
        "one argument more": (
            running([*argv, "--x"]),
            _one(
                Change.ARGV_DIFFERS,
                f"{differs} planned {len(argv)} arguments, the host has {len(argv) + 1}",
            ),
        ),
        "a command that is no list": (
            running('"serve"'),
            _one(
                Change.ARGV_DIFFERS,
                f"{differs} the host's is not a list of strings:",
                'host: "serve"',
            ),
        ),
        "stopped": (running(argv, "false"), _one(Change.NOT_RUNNING, f"{c}: not running")),
    }


def _leftover_cases() -> dict[str, tuple[Host, Named]]:
    left = Change.LEFT_OVER
    return {
        "left over": (
            _as_planned(preserved=True, landing=True, backups=("b", "a/unit")),
            (
                (left, f"container {CONTAINER}-preserved: left over by an earlier preserve", ()),
                (left, f"{UNIT_PATH}.landing: left over by an apply cut short", ()),
                (left, f"{PRESERVED}: backups left over: a/unit, b", ()),
            ),
        ),
    }


def _named(differences: tuple[Difference, ...]) -> Named:
    return tuple((d.change, d.line, d.detail) for d in differences)


@claim(ClaimKind.PLANNED_SHAPE)
def drift_names_exactly_each_difference_and_nothing_in_sync() -> Verdict:
    """Against the V4.1 head's plan, a host as planned has no difference, and a host that
    differs in one thing has exactly that one, said in its line: no unit, a unit that is not
    a file, one byte of the unit (its size and a diff with one line of context), the unit not
    enabled or not active, no container, another image (both named), another argument (its
    index, both quoted), one argument more, a command that is no list, a stopped container;
    and what an earlier apply left over (its preserved container, its landing unit, backups
    sorted by name)."""
    cases = {**_unit_cases(), **_container_cases(), **_leftover_cases()}
    problems = []
    for name, (host, want) in cases.items():
        found = drift(_HEAD, parse_probe(host.output()))
        problems += difference(name, (HOST, want), (found.host_name, _named(found.differences)))
    return holds_unless(problems, f"{len(cases)} hosts, each difference named alone")


# --- what a host controls is shown escaped and bounded --------------------------------------


def _hostile() -> tuple[Difference, ...]:
    """The head with control characters in its unit, image, command and a backup's name."""
    argv = _serve_argv()
    unit = (_REAL.unit_text + f"Description={HOSTILE}\n").encode()
    cmd = _cmd_json([argv[0], HOSTILE, *argv[2:]])
    host = _as_planned(unit=unit, container=(HOSTILE, cmd, "true"), backups=(f"x{HOSTILE}",))
    return drift(_HEAD, parse_probe(host.output())).differences


def _huge() -> tuple[int, tuple[Difference, ...]]:
    """A unit file of 2.5 MB (the probe sends its first bytes), and 12 backups."""
    text = "".join(f"Line{n}={'x' * 500}\n" for n in range(5000)).encode()
    names = tuple(f"dir{n:02}/unit" for n in range(12))
    host = _as_planned(unit=text[:UNIT_READ_LIMIT], unit_size=len(text), backups=names)
    return len(text), drift(_HEAD, parse_probe(host.output())).differences


def _bounds(differences: tuple[Difference, ...]) -> list[str]:
    """Every shown line that is not printable or wider than its place allows."""
    shown = [(d.line, LINE_WIDTH) for d in differences]
    shown += [(line, LINE_WIDTH - 4) for d in differences for line in d.detail]
    return [f"{len(t)} columns: {t[:60]!r}" for t, w in shown if not t.isprintable() or len(t) > w]


def _escaped(differences: tuple[Difference, ...]) -> list[str]:
    """The hostile host's text, each where it belongs, escaped."""
    lines = [t for d in differences for t in (d.line, *d.detail)]
    problems = []
    for want in (f"+Description={SHOWN}", f"host: {SHOWN}", f"host: '{SHOWN}'"):
        problems += difference(f"{want!r} shown", True, want in lines)
    backups = f"{PRESERVED}: backups left over: x{SHOWN}"
    return problems + difference("the backup's name", backups, differences[-1].line)


def _cut(size: int, differences: tuple[Difference, ...]) -> list[str]:
    """The huge unit's line and its diff cut to 40 lines, the backups cut to 10."""
    unit, backups = differences[0], differences[-1]
    line = f"unit {UNIT}: differs from the plan, {size} bytes (its first 16384 bytes shown):"
    problems = difference("the huge unit's line", line, unit.line)
    problems += difference("diff lines", DIFF_LINES, len(unit.detail))
    last = unit.detail[-1]
    counted = last.startswith("[… ") and last.endswith(" more diff lines …]")
    problems += difference(f"the last diff line {last!r} counts the rest", True, counted)
    first = f"{PRESERVED}: backups left over: dir00/unit, dir01/unit, "
    named = backups.line.startswith(first) and backups.line.endswith("… and 2 more")
    return problems + difference(f"backups {backups.line!r}: 10 named, 2 counted", True, named)


@claim(ClaimKind.PLANNED_SHAPE)
def what_a_host_controls_is_shown_escaped_and_bounded() -> Verdict:
    """Control characters a host put in its unit file, image, command or a backup's name are
    shown escaped; every line is printable and within its width (a difference's line 120
    columns, a line under it 116); a unit's diff is cut at 40 lines, the last counting the
    rest; of a 2.5 MB unit only its first 16 KiB are read, its size said whole; of 12
    backups the first 10 are named (cut to the line's width) and the rest counted."""
    hostile = _hostile()
    size, huge = _huge()
    problems = _bounds(hostile) + _bounds(huge) + _escaped(hostile) + _cut(size, huge)
    return holds_unless(problems, "escaped, within 120 columns; diff cut at 40; backups counted")


# --- the exit code and the summary --------------------------------------------------------

_SRV = tuple(
    HostAddress(host_name=f"srv{5 + i}", user="root", address=f"10.0.0.{5 + i}") for i in range(4)
)
SAME, CHANGE, AWAY = HostVerdict.IN_SYNC, HostVerdict.WOULD_CHANGE, HostVerdict.UNREACHABLE
UNREAD, UNCHECKED = HostVerdict.UNREADABLE, HostVerdict.NOT_CHECKED
NOT_ADMITTED = "; the plan is not admitted (apply would refuse it)"
EXITS: tuple[tuple[tuple[HostVerdict, ...], bool, tuple[str, ...], int, str], ...] = (
    ((SAME, SAME), True, (), 0, "2 hosts, 0 would change, 0 unreachable"),
    ((SAME, SAME), False, (), 1, f"2 hosts, 0 would change, 0 unreachable{NOT_ADMITTED}"),
    ((SAME, CHANGE), False, (), 3, f"2 hosts, 1 would change (srv6), 0 unreachable{NOT_ADMITTED}"),
    (
        (CHANGE, AWAY, CHANGE),
        True,
        (),
        4,
        "3 hosts, 2 would change (srv5, srv7), 1 unreachable (srv6)",
    ),
    (
        (UNREAD, CHANGE),
        True,
        (),
        4,
        "2 hosts, 1 would change (srv6), 0 unreachable, 1 unreadable (srv5)",
    ),
    (
        (CHANGE, AWAY, UNCHECKED),
        False,
        ("SIGINT",),
        130,
        f"3 hosts, 1 would change (srv5), 1 unreachable (srv6), 1 not checked (srv7){NOT_ADMITTED}"
        "; interrupted by SIGINT",
    ),
)
"""Hosts' verdicts (srv5 first), admitted, signals: the exit code and the summary after
``check v41_group_a: ``, as the module docstring states them."""


def _checks(verdicts: tuple[HostVerdict, ...]) -> tuple[HostCheck, ...]:
    return tuple(HostCheck(host=_SRV[i], rank=i, verdict=v) for i, v in enumerate(verdicts))


@claim(ClaimKind.PLANNED_SHAPE)
def the_exit_code_and_summary_put_what_was_not_read_first() -> Verdict:
    """Interrupted is 130 whatever the hosts; else a host unreachable or unreadable is 4,
    before a host that would change (3); every host in sync is 0 when the plan is admitted
    and 1 when it is not. The summary counts the hosts, names those that would change and
    those unreachable (and unreadable or not checked, when any), and says when the plan is
    not admitted and which signal came."""
    problems = []
    for verdicts, admitted, signals, code, said in EXITS:
        checks, label = _checks(verdicts), "/".join(v.value for v in verdicts)
        got = (
            exit_code(checks, admitted, list(signals)),
            summary(ARM, checks, admitted, list(signals)),
        )
        problems += difference(label, (code, f"check {ARM}: {said}"), got)
    return holds_unless(problems, f"{len(EXITS)} cases: 130, 4, 3, 1, 0 in that order")


# --- a host judged from what its steps answered -------------------------------------------

_TRANSACTION = plan_transaction(RENDERED, _SRV)
OK = StepResult(exit_code=0, stdout="ok\n")
TAKEN = "preflight: srv5: port 8000 is taken"
NO_DOCKER = "preflight: bash: docker: command not found"
GONE = "ssh: connect to host 10.0.0.5 port 22: Connection refused"
FOREIGN = "check: this script was planned for container x"
PLANNED = StepResult(exit_code=0, stdout=_as_planned().output())
JUDGED: dict[str, tuple[tuple[StepResult, ...], bool, tuple[str, ...]]] = {
    "in sync": (
        (PLANNED, OK, OK),
        False,
        ("in sync", "preflight: would pass", "readback: runs what was planned"),
    ),
    "its readback and preflight refuse": (
        (
            PLANNED,
            StepResult(exit_code=1, stderr=f"{TAKEN}\n"),
            StepResult(exit_code=1, stdout="x\n", stderr="readback: image differs\n"),
        ),
        False,
        (
            "would change:",
            f"preflight: would refuse (exit 1: {TAKEN})",
            "readback: does not run what was planned (exit 1: readback: image differs)",
        ),
    ),
    "its preflight cannot run": (
        (
            PLANNED,
            StepResult(exit_code=2, stderr=f"{NO_DOCKER}\n"),
            OK,
        ),
        False,
        (
            "in sync",
            f"preflight: could not run (exit 2: {NO_DOCKER})",
            "readback: runs what was planned",
        ),
    ),
    "ssh cannot reach it": (
        (StepResult(exit_code=255, stderr=f"Warning: x\n{GONE}\n\n"),),
        False,
        (f"unreachable: {GONE}",),
    ),
    "it never answered": (
        (StepResult(exit_code=None),),
        False,
        ("unreachable: no answer in time",),
    ),
    "ssh could not start": (
        (StepResult(exit_code=127, started=False, stderr=f"{HOSTILE}\n"),),
        False,
        (f"unreachable: {SHOWN}",),
    ),
    "a signal came": (
        (StepResult(exit_code=130, started=False),),
        True,
        ("not checked: interrupted",),
    ),
    "its probe failed": (
        (
            StepResult(exit_code=1, stderr="check: this script was planned for container x\n"),
            OK,
            OK,
        ),
        False,
        (
            f"unreadable: its probe failed (exit 1: {FOREIGN})",
            "preflight: would pass",
            "readback: runs what was planned",
        ),
    ),
    "its probe printed what no probe prints": (
        (StepResult(exit_code=0, stdout="format gunbc-check-1\n"), OK, OK),
        False,
        (
            "unreadable: its probe's output is unreadable: field unit_file missing or not one "
            "of present, absent, other",
            "preflight: would pass",
            "readback: runs what was planned",
        ),
    ),
}
"""What the head's probe, preflight and readback answer (the steps asked, in that order),
whether a signal came once the probe answered, and what the check then says of the head:
its verdict and reason after ``srv5 (rank 0, root@10.0.0.5:22): ``, then a line per stage
run, as the module docstring states them."""


def _judge(answers: tuple[StepResult, ...], signalled: bool) -> tuple[HostCheck, list[str]]:
    """The head checked over steps answered with ``answers``, and the steps it asked for."""
    asked: list[str] = []

    def run_step(step: TransactionStep) -> StepResult:
        probe = step.script == probe_script(_HEAD) and step.container_name == CONTAINER
        asked.append(f"{'probe' if probe else step.stage.value}@{step.host_name}")
        return answers[len(asked) - 1] if len(asked) <= len(answers) else StepResult(exit_code=0)

    return check_host(_HEAD, _TRANSACTION, run_step, lambda: signalled), asked


@claim(ClaimKind.PLANNED_SHAPE)
def each_host_is_judged_from_what_its_probe_preflight_and_readback_answered() -> Verdict:
    """A host is checked by its probe (its script, sent as a readback-stage step), then,
    once it answered, its own preflight and readback: in sync when the probe finds what was
    planned and readback passes (whatever preflight says); would change when readback fails
    or the probe finds a difference (each shown under the host's line); unreachable, saying
    ssh's last line (escaped) or that nothing answered, when ssh failed (255), nothing
    answered or ssh could not start, and not checked when a signal came: then no other step
    runs; unreadable when the probe failed or printed what no probe prints, saying why.
    Each stage line says what the stage would do (pass, refuse: exit 1, or could not run)
    with its last line."""
    problems = []
    for case, (answers, signalled, said) in JUDGED.items():
        check, asked = _judge(answers, signalled)
        head, *stages = said
        want = [f"srv5 (rank 0, root@10.0.0.5:22): {head}", *(f"  {s}" for s in stages)]
        steps = ["probe@srv5", *(["preflight@srv5", "readback@srv5"] if stages else [])]
        problems += difference(case, (want, steps), (check.lines(), asked))
    changed = _as_planned(container=(_image(), _cmd_json(["vllm"]), "true")).output()
    check, _ = _judge((StepResult(exit_code=0, stdout=changed), OK, OK), False)
    found = drift(_HEAD, parse_probe(changed)).differences
    shown = [s for d in found for s in (f"  {d.line}", *(f"    {line}" for line in d.detail))]
    want = ["srv5 (rank 0, root@10.0.0.5:22): would change:", *shown]
    want += ["  preflight: would pass", "  readback: runs what was planned"]
    problems += difference("a difference found", want, check.lines())
    return holds_unless(problems, f"{len(JUDGED) + 1} hosts judged, each line as stated")


# --- the command line's refusals ----------------------------------------------------------


def _planned(args: argparse.Namespace) -> DryRun:
    return RENDERED


def _parsed(*words: str) -> argparse.Namespace:
    return parse(["apply", *words])


REFUSED: dict[str, tuple[argparse.Namespace, str]] = {
    "--check --dry-run": (
        _parsed(ARM, "--scenario", "supplied", "--hosts", "srv5=root@10.0.0.5", "--check",
                "--dry-run"),
        "--check and --dry-run: choose one (--check runs read-only scripts)",
    ),
    "--check --journal": (
        _parsed(ARM, "--scenario", "supplied", "--hosts", "srv5=root@10.0.0.5", "--check",
                "--journal", "j", "--for-testing", "--identity", "/nonexistent/key",
                "--known-hosts", "/nonexistent/known"),
        "--check writes no journal: --journal is for a real apply",
    ),
    **{
        f"--{mode} --check": (
            _parsed(f"--{mode}", "/nonexistent/journal", "--check"),
            f"--{mode} takes no planning inputs (the journal holds the plan): --check",
        )
        for mode in ("resume", "rollback")
    },
}  # fmt: skip
"""Each command line, parsed when this witness is imported (a mutant of the parser is the
command line's witnesses'), and the error it must be refused with."""


def _applied(args: argparse.Namespace) -> tuple[int, str, str]:
    """``planner apply`` with ``args`` (a copy): its exit code, stdout and stderr."""
    ran = captured(lambda: coordinator.run(argparse.Namespace(**vars(args)), _planned))
    assert isinstance(ran.code, int), ran.code
    return ran.code, ran.out, ran.err


@claim(ClaimKind.REFUSAL)
def check_refuses_a_dry_run_and_a_journal_and_resume_refuses_check() -> Verdict:
    """``--check`` with ``--dry-run`` or ``--journal``, and ``--resume`` or ``--rollback``
    with ``--check``: ``planner apply`` exits 2, prints nothing on stdout and one line on
    stderr naming the options, before it plans or reads anything."""
    problems = []
    for name, (args, said) in REFUSED.items():
        problems += difference(name, (2, "", f"planner: error: {said}\n"), _applied(args))
    return holds_unless(problems, f"{len(REFUSED)} combinations refused, exit 2, each named")


def _unreachable_check(directory: Path, *given: str) -> Ran:
    """``planner apply --check`` over the four hosts on loopback ports nothing listens on (ssh
    is refused at once), with an empty key and known-hosts file and no ssh config."""
    key = directory / "key"
    key.write_text("", encoding="utf-8")
    with contextlib.ExitStack() as held:  # bound, never listening: refused, and no one else's
        ports = [held.enter_context(socket.socket()) for _ in range(4)]
        for port in ports:
            port.bind(("127.0.0.1", 0))
        hosts = ",".join(
            f"srv{5 + i}=root@127.0.0.1:{p.getsockname()[1]}" for i, p in enumerate(ports)
        )
        return run_planner(
            "apply", "--check", "--hosts", hosts, "--ssh-config", "none", "--identity", key,
            "--known-hosts", key, "--connect-timeout", "3", "--stage-timeout", "5", *given,
        )  # fmt: skip


@claim(ClaimKind.REFUSAL)
def every_host_is_tried_and_each_one_nothing_answers_is_listed_with_ssh_s_reason() -> Verdict:
    """Over four hosts nothing answers, ``planner apply --check`` says what it reads (``check
    ARM: 4 hosts (NAMES): read only``), then the admission: under a plan it refuses, ``admission:
    REFUSED (apply would refuse)`` and each refusal; it tries every host in rank order, lists
    each as unreachable with ssh's reason, and sums up (``4 hosts, 0 would change, 4
    unreachable (NAMES)``, and that apply would refuse the plan): exit 4. With ``--plan PLAN``
    it binds the saved plan as apply does (``admission: ADMITTED``) and refuses an input the
    plan holds given beside it."""
    names = "srv5, srv6, srv7, srv8"
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        refused = _unreachable_check(Path(tmp), ARM, "--for-testing", "--scenario", "expired_lease")
        lines = refused.lines
        head = [
            f"check {ARM}: 4 hosts ({names}): read only",
            "admission: REFUSED (apply would refuse)",
        ]
        problems += difference("refused: head", head, lines[:2])
        why = [line.startswith("  refused: admission.lease_expired at ") for line in lines[2:3]]
        problems += difference("refused: why", [True], why)
        unreachable = [line for line in lines if ": unreachable: " in line]
        problems += difference(
            "refused: hosts tried",
            ["srv5", "srv6", "srv7", "srv8"],
            [u.split()[0] for u in unreachable],
        )
        problems += difference(
            "refused: ssh's reason",
            [],
            [u for u in unreachable if not u.endswith("Connection refused")],
        )
        summary = (
            f"check {ARM}: 4 hosts, 0 would change, 4 unreachable ({names}); the plan is not "
            "admitted (apply would refuse it)"
        )
        problems += difference("refused: exit, summary", (4, [summary]), (refused.code, lines[-1:]))
        plan = Path(tmp) / "plan.json"
        saved = run_planner(
            "dry-run", ARM, "--scenario", "supplied", "--out", Path(tmp) / "r", "--plan-out", plan
        )
        if saved.code != 0:
            raise AssertionError(f"no plan could be saved: {saved.err}")
        bound = _unreachable_check(Path(tmp), "--for-testing", "--plan", str(plan))
        head = [f"check {ARM}: 4 hosts ({names}): read only", "admission: ADMITTED"]
        summary = f"check {ARM}: 4 hosts, 0 would change, 4 unreachable ({names})"
        got = (bound.code, bound.lines[:2], bound.lines[-1:])
        problems += difference("a saved plan", (4, head, [summary]), got)
        beside = _unreachable_check(
            Path(tmp), "--for-testing", "--plan", str(plan), "--scenario", "supplied"
        )
        said = f"planner: error: --plan: {plan}: holds its own inputs; drop --scenario\n"
        problems += difference(
            "an input beside it", (2, said, []), (beside.code, beside.err, beside.lines)
        )
    return holds_unless(problems, "4 hosts tried, each unreachable and said so; exit 4")
