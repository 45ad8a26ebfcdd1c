"""The two committed ledgers: claims owed a mutant (debt), and equivalent generated mutants.

``debt.toml``: a table ``[debt]`` of ``"<witness>.<claim>" = "reason"``: claims no declared
mutant turns red yet. A listed claim is reported as debt instead of failing the run; a listed
claim that *is* witnessed fails the run until its entry is removed.

``equivalent.toml``: ``[[equivalent]]`` entries with ``mutant`` (mutmut's name), ``from`` and
``to`` (the changed source line before and after, stripped) and ``reason``. The line pair
pins the entry: when the mutant no longer makes that change (mutmut renumbered after an
edit), the entry is reported stale and the mutant is judged like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from claims import UsageError
from claims.files import FileProblem, read_toml

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DEBT = PACKAGE_DIR / "debt.toml"
DEFAULT_EQUIVALENT = PACKAGE_DIR / "equivalent.toml"


def _read(path: Path) -> dict[str, object]:
    """The ledger's tables. A missing ledger is an error, never an empty one: a mistyped
    ``--debt`` path must not quietly drop every recorded debt."""
    try:
        return read_toml(path)
    except FileProblem as error:
        raise UsageError(
            f"{path}: {error.where}: cannot read the ledger: {error.message}"
        ) from error


def load_debt(path: Path = DEFAULT_DEBT) -> dict[str, str]:
    """Claim id -> reason; a missing or unreadable file is a usage error."""
    table = _read(path).get("debt", {})
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in table.items()
    ):
        raise UsageError(f'{path}: [debt] must map "<witness>.<claim>" to a non-empty reason')
    return dict(table)


@dataclass(frozen=True)
class Equivalence:
    """A generated mutant judged equivalent: it changes no behaviour any input can show."""

    mutant: str
    before: str
    after: str
    reason: str

    def matches(self, before: str, after: str) -> bool:
        return (self.before, self.after) == (before.strip(), after.strip())


_KEYS = ("mutant", "from", "to", "reason")


def load_equivalents(path: Path = DEFAULT_EQUIVALENT) -> dict[str, Equivalence]:
    """Mutant name -> its equivalence entry."""
    entries = _read(path).get("equivalent", [])
    if not isinstance(entries, list):
        raise UsageError(f"{path}: equivalent must be an array of tables [[equivalent]]")
    found: dict[str, Equivalence] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not all(isinstance(entry.get(k), str) for k in _KEYS):
            raise UsageError(f"{path}: [[equivalent]] #{index + 1} needs {', '.join(_KEYS)}")
        found[entry["mutant"]] = Equivalence(
            mutant=entry["mutant"],
            before=entry["from"].strip(),
            after=entry["to"].strip(),
            reason=entry["reason"],
        )
    return found
