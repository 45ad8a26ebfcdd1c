"""Exact cell skipping: the purity guard, the exact comparison, and a survey whose kill
matrix with skipping is the matrix without it, cell by cell."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from plugins.mutate.generated.infection import Uncomparable, outcome_of, same
from plugins.mutate.generated.purity import Guard
from tests.fakes_mutation import purity_cases as cases
from tests.fakes_mutation.support import copy_project, run_generated

GUARD = Guard(frozenset({"tests"}))


def test_the_guard_admits_a_function_of_its_arguments_and_constants() -> None:
    assert GUARD.refusal(cases.pure) is None
    assert GUARD.refusal(cases.digests) is None  # hashlib.sha256 is _hashlib's
    assert GUARD.refusal(cases.names_a_pure_path) is None
    assert GUARD.refusal(cases.refuses_a_bad_number) is None


@pytest.mark.parametrize(
    ("function", "why"),
    [
        (cases.reads_clock, "uses time.time (module time, not a pure one)"),
        (cases.reads_clock_through_a_helper, "_stamp uses time.monotonic"),
        (cases.asks_datetime_for_now, "calls .now()"),
        (cases.opens_a_file, "opens_a_file calls .read()"),
        (cases.opens, "opens uses open()"),
        (cases.reads_a_path, "calls .read_text()"),
        (cases.reads_a_mutable_global, "reads the mutable global SEEN"),
        (cases.reads_a_rebound_global, "reads COUNTER, which its module rebinds"),
        (cases.bump, "declares global"),
        (cases.reads_the_environment, "reads the mutable global os.environ"),
        (cases.prints, "uses print()"),
        (cases.calls_what_it_is_given, "calls f, a callable it was given"),
        (cases.imports_os_inside, "imports os"),
        (cases.names_a_path, "uses the class Path of pathlib"),
    ],
)
def test_the_guard_refuses_and_says_why(function: Any, why: str) -> None:
    refusal = GUARD.refusal(function)
    assert refusal is not None and why in refusal, refusal


@dataclasses.dataclass
class Point:
    x: object
    y: object


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 1, True),
        (1, True, False),
        (1, 1.0, False),
        (0.0, -0.0, False),
        (float("nan"), float("nan"), True),
        ((1, "a"), (1, "a"), True),
        ((1,), [1], False),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # the same dict, iterated otherwise
        (Point(1, (2,)), Point(1, (2,)), True),
        (Point(1, (2,)), Point(1, [2]), False),
        (ValueError, ValueError, True),
    ],
)
def test_same_is_equal_types_values_and_order_all_the_way_down(
    a: object, b: object, expected: bool
) -> None:
    assert same(a, b) is expected


def test_a_value_same_cannot_compare_is_uncomparable() -> None:
    with pytest.raises(Uncomparable):
        same(threading.Lock(), threading.Lock())


def _matrix(report: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    return {
        m["id"]: (m["status"], m["killedBy"])
        for entry in report["files"].values()
        for m in entry["mutants"]
    }


def test_skipping_gives_the_matrix_of_running_every_cell(tmp_path: Path) -> None:
    """The gate survey with skipping and with ``--no-skip``: every mutant's status and the
    claims that killed it are the same; some cells were decided without a run, each with
    its reason in the report, and the audit agrees with them."""
    project = copy_project(tmp_path)
    reports, outs = {}, {}
    for mode, extra in (("skip", ()), ("no-skip", ("--no-skip",))):
        report = project / f"{mode}.json"
        worth = ("--skip-worth", "0")  # the gate's claims take microseconds: replay them all
        done = run_generated(project, "--report", str(report), "--audit", "8", *worth, *extra)
        assert done.returncode == 6, done.stdout + done.stderr  # the gate's crashing mutant
        reports[mode], outs[mode] = json.loads(report.read_text()), done.stdout
    assert _matrix(reports["skip"]) == _matrix(reports["no-skip"])
    # what replay had to work with: guard() ends the process, the rest are pure
    replay = reports["skip"]["replay"]
    assert replay["admitted"] == [
        f"gate.rules.x_{f}" for f in ("admits", "count_up", "pairs", "unused")
    ]
    assert list(replay["refused"]) == ["gate.rules.x_guard"] and replay["spawning"] == []
    assert "uses os._exit" in replay["refused"]["gate.rules.x_guard"]
    assert "cell skipping: the purity guard admitted 4 of 5 surveyed functions" in outs["skip"]
    assert "replay" not in reports["no-skip"] and "cell skipping" not in outs["no-skip"]
    decided = reports["skip"]["audit"]["cellsByReason"]
    assert decided.get("not_infected", 0) + decided.get("same_as", 0) > 0, decided
    assert "not_infected" not in reports["no-skip"]["audit"]["cellsByReason"]
    skipped = [
        reason
        for entry in reports["skip"]["files"].values()
        for m in entry["mutants"]
        for reason in m.get("skippedCells", {}).values()
    ]
    assert skipped and all(r == "not_infected" or r.startswith("same_as:") for r in skipped)
    audit = reports["skip"]["audit"]
    assert audit["agreed"] == audit["sampled"] == 8
    assert {"not_infected", "same_as"} <= set(audit["byReason"])


class Refused(Exception):
    def __init__(self, code: int) -> None:
        super().__init__("refused")
        self.code = code


def _refuse(code: int) -> None:
    raise Refused(code)


def _append(items: list[int], item: int) -> None:
    items.append(item)


def _copied(items: list[int]) -> list[int]:
    return list(items)


def _itself(items: list[int]) -> list[int]:
    return items


def test_an_outcome_is_the_result_the_exception_and_the_arguments_after() -> None:
    def differs(f: Any, a: tuple[Any, ...], g: Any, b: tuple[Any, ...]) -> bool:
        return not outcome_of(f, (a, {})).matches(outcome_of(g, (b, {})))

    assert not differs(_refuse, (1,), _refuse, (1,))
    assert differs(_refuse, (1,), _refuse, (2,))  # the same message, another code
    assert differs(_append, ([], 1), _append, ([], 2))  # the argument's state after the call
    assert differs(_copied, ([1],), _itself, ([1],))  # an equal copy, or the argument itself
