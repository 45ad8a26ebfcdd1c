"""Mutation strength per source file, and the floors CI holds it to.

Strength is killed ÷ (killed + survived): a timeout counts as killed, and mutants that are
equivalent (Ignored), crashed the worker (RuntimeError) or reached by no claim (NoCoverage)
are left out of the ratio. Uncovered mutants are counted on their own, because a mutant no
claim reaches is worse than one a claim misses: a file's floor holds its strength *and* the
number of uncovered mutants it may keep (zero unless its entry says otherwise).

``floors.toml`` has one table per survey (``[generated]`` for mutmut's mutants, ``[values]``
for the value-level operators) mapping each source file to its floor in percent, to
``{ strength = P, no_coverage = N }``, or to ``{ no_mutants = "why" }`` for a file the survey
makes no mutant of (data only). A survey fails its floors when a file falls below its floor,
keeps more uncovered mutants than allowed, or has no entry at all (a new module gets a floor in
the same change that adds it). The key ``all`` holds the whole survey's strength. Raising a
floor is an ordinary commit.

A floor never holds vacuously (:func:`floor_problems`): a floored file the whole survey left
out of its report, or a file (or ``all``) of which it judged no mutant, fails like a file below
its floor; and a crashed mutant fails the survey whatever its floors (:func:`crash_lines`).
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
    def mutants(self) -> int:
        return self.judged + self.no_coverage + self.equivalent + self.crashed

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
    no_mutants: str = ""
    """Why the survey makes no mutant of the file (data only); empty for a file held to its
    strength. Such a file need not be in the report, and fails once it has a mutant."""


@dataclass(frozen=True)
class Scope:
    """What part of the survey a report speaks for, which decides the floors it must answer.

    The whole survey (or the merge of all its shards: ``partial`` None) answers every floor: a
    floored file missing from its report fails. A partial run (a shard, ``--since``, ``--file``,
    some witnesses) cannot speak for a whole file, so it holds no strength; but it may not be
    vacuous either: each of ``files`` (``--file`` paths it surveyed whole) that has a floor
    must be judged, and so must ``all`` unless ``sampled`` (``--since``: a change may touch no
    function, and then there is nothing to survey).
    """

    partial: str | None = None
    files: tuple[str, ...] = ()
    sampled: bool = False


WHOLE = Scope()


def merged_scope(report: Mapping[str, Any]) -> Scope:
    """A merge of every shard speaks for what its shards' survey was asked: the whole, unless
    that survey was itself limited to ``--since`` or ``--file`` (its ``config`` says so)."""
    config = report.get("config")
    config = config if isinstance(config, dict) else {}
    since = config.get("since") if isinstance(config.get("since"), str) else None
    since = since or None
    found = config.get("files")
    files = tuple(f for f in found if isinstance(f, str)) if isinstance(found, list) else ()
    given = [f"--since {since}" if since else "", "--file" if files else ""]
    partial = ", ".join(g for g in given if g) or None
    return Scope(partial, () if since else files, sampled=since is not None)


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


def _floor_cell(floor: Floor | None) -> str:
    if floor is None:
        return ""
    return "no mutants" if floor.no_mutants else _percent(floor.strength)


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
                _floor_cell(floor),
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
    if isinstance(value, dict) and "no_mutants" in value:
        return _no_mutants(where, file, value)
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


def _no_mutants(where: str, file: str, value: dict[str, object]) -> Floor:
    """``{ no_mutants = "why" }``: the reason is the audit, so it must be given, and alone."""
    reason = value["no_mutants"]
    if not isinstance(reason, str) or not reason.strip():
        raise UsageError(f"{where}: no_mutants must say why the file has none, not {reason!r}")
    if set(value) != {"no_mutants"}:
        other = sorted(set(value) - {"no_mutants"})[0]
        raise UsageError(f"{where}: no_mutants stands alone, without {other!r}")
    if file == "all":
        raise UsageError(f"{where}: the whole survey cannot be without mutants")
    return Floor(100.0, no_mutants=reason)


def below_floors(per_file: Sequence[Score], floors: Mapping[str, Floor]) -> list[str]:
    """One line per file that fails its floor, has none, or was judged on no mutant; empty
    when every floor holds. A file whose every mutant is equivalent needs no floor (there is
    nothing to hold), but a floored one fails: a floor that judged nothing is no floor."""
    problems = []
    for s in per_file:
        floor = floors.get(s.path)
        if floor is None:
            if s.path == "all" or s.mutants > s.equivalent:
                problems.append(f"{s.path}: no floor recorded; add one to the floors file")
        elif floor.no_mutants:
            problems += [_unexpected(s, floor)] if s.mutants else []
        else:
            problems += _against(s, floor)
    return problems


def _against(s: Score, floor: Floor) -> list[str]:
    if s.strength is None:
        problems = [unjudged(s, floor)]
    elif s.strength < floor.strength:
        problems = [
            f"{s.path}: strength {s.strength:.1f}% is below its floor {floor.strength:g}% "
            f"({s.survived} survived)"
        ]
    else:
        problems = []
    # the whole survey's uncovered mutants are the files' own, each held by its entry
    if s.path != "all" and s.no_coverage > floor.no_coverage:
        problems.append(_over_allowance(s.path, s.no_coverage, floor))
    return problems


def _over_allowance(path: str, uncovered: int, floor: Floor) -> str:
    return f"{path}: {uncovered} mutants reached by no claim, {floor.no_coverage} allowed"


def reach_problems(
    reached: Mapping[str, tuple[int, int]], floors: Mapping[str, Floor], whole: bool
) -> list[str]:
    """What a baseline alone decides of ``floors`` (``claims mutate --generated --reach``):
    ``reached`` maps each file to (its mutants, how many of them no claim reaches). A file
    with mutants needs an entry, and one recorded as having none fails; a file held to a
    strength keeps no more uncovered mutants than it allows and has one a claim reaches; and
    when ``whole`` (every file was mutated), a file held to a strength that has no mutant
    fails. Strength itself is left to a whole survey: no mutant ran."""
    problems = []
    for path, (mutants, uncovered) in sorted(reached.items()):
        floor = floors.get(path)
        if floor is None:
            problems.append(f"{path}: no floor recorded; add one to the floors file")
        elif floor.no_mutants:
            problems.append(_unexpected(Score(path, no_coverage=mutants), floor))
        else:
            if uncovered == mutants:
                problems.append(unjudged(Score(path, no_coverage=uncovered), floor))
            if uncovered > floor.no_coverage:
                problems.append(_over_allowance(path, uncovered, floor))
    if whole:
        problems += [
            unjudged(Score(path), floors[path])
            for path in sorted(set(floors) - set(reached) - {"all"})
            if _strength_floor(floors, path)
        ]
    return problems


def _unexpected(s: Score, floor: Floor) -> str:
    return (
        f"{s.path}: recorded as having no mutant ({floor.no_mutants}) but the survey holds "
        f"{s.mutants}; give it a strength floor"
    )


def unjudged(s: Score, floor: Floor | None) -> str:
    """The line of a file (or ``all``) no mutant of which was judged killed or survived."""
    if s.mutants == 0:
        why = "the report holds no mutant" if s.path == "all" else "missing from the report"
    else:
        counts = [
            (s.no_coverage, "reached by no claim"),
            (s.equivalent, "equivalent"),
            (s.crashed, "crashed"),
        ]
        why = ", ".join(f"{n} {label}" for n, label in counts if n)
    floored = f"floored at {floor.strength:g}% but " if floor else ""
    return f"{s.path}: {floored}the survey judged none of its mutants ({why})"


def floor_problems(
    per_file: Sequence[Score], floors: Mapping[str, Floor], scope: Scope = WHOLE
) -> list[str]:
    """What keeps ``floors`` from holding over a report of ``scope`` (:class:`Scope`): for
    the whole survey every floor, a floored file missing from the report among them; for a
    partial run only that it judged something where it had to."""
    if scope.partial is None:
        every = [*per_file, total(per_file)]
        return missing(per_file, floors, set(floors) - {"all"}) + below_floors(every, floors)
    return missing(per_file, floors, set(scope.files)) + _vacuous(per_file, floors, scope)


def _strength_floor(floors: Mapping[str, Floor], path: str) -> bool:
    return path in floors and not floors[path].no_mutants


def missing(per_file: Sequence[Score], floors: Mapping[str, Floor], files: set[str]) -> list[str]:
    """A line per file of ``files`` held to a strength floor that the report does not hold:
    the survey judged none of its mutants, so the floor cannot say it holds."""
    present = {s.path for s in per_file}
    return [
        unjudged(Score(f), floors[f])
        for f in sorted(files)
        if f not in present and _strength_floor(floors, f)
    ]


def _vacuous(per_file: Sequence[Score], floors: Mapping[str, Floor], scope: Scope) -> list[str]:
    """A partial run's own failures: a floored file it surveyed whole, or (unless ``sampled``)
    the run as a whole, of which it judged no mutant."""
    problems = [
        unjudged(s, floors[s.path])
        for s in per_file
        if s.path in scope.files and _strength_floor(floors, s.path) and not s.judged
    ]
    every = total(per_file)
    if not scope.sampled and not every.judged:
        problems.append(unjudged(every, floors.get("all")))
    return problems


def crash_lines(per_file: Sequence[Score]) -> list[str]:
    """One line per file with crashed mutants (RuntimeError, CompileError: the worker died on
    the mutant, or it would not load); no claim judged them, so they are neither kills nor
    survivors, and a survey that has any failed on them."""
    return [
        f"{s.path}: {s.crashed} mutants crashed (no claim judged them; the report says why)"
        if s.crashed > 1
        else f"{s.path}: 1 mutant crashed (no claim judged it; the report says why)"
        for s in per_file
        if s.crashed
    ]


def hold_floors(
    report: Mapping[str, Any], floors_path: Path | None, scope: Scope, survey: str
) -> int:
    """Print the per-file score table against the floors and hold them: 3 when a floor fails
    (:func:`floor_problems`), 6 when any mutant crashed (whatever the floors, and without a
    floors file too: the survey failed on those mutants; the report is already written), else
    0. Without a floors file (``--floors``, or ``floors`` in ``[tool.claims]``), none is held.
    """
    per_file = scores(report)
    held = _hold(per_file, floors_path, scope, survey)
    crashed = crash_lines(per_file)
    for line in crashed:
        print(f"crashed: {line}")
    if crashed:
        count = total(per_file).crashed
        print(f"{count} crashed mutant{'s' if count > 1 else ''}: the survey fails (exit 6)")
        return Exit.TIMEOUT
    return held


def _hold(per_file: Sequence[Score], floors_path: Path | None, scope: Scope, survey: str) -> int:
    if floors_path is None:
        print()
        print(score_table(per_file))
        print("floors not held: no floors file (--floors FILE, or floors in [tool.claims])")
        return Exit.OK
    floors = load_floors(floors_path, survey)
    print()
    print(score_table(per_file, floors))
    if scope.partial is not None:
        print(f"strength floors not held: a partial survey ({scope.partial}); the whole holds them")
    problems = floor_problems(per_file, floors, scope)
    for line in problems:
        print(f"below floor: {line}")
    if problems:
        return Exit.SURVIVOR
    if scope.partial is None:
        print(f"every file holds its floor ({floors_path} [{survey}])")
    return Exit.OK
