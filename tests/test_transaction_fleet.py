"""``planner apply`` for real, on a fleet of four sshd hosts on this machine (fixtures/fleet.py).

The command line runs in-process with the fleet's key and known_hosts; each test reads back
every host byte for byte. The fault matrix itself is the ``transaction_fleet`` witness and
``make transaction``; these tests cover what the command line adds: its output and exit code,
a host key it does not know, and a rollback that fails. A rollback whose connection dropped,
run again until its host is restored, is that witness's claim, not a test here.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures import fleet, transaction_cases
from fixtures.builders import v41_dry_run
from fixtures.fleet import Fault, Fleet
from fixtures.live_log import SUPPLIED_INPUTS, write_live_log
from fixtures.sandbox import HostSeed, HostState
from planner.cli import main

_MISSING = fleet.unavailable()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"{_MISSING} (CI runs as root)")


def _seeds() -> tuple[HostSeed, ...]:
    run = v41_dry_run("supplied")
    assert run.launch is not None
    seeds = []
    for host in run.hosts:
        argv = host.realization.create_argv
        sources = tuple(
            argv[i + 1].split(",")[1].removeprefix("source=")
            for i, a in enumerate(argv)
            if a == "--mount"
        )
        seeds.append(HostSeed(images=(run.launch.image_digest,), dirs=sources))
    return tuple(seeds)


@pytest.fixture
def hosts() -> Iterator[Fleet]:
    run = v41_dry_run("supplied")
    assert run.launch is not None
    names = tuple(h.realization.host_name for h in run.hosts)
    with fleet.started(names, _seeds(), (run.launch.head.host.rail_address,)) as started:
        yield started


def fleet_options(started: Fleet, known_hosts: Path | None = None) -> list[str]:
    """``planner apply``'s options for the fleet: its hosts, key, known hosts, short
    timeouts, and a journal of its own (a fleet of its own, a journal of its own)."""
    keys = started.base / "keys"
    return [
        "--hosts",
        ",".join(a.spec() for a in started.addresses),
        "--ssh-config",
        "none",
        "--identity",
        str(keys / "client"),
        "--known-hosts",
        str(known_hosts or keys / "known_hosts"),
        "--connect-timeout",
        "3",
        "--stage-timeout",
        "5",
        "--journal",
        str(started.base / "apply.journal"),
    ]


def _apply(started: Fleet, known_hosts: Path | None = None) -> int:
    testing = ["--scenario", "supplied", "--for-testing"]
    return main(["apply", "v41_group_a", *testing, *fleet_options(started, known_hosts)])


def _without_calls(states: tuple[HostState, ...]) -> list[HostState]:
    return [s.without_calls() for s in states]


def test_apply_commits_every_host_and_says_so(
    hosts: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _apply(hosts)
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0] == "apply v41_group_a: 4 hosts (srv5, srv6, srv7, srv8)"
    steps = out[1:25]
    assert [line.split()[1:3] for line in steps] == [
        [stage, f"{host}:"]
        for stage in ("preflight", "preserve", "apply", "readback", "front_door", "commit")
        for host in ("srv5", "srv6", "srv7", "srv8")
    ]
    assert all(": ok: " in line for line in steps)
    assert out[-1] == "apply v41_group_a: COMMITTED on every host"
    run = v41_dry_run("supplied")
    for rendered, state in zip(run.hosts, hosts.read(), strict=True):
        real = rendered.realization
        assert state.containers[real.container_name].running
        assert state.unit_files()[real.unit_name] == real.unit_text.encode()
        assert real.unit_name in state.enabled


def test_a_host_key_it_does_not_know_stops_the_run_before_anything_changes(
    hosts: Fleet, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    kind, key, *_ = other.with_suffix(".pub").read_text().split()
    wrong = tmp_path / "known_hosts"
    wrong.write_text("".join(f"[{a.address}]:{a.port} {kind} {key}\n" for a in hosts.addresses))
    before = hosts.read()
    code = _apply(hosts, wrong)
    out = capsys.readouterr().out.splitlines()
    assert code == 10
    assert out[1].startswith("  1 preflight  srv5: exit 255: the connection failed or dropped")
    assert out[1].endswith("Host key verification failed.")
    assert out[-1].startswith("apply v41_group_a: STOPPED: preflight@srv5 failed (exit 255")
    assert out[-1].endswith("no host was changed")
    assert hosts.commands() == ((), (), (), ())
    assert _without_calls(hosts.read()) == _without_calls(before)


def test_a_rollback_that_fails_names_its_host_and_keeps_its_backup(
    hosts: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    hosts.arm(Fault("refuse", 3, fleet.SESSION_OF["readback"]))
    hosts.arm(Fault("refuse", 2, 5))  # srv7's fifth session: its rollback
    code = _apply(hosts)
    out = capsys.readouterr().out.splitlines()
    assert code == 11
    assert "rollback, last changed first: srv8 srv7 srv6 srv5" in out
    assert (
        "  srv7 (rank 2): rollback failed: its state is unknown; what preserve saved stays in "
        "/var/lib/gunbc/preserve/v41_group_a/gunbc-v41-tp4-rank; "
        "ran: preflight, preserve, apply, readback, rollback"
    ) in out
    assert out[-1].startswith("apply v41_group_a: NOT RESTORED: readback@srv8 failed (exit 1")
    assert out[-1].endswith("srv7 not restored")
    srv7 = hosts.read()[2]
    assert "/var/lib/gunbc/preserve/v41_group_a/gunbc-v41-tp4-rank/" in srv7.files
    assert [c.step for c in srv7.calls if c.argv[:2] == ("docker", "create")] == [3]
    assert srv7.containers["gunbc-v41-tp4"].running  # what apply started stays


def test_a_fleet_started_by_a_process_that_leaves_without_cleanup_leaves_no_directory() -> None:
    """The declared harness's children leave with ``os._exit`` (no atexit runs) or are
    killed at their timeout: the fleet a child started goes with it, directory included."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child, which never returns into pytest
        try:
            os.close(read_end)
            host = Fleet(("srv5",), (HostSeed(),), ())
            os.write(write_end, str(host.base).encode())
            host.start()
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as said:
        base = Path(said.read().decode())
    os.waitpid(pid, 0)
    deadline = time.monotonic() + 10
    while base.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert str(base).startswith("/run/gunbc-fleet-")
    assert not base.exists()


