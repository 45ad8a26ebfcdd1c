"""The fleet memo (fixtures/fleet.py): its key holds every byte of the coordinator's code
that a fleet run executes, so a replaced function or method never reuses another code's
outcome; and the processes of one mutation run share its runs, each run once."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import fleet
from planner.coordinator import SshTransport
from planner.transaction import StepResult, TransactionStep
from plugins.mutate.patching import patched, resolve

SHARED = """
import pickle, sys
from fixtures import fleet
from fixtures.builders import rendered
from fixtures.fleet import Case
import witnesses.transaction.transaction_fleet as tf
run = rendered(tf._RENDERED, "the supplied inputs", tf.HOSTS)
seeds = tuple(tf.seed(r) for r in tf.ranks(run))
faults = [tf.CASES[name] for name in ("no fault", "preflight refused on srv7")]
cases = [Case(seeds, (f.fault(),) if f else ()) for f in faults]
sys.stdout.buffer.write(pickle.dumps([(out.report, out.seconds) for out in fleet.run(run, cases)]))
"""
"""Two fleet runs of the transaction witness's cases, their reports and wall times pickled."""


def _answers_nothing(self: SshTransport, step: TransactionStep) -> StepResult:
    return StepResult(exit_code=None)


def _no_close(self: SshTransport) -> None:
    return None


def test_a_replaced_method_of_the_transport_changes_the_key() -> None:
    before = fleet._code_digest()
    with patched([(resolve("planner.coordinator.SshTransport.__call__"), _answers_nothing)]):
        called = fleet._code_digest()
    with patched([(resolve("planner.coordinator.SshTransport.close"), _no_close)]):
        closed = fleet._code_digest()
    assert len({before, called, closed}) == 3
    assert fleet._code_digest() == before


def test_a_replaced_function_changes_the_key() -> None:
    before = fleet._code_digest()
    with patched([(resolve("planner.coordinator.wait_seconds"), lambda settings: 1)]):
        assert fleet._code_digest() != before
    assert fleet._code_digest() == before


def test_the_key_is_the_same_in_every_process() -> None:
    script = "from fixtures import fleet; print(fleet._code_digest())"
    keys = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(keys) == 1


@pytest.mark.skipif(fleet.unavailable() is not None, reason="no fleet here (CI runs as root)")
def test_processes_of_one_run_share_its_fleet_runs(tmp_path: Path) -> None:
    """Two processes of one mutation run (its memo directory in ``CLAIMS_MEMO_DIR``) that
    need the same two fleet runs at once run each once: both return the same wall times,
    which two runs of one case would not."""
    env = {k: v for k, v in os.environ.items() if k != fleet.MEMO_ENV}
    env["CLAIMS_MEMO_DIR"] = str(tmp_path)
    argv = [sys.executable, "-c", SHARED]
    started = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate()[0] for p in started]
    assert [p.returncode for p in started] == [0, 0]
    first, second = (pickle.loads(out) for out in outs)
    assert [r.failure is None for r, _ in first] == [True, False]
    assert first == second
    assert len(list(tmp_path.glob("*.pickle"))) == 2
