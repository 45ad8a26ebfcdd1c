"""Hostile frontier inputs (``--inputs FILE``), for both arms: every corruption is exit 2 with
one line naming the file and the key (or line and column, or ``<file>``), nothing written,
never a traceback, never ADMITTED."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fixtures.builders import DATA_ROOT, Ran
from tests.hostile_support import (
    HOSTILE,
    Corruption,
    corruptions,
    located_error,
    planner_main,
)
from witnesses.support import tree

SUPPLIED = DATA_ROOT / "scenarios" / "supplied"
INPUTS = json.loads((SUPPLIED / "inputs.json").read_text(encoding="utf-8"))
MANIFEST = json.loads(INPUTS["engram_manifest"])
NOW = "2026-11-29T12:00:00Z"
NULLABLE = frozenset(
    {
        ("produced_image",),
        ("produced_image", "registry_reading"),
        ("produced_image", "registry_reading", "vllm_version"),
        ("produced_image", "registry_reading", "hub_cli_path"),
        ("launch_shape",),
        ("engram_manifest",),
    }
)


def _where(corruption: Corruption) -> str:
    if corruption.family in ("binary", "cut"):
        return "<file>"
    if corruption.family == "deep":
        return "line 1, column "
    return corruption.dotted()


def _dry_run(arm: str, inputs: Path, out: Path) -> Ran:
    return planner_main(
        "dry-run",
        arm,
        "--authority",
        SUPPLIED / "authority.jsonl",
        "--inputs",
        inputs,
        "--now",
        NOW,
        "--out",
        out,
    )


@HOSTILE
@given(
    corruption=corruptions(INPUTS, nullable=NULLABLE),
    arm=st.sampled_from(["v41_group_a", "glm_group_b"]),
)
def test_hostile_inputs_are_located_errors(corruption: Corruption, arm: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "inputs.json"
        inputs.write_bytes(corruption.data)
        out_dir = Path(tmp) / "out"
        out_dir.mkdir()
        ran = _dry_run(arm, inputs, out_dir / "report.txt")
        where = _where(corruption)
        if corruption.family == "deep":
            message = located_error(
                ran, "planner", str(inputs), __import__("re").compile(r"line 1, column \d+: ")
            )
        else:
            message = located_error(ran, "planner", str(inputs), where)
        assert corruption.says in message
        if corruption.family in ("binary", "cut"):
            assert message.startswith("cannot read plan inputs: ")
        assert tree(out_dir) == []
        assert "ADMITTED" not in ran.out
