"""The generated survey's verdict audit: the sample, the mutant written to disk, and fresh
runs that catch a wrong cell, a blind spot of the survey's coverage, and a false timeout."""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from queue import Queue
from typing import Any

import pytest

from plugins.mutate.generated.audit import (
    NOT_REACHED,
    RAN,
    Audit,
    Auditor,
    Cell,
    Judged,
    Runner,
    cells_of,
    control_claim,
    exact_glob,
    kernel_files,
    run_audit,
    sample,
    setup_bound,
)
from plugins.mutate.generated.infection import SPAWN_EVENTS, Watch, may_run_python
from plugins.mutate.generated.mutmut_bridge import (
    GeneratedMutant,
    generate,
    mutant_source,
    read_generated,
)
from plugins.mutate.generated.survey import IMPORTED
from plugins.mutate.generated.workers import MutantResult, Survey
from tests.fakes_mutation.support import copy_project, run_generated, with_witness

ADMITS = "gate.rules.x_admits__mutmut_1"
ADULT, MINOR = "gate.an_adult_is_admitted", "gate.a_minor_is_refused"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gate project with mutmut's mutants generated in it."""
    root = copy_project(tmp_path_factory.mktemp("audit"))
    generate(root, 1)
    return root


@pytest.fixture(scope="module")
def mutants(project: Path) -> dict[str, GeneratedMutant]:
    return {m.name: m for m in read_generated(project)}


def _cells(reasons: dict[str, int]) -> list[Cell]:
    return [
        Cell(f"m{index}", f"w.c{reason}", "green", reason)
        for reason, count in reasons.items()
        for index in range(count)
    ]


def test_the_sample_is_seeded_and_takes_every_reason_in_turn() -> None:
    cells = _cells({RAN: 10, NOT_REACHED: 100, "same_as:x": 1})
    chosen = sample(cells, 9, seed=7)
    assert chosen == sample(cells, 9, seed=7)
    assert chosen != sample(cells, 9, seed=8)
    reasons = [c.reason for c in chosen]
    assert (reasons.count(RAN), reasons.count(NOT_REACHED), reasons.count("same_as:x")) == (4, 4, 1)
    assert chosen == [c for c in cells if c in chosen]  # the survey's order
    assert sample(cells, 500, seed=7) == cells


def test_cells_say_red_where_a_claim_ran_red_and_why_the_others_did_not_run() -> None:
    mutant = GeneratedMutant("p.m.x_f__mutmut_1", "p/m.py", "x_f", "a", "b", None, "", "")  # type: ignore[arg-type]
    killed = MutantResult(mutant, "Killed", ("w.a", "w.b"), {"w.a": "no"}, ("w.a", "w.b"))
    timeout = MutantResult(mutant, "Timeout", ("w.a",), {}, ("w.a",))
    cells = cells_of([killed, timeout], ["w.a", "w.b", "w.c"])
    assert [(c.claim, c.verdict, c.reason) for c in cells] == [
        ("w.a", "red", RAN),
        ("w.b", "green", RAN),
        ("w.c", "green", NOT_REACHED),
    ]


def test_the_mutant_on_disk_is_the_original_file_with_one_function_changed(
    project: Path, mutants: dict[str, GeneratedMutant]
) -> None:
    original = (project / "gate/rules.py").read_text()
    changed = mutant_source(project, mutants[ADMITS])
    lost = set(original.splitlines()) - set(changed.splitlines())
    gained = set(changed.splitlines()) - set(original.splitlines())
    assert (lost, gained) == ({"    return age >= ADULT"}, {"    return age > ADULT"})
    namespace: dict[str, object] = {}
    exec(compile(changed, "rules.py", "exec"), namespace)
    assert namespace["admits"](18) is False  # type: ignore[operator]


def _survey(mutants: dict[str, GeneratedMutant], *results: MutantResult) -> Survey:
    survey = Survey()
    survey.claims = [{"id": ADULT}, {"id": MINOR}]
    survey.baseline_seconds = {ADULT: 0.01, MINOR: 0.01}
    survey.results = {r.mutant.name: r for r in results}
    return survey


