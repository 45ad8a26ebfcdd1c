"""``planner apply`` interrupted, hung and flooded, with a stand-in ``--ssh`` client.

The stand-in is a real program the real coordinator runs as its ssh client (a shell script
written here): it answers a connection at once, runs no stage script, records each session
(stage and destination) and, where a file of the test's directory asks, pauses a session or
a connection (writing a marker first), hangs ``ssh -O exit`` or prints 128 MiB. Each test
runs ``planner apply`` as a subprocess and sends it real signals. What the hosts are left in
is the fleet's (``tests/test_transaction_fleet.py``, ``make transaction``); these pin what the
coordinator does: which steps ran, its report and exit code, nothing left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

STANDIN = r"""#!/bin/sh
d=$STANDIN_DIR
for last; do :; done
case " $* " in
*" -O exit "*)
  echo "exit $last" >>"$d/exits"
  [ ! -e "$d/hang-exit" ] || exec sleep 60
  exit 0 ;;
*" -M "*)
  n=$(( $(cat "$d/connects.$last" 2>/dev/null || echo 0) + 1 ))
  echo "$n" >"$d/connects.$last"
  if [ -e "$d/pause-connect.$last.$n" ]; then touch "$d/at-connect.$last.$n"; sleep 2; fi
  exit 0 ;;
esac
cat >/dev/null
dest=
prev=
for arg; do [ "$arg" = "$last" ] && dest=$prev; prev=$arg; done
stage=$(printf '%s' "$last" | sed -n 's/.* gunbc-apply \([a-z_]*\) .*/\1/p')
key="$stage.$dest"
echo "$key" >>"$d/sessions"
if [ -e "$d/hang.$key" ]; then touch "$d/at.$key"; exec sleep 60; fi
if [ -e "$d/slow.$key" ]; then touch "$d/at.$key"; sleep 2; fi
if [ -e "$d/flood" ]; then
  head -c 134217728 /dev/zero
  head -c 134217728 /dev/zero >&2
