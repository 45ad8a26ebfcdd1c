"""The two ledgers a project keeps: claims owed a mutant (debt), and equivalent generated
mutants. Their paths come from ``--debt``/``--equivalent`` or the project's ``[tool.claims]``
(:mod:`claims.config`); a project that names none keeps none.

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
from claims.files import FileProblem, read_toml, shown


def _read(path: Path, table: str, empty: object) -> object:
    """The ledger's one top-level ``table`` (absent: ``empty``). A missing ledger is an error,
    never an empty one: a mistyped ``--debt`` path must not quietly drop every recorded
    debt; so is any other top-level key (``[dept]`` would hold nothing)."""
    try:
        found = read_toml(path)
    except FileProblem as error:
        raise UsageError(
            f"{shown(path)}: {error.where}: cannot read the ledger: {error.message}"
        ) from error
    other = sorted(set(found) - {table})
    if other:
        raise UsageError(
            f"{shown(path)}: {shown(other[0])}: not a table of this ledger; it holds only {table}"
        )
    return found.get(table, empty)


def load_debt(path: Path | None) -> dict[str, str]:
    """Claim id -> reason (``None``: the project keeps no debt ledger); a missing or
    unreadable file, or an entry that is not a non-empty reason, is a usage error naming the
    entry."""
    if path is None:
        return {}
    table = _read(path, "debt", {})
    if not isinstance(table, dict):
        raise UsageError(
            f'{shown(path)}: debt: [debt] must map "<witness>.<claim>" to a non-empty reason '
            f"(value {_shown(table)})"
        )
    for key, reason in table.items():
        if not isinstance(reason, str) or not reason.strip():
            raise UsageError(
                f'{shown(path)}: debt."{shown(key)}": [debt] must map "<witness>.<claim>" to '
                f"a non-empty reason (value {_shown(reason)})"
            )
    return dict(table)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:50] + "…"


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


def load_equivalents(path: Path | None) -> dict[str, Equivalence]:
    """Mutant name -> its equivalence entry (``None``: the project keeps no such ledger).
    An entry with a key of another name, an empty ``mutant`` or ``reason``, or a mutant named
    twice is a usage error naming the entry."""
    if path is None:
        return {}
    entries = _read(path, "equivalent", [])
    if not isinstance(entries, list):
        raise UsageError(
            f"{shown(path)}: equivalent: equivalent must be an array of tables [[equivalent]] "
            f"(value {_shown(entries)})"
        )
    found: dict[str, Equivalence] = {}
    first_at: dict[str, int] = {}
    for index, entry in enumerate(entries):
        place = f"{shown(path)}: equivalent[{index}]"
        wrong = (
            [k for k in _KEYS if not isinstance(entry.get(k), str)]
            if isinstance(entry, Mapping)
            else ["<entry>"]
        )
        if wrong:
            raise UsageError(
                f"{place}.{wrong[0]}: [[equivalent]] #{index + 1} needs "
                f"{', '.join(_KEYS)}, each text"
            )
        unknown = sorted(set(entry) - set(_KEYS))
        if unknown:
            raise UsageError(
                f"{place}.{shown(unknown[0])}: [[equivalent]] #{index + 1} has no such key; "
                f"the keys are {', '.join(_KEYS)}"
            )
        empty = [k for k in ("mutant", "reason") if not entry[k].strip()]
        if empty:
            raise UsageError(f"{place}.{empty[0]}: [[equivalent]] #{index + 1}: empty {empty[0]}")
        first = first_at.setdefault(entry["mutant"], index)
        if first != index:
            raise UsageError(
                f"{place}.mutant: [[equivalent]] #{index + 1} names {shown(entry['mutant'])} "
                f"again (first in #{first + 1}); one entry a mutant"
            )
        found[entry["mutant"]] = Equivalence(
            mutant=entry["mutant"],
            before=entry["from"].strip(),
            after=entry["to"].strip(),
            reason=entry["reason"],
        )
    return found
