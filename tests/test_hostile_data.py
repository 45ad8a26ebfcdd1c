"""Hostile data under ``--data``: the fabric inventory and the arms' checkpoint manifests.

Each corruption (a key given twice, a value of another type, an integer beyond 64 bits,
nesting past 64 levels, a lone surrogate, NaN, bytes that are not UTF-8, a file cut short)
is exit 2 naming the file and the key, or line and column. A file that loads but cannot be
planned is refused by the same readers: fabric_inventory's claims state each such file at
the reader, and dry_run_cli's and planner_process's the command line's one located line.
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
