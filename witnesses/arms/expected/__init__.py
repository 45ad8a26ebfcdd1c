"""Each arm's own expected values, beside its module: ``witnesses/arms/expected/<arm>.py`` holds one
:class:`Expected`, ``EXPECTED``, stated literally (never computed by the planner it checks).

The ``arm_launch`` witness runs its claims once per arm of the registry and reads the arm's
values here, against the dry run :func:`supplied` plans; an arm with no module here leaves
that witness unresolved, naming the file.
What differs between a head and a follower is the launcher's rule, stated once by the
witness: a follower's serve argv is the head's with its own ``--node-rank`` and
``--headless`` for the head's ``--host``/``--port``, and its create argv the head's with its
own rank label and its own host's rail address and interface.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from fixtures.builders import DATA_ROOT, authority_state, inventory, v41_inputs
from planner.arm_launch import DryRun
from planner.arms import Arm, ArmSources


@dataclass(frozen=True)
class Expected:
    """What an arm's supplied dry run renders, literally."""

    hosts: tuple[str, ...]
    """The group's hosts, in node-rank order."""
    container: str
    head_unit: str
    """The head's unit name without ``.service``; its log is ``/var/log/gunbc/<unit>.log``."""
    rank_unit: str
    head_create: tuple[str, ...]
    """Rank 0's ``docker create`` argv up to its serve argv (the image digest last)."""
    head_serve: tuple[str, ...]
    """Rank 0's whole serve argv."""
    env: tuple[tuple[str, str], ...]
    """Each rank's env after its three rail variables."""
    head_unit_text: str
    rank_unit_text: str
    health: str
    """The head's front door: the URL its /health answers on."""
    candidate: tuple[str, str, str]
    """(arm, checkpoint reference, runtime key) the admission is asked for."""
    manifest: str
    """The checkpoint manifest it plans from, under the data root."""
    weight_gib: int
    """Its weights in GiB, as the fit charges them."""
    allowance_gib: int
    """What the fit charges beyond the weights: 0 for a row that keeps nothing else resident,
    the pool's share outside the engine for one that keeps a page cache."""
    pinned: bool
    """Whether its inputs are all pinned: ``--inputs`` is read and validated, its values not
    used (the dry run's help names it)."""
    admitted: bool
    """Whether the ``supplied`` scenario's authority log admits it (a dry run exits 0)."""
    report: str
    """Where a dry run writes its report by default (a live read; ``--scenario S`` ends it
    ``-S.txt``): under ``target/``, the arm's own file."""


def stated_arms() -> list[str]:
    """The arms whose values this package states (its modules, by name): the arms there
    should be, independent of the registry the planner builds."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__))


def expected(arm: str) -> Expected:
    """The expected values of ``arm``: ``EXPECTED`` of ``witnesses/arms/expected/<arm>.py``."""
    value = getattr(importlib.import_module(f"{__name__}.{arm}"), "EXPECTED", None)
    if not isinstance(value, Expected):
        raise TypeError(f"witnesses/arms/expected/{arm}.py: EXPECTED must be an Expected")
    return value


def supplied(arm: Arm) -> DryRun:
    """``arm``'s dry run under the ``supplied`` scenario, as the command line plans it: what
    its expected values describe."""
    sources = ArmSources(
        fabric=inventory(),
        root=DATA_ROOT,
        inputs=v41_inputs("supplied"),
        inputs_source="inputs",
        state=authority_state("supplied"),
    )
    return arm.plan(sources)


def bind(path: str, mode: str = ",readonly") -> tuple[str, str]:
    """A ``docker create`` bind mount of ``path`` at the same path, read-only unless ``mode``
    says otherwise (``""``: writable)."""
    return "--mount", f"type=bind,source={path},target={path}{mode}"


def unit_text(description: str, container: str, unit: str) -> str:
    """A unit file as the launcher writes every one, literally, for one arm's values."""
    docker = "/usr/bin/docker"
    return f"""\
[Unit]
Description={description}
Requires=docker.service
After=docker.service network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart={docker} start --attach {container}
ExecStop={docker} stop --time 120 {container}
TimeoutStopSec=150
Restart=no
StandardOutput=append:/var/log/gunbc/{unit}.log
StandardError=inherit

[Install]
WantedBy=multi-user.target
"""
