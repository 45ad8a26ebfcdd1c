"""Hostile journals: ``planner apply --resume`` given a journal changed anywhere — bytes
flipped, inserted, deleted or cut, lines repeated or swapped, a record resealed with another
value — reads it or refuses it located (exit 2, one line, the file untouched); never a
traceback, never a resume of something it did not read whole."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixtures.builders import v41_dry_run
from planner import journal
from planner.refusal import PlannerInputError
from planner.transaction import (
    StepResult,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
)
from tests.hostile_support import HOSTILE, planner_main

# a failing example is a 73 KB journal: hypothesis warns that its repr is large
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"


def _journal() -> bytes:
    """A transaction that failed at apply@srv7 and was rolled back, cut before its end."""
    plan = plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))

    def run_step(step: TransactionStep) -> StepResult:
        failed = (step.stage.value, step.rank) == ("apply", 2)
        return StepResult(exit_code=1 if failed else 0, stdout="said\n")

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "j"
        with journal.create(path, plan, {"ssh": "ssh"}, 3) as written:
            coordinate(plan, run_step, 3, on_event=written.record)
        lines = path.read_bytes().splitlines(keepends=True)
    return b"".join(lines[:30])


VALID = _journal()
LINES = VALID.splitlines(keepends=True)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


@st.composite
def hostile(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["flip", "insert", "delete", "cut", "repeat", "swap", "reseal"]))
    data = bytearray(VALID)
    at = draw(st.integers(0, len(data) - 1))
    if kind == "flip":
        data[at] ^= draw(st.integers(1, 255))
    elif kind == "insert":
        data[at:at] = draw(st.binary(min_size=1, max_size=8))
    elif kind == "delete":
        del data[at : at + draw(st.integers(1, 64))]
    elif kind == "cut":
        del data[at:]
    lines = list(LINES)
    k = draw(st.integers(1, len(lines) - 1))
    if kind == "repeat":
        lines.insert(k, lines[k])
    elif kind == "swap":
        j = draw(st.integers(1, len(lines) - 1))
        lines[k], lines[j] = lines[j], lines[k]
    elif kind == "reseal":
        body = json.loads(lines[k])["body"]
        key = draw(st.sampled_from(sorted(body)))
        body[key] = draw(JSON)
        lines[k] = journal.line_of(body)
    return kind, bytes(data) if kind in ("flip", "insert", "delete", "cut") else b"".join(lines)


@HOSTILE
@given(hostile())
def test_a_hostile_journal_is_read_or_refused_located(case: tuple[str, bytes]) -> None:
    kind, data = case
    try:
        state = journal.parse(data, "j")
    except PlannerInputError as error:
        assert error.source == "j" and error.where.startswith("line ")
        assert error.where != "line 0"
        return
    # a journal changed by anything but a new seal reads only as a prefix of itself (a
    # torn end dropped); one resealed reads only as records that follow from each other,
    # and what it resumes to runs only the plan's steps, and prints nothing raw
    if kind != "reseal":
        assert VALID.startswith(data[: state.length])
    steps = {(s.stage, s.rank) for s in journal.steps_of(state.plan.transaction)}
    ran: list[TransactionStep] = []

    def run_step(step: TransactionStep) -> StepResult:
        ran.append(step)
        return StepResult(exit_code=0)

    report = journal.finish(state, run_step, 3)
    assert {(s.stage, s.rank) for s in ran} <= steps
    said = [*report.host_lines(), journal.verdict(state, report)]
    assert all(line.isprintable() for line in said)


@HOSTILE
@given(hostile())
def test_a_corrupt_journal_given_to_resume_exits_2_with_one_line(case: tuple[str, bytes]) -> None:
    _, data = case
    try:
        journal.parse(data, "j")
        return  # a journal that reads is resumed: the fleet's tests run those
    except PlannerInputError:
        pass
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "j"
        path.write_bytes(data)
        os.chmod(path, 0o600)
        ran = planner_main("apply", "--resume", str(path), "--ssh", "/nonexistent/ssh")
        assert path.read_bytes() == data
    assert ran.code == 2
    assert len(ran.err_lines) == 1 and ran.err.startswith(f"planner: error: {path}: line ")
    assert ran.out == ""
