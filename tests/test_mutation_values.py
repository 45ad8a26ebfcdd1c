"""``claims mutate --values``: operators on small frozen values, boundaries discovered from
return annotations, the stable seeded choice, and an end-to-end survey of the fake desk."""

from __future__ import annotations

import importlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import attrs
import pytest
from pydantic import BaseModel, ConfigDict

from planner.values import Frozen
from plugins.mutate.patching import ForcedFailure
from plugins.mutate.stryker import validate
from plugins.mutate.values.boundaries import carries_values, discover, packages_of
from plugins.mutate.values.command import ValueMutant, select_sites
from plugins.mutate.values.operators import (
    Attr,
    Item,
    Line,
    Site,
    apply,
    enumerate_sites,
    parse_path,
    render_path,
)
from plugins.mutate.values.survey import ValueSurveyRequest, ValueWorker
from tests.fakes_mutation.support import CLAIMS_EXE, HERE, REPO, tree_digest

UNIT = "[Unit]\nDescription=desk\nAfter=network.target\n\n[Service]\nExecStart=/bin/desk\n"
AT = datetime(2026, 1, 2, 9, 0, 0)


class Seat(Frozen):
    name: str
    row: int
    aisle: int
    argv: tuple[str, ...]


class Booking(Frozen):
    seats: tuple[Seat, ...]
    at: datetime
    open: bool
    unit: str
    env: tuple[tuple[str, str], ...]


def _booking() -> Booking:
    return Booking(
        seats=(
            Seat(name="ann", row=1, aisle=3, argv=("desk", "--name", "ann")),
            Seat(name="bob", row=2, aisle=2, argv=("desk", "desk", "--name", "bob")),
        ),
        at=AT,
        open=True,
        unit=UNIT,
        env=(("A", "1"), ("B", "B")),
    )


def _site(path: str, operator: str, argument: str = "") -> Site:
    return Site("desk.book", parse_path(path), operator, argument)


def _seat(booking: Booking, index: int, **change: Any) -> Booking:
    seats = list(booking.seats)
    seats[index] = seats[index].model_copy(update=change)
    return booking.model_copy(update={"seats": tuple(seats)})


# --- operators -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator", "argv"),
    [
        ("drop", ("desk", "ann")),
        ("duplicate", ("desk", "--name", "--name", "ann")),
        ("swap_next", ("desk", "ann", "--name")),
    ],
)
def test_an_element_operator_changes_that_element_and_nothing_else(
    operator: str, argv: tuple[str, ...]
) -> None:
    before = _booking()
    after = apply(_site("seats[0].argv[1]", operator), before)
    assert after == _seat(before, 0, argv=argv)


@pytest.mark.parametrize(
    ("operator", "number", "unit"),
    [
        ("delete_line", 2, "[Unit]\nAfter=network.target\n\n[Service]\nExecStart=/bin/desk\n"),
        (
            "swap_line",
            2,
            "[Unit]\nAfter=network.target\nDescription=desk\n\n[Service]\nExecStart=/bin/desk\n",
        ),
        (
            "rekey",
            6,
            "[Unit]\nDescription=desk\nAfter=network.target\n\n[Service]\nX-ExecStart=/bin/desk\n",
        ),
    ],
)
def test_a_line_operator_changes_that_line_and_nothing_else(
    operator: str, number: int, unit: str
) -> None:
    before = _booking()
    assert apply(_site(f"unit#{number}", operator), before) == before.model_copy(
        update={"unit": unit}
    )


def test_scalar_operators_move_by_one_and_negate() -> None:
    before = _booking()
    assert apply(_site("seats[1].row", "plus_one"), before) == _seat(before, 1, row=3)
    assert apply(_site("seats[1].row", "minus_one"), before) == _seat(before, 1, row=1)
    plus = apply(_site("at", "plus_1s"), before)
    assert plus == before.model_copy(update={"at": datetime(2026, 1, 2, 9, 0, 1)})
    minus = apply(_site("at", "minus_1s"), before)
    assert minus == before.model_copy(update={"at": datetime(2026, 1, 2, 8, 59, 59)})
    assert apply(_site("open", "negate"), before) == before.model_copy(update={"open": False})
    # the calendar's last second has none after it, its first none before: no such site
    for end, left in ((datetime.max, ["minus_1s"]), (datetime.min, ["plus_1s"])):
        value = before.model_copy(update={"at": end})
        found = enumerate_sites("b", value, type(value))
        assert [f.site.operator for f in found if f.site.path == (Attr("at"),)] == left


