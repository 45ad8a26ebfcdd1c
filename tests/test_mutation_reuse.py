"""``claims mutate --generated --keys`` / ``--reuse REPORT``: a cell whose key is unchanged
takes its verdict from the earlier report, every other cell runs, and the kill matrix is the
one a survey without reuse builds on the same tree."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from claims import memo
from claims.memo import shared_memo
from fixtures import sandbox
from plugins.mutate.generated.cellkeys import (
    REUSED,
    Keys,
    Scope,
    Trace,
    Tracer,
    _original_name,
    cell_key,
    function_digests,
    function_of,
    imported_modules,
    reuse_table,
    skeleton_digest,
)
from tests.fakes_mutation.support import copy_project, run_generated

Report = dict[str, Any]

SOURCE = """
LIMIT = 3


def first(x):
    return x + LIMIT


class Box:
    size = 2

    def grow(self, n):
        def step(k):
            return k * 2
        return step(n) + self.size
"""


def test_a_function_digest_follows_its_own_code_and_nothing_else() -> None:
    before = function_digests(SOURCE)
    assert set(before) == {"first", "Box.grow"}
    shifted = function_digests("\n\n# a comment\n" + SOURCE)
    assert shifted == before  # line numbers are not code
    body = function_digests(SOURCE.replace("return x + LIMIT", "return x - LIMIT"))
    assert body["first"] != before["first"] and body["Box.grow"] == before["Box.grow"]
    nested = function_digests(SOURCE.replace("k * 2", "k * 3"))
    assert nested["Box.grow"] != before["Box.grow"]  # a nested function is its outer's


def test_the_skeleton_follows_the_top_level_and_not_the_bodies() -> None:
    before = skeleton_digest(SOURCE)
    assert skeleton_digest(SOURCE.replace("return x + LIMIT", "return 0")) == before
    assert skeleton_digest(SOURCE.replace("LIMIT = 3", "LIMIT = 4")) != before
    assert skeleton_digest(SOURCE.replace("size = 2", "size = 5")) != before
    assert skeleton_digest(SOURCE.replace("def first(x)", "def first(x=1)")) != before


def test_mutmuts_names_are_the_functions_they_stand_for() -> None:
    assert _original_name("x_admits__mutmut_orig") == "admits"
    assert _original_name("x_admits__mutmut_12") == "admits"
    assert _original_name("xǁBoxǁgrow__mutmut_3") == "grow"
    assert _original_name("xǁBoxǁ__init____mutmut_orig") == "__init__"
    assert _original_name("x_axis") == "x_axis"
    namespace: dict[str, Any] = {}
    exec(compile(SOURCE, "box.py", "exec"), namespace)
    grow = namespace["Box"].grow
    assert function_of(grow.__code__) == "Box.grow"
    step = next(c for c in grow.__code__.co_consts if hasattr(c, "co_qualname"))
    assert function_of(step) == "Box.grow"  # nested code keys as its outer function
    assert function_of(compile(SOURCE, "box.py", "exec")) is None  # module code: the skeleton


def test_a_claim_key_moves_with_what_the_claim_touched(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "data.json").write_text("{}", encoding="utf-8")
    trace = Trace({("m.py", "first")}, {"data.json"})
    keys = Keys(tmp_path, "base", "tree")
    key = keys.claim_key(trace, Trace())
    assert Keys(tmp_path, "other base", "tree").claim_key(trace, Trace()) != key
    (tmp_path / "m.py").write_text(SOURCE.replace("k * 2", "k * 5"), encoding="utf-8")
    assert Keys(tmp_path, "base", "tree").claim_key(trace, Trace()) == key  # grow: untouched
    (tmp_path / "data.json").write_text("[]", encoding="utf-8")
    assert Keys(tmp_path, "base", "tree").claim_key(trace, Trace()) != key
    scoped = Trace({("m.py", "first")}, {"data.json"}, modules={"m.py"})
    before = [Keys(tmp_path, "base", "tree").claim_key(t, Trace()) for t in (trace, scoped)]
    (tmp_path / "m.py").write_text(SOURCE.replace("size = 2", "size = 3"), encoding="utf-8")
    after = [Keys(tmp_path, "base", "tree").claim_key(t, Trace()) for t in (trace, scoped)]
    assert after[0] == before[0] and after[1] != before[1]  # a top level in its scope
    opaque = Trace(opaque="it started a process")
    assert keys.claim_key(opaque, Trace()) == keys.claim_key(Trace(), opaque)
    assert Keys(tmp_path, "base", "other tree").claim_key(opaque, Trace()) != keys.claim_key(
        opaque, Trace()
    )


def test_a_claim_given_a_value_a_memo_kept_is_opaque(tmp_path: Path) -> None:
    """What a memo gives back was made where this trace did not look (another process, or
    this one for an earlier caller): announced through :func:`claims.memo.recalled`, it
    makes the claim opaque; asking for a key nothing kept does not."""
    tracer = Tracer([tmp_path])
    with shared_memo(), tracer.recording() as asked:
        assert memo.recall("0" * 64) is None
    assert asked.opaque == ""
    with shared_memo(), tracer.recording() as given:
        memo.remember("1" * 64, "made by another process")
        assert memo.recall("1" * 64) == "made by another process"
    assert "memo" in given.opaque


def test_a_sandbox_run_an_earlier_caller_made_leaves_the_claim_opaque(tmp_path: Path) -> None:
    """The executed-apply sandbox keeps each scenario's outcome in its own dict: a claim
    given one that an earlier claim of the same worker ran (its scripts ran then, not in
    this claim's trace) is opaque as one that ran them."""
    sandbox.require()
    probe = sandbox.Scenario(
        hosts=(sandbox.Host("probe", (("probe", "#!/usr/bin/env bash\ndocker ps --help\n"),)),),
        steps=(sandbox.Run(0, "probe", ()),),
    )
    tracer = Tracer([tmp_path])
    with tracer.recording() as first:
        ran = sandbox.run([probe])
    with tracer.recording() as again:
        assert sandbox.run([probe]) == ran
    assert first.opaque and "memo" in again.opaque


def test_a_scope_follows_imports_however_they_are_written() -> None:
    source = """
import a.b
from . import sibling
from .. import uncle
from .inner import name


def late():
    from c import d
"""
    found = imported_modules(source, "pkg.sub.mod", package=False)
    assert found >= {"a.b", "pkg.sub", "pkg.sub.sibling", "pkg", "pkg.uncle", "c", "c.d"}
    assert {"pkg.sub.inner", "pkg.sub.inner.name"} <= found
    assert "pkg.sub.mod.inner" in imported_modules(source, "pkg.sub.mod", package=True)


def test_a_witness_reaches_what_its_packages_import(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from pkg import other\n",
        "pkg/mine.py": "from .helper import X\n",
        "pkg/helper.py": "X = 1\n",
        "pkg/other.py": "",
        "pkg/far.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    loaded = {name.removesuffix(".py").replace("/", "."): name for name in files}
    loaded["pkg"] = loaded.pop("pkg.__init__")
    scope = Scope(Tracer([tmp_path]), tmp_path, {})
    reached = {"pkg/mine.py", "pkg/helper.py", "pkg/__init__.py", "pkg/other.py"}
    assert scope.imported("pkg/mine.py", loaded) == reached


def test_the_reuse_table_holds_only_cells_a_whole_mutant_decided() -> None:
    mutants = [
        {"id": "k", "status": "Killed", "variantKey": "v1", "coveredBy": ["a", "b"],
         "killedBy": ["b"]},
        {"id": "t", "status": "Timeout", "variantKey": "v2", "coveredBy": ["a"], "killedBy": []},
        {"id": "s", "status": "Survived", "coveredBy": ["a"], "killedBy": []},
    ]  # fmt: skip
    report = {"claimKeys": {"a": "ka", "b": "kb"}, "files": {"f.py": {"mutants": mutants}}}
    assert reuse_table(report) == {cell_key("v1", "ka"): False, cell_key("v1", "kb"): True}
    assert reuse_table({"files": report["files"]}) == {}


# --- on the fake gate project ---------------------------------------------------------------


def _survey(project: Path, name: str, *args: str) -> tuple[Report, str]:
    report = project / f"{name}.json"
    done = run_generated(project, "--report", str(report), *args, plugins=("lobby_plugin",))
    assert done.returncode == 6, done.stdout + done.stderr  # guard's first mutant crashes
    body: Report = json.loads(report.read_text(encoding="utf-8"))
    return body, done.stdout


def _mutants(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for entry in report["files"].values() for m in entry["mutants"]}


def _matrix(report: Mapping[str, Any]) -> dict[str, tuple[str, list[str], list[str]]]:
    return {
        name: (m["status"], sorted(m["killedBy"]), sorted(m["coveredBy"]))
        for name, m in _mutants(report).items()
    }


CHANGED = ("shouts = [n.upper() for n in names]", "shouts = [str.upper(n) for n in names]")
"""A change of one function's body (``pairs``), behaving the same."""

LOBBY = {
    "lobby_plugin.py": """from claims import hookimpl


@hookimpl
def claims_register_witnesses(register):
    register("lobby", "lobby_witness")
""",
    "lobby_witness.py": """from claims import ClaimKind, Verdict, claim, expect

SIGN = "welcome"


@claim(ClaimKind.PLANNED_SHAPE)
def the_sign_is_lower_case() -> Verdict:
    \"\"\"The lobby's sign is written in lower case.\"\"\"
    return expect(SIGN == SIGN.lower(), "lower case", SIGN)
""",
}
"""A second witness whose claim calls nothing of ``gate``: the reusing survey changes its
module's top level (a witness's new claim does as much), and adds a file no worker loads."""


@pytest.fixture(scope="module")
def surveys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Report, str]]:
    project = copy_project(tmp_path_factory.mktemp("gate"))
    for name, text in LOBBY.items():
        (project / name).write_text(text, encoding="utf-8")
    config = project / "pyproject.toml"  # mutants/ holds a copy of the witness's files too
    copied = '"gate_plugin.py"' + "".join(f', "{name}"' for name in LOBBY)
    text = config.read_text(encoding="utf-8").replace('"gate_plugin.py"', copied)
    config.write_text(text, encoding="utf-8")
    keyed = _survey(project, "keyed", "--keys", "--audit", "0")
    rules = project / "gate" / "rules.py"
    rules.write_text(rules.read_text(encoding="utf-8").replace(*CHANGED), encoding="utf-8")
    lobby = project / "lobby_witness.py"
    lobby.write_text(lobby.read_text(encoding="utf-8").replace("welcome", "hello"), "utf-8")
    (project / "notes.py").write_text("NOTE = 1\n", encoding="utf-8")
    reused = _survey(project, "reused", "--reuse", str(project / "keyed.json"))
    fresh = _survey(project, "fresh", "--audit", "0")
    again = _survey(project, "again", "--reuse", str(project / "reused.json"), "--audit", "0")
    return {"keyed": keyed, "reused": reused, "fresh": fresh, "again": again}


