"""The rendered apply scripts, executed: preserve, apply, readback, then commit or rollback.

The scripts run for real under bash in the sandbox of :mod:`fixtures.sandbox` (a private
mount and network namespace; stand-ins for docker, systemctl and curl from fixtures/stubs/
that keep their state in files), so each test reads what the stages really left behind.
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


FORWARD = ("preflight", "preserve", "apply", "readback")


def _ok(outcome: Outcome) -> None:
    for result in outcome.results:
        assert result is None or result.returncode == 0, result


def test_rollback_restores_exactly_what_preserve_saved() -> None:
    head = _head()
    done = _run(head, _srv5(head), *FORWARD, "rollback", "cleanup")
    _ok(done)
    after = done.after[0]
    old = after.containers[NAME]
    assert old.image == OLD_IMAGE and old.running is True
    assert set(after.containers) == {NAME}
    assert after.unit_files() == {head.realization.unit_name: OLD_UNIT.encode()}
    assert head.realization.unit_name in after.active
    stem = head.realization.unit_name.removesuffix(".service")
    assert f"/var/lib/gunbc/preserve/v41_group_a/{stem}/" not in after.files


def test_commit_keeps_the_planned_arm_and_drops_the_backup() -> None:
    head = _head()
    done = _run(head, _srv5(head), *FORWARD, "commit", "cleanup")
    _ok(done)
    planned = v41_dry_run("supplied")
    assert planned.launch is not None
    after = done.after[0]
    new = after.containers[NAME]
    assert new.running is True
    assert new.cmd == tuple(planned.launch.head.serve_argv)
    assert new.image == planned.launch.image_digest
    assert set(after.containers) == {NAME}
    assert after.unit_files() == {
        head.realization.unit_name: planned.hosts[0].realization.unit_text.encode()
    }
    assert head.realization.unit_name in after.enabled


def test_a_second_preserve_refuses_to_overwrite_a_pending_backup() -> None:
    head = _head()
    done = _run(head, _srv5(head), "preserve", "preserve")
    second = done.results[1]
    assert second is not None and second.returncode == 1
    assert "an earlier preserve is pending" in second.stderr
    assert f"{NAME}-preserved" in done.after[0].containers


def test_readback_catches_a_container_that_differs_from_the_plan() -> None:
    head = _head()
    planned = v41_dry_run("supplied").launch
    assert planned is not None
    changed = sandbox.go_json((*planned.head.serve_argv, "--enforce-eager"))
    tamper = Change(0, f"printf '%s\\n' '{changed}' > state/containers/{NAME}/cmd.json")
    done = _run(head, _srv5(head), "preflight", "preserve", "apply", tamper, "readback")
    readback = done.results[-1]
    assert readback is not None and readback.returncode == 1
    assert "running command differs from the plan" in readback.stderr


def test_preflight_refuses_another_arms_running_container() -> None:
    head = _head()
    glm = Container(
        "glm-native-tp4", OLD_IMAGE, ("serve",), (), (("gunbc.arm", "glm_group_b"),), True
    )
    seed = _srv5(head)
    done = _run(head, _srv5(head, containers=(*seed.containers, glm)), "preflight")
    result = done.results[0]
    assert result is not None and result.returncode == 1
    assert "host is occupied by another arm: glm-native-tp4" in result.stderr


def test_preflight_refuses_a_missing_mount_source() -> None:
    head = _head()
    missing = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"
    kept = tuple(s for s in _sources(head) if s != missing)
    done = _run(head, _srv5(head, dirs=kept), "preflight")
    result = done.results[0]
    assert result is not None and result.returncode == 1
    assert f"mount source {missing} does not exist" in result.stderr


ENGRAM = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (f"chown 1234 {ENGRAM[1:]}", f"{ENGRAM}: {ENGRAM} is owned by uid 1234, not root"),
        (
            f"chmod 0777 {ENGRAM[1:]}",
            f"{ENGRAM}: {ENGRAM} is writable by group or others (mode 777)",
        ),
        (
            f"chmod 0775 {ENGRAM[1:]}",
            f"{ENGRAM}: {ENGRAM} is writable by group or others (mode 775)",
        ),
        # a sticky directory is no safe place for the source itself: anyone may add to it
        (
            f"chmod 1777 {ENGRAM[1:]}",
            f"{ENGRAM}: {ENGRAM} is writable by group or others (mode 1777)",
        ),
        (
            "chown 1234 var/tmp/engram-local",
            f"{ENGRAM}: /var/tmp/engram-local is owned by uid 1234, not root",
        ),
        (
            "chmod 0757 var/tmp/engram-local",
            f"{ENGRAM}: /var/tmp/engram-local is writable by group or others (mode 757)",
        ),
    ],
)
def test_preflight_refuses_a_mount_source_another_user_could_change(
    change: str, message: str
) -> None:
    """A mount source, its real path and every directory above it must be root's and
    writable by no one else: another local user could otherwise swap what the container
    reads (its config.json is code under --trust-remote-code)."""
    head = _head()
    done = _run(head, _srv5(head), Change(0, change), "preflight")
    result = done.results[-1]
    assert result is not None and result.returncode == 1, result
    assert result.stderr.startswith("preflight of gunbc-v41-tp4 on srv5: mount source "), result
    assert message in result.stderr


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


def test_preflight_takes_a_root_sticky_directory_above_a_source() -> None:
    """/var/tmp is 1777 on a real host: no one else can rename or remove the root-owned
    directory a source sits in there, so it is no way in."""
    head = _head()
    done = _run(
        head, _srv5(head), Change(0, "chmod 1777 var/tmp var/tmp/engram-local"), "preflight"
    )
    result = done.results[-1]
    assert result is not None and result.returncode == 0, result


def test_preflight_refuses_a_mount_source_that_is_root() -> None:
    head = _head()
    link = f"rm -r {ENGRAM[1:]} && ln -s / {ENGRAM[1:]}"
    done = _run(head, _srv5(head), Change(0, link), "preflight")
    result = done.results[-1]
    assert result is not None and result.returncode == 1, result
    assert f"mount source {ENGRAM} is / (its real path)" in result.stderr
