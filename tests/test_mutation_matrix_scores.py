"""Scores read off the kill matrix (plugins/mutate/matrix_scores.py): hand matrices with
their figures worked out here, and the properties that make the minimal set minimal."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from plugins.mutate.html_report import render_html
from plugins.mutate.matrix_scores import (
    NO_MATRIX,
    Matrix,
    classes,
    distinguished,
    dominators,
    no_unique_kill,
    report_scores,
    score,
    subsumes,
    summary,
    with_matrix_scores,
)


def _matrix(rows: dict[str, str], claims: str = "abc", unplaced: int = 0) -> Matrix:
    """``{"m1": "ab"}``: m1 killed by claims a and b; ``""``: survived."""
    return Matrix(
        tuple((m, frozenset(kills)) for m, kills in rows.items()), frozenset(claims), unplaced
    )


CHAIN = _matrix(
    {"m1": "a", "m2": "ab", "m3": "ab", "m4": "bc", "m5": "c", "m6": "", "m7": ""}, unplaced=1
)
"""{a} ⊂ {a,b} and {c} ⊂ {b,c}: the classes {a,b} and {b,c} are subsumed."""


def test_a_chain_of_killing_sets_keeps_only_its_smallest_classes() -> None:
    # Classes: {a}: m1; {a,b}: m2, m3; {b,c}: m4; {c}: m5 -> 4 distinguished.
    assert distinguished(CHAIN) == 4
    assert classes(CHAIN)[frozenset("ab")] == ["m2", "m3"]
    # {a,b} has {a} below it and {b,c} has {c}: m1 and m5 remain, then both survivors.
    assert dominators(CHAIN) == ["m1", "m5", "m6", "m7"]
    found = score("f", CHAIN)
    assert (found.killed, found.survived, found.unplaced, found.killed_dominators) == (5, 2, 1, 2)
    # Strength counts the unplaced kill (a timeout): 6 of 8. Dominator strength: 2 of 2 + 2.
    assert found.strength == 75.0
    assert found.dominator_strength == 50.0
    # a kills m1 alone and c kills m5 alone; b kills nothing alone.
    assert found.idle == ("b",)
    assert no_unique_kill(CHAIN) == ["b"]


def test_incomparable_classes_are_all_minimal_and_no_claim_kills_alone() -> None:
    ring = _matrix({"m1": "ab", "m2": "bc", "m3": "ac", "m4": "ab"})
    assert dominators(ring) == ["m1", "m2", "m3"]  # m4 shares m1's class; m1 is the least id
    found = score("f", ring)
    assert (found.killed_dominators, found.distinguished) == (3, 3)
    assert found.dominator_strength == 100.0
    assert found.idle == ("a", "b", "c")


def test_nothing_judged_has_no_strength_and_every_claim_is_idle() -> None:
    found = score("f", _matrix({}, claims="xy"))
    assert found.strength is None and found.dominator_strength is None
    assert found.idle == ("x", "y")


def test_only_a_killed_mutant_subsumes() -> None:
    assert subsumes(frozenset("a"), frozenset("ab"))
    assert not subsumes(frozenset(), frozenset("ab"))  # a survivor subsumes nothing
    assert not subsumes(frozenset("ab"), frozenset("a"))


def _mutant(mid: str, status: str, killed: list[str], covered: list[str]) -> dict[str, Any]:
    location = {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 2}}
    return {
        "id": mid,
        "mutatorName": "X",
        "location": location,
        "status": status,
        "killedBy": killed,
        "coveredBy": covered,
    }


def _report() -> dict[str, Any]:
    every = ["w.a", "w.b", "v.x"]
    mutants = [
        _mutant("p.1", "Killed", ["w.a"], every),
        _mutant("p.2", "Killed", ["w.a", "w.b"], every),
        _mutant("p.3", "Killed", ["v.x"], every),
        _mutant("p.4", "Survived", [], every),
        _mutant("p.5", "Timeout", [], every),
        _mutant("p.6", "NoCoverage", [], []),
        _mutant("p.7", "Ignored", [], every),
    ]
    tests = [{"id": c, "name": c} for c in [*every, "w.idle"]]
    return {
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "files": {"p.py": {"language": "python", "source": "x\n", "mutants": mutants}},
        "testFiles": {"w.py": {"tests": tests}},
    }


def test_a_report_is_scored_per_file_per_witness_and_whole() -> None:
    found = report_scores(_report())
    (file,) = found.files
    # p.1 {w.a} subsumes p.2 {w.a, w.b}; p.3 {v.x} is its own; p.4 survives; p.5 is unplaced;
    # the uncovered and equivalent mutants are not in the matrix.
    assert (file.killed, file.survived, file.unplaced, file.killed_dominators) == (3, 1, 1, 2)
    assert file.dominator_strength == 200 / 3
    assert file.idle == ("w.b",)  # w.idle covers no mutant of p.py: not a claim of the file
    w, v = found.witnesses
    # Cut to w's claims, p.3 (killed by v.x only) survives for w: 2 killed, 2 survived.
    assert (w.scope, w.killed, w.survived, w.killed_dominators, w.distinguished) == (
        "w",
        2,
        2,
        1,
        2,
    )
    assert w.idle == ("w.b", "w.idle")
    assert (v.scope, v.killed, v.survived, v.idle) == ("v", 1, 3, ())
    assert found.whole.claims == 4 and found.whole.idle == ("w.b", "w.idle")


def test_the_report_carries_the_scores_and_marks_the_minimal_mutants() -> None:
    report = _report()
    report["files"]["p.py"]["matrixScore"] = {"dominatorStrength": 100}  # a stale claim
    marked = with_matrix_scores(report)
    entry = marked["files"]["p.py"]
    assert entry["matrixScore"]["dominatorStrength"] == 66.67
    assert entry["matrixScore"]["claimsWithoutUniqueKill"] == ["w.b"]
    minimal = {m["id"]: m.get("minimal") for m in entry["mutants"]}
    assert minimal == {
        "p.1": True,
        "p.2": False,
        "p.3": True,
        "p.4": True,
        "p.5": None,
        "p.6": None,
        "p.7": None,
    }
    assert marked["matrixScores"]["witnesses"]["w"]["killedDominators"] == 1
    assert marked["matrixScores"]["all"]["distinguished"] == 3
    assert "matrixScore" not in report["files"]["p.py"]["mutants"][0]  # the input is untouched


# --- properties ----------------------------------------------------------------------------

CLAIMS = "abcdef"
mutant_ids = st.integers(0, 99).map(lambda n: f"m{n:02d}")
matrices = st.dictionaries(
    mutant_ids,
    st.frozensets(st.sampled_from(CLAIMS)),
    max_size=25,
).map(lambda rows: Matrix(tuple(rows.items()), frozenset(CLAIMS)))


def _kills(matrix: Matrix) -> dict[str, frozenset[str]]:
    return dict(matrix.rows)


@given(matrices, st.frozensets(st.sampled_from(CLAIMS)))
def test_claims_that_kill_every_killed_dominator_kill_every_killed_mutant(
    matrix: Matrix, chosen: frozenset[str]
) -> None:
    kills = _kills(matrix)
    killed = [m for m, k in kills.items() if k]
    minimal = [m for m in dominators(matrix) if kills[m]]
    if all(kills[m] & chosen for m in minimal):
        assert all(kills[m] & chosen for m in killed)


@given(matrices)
def test_the_dominator_set_is_subset_minimal(matrix: Matrix) -> None:
    kills = _kills(matrix)
    minimal = [m for m in dominators(matrix) if kills[m]]
    # No killed dominator subsumes another, so none can go: each is the only one subsuming
    # the mutants of its own class.
    for a in minimal:
        assert not any(subsumes(kills[a], kills[b]) for b in minimal if b != a)
    # And every killed mutant is subsumed by one of them.
    for k in kills.values():
        assert not k or any(subsumes(kills[d], k) for d in minimal)


@given(matrices, st.frozensets(mutant_ids))
def test_adding_a_claim_never_lowers_the_distinguished_count(
    matrix: Matrix, killed_by_new: frozenset[str]
) -> None:
    wider = Matrix(
        tuple((m, k | {"z"} if m in killed_by_new else k) for m, k in matrix.rows),
        matrix.claims | {"z"},
    )
    assert distinguished(wider) >= distinguished(matrix)


@given(matrices)
def test_dominator_strength_never_exceeds_strength_and_the_counts_nest(matrix: Matrix) -> None:
    found = score("f", matrix)
    assert found.killed_dominators <= found.distinguished <= found.killed
    if found.dominator_strength is not None and found.strength is not None:
        assert found.dominator_strength <= found.strength + 1e-9


@given(matrices, st.randoms(use_true_random=False))
def test_the_scores_do_not_depend_on_the_order_of_the_rows(matrix: Matrix, rng: Any) -> None:
    rows = list(matrix.rows)
    rng.shuffle(rows)
    shuffled = Matrix(tuple(rows), matrix.claims)
    assert score("f", shuffled) == score("f", matrix)
    assert sorted(dominators(shuffled)) == sorted(dominators(matrix))


# --- where the scores are shown ------------------------------------------------------------


def test_the_console_tables_and_idle_claims_come_from_the_matrix() -> None:
    text = summary(_report())
    rows = [" ".join(line.split()) for line in text.splitlines()]
    # w: judged 5 (p.5 unplaced counts killed): strength 3/5; minimal {p.1} + 2 survivors.
    assert "w 5 60.0% 1/3 33.3% 2 2/3" in rows
    assert "p.py 5 80.0% 2/3 66.7% 3 1/3" in rows
    assert "w (2 of 3): b, idle" in rows


def test_the_page_shows_the_scores_a_jump_list_and_the_survivors_alone() -> None:
    report = _report()
    survivor = report["files"]["p.py"]["mutants"][3]
    survivor["statusReason"] = "-    return 1\n+    return 2 <script>"
    page = render_html(report)
    assert '<a href="#survivors">Survivors (1)</a>' in page
    assert '<a href="#witnesses">Witnesses</a>' in page
    survivors = page.split('<h2 id="survivors">')[1].split("<h2")[0]
    assert '<a href="#f-p-py-1">p.py:1</a> p.4 (X)' in survivors
    assert "+    return 2 &lt;script&gt;</pre>" in survivors
    assert "p.1" not in survivors  # killed mutants are not in the survivors' view
    witnesses = page.split('<h2 id="witnesses">')[1].split("<h2")[0]
    assert "<td>w</td><td>5</td><td>3</td><td>2</td><td>" in witnesses
    assert '<span class="low">33.3%</span>' in witnesses
    assert "p.1 (X): </summary>" not in page and '<span class="min">minimal</span>' in page


def test_a_first_kill_report_has_no_matrix_and_shows_no_scores_from_it() -> None:
    """``config.firstKill``: each mutant stopped at its first red claim, so its killedBy is
    one claim, not its killing set; no figure here is computed from it, and stale ones go."""
    report = with_matrix_scores(_report())  # scores as if it were a matrix
    report["config"] = {"firstKill": True}
    assert summary(report) == NO_MATRIX
    stripped = with_matrix_scores(report)
    assert "matrixScores" not in stripped and "matrixScore" not in stripped["files"]["p.py"]
    assert all("minimal" not in m for m in stripped["files"]["p.py"]["mutants"])
    page = render_html(report)
    assert f'<h2 id="witnesses">Witnesses</h2><p>{NO_MATRIX}</p>' in page
    assert "<td>—</td><td>—</td><td>—</td></tr>" in page  # the file row's three cells
    assert '<span class="min">minimal</span>' not in page
