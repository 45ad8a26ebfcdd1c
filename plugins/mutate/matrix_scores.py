"""Scores read off the kill matrix: the minimal mutant set, distinguished mutants, and the
claims no mutant needs.

Counting subsumed mutants skews strength (Papadakis et al. 2016): ten mutants killed by
exactly the same claims are one test requirement, not ten, and a survey full of easy
mutants looks stronger than it is. The matrix (``killedBy`` and ``coveredBy`` of each
mutant) already says which mutants are redundant. Over the judged mutants of a scope
(Killed or Survived; equivalent, uncovered and crashed mutants are not in the matrix):

- a mutant's *killing set* is the claims that turned it red; a survivor's is empty;
- A *subsumes* B when A is killed and kill(A) ⊆ kill(B): any claims that kill A kill B;
- killed mutants with equal killing sets form one *class*; *distinguished* is the number
  of classes: how many mutants the claims tell apart. A survivor no claim tells from the
  original program, so survivors are not counted;
- the *minimal (dominator) set* is one representative (the least id) of each class that
  no other class's killing set is a strict subset of, *plus every survivor*: a survivor's
  true killing set is unknown (no claim kills it), so it is its own class, subsumed by none;
- *dominator strength* = killed dominators ÷ (killed dominators + survivors);
- a claim has *no unique kill* when no mutant of the scope is killed by it alone.

A mutant detected without a killing set the matrix can place (a ``Timeout``: the claims
after the hang never ran; or a kill naming no claim) is *unplaced*: it counts as killed in
the plain strength, as the floors count it, and takes no part in classes or dominators.

Scopes: a *file* (its mutants; its claims are those covering one of its judged mutants), a
*witness* (the mutants its claims cover, killing sets cut to its claims, so another
witness's kill is a survivor here; its claims are every claim of it the report names), and
*all* (every mutant, every claim). Nothing here trusts a stored score: every figure is
computed from the matrix each time it is shown. A report whose survey stopped each mutant at
its first red claim (``config.firstKill``) holds no matrix: :func:`has_matrix` says so, and
none of these figures is computed or shown for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from claims.files import shown
from claims.tables import fitted
from claims.witness import witness_of

KILLED = "Killed"
SURVIVED = "Survived"
UNPLACED = frozenset({"Timeout"})

Row = tuple[str, frozenset[str]]
"""A mutant's id and its killing set (empty: it survived)."""


@dataclass(frozen=True)
class Matrix:
    """The judged mutants of one scope, the claims of the scope, and the unplaced kills."""

    rows: tuple[Row, ...]
    claims: frozenset[str]
    unplaced: int = 0


def subsumes(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether a mutant killed by ``a`` subsumes one killed by ``b``: ``a`` is non-empty
    (the mutant is killed) and every claim of ``a`` kills ``b`` too."""
    return bool(a) and a <= b


def classes(matrix: Matrix) -> dict[frozenset[str], list[str]]:
    """Killed mutants grouped by killing set (the equivalence classes), ids in order."""
    found: dict[frozenset[str], list[str]] = {}
    for mutant, kills in matrix.rows:
        if kills:
            found.setdefault(kills, []).append(mutant)
    return found


def minimal_classes(matrix: Matrix) -> list[frozenset[str]]:
    """The killing sets no other class's killing set is a strict subset of (a strict subset
    is smaller: each set is checked against those sorted before it)."""
    by_size = sorted(classes(matrix), key=len)
    return [
        kills
        for index, kills in enumerate(by_size)
        if not any(other < kills for other in by_size[:index])
    ]


def survivors(matrix: Matrix) -> list[str]:
    return [mutant for mutant, kills in matrix.rows if not kills]


def dominators(matrix: Matrix) -> list[str]:
    """The minimal mutant set: the least id of each minimal class, then every survivor."""
    found = classes(matrix)
    return sorted(min(found[kills]) for kills in minimal_classes(matrix)) + survivors(matrix)


def distinguished(matrix: Matrix) -> int:
    """How many killed mutants the claims tell apart: the number of distinct killing sets."""
    return len(classes(matrix))


def no_unique_kill(matrix: Matrix) -> list[str]:
    """The scope's claims that kill no mutant alone, sorted."""
    alone = {next(iter(kills)) for _, kills in matrix.rows if len(kills) == 1}
    return sorted(matrix.claims - alone)


