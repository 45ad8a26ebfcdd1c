"""Runs that mostly wait: what the declared harness and the surveys give slots of their own.

A claim that sits on other processes (an sshd fleet's sessions, a stage timeout, a namespace
torn down) keeps a worker busy and a core idle. Both mutation engines time each claim in
their baseline, in wall and CPU seconds; work whose claims spent the baseline *mostly
waiting* runs in slots beside the ``--jobs`` computing ones, so it no longer holds a core's
slot idle. Which slot a run takes never changes what it runs, so verdicts do not depend on it.
"""

from __future__ import annotations

import resource
import time

WAITING_MIN_SECONDS = 1.0
"""Work is *waiting* when its baseline took at least this long..."""
WAITING_CPU_SHARE = 0.5
"""... and used at most this share of a core over that time."""


def cpu_seconds() -> float:
    """CPU time of this process (every thread) and of its children that were waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def mostly_waiting(wall: float, cpu: float) -> bool:
    """Whether work that took ``wall`` seconds and ``cpu`` seconds of CPU mostly waited."""
    return wall >= WAITING_MIN_SECONDS and cpu <= WAITING_CPU_SHARE * wall
