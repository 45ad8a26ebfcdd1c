"""The ssh claims send their own process a signal while a step runs. Under a mutant that makes
the step raise before it starts, the block ends early; a signal sent after it, when the
claim's handler is gone, would end the survey worker (a crash, not a kill). The sender is
done before the block is left."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from witnesses.transaction.ssh_transport import _signal_once


@pytest.fixture
def received() -> Iterator[list[int]]:
    got: list[int] = []
    before = signal.signal(signal.SIGUSR1, lambda number, frame: got.append(number))
    yield got
    signal.signal(signal.SIGUSR1, before)


def test_a_block_cut_short_is_never_signalled_after_it(tmp_path: Path, received: list[int]) -> None:
    started = tmp_path / "started"
    with pytest.raises(RuntimeError), _signal_once(started, signal.SIGUSR1):
        raise RuntimeError("a mutant raised before the step started")
    started.touch()  # what the stage would have written, too late: the sender is done
    assert received == []


def test_the_signal_arrives_inside_the_block_once_the_step_started(
    tmp_path: Path, received: list[int]
) -> None:
    started = tmp_path / "started"
    with _signal_once(started, signal.SIGUSR1):
        started.touch()
        deadline = time.monotonic() + 30
        while not received and time.monotonic() < deadline:
            time.sleep(0.01)
    assert received == [signal.SIGUSR1]