def test_sibling_fields_and_fixed_tuple_positions_swap() -> None:
    before = _booking()
    assert apply(_site("seats[0].row", "swap_fields", "aisle"), before) == _seat(
        before, 0, row=3, aisle=1
    )
    swapped = apply(_site("env[0][0]", "swap_fields", "1"), before)
    assert swapped == before.model_copy(update={"env": (("1", "A"), ("B", "B"))})


def test_a_path_the_value_lacks_leaves_it_unchanged() -> None:
    before = _booking()
    for site in (
        _site("seats[5].argv[0]", "drop"),
        _site("seats[0].argv[2]", "swap_next"),
        _site("seats[0].nothing", "plus_one"),
        _site("seats[0].name", "plus_one"),
        _site("unit#40", "delete_line"),
        _site("unit#1", "rekey"),
    ):
        assert apply(site, before) is before, site.id
    assert apply(_site("[0]", "drop"), ("only",)) == ()
    assert apply(_site("[3]", "drop"), ("only",)) == ("only",)


@dataclass(frozen=True)
class FrozenTicket:
    seat: int
    row: int
    route: tuple[str, ...]


@dataclass
class LooseTicket:
    seat: int


class Stop(NamedTuple):
    name: str
    minute: int
    platform: int


@attrs.frozen
class Fare:
    zone: str = attrs.field(validator=attrs.validators.in_(["a", "b"]))
    label: str = "day"
    cents: int = 0
    pence: int = 0


@attrs.define
class LooseFare:
    cents: int


def test_frozen_dataclasses_and_named_tuples_are_records_walked_and_rebuilt() -> None:
    ticket = FrozenTicket(seat=4, row=7, route=("a", "b"))
    found = {f.site.id for f in enumerate_sites("t.ticket", ticket, FrozenTicket)}
    assert {"t.ticket:seat:plus_one", "t.ticket:seat:swap_fields(row)"} <= found
    assert "t.ticket:route[0]:drop" in found
    assert apply(_site("seat", "swap_fields", "row"), ticket) == FrozenTicket(7, 4, ("a", "b"))
    assert apply(_site("route[1]", "drop"), ticket) == FrozenTicket(4, 7, ("a",))
    assert ticket == FrozenTicket(4, 7, ("a", "b"))  # the original is never changed
    stop = Stop("Hauptbahnhof", 12, 3)
    found = {f.site.id for f in enumerate_sites("t.stop", stop, Stop)}
    # Walked by field name, not by index as a plain tuple would be.
    assert "t.stop:minute:swap_fields(platform)" in found
    assert not any("[" in site for site in found)
    moved = apply(_site("minute", "plus_one"), stop)
    assert (type(moved), moved) == (Stop, Stop("Hauptbahnhof", 13, 3))


def test_frozen_attrs_classes_are_records_rebuilt_without_their_validators() -> None:
    fare = Fare("a", cents=120, pence=5)
    found = {f.site.id for f in enumerate_sites("t.fare", fare, Fare)}
    assert {"t.fare:cents:plus_one", "t.fare:cents:swap_fields(pence)"} <= found
    assert apply(_site("cents", "swap_fields", "pence"), fare) == Fare("a", cents=5, pence=120)
    assert fare == Fare("a", cents=120, pence=5)
    # A value the validator would refuse still reaches the claims, as a wrong return would.
    swapped = apply(_site("zone", "swap_fields", "label"), fare)
    assert (type(swapped), swapped.zone, swapped.label) == (Fare, "day", "a")
    with pytest.raises(ValueError):
        Fare("day")


