"""Hostile data under ``--data``: the fabric inventory and the arms' checkpoint manifests.

Each corruption (a key given twice, a value of another type, an integer beyond 64 bits,
nesting past 64 levels, a lone surrogate, NaN, bytes that are not UTF-8, a file cut short)
is exit 2 naming the file and the key, or line and column; so is a file that loads but
cannot be planned (the arm's group missing, a host named twice, a negative or boolean
memory, an empty group, a model the planner cannot place, a negative byte count).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixtures.builders import DATA_ROOT, Ran
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from tests.hostile_support import (
    HOSTILE,
    Corruption,
    corruptions,
    located_error,
    planner_main,
)
from witnesses.support import tree

FABRIC = json.loads((DATA_ROOT / "fabric.json").read_text(encoding="utf-8"))
MANIFESTS = {
    "v41_group_a": (V41_MANIFEST, json.loads((DATA_ROOT / V41_MANIFEST).read_text("utf-8"))),
    "glm_group_b": (GLM_MANIFEST, json.loads((DATA_ROOT / GLM_MANIFEST).read_text("utf-8"))),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data root of real copies, so one file at a time can be made hostile and put back."""
    base = tmp_path_factory.mktemp("hostile-data") / "data"
    shutil.copytree(DATA_ROOT, base, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    yield base


def _where(corruption: Corruption) -> str | re.Pattern[str]:
    if corruption.family in ("binary", "cut"):
        return "<file>"
    if corruption.family == "deep":
        return re.compile(r"line \d+, column \d+: ")
    if corruption.family == "retype":
        return re.compile(r"[^:]*: ")  # pydantic's place for the first bad field (checked below)
    return corruption.dotted()


def _fields(where: str) -> list[str]:
    return [p for p in re.split(r"[.\[\]]+", where) if p]


def _run_with(root: Path, relative: str, data: bytes, arm: str) -> tuple[Ran, Path]:
    target = root / relative
    original = target.read_bytes()
    target.write_bytes(data)
    out = root.parent / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    try:
        ran = planner_main(
            "dry-run", arm, "--scenario", "supplied", "--data", root, "--out", out / "r.txt"
        )
    finally:
        target.write_bytes(original)
    return ran, out


def _check(ran: Ran, source: Path, corruption: Corruption, out: Path) -> None:
    message = located_error(ran, "planner", str(source), _where(corruption))
    assert corruption.says in message
    if corruption.family == "retype" and corruption.path:
        # the first bad field is the replaced value or an object above it
        where = ran.err.split(f"{source}: ", 1)[1].split(": ", 1)[0]
        named = _fields(where)
        wanted = [str(p) for p in corruption.path]
        assert wanted[: len(named)] == named or named[-1] in wanted, (where, corruption.path)
    assert tree(out) == []


@HOSTILE
@given(corruption=corruptions(FABRIC), arm=st.sampled_from(sorted(MANIFESTS)))
def test_hostile_inventory_is_a_located_error(root: Path, corruption: Corruption, arm: str) -> None:
    ran, out = _run_with(root, "fabric.json", corruption.data, arm)
    _check(ran, root / "fabric.json", corruption, out)


_MANIFEST_CASES = st.sampled_from(sorted(MANIFESTS)).flatmap(
    lambda arm: st.tuples(st.just(arm), corruptions(MANIFESTS[arm][1]))
)


@HOSTILE
@given(case=_MANIFEST_CASES)
def test_hostile_manifest_is_a_located_error(root: Path, case: tuple[str, Corruption]) -> None:
    arm, corruption = case
    relative = MANIFESTS[arm][0]
    ran, out = _run_with(root, relative, corruption.data, arm)
    _check(ran, root / relative, corruption, out)


def _edited(document: dict[str, object], path: tuple[str | int, ...], value: object) -> bytes:
    from tests.hostile_support import replaced

    return json.dumps(replaced(document, path, value)).encode()


_UNPLANNABLE_FABRIC = [
    # (what, edit, arm, where, what the message says)
    (
        "no group_a",
        ("groups", 0, "name"),
        "group_z",
        "v41_group_a",
        "groups",
        "no fabric group 'group_a'",
    ),
    (
        "no group_b",
        ("groups", 1, "name"),
        "group_z",
        "glm_group_b",
        "groups",
        "no fabric group 'group_b'",
    ),
    (
        "negative memory",
        ("hosts", 0, "memory_gib"),
        -121,
        "glm_group_b",
        "hosts[0].memory_gib",
        "greater than 0",
    ),
    (
        "boolean memory",
        ("hosts", 4, "memory_gib"),
        True,
        "v41_group_a",
        "hosts[4].memory_gib",
        "valid integer",
    ),
    (
        "memory as text",
        ("hosts", 4, "memory_gib"),
        "121",
        "v41_group_a",
        "hosts[4].memory_gib",
        "valid integer",
    ),
    (
        "memory as float",
        ("hosts", 4, "memory_gib"),
        121.0,
        "v41_group_a",
        "hosts[4].memory_gib",
        "valid integer",
    ),
    (
        "empty group",
        ("groups", 0, "hosts"),
        [],
        "v41_group_a",
        "groups.group_a.hosts",
        "at least one host",
    ),
    (
        "host twice",
        ("hosts", 1, "name"),
        "srv1",
        "v41_group_a",
        "hosts[1].name",
        "already names hosts[0]",
    ),
    (
        "member twice",
        ("groups", 0, "hosts"),
        ["srv5", "srv5", "srv6", "srv7"],
        "v41_group_a",
        "groups.group_a.hosts",
        "named twice",
    ),
    (
        "member not a name",
        ("groups", 0, "hosts"),
        [["srv5"]],
        "v41_group_a",
        "groups.group_a.hosts[0]",
        "must be a host name",
    ),
]


@pytest.mark.parametrize(("what", "path", "value", "arm", "where", "says"), _UNPLANNABLE_FABRIC)
def test_an_inventory_that_loads_but_cannot_be_planned_is_located(
    root: Path,
    what: str,
    path: tuple[str | int, ...],
    value: object,
    arm: str,
    where: str,
    says: str,
) -> None:
    ran, out = _run_with(root, "fabric.json", _edited(FABRIC, path, value), arm)
    message = located_error(ran, "planner", str(root / "fabric.json"), where)
    assert says in message, message
    assert tree(out) == []


@pytest.mark.parametrize(
    ("arm", "path", "value", "where", "says"),
    [
        ("v41_group_a", ("model",), "no-organisation", "model", "cannot place model"),
        ("glm_group_b", ("model",), "a/b/c", "model", "cannot place model"),
        ("glm_group_b", ("model",), "org/a b", "model", "not a safe"),
        ("v41_group_a", ("revision",), "a.b", "revision", "cannot place model"),
        ("v41_group_a", ("files", 2, "bytes"), -1, "files.2.bytes", "greater than or equal to 0"),
        ("glm_group_b", ("files", 0, "bytes"), "12", "files.0.bytes", "valid integer"),
    ],
)
def test_a_manifest_that_loads_but_cannot_be_planned_is_located(
    root: Path, arm: str, path: tuple[str | int, ...], value: object, where: str, says: str
) -> None:
    relative, document = MANIFESTS[arm]
    ran, out = _run_with(root, relative, _edited(document, path, value), arm)
    message = located_error(ran, "planner", str(root / relative), where)
    assert says in message, message
    assert tree(out) == []
