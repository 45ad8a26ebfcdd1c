"""The fleet memo's key (fixtures/fleet.py): every byte of the coordinator's code that a
fleet run executes, so a replaced function or method never reuses another code's outcome."""

from __future__ import annotations

import os
import subprocess
import sys

from fixtures import fleet
from planner.coordinator import SshTransport
from planner.transaction import StepResult, TransactionStep
from plugins.mutate.patching import patched, resolve


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
