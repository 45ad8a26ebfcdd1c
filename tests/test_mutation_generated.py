"""``claims mutate --generated`` on the fake gate project: mutmut's mutants, the full matrix,
every status, the Stryker report, shards that partition and merge, equivalents."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claims import UsageError
from plugins.mutate.generated.command import in_scope
from plugins.mutate.generated.mutmut_bridge import (
    MUTANTS_DIR,
    GeneratedMutant,
    Span,
    generate,
    read_generated,
    source_paths,
    untrampoline,
)
from plugins.mutate.stryker import REQUIRED_FILE, REQUIRED_MUTANT, REQUIRED_TOP, validate
from tests.fakes_mutation.support import copy_project, run_generated, run_mutate, tree_digest


@dataclass(frozen=True)
class Survey:
    project: Path
    done: subprocess.CompletedProcess[str]
    report: dict[str, Any]

    def mutants(self) -> dict[str, dict[str, Any]]:
        return {m["id"]: m for f in self.report["files"].values() for m in f["mutants"]}


CRASHING = "gate.rules.x_guard__mutmut_1"
"""The gate's one mutant that kills its worker: a survey holding it exits 6, report written."""


def _survey(project: Path, name: str, *args: str) -> Survey:
    report = project / f"{name}.json"
    done = run_generated(project, "--report", str(report), *args)
    body = json.loads(report.read_text())
    crashed = any(m["id"] == CRASHING for f in body["files"].values() for m in f["mutants"])
    assert done.returncode == (6 if crashed else 0), done.stdout + done.stderr
    return Survey(project, done, body)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("gate"))


@pytest.fixture(scope="module")
def full(project: Path) -> Iterator[Survey]:
    before = tree_digest(project / "gate")
    yield _survey(
        project, "full", "--equivalent", str(project / "equivalent.toml"), "--audit", "12"
    )
    assert tree_digest(project / "gate") == before


def test_every_status_shows_up_where_the_gate_rules_put_it(full: Survey) -> None:
    status = {name.rpartition(".")[2]: m["status"] for name, m in full.mutants().items()}
    assert status["x_admits__mutmut_1"] == "Killed"
    assert status["x_count_up__mutmut_2"] == "Survived"
    assert {status["x_count_up__mutmut_4"], status["x_count_up__mutmut_5"]} == {"Timeout"}
    assert status["x_guard__mutmut_1"] == "RuntimeError"
    assert {status["x_unused__mutmut_1"], status["x_unused__mutmut_2"]} == {"NoCoverage"}
    assert {status["x_pairs__mutmut_9"], status["x_pairs__mutmut_10"]} == {"Ignored"}


def test_the_matrix_is_full_killed_by_among_covered_by(full: Survey) -> None:
    mutants = full.mutants()
    admits = mutants["gate.rules.x_admits__mutmut_1"]
    assert admits["coveredBy"] == ["gate.a_minor_is_refused", "gate.an_adult_is_admitted"]
    assert admits["killedBy"] == ["gate.an_adult_is_admitted"]
    for mutant in mutants.values():
        assert set(mutant["killedBy"]) <= set(mutant["coveredBy"])
    assert mutants["gate.rules.x_guard__mutmut_1"]["coveredBy"] == [
        "gate.the_guard_lets_ok_through"
    ]


def test_the_report_has_the_schema_keys_locations_and_the_claims(full: Survey) -> None:
    assert validate(full.report) == []
    assert all(key in full.report for key in REQUIRED_TOP)
    entry = full.report["files"]["gate/rules.py"]
    assert all(key in entry for key in REQUIRED_FILE)
    assert all(key in m for m in entry["mutants"] for key in REQUIRED_MUTANT)
    admits = full.mutants()["gate.rules.x_admits__mutmut_1"]
    assert admits["location"] == {
        "start": {"line": 12, "column": 16},
        "end": {"line": 12, "column": 18},
    }
    assert (admits["replacement"], admits["mutatorName"]) == (">", "EqualityOperator")
    tests = full.report["testFiles"]["gate_witness.py"]["tests"]
    assert len(tests) == 6 and tests[0]["id"] == "gate.an_adult_is_admitted"