@dataclass(frozen=True)
class MatrixScore:
    """What one scope's matrix comes to, beside its plain strength."""

    scope: str
    killed: int
    survived: int
    unplaced: int
    killed_dominators: int
    distinguished: int
    claims: int
    idle: tuple[str, ...]
    """The claims with no unique kill."""

    @property
    def strength(self) -> float | None:
        """Killed (unplaced kills included) ÷ judged, in percent: the floors' strength."""
        detected = self.killed + self.unplaced
        judged = detected + self.survived
        return 100.0 * detected / judged if judged else None

    @property
    def dominator_strength(self) -> float | None:
        """Killed dominators ÷ the minimal set, in percent; None when the set is empty."""
        minimal = self.killed_dominators + self.survived
        return 100.0 * self.killed_dominators / minimal if minimal else None

    def as_json(self) -> dict[str, Any]:
        """The extra fields a report carries for this scope."""
        return {
            "killed": self.killed,
            "survived": self.survived,
            "unplaced": self.unplaced,
            "minimal": self.killed_dominators + self.survived,
            "killedDominators": self.killed_dominators,
            "dominatorStrength": _rounded(self.dominator_strength),
            "distinguished": self.distinguished,
            "claims": self.claims,
            "claimsWithoutUniqueKill": list(self.idle),
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def score(scope: str, matrix: Matrix) -> MatrixScore:
    """:class:`MatrixScore` of ``matrix``."""
    killed = sum(1 for _, kills in matrix.rows if kills)
    return MatrixScore(
        scope=scope,
        killed=killed,
        survived=len(matrix.rows) - killed,
        unplaced=matrix.unplaced,
        killed_dominators=len(minimal_classes(matrix)),
        distinguished=distinguished(matrix),
        claims=len(matrix.claims),
        idle=tuple(no_unique_kill(matrix)),
    )


# --- matrices of a report --------------------------------------------------------------------

NO_MATRIX = (
    "no scores on the minimal mutant set: the survey stopped each mutant at its first red "
    "claim (config.firstKill), so killedBy is not every claim that kills it"
)


def has_matrix(report: Mapping[str, Any]) -> bool:
    """Whether ``killedBy`` is the full kill matrix: not when ``config.firstKill`` is true."""
    config = report.get("config")
    return not (isinstance(config, dict) and config.get("firstKill") is True)


def _ids(mutant: Mapping[str, Any], key: str) -> frozenset[str]:
    found = mutant.get(key)
    return frozenset(str(c) for c in found) if isinstance(found, list) else frozenset()


def matrix_of(
    mutants: Iterable[Mapping[str, Any]], claims: Iterable[str], cut: frozenset[str] | None = None
) -> Matrix:
    """The matrix of ``mutants`` over ``claims``; ``cut``: count only kills by these claims
    (a witness's own), so a mutant only other claims kill survives here."""
    rows: list[Row] = []
    unplaced = 0
    for m in mutants:
        if _unplaced(m):
            unplaced += 1
        elif m.get("status") in (KILLED, SURVIVED):
            kills = _ids(m, "killedBy")
            rows.append((str(m.get("id")), kills if cut is None else kills & cut))
    return Matrix(tuple(rows), frozenset(claims), unplaced)


def _all_mutants(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [m for entry in report["files"].values() for m in entry["mutants"]]


def report_claims(report: Mapping[str, Any]) -> list[str]:
    """Every claim the report names: its test files', then any only a mutant names."""
    tests = report.get("testFiles") or {}
    found = [str(t.get("id")) for entry in tests.values() for t in entry.get("tests", [])]
    for m in _all_mutants(report):
        found += sorted(_ids(m, "coveredBy") | _ids(m, "killedBy"))
    return list(dict.fromkeys(found))


def file_score(path: str, mutants: Sequence[Mapping[str, Any]]) -> MatrixScore:
    """The file's matrix: its claims are those covering one of its judged mutants."""
    judged = [m for m in mutants if m.get("status") in (KILLED, SURVIVED)]
    claims = frozenset().union(*(_ids(m, "coveredBy") | _ids(m, "killedBy") for m in judged))
    return score(path, matrix_of(mutants, claims))


def witness_score(report: Mapping[str, Any], witness: str) -> MatrixScore:
    """The witness's matrix: the mutants its claims cover, kills by its claims only."""
    own = frozenset(c for c in report_claims(report) if witness_of(c) == witness)
    covered = [m for m in _all_mutants(report) if _ids(m, "coveredBy") & own]
    return score(witness, matrix_of(covered, own, cut=own))


@dataclass(frozen=True)
class ReportScores:
    """Per file, per witness and the whole, of one report."""

    files: tuple[MatrixScore, ...]
    witnesses: tuple[MatrixScore, ...]
    whole: MatrixScore


def report_scores(report: Mapping[str, Any]) -> ReportScores:
    """Every scope of ``report`` scored from its matrix (files in path order)."""
    files = tuple(
        file_score(path, entry["mutants"]) for path, entry in sorted(report["files"].items())
    )
    claims = report_claims(report)
    witnesses = tuple(witness_score(report, w) for w in dict.fromkeys(map(witness_of, claims)))
    return ReportScores(files, witnesses, score("all", matrix_of(_all_mutants(report), claims)))


def minimal_ids(mutants: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The ids of the file's minimal set (its claims do not change which mutants are in it)."""
    return frozenset(dominators(matrix_of(mutants, ())))


MARKS = ("matrixScore", "matrixScores", "minimal")
"""The extra fields :func:`with_matrix_scores` writes (and drops from a report without a
matrix, so a rewritten report never carries stale ones)."""


def with_matrix_scores(report: Mapping[str, Any]) -> dict[str, Any]:
    """``report`` with the scores as extra fields (the schema allows them): each file's
    ``matrixScore``, ``minimal`` on each judged mutant, and ``matrixScores`` at the top
    (``all`` and per witness). Any such fields the report held are replaced, or dropped when
    it has no matrix (:func:`has_matrix`)."""
    if not has_matrix(report):
        return _unmarked(report)
    found = report_scores(report)
    files: dict[str, Any] = {}
    per_file = {s.scope: s for s in found.files}
    for path, entry in report["files"].items():
        minimal = minimal_ids(entry["mutants"])
        mutants = [_marked(m, minimal) for m in entry["mutants"]]
        files[path] = {**entry, "mutants": mutants, "matrixScore": per_file[path].as_json()}
    scores = {"all": found.whole.as_json()}
    scores["witnesses"] = {s.scope: s.as_json() for s in found.witnesses}
    return {**report, "files": files, "matrixScores": scores}


def _unmarked(report: Mapping[str, Any]) -> dict[str, Any]:
    files = {
        path: {
            **{k: v for k, v in entry.items() if k not in MARKS},
            "mutants": [{k: v for k, v in m.items() if k not in MARKS} for m in entry["mutants"]],
        }
        for path, entry in report["files"].items()
    }
    return {**{k: v for k, v in report.items() if k not in MARKS}, "files": files}


def _unplaced(mutant: Mapping[str, Any]) -> bool:
    """Detected, but with no killing set to place: a timeout, or a kill naming no claim."""
    status = mutant.get("status")
    return status in UNPLACED or (status == KILLED and not _ids(mutant, "killedBy"))


def _marked(mutant: Mapping[str, Any], minimal: frozenset[str]) -> dict[str, Any]:
    marked = {k: v for k, v in mutant.items() if k != "minimal"}
    if mutant.get("status") in (KILLED, SURVIVED) and not _unplaced(mutant):
        marked["minimal"] = str(mutant.get("id")) in minimal
    return marked


# --- tables ----------------------------------------------------------------------------------

HEADERS = (
    "judged",
    "strength",
    "killed/minimal",
    "dominator strength",
    "distinguished",
    "no unique kill",
)
IDLE_LISTED = 5
"""Claims with no unique kill named per witness on the console; the report lists all."""


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def row(s: MatrixScore) -> list[object]:
    """One table row: judged, strength, killed dominators of the minimal set, dominator
    strength, distinguished, claims with no unique kill of the scope's claims."""
    minimal = s.killed_dominators + s.survived
    return [
        shown(s.scope),
        s.killed + s.unplaced + s.survived,
        _percent(s.strength),
        f"{s.killed_dominators}/{minimal}",
        _percent(s.dominator_strength),
        s.distinguished,
        f"{len(s.idle)}/{s.claims}",
    ]


def scores_tables(report: Mapping[str, Any], tablefmt: str = "simple") -> str:
    """Per witness, then per file and ``all``; ``tablefmt`` ``simple`` fits the terminal,
    any other is tabulate's (``github`` for a Markdown page)."""
    if not has_matrix(report):
        return NO_MATRIX
    found = report_scores(report)
    witnesses = [row(s) for s in found.witnesses]
    files = [row(s) for s in (*found.files, found.whole)]
    return "\n\n".join(
        [
            _table(witnesses, ["witness", *HEADERS], tablefmt),
            _table(files, ["file", *HEADERS], tablefmt),
        ]
    )


def _table(rows: list[list[object]], headers: list[str], tablefmt: str) -> str:
    if tablefmt != "simple":
        return tabulate(rows, headers=headers, tablefmt=tablefmt)
    return fitted(rows, headers, 0)


def idle_lines(report: Mapping[str, Any]) -> list[str]:
    """Per witness whose claims kill something, its claims that kill no mutant alone among
    its own claims, by name (at most :data:`IDLE_LISTED`; the table counts them all)."""
    lines = []
    for s in report_scores(report).witnesses:
        if not s.idle or not s.killed:
            continue
        names = [shown(c.removeprefix(f"{s.scope}.")) for c in s.idle]
        more = f" and {len(names) - IDLE_LISTED} more" if len(names) > IDLE_LISTED else ""
        listed = ", ".join(names[:IDLE_LISTED])
        lines.append(f"  {shown(s.scope)} ({len(names)} of {s.claims}): {listed}{more}")
    return lines


def summary(report: Mapping[str, Any]) -> str:
    """The console's account of the matrix: both tables, then the idle claims per witness
    (one line saying why not, for a report without a matrix)."""
    if not has_matrix(report):
        return NO_MATRIX
    head = (
        "on the minimal mutant set (one killed mutant per killing set no other killing set "
        "is a strict subset of, and every survivor):"
    )
    idle = idle_lines(report)
    tail = ["", "claims with no unique kill in their witness:", *idle] if idle else []
    return "\n".join([head, scores_tables(report), *tail])
