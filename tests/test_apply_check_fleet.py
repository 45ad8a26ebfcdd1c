"""``planner apply --check`` on the four-host sshd fleet: read only before an apply, in sync
after one, a host changed by hand reported alone, a host that is down listed while the others
are checked.

These were the ``apply_check`` witness's fleet claims. As claims, every declared mutant of
the code they execute (the coordinator, the transaction, the check, the apply scripts) ran
the fleet again, about a minute of ssh sessions each, and the declared run outgrew CI's
budget; here they run once. The witness keeps the probe's parser, drift, the report's
bounds and the exit codes as claims (pure), with their mutants.
"""

from __future__ import annotations

import argparse
import io
import shlex
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

import pytest

from claims import difference
from fixtures import fleet
from fixtures.fleet import Fault, Fleet, Timing
from fixtures.sandbox import HostState
from fixtures.transaction_cases import ranks, seed
from planner import check
from planner.apply import UNIT_DIR
from planner.cli import parse
from planner.coordinator import SshTransport
from planner.transaction import HostAddress, coordinate, plan_transaction
from witnesses.surfaces.apply_check import ARM, RENDERED, _planned, _unit_edit

_MISSING = fleet.unavailable()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"{_MISSING} (CI runs as root)")


CONNECT, STAGE = 30, 120
"""Budgets no healthy session comes near: every wait ends when its host answers."""
DOWN_CONNECT = 8
"""The one budget spent: how long the check waits for the host that is down (its sshd
stopped: it takes the connection and never answers)."""
_ARGS = parse(
    ["apply", ARM, "--check", "--for-testing", "--scenario", "supplied", "--quiet",
     "--hosts", "srv5=root@127.0.0.1", "--ssh-config", "none", "--identity", "unset",
     "--known-hosts", "unset", "--connect-timeout", str(CONNECT), "--stage-timeout", str(STAGE)]
)  # fmt: skip
"""``planner apply --check``'s options, parsed when this witness is imported (before a
mutant is installed); each run gives the fleet's hosts, keys and connect timeout."""
SERVED = ranks(RENDERED)


@dataclass(frozen=True)
class Checked:
    """What one ``planner apply --check`` printed, and its exit code."""

    code: int
    out: tuple[str, ...]

    def block(self, host: str) -> list[str]:
        """One host's lines: its header and the indented lines under it."""
        start = next((i for i, t in enumerate(self.out) if t.startswith(f"{host} (rank ")), None)
        if start is None:
            return []
        end = start + 1
        while end < len(self.out) and self.out[end].startswith("  "):
            end += 1
        return list(self.out[start:end])


@dataclass(frozen=True)
class FleetChecks:
    """Every check ``setup()`` ran on the fleet, and what the hosts held around the first."""

    addresses: tuple[HostAddress, ...]
    seeded: tuple[HostState, ...]
    before: Checked
    untouched: tuple[HostState, ...]
    sessions: tuple[tuple[str, ...], ...]
    applied: int
    in_sync: Checked
    by_hand: Checked
    by_hand_size: int
    down: Checked


@pytest.fixture(scope="module")
def ran() -> Iterator[FleetChecks]:
    """The fleet, checked four times: as seeded, after a real apply, after srv6 was changed
    by hand, and with srv7 down as well."""
    names = tuple(r.host for r in SERVED)
    rail = (RENDERED.launch.head.host.rail_address,)  # type: ignore[union-attr]
    with fleet.started(names, tuple(seed(r) for r in SERVED), rail) as hosts:
        yield _run_checks(hosts)


def _run_checks(hosts: Fleet) -> FleetChecks:
    seeded = _stateless(hosts.read())
    before = _check(hosts)
    untouched = _stateless(hosts.read())
    sessions = tuple(tuple(_stage(c) for c in cmds) for cmds in hosts.commands())
    applied = _apply(hosts)
    in_sync = _check(hosts)
    size = _change_by_hand(hosts)
    by_hand = _check(hosts)
    hosts.arm(Fault("down", 2))
    down = _check(hosts, DOWN_CONNECT)
    return FleetChecks(
        hosts.addresses, seeded, before, untouched, sessions, applied, in_sync, by_hand, size, down
    )


def _stateless(states: tuple[HostState, ...]) -> tuple[HostState, ...]:
    """What the hosts hold, without the stand-ins' log of the calls made to them."""
    return tuple(s.without_calls() for s in states)


