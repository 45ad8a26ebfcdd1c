"""Helpers the kernel and plugin tests share: paths, a fake session, the real CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from claims import Session

FAKES = Path(__file__).resolve().parent
REPO = FAKES.parents[1]
CLAIMS_EXE = Path(sys.executable).with_name("claims")
MAIN_PLUGIN = "tests.fakes.plugin"


def fake_session(*plugins: str) -> Session:
    """A session with the built-ins and ``plugins`` (default: the main fake), no entry points."""
    return Session.start(plugins or (MAIN_PLUGIN,), autoload=False)


def run_cli(*args: str, autoload: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the installed ``claims`` console script at the repo root, as a user would."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", None)
    if not autoload:
        env["CLAIMS_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        [str(CLAIMS_EXE), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def signals_at_default() -> None:
    """``Popen(preexec_fn=...)``: the child starts with SIGTERM and SIGHUP at their defaults,
    whatever this test run inherited. A run started under ``nohup`` ignores SIGHUP, and a
    process that finds a signal ignored rightly keeps ignoring it (``signals_unwind``), so a
    test that signals its child must not depend on how the run was started."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