fi
echo "$stage ok"
"""
HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"


@pytest.fixture
def standin(tmp_path: Path) -> Path:
    ssh = tmp_path / "ssh"
    ssh.write_text(STANDIN)
    ssh.chmod(0o755)
    (tmp_path / "tmp").mkdir()
    return tmp_path


def _start(d: Path, *extra: str) -> subprocess.Popen[str]:
    # a journal of its own: one a test leaves unfinished would refuse the next apply
    argv = [
        sys.executable, "-m", "planner.cli", "apply", "v41_group_a", "--scenario", "supplied",
        "--for-testing", "--hosts", HOSTS, "--ssh", str(d / "ssh"), "--connect-timeout", "1",
        "--stage-timeout", "1", "--journal", str(d / "apply.journal"), *extra,
    ]  # fmt: skip
    env = {**os.environ, "STANDIN_DIR": str(d), "TMPDIR": str(d / "tmp")}
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def _wait_for(path: Path, process: subprocess.Popen[str], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, f"the coordinator ended first: {process.communicate()}"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def _sessions(d: Path) -> list[str]:
    path = d / "sessions"
    return path.read_text().split() if path.exists() else []


FORWARD_TO_SRV6_PRESERVE = [
    *(f"preflight.root@10.0.0.{n}" for n in (5, 6, 7, 8)),
    "preserve.root@10.0.0.5",
    "preserve.root@10.0.0.6",
]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_a_step_abandons_it_and_rolls_back_every_touched_host(
    standin: Path, signum: signal.Signals
) -> None:
    (standin / "hang.preserve.root@10.0.0.6").touch()
    process = _start(standin)
    _wait_for(standin / "at.preserve.root@10.0.0.6", process)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (10, "")
    lines = out.splitlines()
    assert f"coordinator: {signum.name} received: preserve@srv6 abandoned; every touched " in out
    assert "  6 preserve   srv6: exit 130: coordinator: interrupted by " + signum.name in lines
    assert "rollback, last changed first: srv6 srv5" in lines
    assert (
        f"signals received: {signum.name}: the first stopped the forward run; rollback went on"
        in lines
    )
    assert lines[-1].startswith("apply v41_group_a: ROLLED BACK: preserve@srv6 failed (exit 130")
    undo = ["rollback.root@10.0.0.6", "rollback.root@10.0.0.5"]
    cleanups = ["cleanup.root@10.0.0.6", "cleanup.root@10.0.0.5"]
    assert _sessions(standin) == [*FORWARD_TO_SRV6_PRESERVE, *undo, *cleanups]
    assert os.listdir(standin / "tmp") == []  # the control directory is gone


def test_a_signal_while_a_connection_opens_starts_no_step_and_rolls_back(standin: Path) -> None:
    (standin / "pause-connect.root@10.0.0.7.1").touch()
    process = _start(standin)
    _wait_for(standin / "at-connect.root@10.0.0.7.1", process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (10, "")
    lines = out.splitlines()
    assert "  3 preflight  srv7: exit 130: coordinator: interrupted by SIGINT: not started" in lines
    assert "rollback, last changed first: (no host was touched)" in lines
    untouched = "untouched: no stage that changes it was started there"
    assert f"  srv7 (rank 2): {untouched}; ran: nothing" in lines
    assert _sessions(standin) == ["preflight.root@10.0.0.5", "preflight.root@10.0.0.6"]


def test_signals_during_rollback_are_recorded_and_every_rollback_runs(standin: Path) -> None:
    (standin / "hang.apply.root@10.0.0.7").touch()
    (standin / "slow.rollback.root@10.0.0.6").touch()
    process = _start(standin)
    _wait_for(standin / "at.apply.root@10.0.0.7", process)
    process.send_signal(signal.SIGTERM)
    _wait_for(standin / "at.rollback.root@10.0.0.6", process)
    process.send_signal(signal.SIGTERM)
    process.send_signal(signal.SIGHUP)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (10, "")
    assert "coordinator: SIGTERM received during rollback@srv6: recorded; " in out
    # Pending together, the two are delivered lowest number first (SIGHUP, SIGTERM); under
    # load the coordinator can take the SIGTERM before the SIGHUP is sent. Either order is
    # right; what must hold is that both are recorded after the first, which stopped it.
    assert (
        "signals received: SIGTERM, SIGHUP, SIGTERM: the first stopped" in out
        or "signals received: SIGTERM, SIGTERM, SIGHUP: the first stopped" in out
    ), out
    undo = [f"rollback.root@10.0.0.{n}" for n in (8, 7, 6, 5)]
    cleanups = [f"cleanup.root@10.0.0.{n}" for n in (8, 7, 6, 5)]
    assert _sessions(standin)[-8:] == [*undo, *cleanups]


def test_a_signal_after_the_decision_lets_every_commit_run(standin: Path) -> None:
    (standin / "slow.commit.root@10.0.0.6").touch()
    process = _start(standin)
    _wait_for(standin / "at.commit.root@10.0.0.6", process)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (0, "")
    assert "signals received: SIGTERM: after the decision, so commit went on everywhere" in out
    assert out.splitlines()[-1] == "apply v41_group_a: COMMITTED on every host"
    assert _sessions(standin)[-4:] == [f"commit.root@10.0.0.{n}" for n in (5, 6, 7, 8)]


def test_a_hung_exit_request_is_killed_and_the_step_still_rolls_back(standin: Path) -> None:
    (standin / "hang.preserve.root@10.0.0.6").touch()
    (standin / "hang-exit").touch()
    process = _start(standin)
    out, err = process.communicate(timeout=90)
    assert (process.returncode, err) == (10, "")
    assert "  6 preserve   srv6: no answer in time (its effect is unknown): coordinator: no " in out
    assert "rollback, last changed first: srv6 srv5" in out.splitlines()
    assert (standin / "exits").read_text() == "exit root@10.0.0.6\n"
    assert os.listdir(standin / "tmp") == []


def test_a_host_printing_256_mib_costs_bounded_memory(standin: Path) -> None:
    """Measured in a child process (its peak RSS), not by time."""
    (standin / "flood").touch()
    child = """
import resource, sys
from planner.apply import Stage
from planner.coordinator import SshSettings, SshTransport
from planner.transaction import HostAddress, TransactionPlan, TransactionStep
host = HostAddress(host_name="h", user="root", address="10.0.0.5")
plan = TransactionPlan(arm="t", hosts=(host,), preserve_dirs=("/p",), forward=(),
                       rollbacks=(), cleanups=())
step = TransactionStep(stage=Stage.PREFLIGHT, rank=0, host_name="h", container_name="c",
                       script="true\\n")
with SshTransport(plan, SshSettings(ssh=sys.argv[1], stage_timeout=120)) as transport:
    said = transport(step)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, said.exit_code, len(said.stdout), len(said.stderr))
print(repr(said.stdout[65530:65600]))
print(repr(said.stdout[-12:]))
"""
    env = {**os.environ, "STANDIN_DIR": str(standin)}
    ran = subprocess.run(
        [sys.executable, "-c", child, str(standin / "ssh")],
        capture_output=True, text=True, env=env, timeout=300, check=True,
    )  # fmt: skip
    numbers, middle, end = ran.stdout.splitlines()
    peak_kib, code, out_chars, err_chars = (int(n) for n in numbers.split())
    assert code == 0
    assert peak_kib < 100 * 1024, f"peak RSS {peak_kib} KiB"
    elided = 134217728 + len("preflight ok\n") - 2 * 65536
    marker = f"\n[… {elided} bytes elided …]\n"
    assert out_chars == 2 * 65536 + len(marker)
    assert err_chars == 2 * 65536 + len(f"\n[… {134217728 - 2 * 65536} bytes elided …]\n")
    assert middle == repr("\0" * 6 + marker + "\0" * (70 - 6 - len(marker)))
    assert end == repr("preflight ok\n"[-12:])
