"""What several witnesses do alike, written once: reading a data file as JSON, the fixtures'
inventory, scenarios and manifests read raw, a flag's value in an argv, the paths under a
directory, the C locale, a bug planted in the command line's report renderer, an ssh client
that only records it ran, and the planning inputs a plan is made from, each refused in turn
and all together.

The fixture files are read here with plain JSON, never through the planner's readers: a
claim states what the files say and compares the planner with it.

Not a witness: the witnesses are the modules of the rooms (:mod:`witnesses.plugin`)."""

from __future__ import annotations

import json
import locale
import shlex
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from claims import difference
from fixtures.builders import DATA_ROOT, Ran
from planner import cli
from planner.arm_launch import DryRun

SCENARIOS = DATA_ROOT / "scenarios"
GIB = 1024**3
CHECKPOINT_ROOT = "/var/lib/gunbc/checkpoints"
"""Where the materializer installs every checkpoint (DESIGN §3, one placement rule)."""


def read_json(path: Path) -> Any:
    """``path`` read as UTF-8 JSON: a fixture the witness states values of."""
    return json.loads(path.read_text(encoding="utf-8"))


def fabric_raw() -> dict[str, Any]:
    """fixtures/fabric.json as written."""
    return dict(read_json(DATA_ROOT / "fabric.json"))


def group_raw(group: str) -> dict[str, Any]:
    """Group ``group`` of fixtures/fabric.json as written: its name, subject and hosts."""
    return dict(next(g for g in fabric_raw()["groups"] if g["name"] == group))


def hosts_raw(names: Iterable[str]) -> list[dict[str, Any]]:
    """The hosts ``names`` as fixtures/fabric.json lists them, in the order given."""
    by_name = {h["name"]: h for h in fabric_raw()["hosts"]}
    return [by_name[n] for n in names]


def group_hosts(group: str) -> list[dict[str, Any]]:
    """A group's hosts as fixtures/fabric.json lists them: that order is node-rank order."""
    return hosts_raw(group_raw(group)["hosts"])


def scenario_raw(name: str, file: str) -> Any:
    """A JSON ``file`` of scenario ``name`` (``inputs.json``, ``scenario.json``) as written."""
    return read_json(SCENARIOS / name / file)


def scenario_now(name: str) -> datetime:
    """The time a scenario's log is read at (its scenario.json)."""
    return datetime.fromisoformat(scenario_raw(name, "scenario.json")["now"])


def manifest_weight_gib(raw: dict[str, Any]) -> int:
    """A manifest's weights: the bytes of every file whose role is weights, rounded up to
    whole GiB once (DESIGN: one byte count, rounded once)."""
    return -(-sum(int(f["bytes"]) for f in raw["files"] if f["role"] == "weights") // GIB)


def placement(raw: dict[str, Any]) -> str:
    """``<root>/<org>--<name>/<revision>``: the materializer's placement rule, for a manifest."""
    org, name = raw["model"].split("/")
    return f"{CHECKPOINT_ROOT}/{org}--{name}/{raw['revision']}"


def value_after(argv: tuple[str, ...], flag: str) -> str | None:
    """The word after ``flag``'s first occurrence in ``argv``, or None when it is absent."""
    return argv[argv.index(flag) + 1] if flag in argv else None


def tree(root: Path) -> list[str]:
    """Every path under ``root``, relative, sorted (dot files included)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@contextmanager
def c_locale() -> Iterator[None]:
    """The C locale for text, whose encoding is ASCII (unless Python runs in UTF-8 mode)."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


class PlantedBug(Exception):
    """What a bug in the planner looks like to the command line."""


def planted_bug(run: DryRun, *_: object) -> str:
    """A report renderer with a bug: it raises at :data:`PLANTED_AT`."""
    raise PlantedBug("the renderer broke")


PLANTED_AT = f"{__file__}:{planted_bug.__code__.co_firstlineno + 2} in planted_bug"
"""Where :func:`planted_bug` raises (its line after the docstring), as an internal-error line
locates what was raised: ``FILE:LINE in FUNCTION``."""


@contextmanager
def renderer(planted: Callable[..., str]) -> Iterator[None]:
    """The report renderer the command line calls, replaced for the block by ``planted``:
    no input reaches a bug, and a Ctrl-C must land while the command runs (Python's own
    SIGINT handler is in place for the block)."""
    before = getattr(cli, "render_report")  # noqa: B009 (not exported; set back below)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    setattr(cli, "render_report", planted)  # noqa: B010
    try:
        yield
    finally:
        setattr(cli, "render_report", before)  # noqa: B010
        signal.signal(signal.SIGINT, handler)


@dataclass(frozen=True)
class RecordingClient:
    """An executable "ssh client" at ``path`` that only records that it ran (appending its
    arguments to a file beside it) and exits 0, as a session whose script succeeded would;
    ``ran`` says whether anything ran it, ``calls`` with what."""

    path: Path

    @property
    def ran(self) -> bool:
        return (self.path.parent / "ran").exists()

    @property
    def calls(self) -> list[str]:
        """Each run's arguments, one line a run, joined by spaces as ``echo`` joins them."""
        record = self.path.parent / "ran"
        return record.read_text().splitlines() if record.exists() else []


def recording_client(directory: Path) -> RecordingClient:
    """A :class:`RecordingClient` written into ``directory``."""
    client = directory / "ssh"
    client.write_text(f'#!/bin/sh\necho "$@" >> {shlex.quote(str(directory / "ran"))}\n')
    client.chmod(0o755)
    return RecordingClient(client)


PLAN_HOLDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("arm", ("v41_group_a",)),
    ("--scenario", ("--scenario", "supplied")),
    ("--authority", ("--authority", "log.jsonl")),
    ("--inputs", ("--inputs", "inputs.json")),
    ("--data", ("--data", "data")),
    ("--recipe", ("--recipe", "launch.toml")),
    ("--group", ("--group", "g")),
    ("--name", ("--name", "n")),
)
"""What a plan is made from, in the order the command line defines it: each input named as
a refusal names it, and how it is given (``--now``, which a saved plan may hold, comes after
``--inputs``)."""


def refused_each_and_together(
    run: Callable[..., Ran],
    given: Sequence[tuple[str, tuple[str, ...]]],
    said: Callable[[str], str],
) -> list[str]:
    """``run`` with each input of ``given`` alone exits 2 with stderr ``said(name)`` and no
    stdout; with all of them at once it exits 2 with ``said`` of every name, joined by
    ``", "`` in the order given. The problems found."""
    problems = []
    for name, words in given:
        ran = run(*words)
        problems += difference(name, (2, said(name), []), (ran.code, ran.err, ran.lines))
    ran = run(*(word for _, words in given for word in words))
    every = ", ".join(name for name, _ in given)
    problems += difference("all at once", (2, said(every)), (ran.code, ran.err))
    return problems