def test_the_audit_agrees_and_confirms_every_timeout(full: Survey) -> None:
    audit = full.report["audit"]
    assert (audit["sampled"], audit["agreed"], audit["control"]) == (12, 12, "passed")
    assert set(audit["byReason"]) == {"ran", "not_reached"}
    # count_up's step never reaching n: i = 1 and i -= 1 (mutmut's), i += 1 deleted (ours)
    assert sorted(audit["timeoutsConfirmed"]) == [
        "gate.rules.x_count_up__mutmut_4",
        "gate.rules.x_count_up__mutmut_5",
        "gate.rules.x_count_up__mutmut_8",
    ]
    assert f"verdict audit (seed 1): 12/12 sampled cells of {audit['cells']} agree" in (
        full.done.stdout
    )


def test_the_timing_adds_up_and_states_the_ideal_the_workers_are_held_to(full: Survey) -> None:
    timing = full.report["timing"]
    mutants = full.mutants().values()
    assert timing["mutantRuns"] == pytest.approx(
        sum(m["duration"] for m in mutants) / 1000, abs=0.01
    )
    assert timing["after"] == pytest.approx(full.report["audit"]["seconds"], abs=0.05)
    parts = timing["before"] + timing["workers"] + timing["after"]
    assert timing["total"] == pytest.approx(parts, abs=0.01)
    claims = timing["baselineClaims"] + timing["mutantRuns"]
    assert timing["ideal"] == pytest.approx(timing["start"] + claims / timing["jobs"], abs=0.01)
    # the first baseline (a start and its claims) arrived while the workers ran
    assert 0 < timing["baselineClaims"] and timing["start"] + timing["baselineClaims"] <= (
        timing["workers"] + 0.01
    )
    assert f"time: {timing['total']:.0f} s in all: mutmut " in full.done.stdout


def test_the_summary_scores_the_witness_and_shows_survivor_diffs(full: Survey) -> None:
    out = full.done.stdout
    # the crashing mutant's worker is restarted from the first baseline, not a rerun of it
    assert "; 1 worker restart(s), 1 from the first baseline" in out
    assert "claims that call no mutated function (1): gate.the_greeting_names_the_guest" in out
    assert "-    i = 0\n+    i = 1" in out
    assert "stale equivalence entry gate.rules.x_pairs__mutmut_6" in out
    assert "entry gate.rules.x_renamed_long_ago__mutmut_1 names no mutant" in out
    assert (
        "equivalence entry gate.rules.x_pairs__mutmut_30 holds for gate.rules.x_pairs__mutmut_10,"
        in out
    )
    assert "x_pairs__mutmut_9" not in out.split("survivors")[1]


def test_shards_partition_the_mutants_and_merge_back(project: Path, full: Survey) -> None:
    shards = [_survey(project, f"shard{k}", "--shard", f"{k}/2", "--audit", "0") for k in (1, 2)]
    first, second = (set(s.mutants()) for s in shards)
    assert first and second and not first & second
    assert first | second == set(full.mutants())
    merged = project / "merged.json"
    floors = project / "floors.toml"
    files = {
        path
        for k in (1, 2)
        for path in json.loads((project / f"shard{k}.json").read_text())["files"]
    }
    floors.write_text(
        "[generated]\nall = 0\n"
        + "".join(f'"{path}" = {{ strength = 0, no_coverage = 99 }}\n' for path in files)
    )
    done = run_mutate(
        "--merge-reports",
        str(project / "shard1.json"),
        str(project / "shard2.json"),
        "--report",
        str(merged),
        "--floors",
        str(floors),
    )
    # every floor holds, but the merged survey holds the mutant that crashed its worker
    assert done.returncode == 6, done.stdout + done.stderr
    assert f"every file holds its floor ({floors} [generated])" in done.stdout
    assert "crashed: gate/rules.py: 1 mutant crashed" in done.stdout
    assert "1 crashed mutant: the survey fails (exit 6)" in done.stdout
    body = json.loads(merged.read_text())
    assert validate(body) == []
    assert "audit" not in body and len(body["audits"]) == 2  # each shard's own audit
    ids = {m["id"] for f in body["files"].values() for m in f["mutants"]}
    assert ids == set(full.mutants())
    assert "all 26 mutants:" in done.stdout


