"""``planner apply --check`` (planner/check.py), what its witness does not claim
(``witnesses/surfaces/apply_check.py`` states the probe's parser, the drift, the exit codes,
the option refusals, every host tried when none answers, ``--check --plan PLAN``): its probe
script as bash and shellcheck read it, and on the four-host sshd fleet (fixtures/fleet.py)
Ctrl-C ending it with exit 130 and no control directory left."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures import fleet
from fixtures.builders import v41_dry_run
from fixtures.fleet import Fleet
from fixtures.sandbox import HostState
from fixtures.transaction_cases import ranks, seed
from planner.check import PlannedHost, planned_hosts, probe_script
from planner.cli import main
from tests.realtools import bash_parses, shellcheck_clean

ARM = "v41_group_a"


def _planned() -> tuple[PlannedHost, ...]:
    return planned_hosts(v41_dry_run("supplied"))


@pytest.mark.parametrize("rank", range(4))
def test_the_probe_script_parses_and_is_shellcheck_clean(rank: int) -> None:
    script = probe_script(_planned()[rank])
    assert bash_parses(script, "check.sh").ok
    result = shellcheck_clean(script, "check.sh")
    assert result.ok, str(result)
    assert all(len(line) <= 120 for line in script.splitlines())


# --- the command line ----------------------------------------------------------------------


def _check_args(hosts: str, identity: Path, known: Path, *extra: str) -> list[str]:
    return [
        "apply", ARM, "--check", "--for-testing", "--hosts", hosts, "--ssh-config", "none",
        "--identity", str(identity), "--known-hosts", str(known), "--connect-timeout", "3",
        "--stage-timeout", "5", *extra,
    ]  # fmt: skip


# --- on the four-host sshd fleet -----------------------------------------------------------

_MISSING = fleet.unavailable()
on_fleet = pytest.mark.skipif(_MISSING is not None, reason=f"{_MISSING} (CI runs as root)")


@pytest.fixture
def hosts() -> Iterator[Fleet]:
    """The fleet the transaction witness uses: srv5 and srv6 run the previous V4.1 arm, srv7
    and srv8 have none of it (another arm's container, another arm's backup)."""
    run = v41_dry_run("supplied")
    assert run.launch is not None
    names = tuple(h.realization.host_name for h in run.hosts)
    seeds = tuple(seed(r) for r in ranks(run))
    with fleet.started(names, seeds, (run.launch.head.host.rail_address,)) as started:
        yield started


def _on(started: Fleet, *extra: str) -> list[str]:
    keys = started.base / "keys"
    hosts = ",".join(a.spec() for a in started.addresses)
    return [
        *_check_args(hosts, keys / "client", keys / "known_hosts", "--scenario", "supplied"),
        *extra,
    ]


def _block(out: list[str], host: str) -> list[str]:
    """The lines of one host: its header and the indented lines under it."""
    start = next(i for i, line in enumerate(out) if line.startswith(f"{host} (rank "))
    end = next((i for i in range(start + 1, len(out)) if not out[i].startswith("  ")), len(out))
    return out[start:end]


def _without_calls(states: tuple[HostState, ...]) -> list[HostState]:
    return [s.without_calls() for s in states]


@on_fleet
def test_ctrl_c_during_a_session_ends_the_check_with_130_and_nothing_left(
    hosts: Fleet,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C during srv6's first session: that session is abandoned, no other starts, srv8
    is listed not checked, the summary names the signal (exit 130), no control directory
    is left and no host is changed."""
    before = hosts.read()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    interrupting = tmp_path / "ssh"
    interrupting.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" -M "*|*" -O "*) ;; *" {hosts.addresses[1].destination} "*)\n'
        '  kill -INT "$PPID";;\nesac\nexec ssh "$@"\n'
    )
    interrupting.chmod(0o755)
    code = main(_on(hosts, "--ssh", str(interrupting)))
    out = capsys.readouterr().out.splitlines()
    assert code == 130
    assert _block(out, "srv5")[0].endswith("would change:")
    assert _block(out, "srv8") == [out[-2]] and out[-2].endswith(": not checked")
    assert out[-1].endswith("; interrupted by SIGINT")
    assert list(tmp_path.glob("gunbc-apply-*")) == []
    assert _without_calls(hosts.read()) == _without_calls(before)