def _revoking_client(directory: Path, log: Path) -> Path:
    """The real ssh client, behind a wrapper that appends a ``host_released`` event for srv7
    to the authority log (stamped with the wall clock) as the first front door session
    starts: the authority revoking the admission while the transaction runs."""
    mark, client = directory / "revoked", directory / "ssh"
    event = '{"seq":15,"at":"%s","event":"host_released","host":"srv7"}'
    client.write_text(
        "#!/bin/sh\n"
        'case "$*" in *" front_door "*)\n'
        f"  if [ ! -e {mark} ]; then : >{mark}\n"
        f"    printf '{event}\\n' \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\" >>{log}\n"
        "  fi;;\nesac\n"
        'exec ssh "$@"\n'
    )
    client.chmod(0o755)
    return client


def test_a_revocation_during_the_transaction_rolls_it_back_before_any_commit(
    hosts: Fleet, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A real apply reads the log at the wall clock again just before its first commit: a
    host released after the plan was admitted stops it there, and every host is restored."""
    log = write_live_log(tmp_path / "log.jsonl")
    keys = hosts.base / "keys"
    before = hosts.read()
    code = main(
        [
            "apply",
            "v41_group_a",
            "--authority",
            str(log),
            "--inputs",
            str(SUPPLIED_INPUTS),
            "--hosts",
            ",".join(a.spec() for a in hosts.addresses),
            "--ssh",
            str(_revoking_client(tmp_path, log)),
            "--ssh-config",
            "none",
            "--identity",
            str(keys / "client"),
            "--known-hosts",
            str(keys / "known_hosts"),
            "--connect-timeout",
            "3",
            "--stage-timeout",
            "5",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 10
    assert all(": ok" in line for line in out[1:21])
    stages = ("preflight", "preserve", "apply", "readback", "front_door", "rollback", "cleanup")
    assert [line.split()[1] for line in out[1:29]] == [s for s in stages for _ in range(4)]
    assert "rollback, last changed first: srv8 srv7 srv6 srv5" in out
    assert out[-1] == (
        "apply v41_group_a: ROLLED BACK: admission no longer holds before the commit point "
        "(refused: admission.host_not_held at authority.holdings.srv7: srv7 is held by None, "
        "not 'group-a-serving'); every touched host restored"
    )
    for was, now in zip(before, hosts.read(), strict=True):
        restored = transaction_cases.restored_state(was, preserved=True)
        assert transaction_cases.state(now.without_calls()) == restored