def _stage(command: str) -> str:
    """The stage a session ran: the transport names it after the remote script."""
    words = shlex.split(command)
    return words[5] if len(words) > 5 else command


def _check(hosts: Fleet, connect: int = CONNECT) -> Checked:
    keys = hosts.base / "keys"
    given = {
        "hosts": ",".join(a.spec() for a in hosts.addresses),
        "identity": str(keys / "client"),
        "known_hosts": str(keys / "known_hosts"),
        "connect_timeout": connect,
    }
    args = argparse.Namespace(**{**vars(_ARGS), **given})
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = check.run(args, _planned)
    return Checked(code, tuple(out.getvalue().splitlines()))


def _apply(hosts: Fleet) -> int:
    """A real apply of the plan, by the coordinator over the same hosts: its exit code."""
    plan = plan_transaction(RENDERED, hosts.addresses)
    with SshTransport(plan, hosts.settings(Timing(connect=CONNECT, stage=STAGE))) as transport:
        return coordinate(plan, transport).exit_code


BY_HAND = ("Restart=no", "Restart=always")
"""srv6's unit line edited by hand, from and to; its container is stopped too."""


def _change_by_hand(hosts: Fleet) -> int:
    """srv6's unit edited and its container stopped behind systemd's back: the unit's size."""
    root = hosts.host_root(1)
    unit = root / f"etc/systemd/system/{SERVED[1].unit}"
    old, new = BY_HAND
    unit.write_text(unit.read_text().replace(f"\n{old}\n", f"\n{new}\n"))
    (root / f"state/containers/{SERVED[1].name}/running").write_text("false\n")
    return unit.stat().st_size


FAILED_READBACK = "  readback: does not run what was planned (exit 1: "
"""A readback that refuses (its reason is the readback script's own, another witness's)."""
IN_SYNC_STAGES = ["  preflight: would pass", "  readback: runs what was planned"]


def _header(ran: FleetChecks, rank: int, verdict: str) -> str:
    address = ran.addresses[rank].spec().partition("=")[2]
    return f"{SERVED[rank].host} (rank {rank}, {address}): {verdict}"


def _said(block: list[str], details: bool = True) -> list[str]:
    """A host's lines, a refusing readback's reason cut off (and each difference's lines
    under it left out, unless ``details``)."""
    kept = [t for t in block if details or not t.startswith("    ")]
    return [FAILED_READBACK if t.startswith(FAILED_READBACK) else t for t in kept]


def _altered(before: HostState, after: HostState) -> list[str]:
    """What differs between two readings of a host: its paths, and what docker and systemd
    hold."""
    paths = before.files.keys() | after.files.keys()
    changed = sorted(p for p in paths if before.files.get(p) != after.files.get(p))
    held = ("containers", "images", "loaded", "active", "enabled")
    return changed + [n for n in held if getattr(before, n) != getattr(after, n)]


def _before_apply(ran: FleetChecks, rank: int) -> list[str]:
    """What the check must say of a host as it was seeded: the previous arm (its unit's
    size and its command as the host holds them), or none of it."""
    r, seeded = SERVED[rank], ran.seeded[rank]
    if r.name not in seeded.containers:
        said = [f"  unit {r.unit}: absent; apply would write it", f"  container {r.name}: absent"]
    else:
        size = len(seeded.files[f"{UNIT_DIR}/{r.unit}"])
        held = seeded.containers[r.name].cmd
        at = next(i for i, (a, b) in enumerate(zip(r.serve_argv, held, strict=False)) if a != b)
        said = [
            f"  unit {r.unit}: differs from the plan, {size} bytes:",
            f"  container {r.name}: image differs:",
            f"  container {r.name}: command differs: argument {at}:",
        ]
    return [_header(ran, rank, "would change:"), *said, "  preflight: would pass", FAILED_READBACK]


