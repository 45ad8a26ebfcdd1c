"""The rendered apply scripts, executed: preserve, apply, readback, then commit or rollback.

The scripts run for real under bash, in a private mount namespace where /etc/systemd/system,
/var/lib, /var/log and /var/tmp are temp directories, against stand-ins for the docker CLI
and systemctl (tests/stubs/: no docker daemon and no systemd as PID 1 exist here). The
stand-ins keep their state in files, so the test reads what each stage really left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures.builders import v41_dry_run
from planner.apply import Stage
from planner.arm_launch import RenderedHost

STUBS = Path(__file__).resolve().parent / "stubs"
BOUND = {
    "etc_units": "/etc/systemd/system",
    "var_lib": "/var/lib",
    "var_log": "/var/log",
    "var_tmp": "/var/tmp",
}
OLD_IMAGE = "sha256:" + "0" * 64
OLD_UNIT = (
    "[Unit]\nDescription=the previous V4.1 unit\n\n[Service]\n"
    "ExecStart=/usr/bin/docker start --attach gunbc-v41-tp4\n"
)

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="needs root and unshare for a private mount namespace (CI runs as root)",
)


def _head() -> RenderedHost:
    return v41_dry_run("supplied").hosts[0]


@dataclass
class Host:
    root: Path
    head: RenderedHost

    @property
    def state(self) -> Path:
        return self.root / "state"

    def inside(self, bound: str, path: str) -> Path:
        return self.root / bound / path.removeprefix(BOUND[bound]).lstrip("/")

    @property
    def preserve_dir(self) -> Path:
        stem = self.head.realization.unit_name.removesuffix(".service")
        return self.inside("var_lib", f"/var/lib/gunbc/preserve/v41_group_a/{stem}")

    @property
    def unit_file(self) -> Path:
        return self.inside("etc_units", f"/etc/systemd/system/{self.head.realization.unit_name}")

    def container(self, name: str) -> dict[str, object] | None:
        path = self.state / "containers" / name / "config.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def put_container(self, name: str, image: str, arm: str, running: bool) -> None:
        box = self.state / "containers" / name
        box.mkdir(parents=True)
        config = {
            "name": name,
            "image": image,
            "cmd": ["serve"],
            "env": [],
            "labels": {"gunbc.arm": arm},
            "running": running,
        }
        (box / "config.json").write_text(json.dumps(config))

    def run(self, *stages: Stage) -> subprocess.CompletedProcess[str]:
        scripts = self.root / "scripts"
        binds = "".join(f"mount --bind {self.root / k} {v}\n" for k, v in BOUND.items())
        steps = "".join(
            f'bash {scripts / s.value}.sh gunbc-v41-tp4 || {{ echo "stage {s.value} failed"; '
            "exit 1; }\n"
            for s in stages
        )
        driver = f"set -e\n{binds}export PATH={STUBS}:$PATH STUB_STATE={self.state}\n{steps}"
        return subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "bash", "-c", driver],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )


@pytest.fixture
def host(tmp_path: Path) -> Host:
    """Srv5 as the previous V4.1 arm left it: its container running, its unit active."""
    made = Host(tmp_path, _head())
    for bound in BOUND:
        (tmp_path / bound).mkdir()
    (tmp_path / "scripts").mkdir()
    for step in made.head.steps:
        (tmp_path / "scripts" / f"{step.stage.value}.sh").write_text(step.script)
    argv = made.head.realization.create_argv
    sources = [a.split(",")[1].removeprefix("source=") for a in argv if a.startswith("type=")]
    for source in sources:
        bound = next(k for k, v in BOUND.items() if source.startswith(v + "/"))
        made.inside(bound, source).mkdir(parents=True)
    image = argv[argv.index("--entrypoint") + 2]
    (made.state / "images").mkdir(parents=True)
    (made.state / "images" / image).touch()
    (made.state / "images" / OLD_IMAGE).touch()
    made.put_container("gunbc-v41-tp4", OLD_IMAGE, "v41_group_a", running=True)
    made.unit_file.write_text(OLD_UNIT)
    (made.state / "active").mkdir()
    (made.state / "active" / made.head.realization.unit_name).touch()
    return made


FORWARD = (Stage.PREFLIGHT, Stage.PRESERVE, Stage.APPLY, Stage.READBACK)


def test_rollback_restores_exactly_what_preserve_saved(host: Host) -> None:
    done = host.run(*FORWARD, Stage.ROLLBACK, Stage.CLEANUP)
    assert done.returncode == 0, done.stdout + done.stderr
    old = host.container("gunbc-v41-tp4")
    assert old is not None and old["image"] == OLD_IMAGE and old["running"] is True
    assert host.container("gunbc-v41-tp4-preserved") is None
    assert host.unit_file.read_text() == OLD_UNIT
    assert (host.state / "active" / host.head.realization.unit_name).exists()
    assert not list((host.root / "etc_units").glob("*.landing"))
    assert not host.preserve_dir.exists()


def test_commit_keeps_the_planned_arm_and_drops_the_backup(host: Host) -> None:
    done = host.run(*FORWARD, Stage.COMMIT, Stage.CLEANUP)
    assert done.returncode == 0, done.stdout + done.stderr
    new = host.container("gunbc-v41-tp4")
    planned = v41_dry_run("supplied")
    assert planned.launch is not None
    assert new is not None and new["running"] is True
    assert new["cmd"] == list(planned.launch.head.serve_argv)
    assert new["image"] == planned.launch.image_digest
    assert host.container("gunbc-v41-tp4-preserved") is None
    assert host.unit_file.read_text() == planned.hosts[0].realization.unit_text
    assert not host.preserve_dir.exists()


def test_a_second_preserve_refuses_to_overwrite_a_pending_backup(host: Host) -> None:
    done = host.run(Stage.PRESERVE, Stage.PRESERVE)
    assert done.returncode == 1
    assert "an earlier preserve is pending" in done.stderr
    assert host.container("gunbc-v41-tp4-preserved") is not None


def test_readback_catches_a_container_that_differs_from_the_plan(host: Host) -> None:
    assert host.run(Stage.PREFLIGHT, Stage.PRESERVE, Stage.APPLY).returncode == 0
    config_path = host.state / "containers" / "gunbc-v41-tp4" / "config.json"
    config = json.loads(config_path.read_text())
    config["cmd"] = [*config["cmd"], "--enforce-eager"]
    config_path.write_text(json.dumps(config))
    done = host.run(Stage.READBACK)
    assert done.returncode == 1
    assert "running command differs from the plan" in done.stderr


def test_preflight_refuses_another_arms_running_container(host: Host) -> None:
    host.put_container("glm-native-tp4", OLD_IMAGE, "glm_group_b", running=True)
    done = host.run(Stage.PREFLIGHT)
    assert done.returncode == 1
    assert "host is occupied by another arm: glm-native-tp4" in done.stderr


def test_preflight_refuses_a_missing_mount_source(host: Host) -> None:
    shutil.rmtree(host.root / "var_tmp" / "engram-local")
    done = host.run(Stage.PREFLIGHT)
    assert done.returncode == 1
    assert "mount source /var/tmp/engram-local/DeepSeek-V4.1-Flash does not exist" in done.stderr