def test_a_cell_the_survey_got_wrong_is_a_disagreement(
    project: Path, mutants: dict[str, GeneratedMutant], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", "1")
    # Recorded as surviving both claims: the adult claim really goes red under it.
    wrong = MutantResult(mutants[ADMITS], "Survived", (ADULT, MINOR), {}, (ADULT, MINOR))
    survey = _survey(mutants, wrong)
    runner = Runner(project, ("gate_plugin",), ())
    audit = run_audit(runner, survey, {ADMITS: mutants[ADMITS]}, k=10, seed=1, jobs=2)
    assert audit.control == ""
    assert [(j.cell.claim, j.cell.verdict, j.verdict) for j in audit.judged] == [
        (ADULT, "green", "red"),
        (MINOR, "green", "green"),
    ]
    assert audit.failed
    body = audit.as_json()
    assert (body["sampled"], body["agreed"], body["disagreements"][0]["claim"]) == (2, 1, ADULT)
    assert any("the survey says green, a fresh run says red" in line for line in audit.lines())


def test_a_timeout_that_a_longer_run_does_not_repeat_is_reported_apart(
    project: Path, mutants: dict[str, GeneratedMutant], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", "1")
    hung = "gate.rules.x_count_up__mutmut_5"  # `i -= 1`: never gets there
    claims = ("gate.counting_reaches_n",)
    false_timeout = MutantResult(mutants[ADMITS], "Timeout", (ADULT, MINOR), {}, ())
    true_timeout = MutantResult(mutants[hung], "Timeout", claims, {}, ())
    survey = _survey(mutants, false_timeout, true_timeout)
    survey.baseline_seconds["gate.counting_reaches_n"] = 0.01
    runner = Runner(project, ("gate_plugin",), ())
    chosen = {ADMITS: mutants[ADMITS], hung: mutants[hung]}
    audit = run_audit(runner, survey, chosen, k=0, seed=1, jobs=2)  # confirmed side by side
    assert (audit.judged, audit.confirmed, audit.unconfirmed) == ([], [hung], {ADMITS: "Killed"})
    assert survey.results[ADMITS].status == "Killed"
    assert set(survey.results[ADMITS].killed) == {ADULT}
    assert survey.results[hung].status == "Timeout"


def test_the_claim_that_timed_out_is_rerun_first_and_alone_when_it_times_out_again(
    project: Path, mutants: dict[str, GeneratedMutant], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", "1")
    hung, counting = "gate.rules.x_count_up__mutmut_5", "gate.counting_reaches_n"
    covered = (ADULT, MINOR, counting)
    timeout = MutantResult(mutants[hung], "Timeout", covered, {}, (), timed_out=counting)
    survey = _survey(mutants, timeout)
    survey.baseline_seconds[counting] = 0.01
    judged: list[str] = []
    judge = Auditor.judge

    def recorded(self: Auditor, free: Any, cell: Cell) -> Any:
        judged.append(cell.claim)
        return judge(self, free, cell)

    monkeypatch.setattr(Auditor, "judge", recorded)
    audit = run_audit(Runner(project, ("gate_plugin",), ()), survey, {hung: mutants[hung]}, 0, 1, 1)
    assert (audit.confirmed, judged) == ([hung], [counting])  # not the two quick ones first


def _audited(
    tmp_path: Path, name: str, witness: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """A survey of the gate project's copy with witness ``name`` alone, every cell audited:
    how it ended, and its report."""
    root = copy_project(tmp_path)
    plugin = with_witness(root, name, witness)
    report = root / f"{name}.json"
    done = run_generated(root, name, "--report", str(report), "--audit", "100", plugins=(plugin,))
    return done, json.loads(report.read_text())


BLIND_WITNESS = '''"""Witness ``gate_blind``: a claim that calls the gate in a child process."""

import subprocess
import sys

from claims import ClaimKind, Verdict, claim, expect

CHILD = "from gate.rules import admits; raise SystemExit(0 if admits(18) else 1)"


@claim(ClaimKind.POSITIVE_CONTROL)
def an_adult_is_admitted_in_a_child() -> Verdict:
    """A child process admits an 18-year-old."""
    done = subprocess.run([sys.executable, "-c", CHILD], check=False)
    return expect(done.returncode == 0, "admitted", "the child refused an adult")
'''


def test_the_audit_fails_a_survey_whose_coverage_missed_a_child_process(tmp_path: Path) -> None:
    """The survey records the calls of a claim's own process only: a claim that calls the
    mutated function in a child is judged not reached, green without a run. Run on the
    mutated source, it goes red: the survey exits 9, its report written, the cell named."""
    done, report = _audited(tmp_path, "gate_blind", BLIND_WITNESS)
    assert done.returncode == 9, done.stdout + done.stderr
    body = report["audit"]
    assert [(d["mutant"], d["reason"], d["survey"], d["audit"]) for d in body["disagreements"]] == [
        (ADMITS, NOT_REACHED, "green", "red")
    ]
    assert body["sampled"] == body["cells"] > 1
    assert f"audit disagrees: {ADMITS} × gate_blind.an_adult_is_admitted_in_a_child" in done.stdout
    assert "exit 9" in done.stdout


SETUP_WITNESS = '''"""Witness ``gate_setup``: a claim on what its witness's setup() computed."""

from gate.rules import admits

from claims import ClaimKind, Verdict, claim, expect

FOUND: list[bool] = []


def setup() -> None:
    FOUND[:] = [admits(18)]


@claim(ClaimKind.POSITIVE_CONTROL)
def setup_admitted_an_adult() -> Verdict:
    """What setup() found: an 18-year-old is admitted."""
    return expect(FOUND == [True], "admitted", "setup found an adult refused")
'''


def test_a_cell_setup_explains_is_setup_bound_not_a_failure(tmp_path: Path) -> None:
    """The survey sets a witness up once, with no mutant: a claim that reads what setup()
    computed with the mutated function is green there, red on the mutated source. The
    survey records that setup called the function; the audit lists the cell apart and the
    survey passes (against the child-process blind spot above, which setup does not
    explain: that one fails)."""
    done, body = _audited(tmp_path, "gate_setup", SETUP_WITNESS)
    assert done.returncode == 0, done.stdout + done.stderr
    found = body["setup"]["gate_setup"]
    assert (found["functions"], found["spawned"]) == (["gate.rules.x_admits"], False)
    assert isinstance(found["seconds"], float) and found["seconds"] >= 0
    audit = body["audit"]
    assert audit["disagreements"] == []
    assert [(d["mutant"], d["survey"], d["audit"]) for d in audit["setupBound"]] == [
        (ADMITS, "green", "red")
    ]
    assert "audit: 1 setup-bound, the survey's verdict (its witness set up with" in done.stdout
    assert f"{ADMITS} × gate_setup.setup_admitted_an_adult (green, fresh red)" in done.stdout


def test_only_a_differing_cell_on_what_setup_ran_is_setup_bound() -> None:
    setup = {
        "w": {"functions": ["p.m.x_f"], "spawned": False},
        "s": {"functions": [], "spawned": True},
    }
    green = Cell("p.m.x_f__mutmut_3", "w.c", "green", NOT_REACHED)
    assert setup_bound(green, "red", setup)
    assert setup_bound(green, "crashed", setup)
    assert not setup_bound(green, "green", setup)  # no disagreement
    assert setup_bound(Cell("p.m.x_f__mutmut_3", "w.c", "red", RAN), "green", setup)
    # setup did not call that function, or the claim is another witness's
    assert not setup_bound(Cell("p.m.x_g__mutmut_1", "w.c", "green", RAN), "red", setup)
    assert not setup_bound(Cell("p.m.x_f__mutmut_3", "v.c", "green", RAN), "red", setup)
    # a setup that started a process that may run the project: any function
    assert setup_bound(Cell("p.m.x_g__mutmut_1", "s.c", "red", RAN), "crashed", setup)
    # what importing the witnesses ran (a table made at module level) serves every witness
    imported = {**setup, IMPORTED: {"functions": ["p.k.xǁKeptǁ__init__"], "spawned": False}}
    kept = "p.k.xǁKeptǁ__init____mutmut_1"
    assert setup_bound(Cell(kept, "v.c", "green", NOT_REACHED), "crashed", imported)
    assert not setup_bound(Cell(kept, "v.c", "green", NOT_REACHED), "crashed", setup)


def test_the_kernel_s_own_files_are_those_a_fresh_kernel_imports(tmp_path: Path) -> None:
    """In a tree holding the kernel and the leaf package it shares, the files the kernel
    imports by itself are the kernel's and that package's, never the planner's."""
    repo = Path(__file__).resolve().parents[1]
    for package in ("claims", "filerules", "planner"):
        shutil.copytree(repo / package, tmp_path / package)
    found = kernel_files(Runner(tmp_path, (), ()), tmp_path)
    assert {"filerules/text.py", "filerules/reading.py", "claims/cli.py"} <= found
    assert not [f for f in found if f.startswith("planner/")]


def test_a_cell_the_kernel_runs_the_mutant_of_is_listed_apart_not_a_failure() -> None:
    """A fresh run whose kernel crashed on the shared file's mutant is kernel-bound: listed
    apart with both verdicts; a cell that differs otherwise still fails the audit."""
    shared = Judged(Cell("filerules.text.x_printable__mutmut_2", "w.c", "red", RAN), "crashed", 1.0)
    kernel = Judged(shared.cell, "crashed", 1.0, "exit 1", kernel_bound=True)
    audit = Audit(seed=1, cells=2, judged=[kernel])
    assert (audit.failed, audit.disagreements, audit.kernel_bound) == (False, [], [kernel])
    assert audit.as_json()["kernelBound"][0]["audit"] == "crashed"
    assert any(line.startswith("audit: 1 kernel-bound") for line in audit.lines())
    assert Audit(seed=1, cells=2, judged=[shared]).failed


def test_a_setup_that_starts_an_interpreter_a_shell_or_a_fork_may_run_the_project() -> None:
    """What makes a witness's whole setup unseen: a process that may run the project's code
    (an interpreter, a shell, a fork), not one that cannot (an sshd, a git)."""
    with Watch.watching(SPAWN_EVENTS, may_run_python) as seen:
        subprocess.run(["true"], check=True)
        subprocess.run(["git", "--version"], capture_output=True, check=True)
    assert seen == []
    with Watch.watching(SPAWN_EVENTS, may_run_python) as seen:
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        subprocess.run("true", shell=True, check=True)
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
    assert seen == ["subprocess.Popen", "subprocess.Popen", "os.fork"]


def test_a_negative_audit_is_a_usage_error(tmp_path: Path) -> None:
    done = run_generated(copy_project(tmp_path), "--audit", "-1")
    assert done.returncode == 2
    assert "--audit -1: give how many cells to re-judge" in done.stderr


def test_the_audit_selects_one_claim_by_its_exact_id_case_claims_too() -> None:
    ids = [
        "arm_launch[v41_group_a].every_unit_is_planned_whole",
        "arm_launch[glm_group_b].every_unit_is_planned_whole",
        "arm_launch[v41_group_a].every_unit_is_planned_whole_too",
        "gate.a_minor_is_refused",
        "gate.a_minor_is_refused_twice",
    ]
    for claim in ids:
        assert [i for i in ids if fnmatch.fnmatchcase(i, exact_glob(claim))] == [claim]


def test_cells_that_mostly_wait_take_the_waiting_slots_longest_first_and_the_control_is_cheap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fleet witness's cells and a claim that mostly waited in the baseline run in the
    waiting slot, the one with the longest limit first; the rest in the ``jobs`` slot; the
    results come back in the sample's order; the control is the claim whose witness set up
    quickest (then the quicker claim), not a fleet's."""
    survey = Survey()
    survey.setup = {
        "fleet": {"functions": [], "spawned": True, "seconds": 24.0},
        "quick": {"functions": [], "spawned": False, "seconds": 0.01},
        "forks": {"functions": [], "spawned": True, "seconds": 0.2},  # spawns, but briefly
    }
    survey.baseline_seconds = {
        "fleet.short": 0.1,
        "fleet.long": 3.0,
        "quick.sleeps": 2.0,
        "quick.computes": 2.0,
        "quick.brief": 0.5,
        "forks.brief": 0.1,
    }
    survey.baseline_cpu = {"quick.sleeps": 0.1, "quick.computes": 2.0, "quick.brief": 0.5}
    auditor = Auditor(Runner(Path("."), (), ()), survey, {}, jobs=1, waiting=1)
    waiting = {c for c in survey.baseline_seconds if auditor.waits(c)}
    assert waiting == {"fleet.short", "fleet.long", "quick.sleeps"}

    cells = [Cell("m", claim, "green", RAN) for claim in survey.baseline_seconds]
    assert control_claim(auditor, cells) == "quick.brief"

    seen: list[tuple[str, str]] = []

    def judged(self: Auditor, free: Any, cell: Cell) -> Judged:
        seen.append((cell.claim, threading.current_thread().name.rpartition("_")[0]))
        return Judged(cell, "green", 0.0, "", False, False)

    monkeypatch.setattr(Auditor, "judge", judged)
    results = auditor.judge_all(Queue(), cells)
    assert [j.cell.claim for j in results] == [c.claim for c in cells]
    slot = dict(seen)
    assert len({slot[c] for c in waiting}) == 1
    assert not {slot[c] for c in waiting} & {slot[c] for c in slot if c not in waiting}
    in_waiting_slot = [c for c, _ in seen if c in waiting]
    # limits: twice the start-up (the control's 30 s, plus 24 s of fleet) + 3 × the budget
    assert [round(auditor.limit(c)) for c in in_waiting_slot] == [204, 126, 117]
    assert in_waiting_slot == ["fleet.long", "quick.sleeps", "fleet.short"]