def test_reach_counts_from_one_baseline_what_the_whole_survey_found_unreached(
    project: Path, full: Survey
) -> None:
    """``--reach`` runs no mutant, yet counts each file's mutants and uncovered ones as the
    full survey's report does, and holds the floors' allowances with them."""
    files = full.report["files"]
    whole = {
        path: (len(f["mutants"]), sum(m["status"] == "NoCoverage" for m in f["mutants"]))
        for path, f in files.items()
    }
    assert any(uncovered for _, uncovered in whole.values())  # else this compares nothing
    floors = project / "reach-floors.toml"
    report = project / "reach.json"

    def reach(allowances: dict[str, int]) -> subprocess.CompletedProcess[str]:
        floors.write_text(
            "[generated]\nall = 0\n"
            + "".join(
                f'"{p}" = {{ strength = 0, no_coverage = {n} }}\n' for p, n in allowances.items()
            )
        )
        return run_generated(project, "--reach", "--floors", str(floors), "--report", str(report))

    done = reach({path: uncovered for path, (_, uncovered) in whole.items()})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "(no mutant ran)" in done.stdout and "every file reaches as its floor allows" in done.stdout
    )
    found = json.loads(report.read_text())["files"]
    assert {p: (f["mutants"], f["uncovered"]) for p, f in found.items()} == whole
    assert found["gate/rules.py"]["functions"] == {"unused": 2}
    one_less = {path: max(0, uncovered - 1) for path, (_, uncovered) in whole.items()}
    done = reach({**one_less, "gate/elsewhere.py": 0})
    assert done.returncode == 3, done.stdout + done.stderr
    assert "below floor: gate/rules.py: 2 mutants reached by no claim, 1 allowed" in done.stdout
    assert "below floor: gate/elsewhere.py: floored at 0% but the survey judged none" in done.stdout
    done = reach({})
    assert done.returncode == 3
    assert "below floor: gate/rules.py: no floor recorded" in done.stdout
    refused = run_generated(project, "--reach", "--audit", "3", "--show-survivors", "1")
    assert refused.returncode == 2
    assert "--audit, --show-survivors: not with --reach, which runs no mutant" in refused.stderr


def test_statement_deletions_sit_in_the_same_matrix_named_after_mutmuts(full: Survey) -> None:
    """Our deletions come numbered after each function's mutmut mutants, switched in by the
    same trampoline: a deleted initialisation crashes, a deleted step hangs, a deleted exit on
    a path no claim takes survives."""
    mutants = full.mutants()
    deleted = {
        name.rpartition(".")[2]: (m["status"], m["replacement"], m["description"])
        for name, m in mutants.items()
        if m["mutatorName"] == "StatementDeletion"
    }
    assert deleted == {
        "x_count_up__mutmut_7": ("Killed", "", "i = 0  →  "),
        "x_count_up__mutmut_8": ("Timeout", "pass", "i += 1  →  pass"),
        "x_guard__mutmut_4": ("Survived", "pass", "os._exit(3)  →  pass"),
        "x_pairs__mutmut_11": ("Killed", "", "shouts = [n.upper() for n in names]  →  "),
    }
    assert mutants["gate.rules.x_count_up__mutmut_7"]["location"]["start"] == {
        "line": 22,
        "column": 5,
    }
    assert (
        "-        os._exit(3)\n+        pass"
        in mutants["gate.rules.x_guard__mutmut_4"]["statusReason"]
    )


def test_mutmut_mutates_only_the_files_a_survey_can_choose(tmp_path: Path) -> None:
    """``generate(only=…)`` (``--file``, ``--since``): those files' mutants alone, every
    other file copied as written; none named, none mutated."""
    project = copy_project(tmp_path)
    generate(project, 1, only=("gate/rules.py",))
    assert {m.path for m in read_generated(project)} == {"gate/rules.py"}
    generate(project, 1, only=())
    assert read_generated(project) == []
    copied = (project / MUTANTS_DIR / "gate" / "rules.py").read_bytes()
    assert copied == (project / "gate" / "rules.py").read_bytes()