def test_reuse_builds_the_matrix_a_fresh_survey_builds(
    surveys: dict[str, tuple[Report, str]],
) -> None:
    assert _matrix(surveys["reused"][0]) == _matrix(surveys["fresh"][0])
    assert _matrix(surveys["again"][0]) == _matrix(surveys["fresh"][0])
    forced = {n: r["config"]["forcedFailRed"] for n, (r, _) in surveys.items()}
    assert forced["reused"] == forced["again"] == forced["fresh"] == forced["keyed"]
    assert "claimKeys" not in surveys["fresh"][0]  # keys only when asked


def test_an_unchanged_tree_runs_no_baseline_and_no_decided_cell_again(
    surveys: dict[str, tuple[Report, str]],
) -> None:
    again, out = surveys["again"]
    assert again["claimKeys"] == surveys["reused"][0]["claimKeys"]
    assert again["claimTraces"] == surveys["reused"][0]["claimTraces"]  # carried, not lost
    claims = len(again["claimKeys"])
    assert f"and {claims} of {claims} claims' baselines taken" in out
    for name, m in _mutants(again).items():
        if m["status"] not in {"Timeout", "RuntimeError", "NoCoverage"}:
            assert m["testsCompleted"] == 0, name


def test_only_the_cells_of_the_changed_function_run_again(
    surveys: dict[str, tuple[Report, str]],
) -> None:
    reused, out = surveys["reused"]
    keyed = surveys["keyed"][0]
    changed = {c for c, k in reused["claimKeys"].items() if keyed["claimKeys"][c] != k}
    # the changed function's claim and the claims of the witness whose module changed at its
    # top level; a file no worker loaded changes nothing
    assert changed == {"gate.names_pair_with_their_shouts", "lobby.the_sign_is_lower_case"}
    for name, m in _mutants(reused).items():
        skipped = m.get("skippedCells", {})
        was = [c for c, why in skipped.items() if why.startswith(REUSED)]
        if ".x_pairs__" in name or m["status"] in {"Timeout", "RuntimeError", "NoCoverage"}:
            assert was == [], name  # its code or its claim changed, or nothing was decided
        else:
            assert was == m["coveredBy"] and m["testsCompleted"] == 0, name
    audit = reused["audit"]
    assert audit["byReason"].get("reused", 0) > 0 and audit["agreed"] == audit["sampled"]
    assert f"and {len(reused['claimKeys']) - 2} of {len(reused['claimKeys'])} claims'" in out


def test_reuse_refuses_a_report_that_keys_no_cell(
    surveys: dict[str, tuple[Report, str]], tmp_path: Path
) -> None:
    project = copy_project(tmp_path)
    unkeyed = tmp_path / "unkeyed.json"
    unkeyed.write_text(json.dumps(surveys["fresh"][0]), encoding="utf-8")
    done = run_generated(project, "--reuse", str(unkeyed))
    assert done.returncode == 2 and "keys no cell" in done.stdout + done.stderr
    for args in (("--keys", "--first-kill"), ("--reuse", str(unkeyed), "--first-kill")):
        done = run_generated(project, *args)
        assert done.returncode == 2 and "--first-kill" in done.stdout + done.stderr, args