def test_no_enumerated_operator_yields_the_original_value() -> None:
    value = _booking()
    found = list(enumerate_sites("desk.book", value, Booking))
    assert len(found) > 40
    for f in found:
        assert apply(f.site, value) != value, f.site.id
    ids = {f.site.id for f in found}
    # equal neighbours and equal siblings are no mutants
    assert "desk.book:seats[1].argv[0]:swap_next" not in ids
    assert "desk.book:env[1][0]:swap_fields(1)" not in ids
    assert "desk.book:seats[1].row:swap_fields(aisle)" not in ids
    # blank lines are no sites; the unit's Key=Value lines are rekeyed, its sections not
    assert not any(i.startswith("desk.book:unit#4:") for i in ids)
    assert "desk.book:unit#1:rekey" not in ids
    assert "desk.book:unit#6:rekey" in ids


def test_ids_are_readable_stable_and_parse_back() -> None:
    first = [f.site.id for f in enumerate_sites("desk.book", _booking(), Booking)]
    again = [f.site.id for f in enumerate_sites("desk.book", _booking(), Booking)]
    assert first == again
    assert "desk.book:seats[1].argv[2]:drop" in first
    assert "desk.book:seats[0].row:swap_fields(aisle)" in first
    assert "desk.book:at:plus_1s" in first
    for text in first:
        assert Site.parse(text).id == text
    assert render_path((Attr("hosts"), Item(2), Attr("unit"), Line(5))) == "hosts[2].unit#5"
    assert _site("hosts[2].unit#5", "rekey").shape == "hosts[].unit#"


def test_tuples_of_models_are_walked_by_index_and_refusal_like_models_count() -> None:
    class Refusal(BaseModel):
        model_config = ConfigDict(frozen=True)
        code: str
        location: tuple[str | int, ...]

    refusals = (Refusal(code="a", location=("x", 1)), Refusal(code="b", location=("y",)))
    ids = {f.site.id for f in enumerate_sites("r", refusals, tuple[Refusal, ...])}
    assert {"r:[0]:drop", "r:[0]:swap_next", "r:[0].location[1]:plus_one"} <= ids
    assert carries_values(tuple[Refusal, ...])


# --- discovery -------------------------------------------------------------------------------

PLANNER_V1 = """
from __future__ import annotations
from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Plan(Frozen):
    argv: tuple[str, ...]


def plan() -> Plan:
    return Plan(argv=("a", "b"))


def count() -> int:
    return 2


def _private() -> Plan:
    return plan()
"""

PLANNER_V2 = (
    PLANNER_V1.replace(
        "    argv: tuple[str, ...]\n", "    argv: tuple[str, ...]\n    port: int = 80\n"
    )
    + """

def unit() -> str:
    return "[Unit]\\nA=1\\nB=2\\n"
"""
)


def _fake_planner(root: Path, name: str, source: str) -> None:
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text('"""A fake planner."""\n')
    (package / "core.py").write_text(textwrap.dedent(source))


def test_discovery_finds_a_new_boundary_and_a_new_field_without_a_written_mutant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_planner(tmp_path, "fakeplan_v1", PLANNER_V1)
    _fake_planner(tmp_path, "fakeplan_v2", PLANNER_V2)
    first = discover(["fakeplan_v1"], tmp_path)
    second = discover(["fakeplan_v2"], tmp_path)
    assert [b.name for b in first] == ["plan"]
    assert [b.name for b in second] == ["plan", "unit"]
    assert (first[0].file, first[0].line) == ("fakeplan_v1/core.py", 14)

    def ids(boundary: Any) -> set[str]:
        module = sys.modules[boundary.module]
        value = getattr(module, boundary.name)()
        return {f.site.id for f in enumerate_sites(boundary.path, value, boundary.returns)}

    assert "fakeplan_v2.core.plan:port:plus_one" in ids(second[0])
    assert not any(":port:" in i for i in ids(first[0]))
    assert "fakeplan_v2.core.unit:#2:delete_line" in ids(second[1])