def test_an_equivalence_entry_is_in_scope_by_its_module_s_file() -> None:
    assert in_scope("gate.rules.x_admits__mutmut_1", ("gate/rules.py",))
    assert in_scope("gate.xǁDoorǁopen__mutmut_2", ("gate/__init__.py",))
    assert not in_scope("gate.rules.x_admits__mutmut_1", ("gate/other.py", "gate.py"))
    assert not in_scope("gate.rules.x_admits__mutmut_1", ())
    assert in_scope("gate.rules.x_admits__mutmut_1", None)


def test_the_generated_mutants_read_back_with_their_changed_line(full: Survey) -> None:
    found = {m.name: m for m in read_generated(full.project)}
    mutant = found["gate.rules.x_count_up__mutmut_5"]
    assert (mutant.original_line, mutant.mutated_line) == ("i += 1", "i -= 1")
    assert (mutant.before, mutant.after, mutant.span.start_line) == ("+=", "-=", 24)


def test_what_a_claims_subprocess_prints_never_reaches_the_survey_protocol() -> None:
    # A mutant can turn a claim's `stdout=PIPE` into `stdout=None`: the child then writes to
    # the worker's file descriptor 1, which must no longer be the protocol's.
    script = (
        "import json, subprocess, sys\n"
        "from plugins.mutate.generated.survey import event_stream\n"
        "with event_stream() as out:\n"
        "    subprocess.run(['echo', 'leaked from a child'], check=True)\n"
        "    print('leaked from print')\n"
        "    print(json.dumps({'event': 'done'}), file=out, flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert [json.loads(line) for line in done.stdout.splitlines()] == [{"event": "done"}]
    assert "leaked from a child" in done.stderr
    assert "leaked from print" in done.stderr


def test_only_the_surveyed_files_stay_trampolined(tmp_path: Path) -> None:
    """A survey of some files puts every other generated file back as written: its calls
    skip the trampoline, and none of its mutants is surveyed."""

    def mutant(path: str) -> GeneratedMutant:
        span = Span(1, 1, 1, 2)
        return GeneratedMutant(f"{path}.x_f__mutmut_1", path, "x_f", "a", "b", span, "a", "b")

    for path in ("pkg/kept.py", "pkg/back.py", "pkg/none.py"):  # none.py: no mutant in it
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(f"# {path} as written\n")
        (tmp_path / MUTANTS_DIR / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / MUTANTS_DIR / path).write_text(f"# {path} trampolined\n")
        for index in (".meta", ".spans", ".deletions"):
            (tmp_path / MUTANTS_DIR / f"{path}{index}").write_text("{}")
    restored = untrampoline(
        tmp_path, [mutant("pkg/kept.py"), mutant("pkg/back.py")], {"pkg/kept.py"}
    )
    assert restored == 2
    assert (tmp_path / MUTANTS_DIR / "pkg/kept.py").read_text() == "# pkg/kept.py trampolined\n"
    assert (tmp_path / MUTANTS_DIR / "pkg/back.py").read_text() == "# pkg/back.py as written\n"
    assert (tmp_path / MUTANTS_DIR / "pkg/none.py").read_text() == "# pkg/none.py as written\n"
    assert (tmp_path / MUTANTS_DIR / "pkg/kept.py.meta").exists()
    assert not (tmp_path / MUTANTS_DIR / "pkg/back.py.meta").exists()
    assert not (tmp_path / MUTANTS_DIR / "pkg/back.py.spans").exists()
    assert not (tmp_path / MUTANTS_DIR / "pkg/back.py.deletions").exists()
    assert (tmp_path / MUTANTS_DIR / "pkg/kept.py.deletions").exists()


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ("[tool.other]\n", "has no [tool.mutmut] source_paths"),
        ('[tool.mutmut]\nsource_paths = ["src", "gone\\u001b"]\n', "names gone\\x1b, which"),
    ],
)
def test_source_paths_missing_or_naming_nothing_is_a_usage_error(
    tmp_path: Path, table: str, named: str
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "pyproject.toml").write_text(table, encoding="utf-8")
    with pytest.raises(UsageError, match=re.escape(named)):
        source_paths(tmp_path)
