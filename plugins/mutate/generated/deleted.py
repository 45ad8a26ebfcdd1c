"""What a statement deletion is, once made: its record and the sidecar that keeps it beside
the mutated file (:mod:`.deletion` makes them, in the generation process).

Apart from :mod:`.deletion` because this side needs no libcst: whoever reads a survey's
mutants imports it, and a project without mutmut (which brings libcst) still gets the
survey's own "install mutmut" message rather than an import error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

OPERATOR = "StatementDeletion"
SIDECAR = ".deletions"
"""Suffix of the sidecar beside each mutated file: deletion mutant name -> what it deleted."""


@dataclass(frozen=True)
class Deletion:
    """One deletion: where the statement was (1-based lines and columns, end exclusive), its
    text, and what replaces it (``pass``, or nothing when its block keeps another)."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    before: str
    after: str


def sidecar(mutated: Path) -> Path:
    """The deletions index beside a mutated file (``mutants/pkg/mod.py.deletions``)."""
    return mutated.with_name(mutated.name + SIDECAR)


def read_deletions(mutated: Path) -> dict[str, Deletion]:
    """The sidecar of a mutated file: local mutant name -> its deletion (none without one)."""
    path = sidecar(mutated)
    if not path.is_file():
        return {}
    body = json.loads(path.read_text(encoding="utf-8"))
    return {name: Deletion(**fields) for name, fields in body.items()}