@pytest.mark.parametrize(
    ("annotation", "boundary"),
    [
        (str, True),
        (tuple[str, ...], True),
        (list[str], True),
        (tuple[tuple[str, str], ...], True),
        (Frozen, True),
        (Frozen | None, True),
        (tuple[Frozen | None, tuple[Frozen, ...]], True),
        (int, False),
        (bytes, False),
        (Path, False),
        (type(None), False),
        (BaseModel, False),
        (tuple[str, int], False),
        (dict[str, str], False),
        (FrozenTicket, True),
        (tuple[FrozenTicket, ...], True),
        (Stop, True),
        (LooseTicket, False),
        (Fare, True),
        (LooseFare, False),
    ],
)
def test_the_boundary_rule(annotation: Any, boundary: bool) -> None:
    assert carries_values(annotation) is boundary


def test_the_planner_boundaries_include_the_rendered_artifacts() -> None:
    found = {b.path for b in discover(packages_of([Path("planner")]), REPO)}
    assert {
        "planner.realize.create_argv",
        "planner.realize.unit_text",
        "planner.launch.host_env",
        "planner.arm_launch.plan_arm",
        "planner.admission.arm_launch_admission",
        "planner.apply.preflight_body",
    } <= found
    assert "planner.fit.allowance_gib" not in found


# --- selection -------------------------------------------------------------------------------


def _mutant(boundary: str, operator: str, shape: str, index: int) -> ValueMutant:
    name = f"{boundary}:{shape.replace('[]', f'[{index}]')}:{operator}"
    return ValueMutant(name, boundary, operator, shape, "", "f.py", 1, ("w.c",))


def test_the_choice_is_stable_bounded_per_operator_and_spread_over_fields() -> None:
    mutants = [
        _mutant("m.f", op, shape, i)
        for op in ("drop", "duplicate")
        for shape in ("argv[]", "env[]", "steps[]")
        for i in range(30)
    ] + [_mutant("m.g", "drop", "argv[]", 0)]
    chosen = select_sites(mutants, 4)
    assert chosen == select_sites(list(mutants), 4)
    groups: dict[tuple[str, str], list[ValueMutant]] = {}
    for m in chosen:
        groups.setdefault((m.boundary, m.operator), []).append(m)
    assert {k: len(v) for k, v in groups.items()} == {
        ("m.f", "drop"): 4,
        ("m.f", "duplicate"): 4,
        ("m.g", "drop"): 1,
    }
    assert all(len({m.shape for m in v}) == 3 for k, v in groups.items() if k[0] == "m.f")
    assert [m.name for m in chosen] == [m.name for m in mutants if m in chosen]
    newcomer = _mutant("m.f", "drop", "argv[]", 99)
    again = select_sites([*mutants, newcomer], 4)
    assert len(set(m.name for m in chosen) - set(m.name for m in again)) <= 1
    assert select_sites(mutants, 0) == mutants


# --- end to end on the fake desk -------------------------------------------------------------

DESK = HERE / "values_project"


@dataclass(frozen=True)
class Run:
    project: Path
    done: subprocess.CompletedProcess[str]
    report: dict[str, Any]

    def mutants(self) -> dict[str, dict[str, Any]]:
        return {m["id"]: m for f in self.report["files"].values() for m in f["mutants"]}


