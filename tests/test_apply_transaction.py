"""Preflight, executed, on a mount source reached through a link: its real path is checked.

The scripts run for real under bash in the sandbox of :mod:`fixtures.sandbox` (a private
mount and network namespace; stand-ins for docker, systemctl and curl from fixtures/stubs/
that keep their state in files). What every stage does, preflight's other refusals (an
occupied host, a missing source, a source or a directory above it another user owns or may
write), readback, commit and rollback are witnesses/transaction/executed_apply.py's claims.
"""

from __future__ import annotations

import re

import pytest

from fixtures import sandbox
from fixtures.builders import v41_dry_run
from fixtures.sandbox import Change, Container, Host, HostSeed, Outcome, Run, Scenario
from planner.arm_launch import RenderedHost

OLD_IMAGE = "sha256:" + "0" * 64
NAME = "gunbc-v41-tp4"
OLD_UNIT = (
    "[Unit]\nDescription=the previous V4.1 unit\n\n[Service]\n"
    f"ExecStart=/usr/bin/docker start --attach {NAME}\n"
)


def _available() -> str | None:
    try:
        sandbox.require()
    except sandbox.SandboxUnavailable as error:
        return str(error)
    return None


_MISSING = _available()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"{_MISSING} (CI runs as root)")


def _head() -> RenderedHost:
    return v41_dry_run("supplied").hosts[0]


def _sources(head: RenderedHost) -> tuple[str, ...]:
    argv = head.realization.create_argv
    return tuple(a.split(",")[1].removeprefix("source=") for a in argv if a.startswith("type="))


def _srv5(head: RenderedHost, **changes: object) -> HostSeed:
    """Srv5 as the previous V4.1 arm left it: its container running, its unit active."""
    argv = head.realization.create_argv
    image = argv[argv.index("--entrypoint") + 2]
    seed = HostSeed(
        images=(image, OLD_IMAGE),
        containers=(
            Container(NAME, OLD_IMAGE, ("serve",), (), (("gunbc.arm", "v41_group_a"),), True),
        ),
        units=((head.realization.unit_name, OLD_UNIT),),
        active=(head.realization.unit_name,),
        dirs=_sources(head),
    )
    return HostSeed(**{**seed.__dict__, **changes})


def _run(head: RenderedHost, seed: HostSeed, *steps: str | Change) -> Outcome:
    scripts = tuple((s.stage.value, s.script) for s in head.steps)
    planned = tuple(Run(0, s, (NAME,)) if isinstance(s, str) else s for s in steps)
    rail = v41_dry_run("supplied").launch
    assert rail is not None
    scenario = Scenario((Host("srv5", scripts, seed),), planned, (rail.head.host.rail_address,))
    return sandbox.run([scenario])[0]


ENGRAM = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"


def test_preflight_refuses_a_source_whose_real_path_another_user_could_change() -> None:
    """A source that is a symlink to a root-owned directory inside another user's directory
    is refused at its real path: that user can rename the directory and put another there."""
    head = _head()
    link = (
        f"mkdir -p var/tmp/theirs/inner && chown 1234 var/tmp/theirs && rm -r {ENGRAM[1:]}"
        f" && ln -s ../theirs/inner {ENGRAM[1:]}"
    )
    done = _run(head, _srv5(head), Change(0, link), "preflight")
    result = done.results[-1]
    assert result is not None and result.returncode == 1, result
    refused = rf"mount source {ENGRAM}: /\S*/var/tmp/theirs is owned by uid 1234, not root"
    assert re.search(refused, result.stderr), result.stderr


def test_preflight_refuses_a_mount_source_that_is_root() -> None:
    head = _head()
    link = f"rm -r {ENGRAM[1:]} && ln -s / {ENGRAM[1:]}"
    done = _run(head, _srv5(head), Change(0, link), "preflight")
    result = done.results[-1]
    assert result is not None and result.returncode == 1, result
    assert f"mount source {ENGRAM} is / (its real path)" in result.stderr
