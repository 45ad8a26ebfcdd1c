"""Recorded red sets: the claims of *other* witnesses each declared mutant turns red.

A mutant's ``turns_red`` is intent, typed by a person: the claims of its own witness it must
turn red. What it does to other witnesses' claims (a defect in shared code reaches every
claim that calls it) is an observation, so the machine keeps it: ``claims mutate --all
--record`` runs every mutant alone and writes what it saw to one lock file, and every later
run holds the lock exactly, both ways. A red claim the lock lacks is *collateral*; a locked
claim that stays green is *stale*; both exit 4 and name the mutant and the claim. Adding a
claim that sees shared code therefore edits its own witness, its own mutants and the lock
(regenerated, reviewed in the diff), never another witness's mutant module.

The lock is text, one pair a line, sorted, so a diff reads as "this mutant now also turns
that claim red"::

    # comment lines and blank lines are ignored
    <witness>.<mutant> <witness>.<claim>

A run holds exactly the pairs whose mutant and claim both belong to witnesses in its scope
(a run of one witness checks none of its cross-witness pairs; ``--all`` checks them all).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from claims import UsageError
from claims.files import shown, write_atomically
from claims.witness import witness_of

HEADER = """\
# Recorded red sets: each line is a declared mutant and a claim of another witness that the
# mutant, run alone, turns red. Written by `claims mutate --all --record`; do not edit by
# hand. Every `claims mutate` run holds the pairs of its scope exactly (exit 4 otherwise).
"""

Pair = tuple[str, str]


def _is_id(text: str) -> bool:
    witness, dot, name = text.partition(".")
    return bool(dot and witness and name) and all(c.isalnum() or c in "._-[]" for c in text)


@dataclass(frozen=True)
class RedSets:
    """The recorded pairs ``(mutant id, claim id)``."""

    pairs: frozenset[Pair] = frozenset()

    def held(self, scope: Iterable[str]) -> frozenset[Pair]:
        """The pairs a run of ``scope`` checks: mutant and claim both in scope."""
        witnesses = frozenset(scope)
        return frozenset(
            (m, c) for m, c in self.pairs if _witness(m) in witnesses and _witness(c) in witnesses
        )


def _witness(identifier: str) -> str:
    return witness_of(identifier)


def parse(text: str, where: str) -> frozenset[Pair]:
    """The pairs of a lock's text; a malformed line is a usage error naming ``where:line``."""
    pairs: set[Pair] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 2 or not all(_is_id(f) for f in fields):
            raise UsageError(
                f"{where}:{number}: {line[:120]!r} is not '<witness>.<mutant> <witness>.<claim>'"
            )
        mutant, claim = fields
        if _witness(mutant) == _witness(claim):
            raise UsageError(
                f"{where}:{number}: {claim} is a claim of the mutant's own witness: declare it "
                "in the mutant's turns_red, the lock holds only other witnesses' claims"
            )
        pairs.add((mutant, claim))
    return frozenset(pairs)


def read(path: Path, *, required: bool) -> RedSets:
    """The lock at ``path``. A missing file is an empty lock unless ``required`` (a path the
    user named must exist: a mistyped ``--red-sets`` must not drop every pair)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise UsageError(f"{shown(path)}: the red sets: no such file") from None
        return RedSets()
    except (OSError, UnicodeDecodeError, ValueError) as error:  # ValueError: a NUL in it
        raise UsageError(
            f"{shown(path)}: the red sets: cannot read the file: {shown(error)}"
        ) from None
    return RedSets(parse(text, shown(path)))


def render(pairs: Iterable[Pair]) -> str:
    return HEADER + "".join(f"{m} {c}\n" for m, c in sorted(set(pairs)))


def write(path: Path, pairs: Iterable[Pair]) -> None:
    write_atomically(path, render(pairs).encode())


def observed(red: Mapping[str, frozenset[str]]) -> frozenset[Pair]:
    """Pairs from each mutant's red set alone, without its own witness's claims."""
    return frozenset(
        (mutant, claim)
        for mutant, claims in red.items()
        for claim in claims
        if _witness(claim) != _witness(mutant)
    )