def _run(project: Path, *args: str, values: bool = True) -> subprocess.CompletedProcess[str]:
    """``claims mutate --values ARGS`` in ``project``, this checkout's mutation package first."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), str(REPO)]),
        "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    return subprocess.run(
        [str(CLAIMS_EXE), "-p", "mutation.plugin", "-p", "desk_plugin", "mutate"]
        + (["--values"] if values else [])
        + list(args),
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _values(project: Path, name: str, *args: str) -> Run:
    report = project / f"{name}.json"
    done = _run(project, "--report", str(report), *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return Run(project, done, json.loads(report.read_text()))


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("desk") / "project"
    shutil.copytree(DESK, target, ignore=shutil.ignore_patterns("__pycache__", "target"))
    return target


@pytest.fixture(scope="module")
def full(desk: Path) -> Iterator[Run]:
    before = tree_digest(desk / "desk")
    yield _values(desk, "full", "--per-operator", "0", "--jobs", "2")
    assert tree_digest(desk / "desk") == before


STRONG = "desk.every_seat_has_its_whole_argv"
WEAK = "desk.a_booking_has_seats"


def test_a_claim_that_reads_the_argv_kills_and_one_that_counts_misses(full: Run) -> None:
    mutants = full.mutants()
    dropped = mutants["desk.plan.book:seats[0].argv[1]:drop"]
    assert dropped["status"] == "Killed"
    assert dropped["killedBy"] == [STRONG]
    assert dropped["coveredBy"] == [WEAK, STRONG]
    inner = mutants["desk.plan.seat_argv:[3]:swap_next"]
    assert (inner["status"], inner["killedBy"]) == ("Killed", [STRONG])
    missed = mutants["desk.plan.book:unit#2:rekey"]
    assert (missed["status"], missed["killedBy"]) == ("Survived", [])
    assert mutants["desk.plan.book:seats[1]:drop"]["killedBy"] == [STRONG]
    assert mutants["desk.plan.unused::unreached"]["status"] == "NoCoverage"
    for m in mutants.values():
        assert set(m["killedBy"]) <= set(m["coveredBy"])


def test_the_report_is_a_stryker_report_at_the_boundary_def_lines(full: Run) -> None:
    assert validate(full.report) == []
    assert set(full.report["files"]) == {"desk/plan.py"}
    source = full.report["files"]["desk/plan.py"]["source"].splitlines()
    mutant = full.mutants()["desk.plan.book:seats[0].row:plus_one"]
    line = mutant["location"]["start"]["line"]
    assert source[line - 1].startswith("def book(")
    assert (mutant["mutatorName"], mutant["description"]) == ("plus_one", "seats[0].row: 1 → 2")
    tests = full.report["testFiles"]["desk_witness.py"]["tests"]
    assert [t["id"] for t in tests] == [STRONG, WEAK]


def test_the_summary_counts_every_site_and_tables_the_module(full: Run) -> None:
    out = full.done.stdout
    sites = len(full.mutants()) - 1
    assert f"enumerated {sites}, surveyed {sites}" in out
    assert "4 boundaries (1 called by no claim)" in out
    assert "baseline: 2/2 claims green; forced fail (every boundary raises): 2/2" in out
    # the floors' per-file table comes last (the minimal-set table before it starts alike)
    row = [line for line in out.splitlines() if line.startswith("desk/plan.py ")][-1]
    killed = sum(1 for m in full.mutants().values() if m["status"] == "Killed")
    survived = sum(1 for m in full.mutants().values() if m["status"] == "Survived")
    assert row.split()[1:4] == [str(killed), str(survived), "1"]
    assert killed + survived + 1 == sites + 1
    assert "desk.plan.book:unit#2:rekey" in out
    timing = full.report["timing"]
    assert timing["after"] == 0 and timing["jobs"] == 2
    assert f"time: {timing['total']:.0f} s in all: enumeration " in out


def test_a_capped_run_says_how_many_it_surveyed_and_shards_partition(desk: Path, full: Run) -> None:
    capped = _values(desk, "capped", "--per-operator", "1", "--show-survivors", "2")
    sites = len(full.mutants()) - 1
    surveyed = len(capped.mutants()) - 1
    assert 0 < surveyed < sites
    assert f"enumerated {sites}, surveyed {surveyed}" in capped.done.stdout
    assert ", the first 2 shown (--show-survivors)" in capped.done.stdout
    shards = [
        _values(desk, f"shard{k}", "--per-operator", "1", "--shard", f"{k}/2") for k in (1, 2)
    ]
    first, second = (set(s.mutants()) for s in shards)
    assert first and second and not first & second
    assert first | second == set(capped.mutants())
    for mutant_id, m in capped.mutants().items():
        other = shards[0].mutants().get(mutant_id) or shards[1].mutants()[mutant_id]
        assert other["status"] == m["status"]
    merged = desk / "merged.json"
    done = _run(
        desk,
        "--merge-reports",
        str(desk / "shard1.json"),
        str(desk / "shard2.json"),
        "--report",
        str(merged),
    )
    assert done.returncode == 0, done.stderr
    assert {
        m["id"] for f in json.loads(merged.read_text())["files"].values() for m in f["mutants"]
    } == set(capped.mutants())
    assert "strength" in done.stdout and "desk/plan.py" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", "HEAD"), "--since do not apply to --values"),
        (("--generated",), "--generated do not apply to --values"),
        (("--per-operator", "-1"), "--per-operator and --show-survivors take a count"),
        (("--file", "desk/nothing.py"), "--file desk/nothing.py: no such source file"),
    ],
)
def test_misuse_of_values_exits_2(desk: Path, args: tuple[str, ...], message: str) -> None:
    done = _run(desk, *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_declared_mode_refuses_value_options(desk: Path) -> None:
    done = _run(desk, "--per-operator", "3", values=False)
    assert done.returncode == 2
    assert "--per-operator only apply to --generated or --values" in done.stderr


# --- the worker's patches --------------------------------------------------------------------


def test_a_mutant_reaches_every_call_and_is_restored_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(DESK))
    monkeypatch.setenv("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", "1")
    plan = importlib.import_module("desk.plan")
    request = ValueSurveyRequest(
        witnesses=(), mutants=(), project_root=str(DESK), packages=("desk",)
    )
    worker = ValueWorker(request, io.StringIO())
    assert set(worker.boundaries) == {
        "desk.plan.seat_argv",
        "desk.plan.unit_text",
        "desk.plan.book",
        "desk.plan.unused",
    }
    original = plan.seat_argv
    worker.switch("desk.plan.seat_argv:[0]:drop")
    try:
        assert plan.seat_argv("ann", 1) == ("--name", "ann", "--row", "1")
        assert [s.argv[0] for s in plan.book(("ann", "bob")).seats] == ["--name", "--name"]
    finally:
        worker.switch("")
    assert plan.seat_argv is original
    assert plan.book(("ann",)).seats[0].argv[0] == "desk"
    worker.switch("fail")
    try:
        with pytest.raises(ForcedFailure):
            plan.book(("ann",))
    finally:
        worker.switch("")
    assert plan.book(("ann",)).unit.startswith("[Unit]")


def test_a_project_without_a_boundary_is_told_so_with_exit_2(tmp_path: Path) -> None:
    (tmp_path / "counts").mkdir()
    (tmp_path / "counts" / "__init__.py").write_text(
        "def total(values: list[int]) -> int:\n    return sum(values)\n", encoding="utf-8"
    )
    (tmp_path / "counts_witness.py").write_text(
        "from claims import ClaimKind, Verdict, claim, expect_equal\n"
        "from counts import total\n\n\n@claim(ClaimKind.PLANNED_SHAPE)\n"
        "def three_make_six() -> Verdict:\n"
        '    """1, 2 and 3 make 6."""\n'
        '    return expect_equal(6, total([1, 2, 3]), "total")\n',
        encoding="utf-8",
    )
    (tmp_path / "counts_plugin.py").write_text(
        "from claims import hookimpl\n\n\n@hookimpl\ndef claims_register_witnesses(register):\n"
        '    register("counts", "counts_witness")\n',
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.claims]\nplugins = ["counts_plugin"]\npythonpath = ["."]\n\n'
        '[tool.mutmut]\nsource_paths = ["counts"]\n',
        encoding="utf-8",
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "CLAIMS_DISABLE_PLUGIN_AUTOLOAD")
    }
    done = subprocess.run(
        [str(CLAIMS_EXE), "mutate", "--values"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        "claims: error: --values found no boundary in counts: a boundary is a public function"
    )


def test_a_values_survey_stopped_early_says_so_and_no_merge_takes_it(desk: Path) -> None:
    stopped = _values(desk, "stopped", "--stop-after", "0")
    why = stopped.report["config"]["stopped"]
    assert why.startswith("--stop-after 0 s: 0 of ") and why.endswith(" mutants judged")
    assert f"stopped early, {why}: the report holds those\n" in stopped.done.stdout
    assert [m["status"] for m in stopped.mutants().values()] == ["NoCoverage"]  # unreached
    merged = _run(desk, "--merge-reports", str(desk / "stopped.json"))
    assert merged.returncode == 2 and "shard 1/1 stopped early" in merged.stderr