def test_before_any_apply_every_host_would_change_and_the_check_changes_none(
    ran: FleetChecks,
) -> None:
    """On the fleet as seeded, the check reads all four hosts (exit 3): srv5 and srv6 would
    change their unit (its size), image and command (the first argument that differs),
    srv7 and srv8 would get the unit and the container; each host's preflight would pass and
    its readback refuses. Every host holds afterwards exactly what it held before (files,
    containers, images, units), and each saw three sessions: the probe and readback as the
    read-only readback stage, and preflight."""
    names = ", ".join(r.host for r in SERVED)
    opening = [f"check {ARM}: 4 hosts ({names}): read only", "admission: ADMITTED"]
    problems = difference("exit", 3, ran.before.code)
    problems += difference("opening lines", opening, list(ran.before.out[:2]))
    for rank, r in enumerate(SERVED):
        got = _said(ran.before.block(r.host), details=False)
        problems += difference(r.host, _before_apply(ran, rank), got)
        problems += difference(
            f"{r.host} altered", [], _altered(ran.seeded[rank], ran.untouched[rank])
        )
    summary = f"check {ARM}: 4 hosts, 4 would change ({names}), 0 unreachable"
    problems += difference("summary", summary, ran.before.out[-1])
    sessions = (("readback", "preflight", "readback"),) * 4
    problems += difference("sessions", sessions, ran.sessions)
    assert problems == []


def _in_sync(ran: FleetChecks, checked: Checked, rank: int) -> list[str]:
    """Nothing but ``in sync``, a passing preflight and a readback that passes, for a host."""
    want = [_header(ran, rank, "in sync"), *IN_SYNC_STAGES]
    return difference(SERVED[rank].host, want, checked.block(SERVED[rank].host))


def test_after_a_real_apply_every_host_reads_in_sync(ran: FleetChecks) -> None:
    """After the coordinator applied the plan to the fleet (exit 0), the check finds every
    host in sync: no difference, preflight would pass, readback runs what was planned; it
    exits 0 and the summary names no host."""
    problems = difference("apply's exit", 0, ran.applied)
    problems += difference("exit", 0, ran.in_sync.code)
    for rank in range(len(SERVED)):
        problems += _in_sync(ran, ran.in_sync, rank)
    summary = f"check {ARM}: 4 hosts, 0 would change, 0 unreachable"
    problems += difference("summary", summary, ran.in_sync.out[-1])
    assert problems == []


def _by_hand(ran: FleetChecks) -> list[str]:
    """What the check must say of srv6 once its unit was edited and its container stopped."""
    r = SERVED[1]
    _, diff = _unit_edit(1, *BY_HAND)
    return [
        _header(ran, 1, "would change:"),
        f"  unit {r.unit}: differs from the plan, {ran.by_hand_size} bytes:",
        *(f"    {line}" for line in diff),
        f"  container {r.name}: not running",
        "  preflight: would pass",
        FAILED_READBACK,
    ]


def test_a_host_changed_by_hand_is_reported_alone_with_its_diff(ran: FleetChecks) -> None:
    """After the apply, srv6's unit edited by hand (one line) and its container stopped: the
    check exits 3, says of srv6 its unit's size and the diff of that line (one line of
    context) and that its container is not running, finds the other three in sync, and the
    summary names srv6 alone."""
    problems = difference("exit", 3, ran.by_hand.code)
    problems += difference("srv6", _by_hand(ran), _said(ran.by_hand.block("srv6")))
    for rank in (0, 2, 3):
        problems += _in_sync(ran, ran.by_hand, rank)
    summary = f"check {ARM}: 4 hosts, 1 would change (srv6), 0 unreachable"
    problems += difference("summary", summary, ran.by_hand.out[-1])
    assert problems == []


def test_a_host_that_is_down_is_listed_and_every_other_host_is_still_checked(
    ran: FleetChecks,
) -> None:
    """With srv7's sshd stopped as well (it takes the connection and never answers): srv7 is
    listed unreachable with ssh's reason, srv8 after it is still checked (in sync), srv6
    still would change; the check exits 4 (a host not checked outranks one that would
    change), and the summary names both."""
    down = ran.addresses[2]
    said = f"unreachable: Connection to {down.address} port {down.port} timed out"
    problems = difference("exit", 4, ran.down.code)
    problems += difference("srv7", [_header(ran, 2, said)], ran.down.block("srv7"))
    problems += difference("srv6", _by_hand(ran), _said(ran.down.block("srv6")))
    for rank in (0, 3):
        problems += _in_sync(ran, ran.down, rank)
    summary = f"check {ARM}: 4 hosts, 1 would change (srv6), 1 unreachable (srv7)"
    problems += difference("summary", summary, ran.down.out[-1])
    assert problems == []
