"""The project's configuration: the ``[tool.claims]`` table of its ``pyproject.toml``.

It is found as pytest finds its own: from the working directory upward, the first
``pyproject.toml`` that holds a ``[tool.claims]`` table (a ``pyproject.toml`` without one is
passed over). Every path in it is relative to the directory of that file, the project root.
Without one, nothing but the built-in plugins, the ``claims`` entry points and ``-p`` loads,
and no ledger or floor is read. Command-line options override what it says.

Keys (each optional):

``plugins``
    Modules loaded as plugins after the built-ins and entry points, before ``-p``, in order.
``disable``
    Plugins left out, as ``-p no:NAME`` leaves them out.
``pythonpath``
    Directories put first on ``sys.path`` before any plugin is imported (pytest's option
    of that name), for a project whose witnesses are not installed.
``debt``, ``equivalent``, ``red_sets``, ``floors``
    The ledgers of ``claims mutate`` (docs/adopting.md describes each format). A ledger
    named here must exist, except ``red_sets``, which ``--record`` writes.
``jobs``, ``timeout``
    Defaults for ``claims mutate --jobs`` and ``--timeout``.

Any other key is an error naming it, so a misspelled key never silently does nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.errors import UsageError
from claims.files import FileProblem, read_toml, shown

FILE_NAME = "pyproject.toml"
TABLE = "claims"

LEDGERS = ("debt", "equivalent", "red_sets", "floors")
LISTS = ("plugins", "disable", "pythonpath")
KEYS = (*LISTS, *LEDGERS, "jobs", "timeout")


@dataclass(frozen=True)
class ProjectConfig:
    """What ``[tool.claims]`` says; :data:`NO_CONFIG` when no file holds one."""

    path: Path | None = None
    plugins: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    pythonpath: tuple[Path, ...] = ()
    debt: Path | None = None
    equivalent: Path | None = None
    red_sets: Path | None = None
    floors: Path | None = None
    jobs: int | None = None
    timeout: float | None = None

    @property
    def root(self) -> Path | None:
        """The project root: the directory of the configuration file."""
        return None if self.path is None else self.path.parent

    def describe(self) -> str:
        if self.path is None:
            return f"no [tool.{TABLE}] in a {FILE_NAME} from {shown(Path.cwd())} upward"
        return f"{shown(self.path)} [tool.{TABLE}]"

    def relative_pythonpath(self) -> tuple[str, ...]:
        """:attr:`pythonpath`, each relative to the root where it is under it."""
        return tuple(
            p.relative_to(self.root).as_posix()
            if self.root and p.is_relative_to(self.root)
            else p.as_posix()
            for p in self.pythonpath
        )

    def activate(self) -> None:
        """Put :attr:`pythonpath` first on ``sys.path`` (once each, in the order given)."""
        for directory in reversed(self.pythonpath):
            text = str(directory)
            if text not in sys.path:
                sys.path.insert(0, text)


NO_CONFIG = ProjectConfig()


def find_config(start: Path | None = None) -> ProjectConfig:
    """The configuration of the project ``start`` (default: the working directory) is in."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / FILE_NAME
        if candidate.is_file():
            table = _table(candidate)
            if table is not None:
                return _parse(candidate, table)
    return NO_CONFIG


def _table(path: Path) -> dict[str, Any] | None:
    try:
        found = read_toml(path)
    except FileProblem as error:
        raise UsageError(f"{shown(path)}: {error.where}: {error.message}") from error
    tool = found.get("tool", {})
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise UsageError(f"{shown(path)}: tool.{TABLE}: must be a table, not {_kind(table)}")
    return table


def _parse(path: Path, table: dict[str, Any]) -> ProjectConfig:
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise UsageError(
            f"{shown(path)}: tool.{TABLE}.{shown(unknown[0])}: not a key of [tool.{TABLE}]; "
            f"its keys: {', '.join(KEYS)}"
        )
    root = path.parent

    def where(key: str) -> str:
        return f"{shown(path)}: tool.{TABLE}.{key}"

    lists = {key: _strings(table.get(key, []), where(key)) for key in LISTS}
    ledgers = {
        key: None if key not in table else root / _path_text(table[key], where(key))
        for key in LEDGERS
    }
    for key in ("debt", "equivalent", "floors"):
        found = ledgers[key]
        if found is not None and not found.is_file():
            raise UsageError(f"{where(key)}: {shown(found)}: no such file")
    return ProjectConfig(
        path=path,
        plugins=lists["plugins"],
        disable=lists["disable"],
        pythonpath=tuple(root / p for p in lists["pythonpath"]),
        debt=ledgers["debt"],
        equivalent=ledgers["equivalent"],
        red_sets=ledgers["red_sets"],
        floors=ledgers["floors"],
        jobs=_count(table, "jobs", where("jobs")),
        timeout=_seconds(table, "timeout", where("timeout")),
    )


def _value(value: object) -> str:
    text = repr(value)
    return shown(text if len(text) <= 60 else text[:50] + "…")


def _kind(value: object) -> str:
    return {str: "text", list: "an array", dict: "a table", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise UsageError(f"{where}: must be an array of text, not {_kind(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip() or not item.isprintable():
            raise UsageError(f"{where}[{index}]: must be non-empty printable text ({_value(item)})")
    return tuple(value)


def _path_text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise UsageError(f"{where}: must be a non-empty path ({_value(value)})")
    return value


def _count(table: dict[str, Any], key: str, where: str) -> int | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"{where}: must be a whole number ≥ 1 ({_value(value)})")
    return value


def _seconds(table: dict[str, Any], key: str, where: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e6:
        raise UsageError(f"{where}: must be a number of seconds, > 0 and < 1e6 ({_value(value)})")
    return float(value)
