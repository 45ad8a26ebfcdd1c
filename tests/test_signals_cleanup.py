"""SIGTERM and SIGHUP during a mutation run leave no temporary directory behind, not even
what a claim made in its temporary directory and left (as a mutant breaking cleanup does).

The run is a real ``claims mutate`` in a project of its own. Its one claim writes a marker and
then waits for a release file, so the signal arrives while the run is surely inside its shared
memo directory, whatever the machine's load: nothing here waits on a clock but the bounds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fakes.support import CLAIMS_EXE, signals_at_default

WITNESS = '''\
import os
import tempfile
import time
from pathlib import Path

import probe_code
from claims import ClaimKind, Verdict, claim, fails, holds


@claim(ClaimKind.PLANNED_SHAPE)
def waits_for_its_release() -> Verdict:
    """Holds once the test releases it (it marks that it started first)."""
    here = Path(os.environ["SIGNAL_PROBE"])
    tempfile.mkdtemp(prefix="left-behind-")
    (here / "started").touch()
    for _ in range(600):  # at most a minute, then it goes on
        if (here / "release").exists():
            break
        time.sleep(0.1)
    return holds("held") if probe_code.held() else fails("not held")
'''

CODE = '''\
def held() -> bool:
    """The code under test: it holds."""
    return True
'''

MUTANTS = '''\
from plugins.mutate import mutant


@mutant(replaces="probe_code.held", turns_red={"probe.waits_for_its_release"})
def never_holds() -> bool:
    """It does not hold."""
    return False
'''

PLUGIN = """\
from claims import hookimpl


@hookimpl
def claims_register_witnesses(register):
    register("probe", "probe_witness")


@hookimpl
def claims_register_mutants(register):
    register("probe", "probe_mutants")
"""


def _wait_for(path: Path, run: subprocess.Popen[str], seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if run.poll() is not None:
            out, err = run.communicate()
            pytest.fail(f"claims mutate ended (exit {run.returncode}) first:\n{out}{err}")
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_a_mutation_run_removes_its_memo_and_temporary_directories(
    tmp_path: Path, signum: signal.Signals
) -> None:
    project, scratch, probe = tmp_path / "p", tmp_path / "tmp", tmp_path / "probe"
    for directory in (project, scratch, probe):
        directory.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.claims]\nplugins = ["probe_plugin"]\npythonpath = ["."]\n', encoding="utf-8"
    )
    for name, text in (
        ("probe_witness", WITNESS),
        ("probe_mutants", MUTANTS),
        ("probe_code", CODE),
    ):
        (project / f"{name}.py").write_text(text, encoding="utf-8")
    (project / "probe_plugin.py").write_text(PLUGIN, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CLAIMS_DEBUG")}
    env.pop("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", None)
    env |= {"TMPDIR": str(scratch), "SIGNAL_PROBE": str(probe)}
    run = subprocess.Popen(
        [str(CLAIMS_EXE), "mutate", "--all"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=signals_at_default,
    )
    try:
        _wait_for(probe / "started", run)  # the baseline's child is in the claim: memo is live
        made = sorted(p.name.rsplit("-", 1)[0] for p in scratch.iterdir())
        assert made == ["claims-memo", "claims-tmp"]
        assert [p.name[:12] for p in scratch.glob("claims-tmp-*/*")] == ["left-behind-"]
        run.send_signal(signum)
        run.communicate(timeout=120)
    finally:
        (probe / "release").touch()  # the forked child, orphaned or not, goes on and ends
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == -signum
    assert not list(scratch.iterdir())
