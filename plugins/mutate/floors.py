"""Mutation strength per source file, and the floors CI holds it to.

Strength is killed ÷ (killed + survived): a timeout counts as killed, and mutants that are
equivalent (Ignored), crashed the worker (RuntimeError) or reached by no claim (NoCoverage)
are left out of the ratio. Uncovered mutants are counted on their own, because a mutant no
claim reaches is worse than one a claim misses: a file's floor holds its strength *and* the
number of uncovered mutants it may keep (zero unless its entry says otherwise).

``floors.toml`` has one table per survey (``[generated]`` for mutmut's mutants, ``[values]``
for the value-level operators) mapping each source file to its floor in percent, or to
``{ strength = P, no_coverage = N }``. A survey fails its floors when a file falls below its
floor, keeps more uncovered mutants than allowed, or has no entry at all (a new module gets a
floor in the same change that adds it). The key ``all`` holds the whole survey's strength.
Raising a floor is an ordinary commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from claims import UsageError
from claims.exits import Exit
from claims.files import FileProblem, read_toml, shown
from claims.tables import fitted

DETECTED = frozenset({"Killed", "Timeout"})


@dataclass(frozen=True)
class Score:
    """What one source file's mutants came to."""

    path: str
    killed: int = 0
    survived: int = 0
    no_coverage: int = 0
    equivalent: int = 0
    crashed: int = 0

    @property
    def judged(self) -> int:
        return self.killed + self.survived

    @property
    def strength(self) -> float | None:
        """Percent of judged mutants killed; None when no mutant was judged."""
        return 100.0 * self.killed / self.judged if self.judged else None

    def add(self, status: str) -> Score:
        field = {
            "Killed": "killed",
            "Timeout": "killed",
            "Survived": "survived",
            "NoCoverage": "no_coverage",
            "Ignored": "equivalent",
        }.get(status, "crashed")
        return Score(**{**self.__dict__, field: getattr(self, field) + 1})


@dataclass(frozen=True)
class Floor:
    """The least a file's strength may be, and the most uncovered mutants it may keep."""

    strength: float
    no_coverage: int = 0


def scores(report: Mapping[str, Any]) -> list[Score]:
    """One score per file of a Stryker report, in path order."""
    found = []
    for path, entry in sorted(report["files"].items()):
        score = Score(path)
        for mutant in entry["mutants"]:
            score = score.add(mutant["status"])
        found.append(score)
    return found


def total(per_file: Sequence[Score]) -> Score:
    """Every file's counts added up, as the row ``all``."""
    return Score(
        "all",
        killed=sum(s.killed for s in per_file),
        survived=sum(s.survived for s in per_file),
        no_coverage=sum(s.no_coverage for s in per_file),
        equivalent=sum(s.equivalent for s in per_file),
        crashed=sum(s.crashed for s in per_file),
    )


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def score_table(
    per_file: Sequence[Score], floors: Mapping[str, Floor] | None = None, tablefmt: str = "simple"
) -> str:
    """The per-file table: killed, survived, no coverage, equivalent, crashed, strength, floor
    (``tablefmt``: tabulate's format, ``github`` for a Markdown page)."""
    rows = []
    for s in [*per_file, total(per_file)]:
        floor = (floors or {}).get(s.path)
        rows.append(
            [
                s.path,
                s.killed,
                s.survived,
                s.no_coverage,
                s.equivalent,
                s.crashed,
                _percent(s.strength),
                _percent(floor.strength) if floor else "",
            ]
        )
    headers = ["file", "killed", "survived", "no coverage", "equivalent", "crashed", "strength"]
    headers.append("floor" if floors else "")
    if tablefmt != "simple":  # a page (Markdown), not a terminal
        return tabulate(rows, headers=headers, tablefmt=tablefmt)
    return fitted(rows, headers, 0)


def load_floors(path: Path, survey: str) -> dict[str, Floor]:
    """The ``[survey]`` table of a floors file; a malformed entry is a located usage error."""
    try:
        table = read_toml(path).get(survey)
    except FileProblem as error:
        raise UsageError(
            f"--floors {shown(path)}: {error.where}: cannot read the floors: {error.message}"
        ) from error
    if not isinstance(table, dict):
        raise UsageError(f"--floors {shown(path)}: no [{survey}] table of floors")
    return {file: _floor(path, survey, file, value) for file, value in table.items()}


def _floor(path: Path, survey: str, file: str, value: object) -> Floor:
    where = f"--floors {shown(path)}: [{survey}] {file!r}"
    if isinstance(value, dict):
        strength, no_coverage = value.get("strength"), value.get("no_coverage", 0)
        unknown = set(value) - {"strength", "no_coverage"}
        if unknown:
            raise UsageError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    else:
        strength, no_coverage = value, 0
    if isinstance(strength, bool) or not isinstance(strength, (int, float)):
        raise UsageError(f"{where}: the floor must be a percent, not {strength!r}")
    if not 0 <= strength <= 100:
        raise UsageError(f"{where}: the floor {strength} is not between 0 and 100")
    if isinstance(no_coverage, bool) or not isinstance(no_coverage, int) or no_coverage < 0:
        raise UsageError(f"{where}: no_coverage must be a count, not {no_coverage!r}")
    return Floor(float(strength), no_coverage)


def below_floors(per_file: Sequence[Score], floors: Mapping[str, Floor]) -> list[str]:
    """One line per file that fails its floor or has none; empty when every floor holds."""
    problems = []
    for s in per_file:
        floor = floors.get(s.path)
        if floor is None:
            problems.append(f"{s.path}: no floor recorded; add one to the floors file")
            continue
        if s.strength is not None and s.strength < floor.strength:
            problems.append(
                f"{s.path}: strength {s.strength:.1f}% is below its floor {floor.strength:g}% "
                f"({s.survived} survived)"
            )
        # the whole survey's uncovered mutants are the files' own, each held by its entry
        if s.path != "all" and s.no_coverage > floor.no_coverage:
            problems.append(
                f"{s.path}: {s.no_coverage} mutants reached by no claim, "
                f"{floor.no_coverage} allowed"
            )
    return problems


def hold_floors(
    report: Mapping[str, Any], floors_path: Path | None, partial: str | None, survey: str
) -> int:
    """Print the per-file score table against the floors; 3 when a floor fails, else 0.

    A partial survey (a shard, ``--since``, ``--file``, some witnesses) cannot speak for a
    whole file, so it prints its table and holds no floor; CI holds them on the whole or
    merged survey. Without a floors file (``--floors``, or ``floors`` in ``[tool.claims]``),
    none is held.
    """
    per_file = scores(report)
    if floors_path is None:
        print()
        print(score_table(per_file))
        print("floors not held: no floors file (--floors FILE, or floors in [tool.claims])")
        return Exit.OK
    path = floors_path
    floors = load_floors(path, survey)
    print()
    print(score_table(per_file, floors))
    if partial is not None:
        print(f"floors not held: a partial survey ({partial}); the whole survey holds them")
        return Exit.OK
    problems = below_floors([*per_file, total(per_file)], floors)
    for line in problems:
        print(f"below floor: {line}")
    if problems:
        return Exit.SURVIVOR
    print(f"every file holds its floor ({path} [{survey}])")
    return Exit.OK
