"""Files the framework reads and writes: read strictly, written whole, never half-written.

Reading: :func:`read_json` parses a JSON file with the project's one strict reader
(:func:`filerules.strict_json`: a key given twice, ``NaN``/``Infinity``, an integer beyond
signed 64 bits, a lone surrogate, nesting past 64 levels are refused) and locates what it
refuses; :func:`read_toml` reads TOML, turning what Python's reader cannot take (an integer of
more than 4,300 digits, tables nested past the recursion limit, bytes that are not UTF-8)
into a located :class:`FileProblem`.

Writing: :func:`write_atomically` and :func:`check_writable` are :mod:`filerules`' writer and
its preflight, their refusals raised as the kernel's :class:`WriteError` (a usage error, exit
2, naming the user's path).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import filerules
from claims.errors import ClaimsError
from filerules import printable as shown
from filerules import signals_unwind as signals_unwind

__all__ = [
    "FileProblem",
    "WriteError",
    "check_writable",
    "parse_json",
    "read_json",
    "read_text",
    "read_toml",
    "shown",
    "signals_unwind",
    "write_atomically",
]


class FileProblem(ValueError):
    """A file the framework will not read: ``where`` is the key path, the line and column, or
    ``<file>``; ``message`` says why, quoting the value."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        self.syntax: json.JSONDecodeError | None = None
        """The parser's error when the text is not JSON at all."""
        super().__init__(f"{where}: {message}")


class WriteError(filerules.WriteError, ClaimsError):
    """A file the framework could not write; its message names the user's path (exit 2)."""


# ----------------------------------------------------------------------------- reading


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``; anything else is a :class:`FileProblem` at ``<file>``."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as error:  # ValueError: a NUL in the path
        raise FileProblem("<file>", f"cannot read the file: {error}") from error


def read_json(path: Path) -> Any:
    """``path`` parsed as strict JSON; every refusal is a located :class:`FileProblem`."""
    return parse_json(read_text(path))


def parse_json(text: str) -> Any:
    """``text`` as strict JSON; text that is not JSON is a :class:`FileProblem` at its line and
    column (``syntax`` holds the parser's error), JSON refused one at its key path."""
    try:
        return filerules.strict_json(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        problem = FileProblem(where, f"not JSON: {error.msg}")
        problem.syntax = error
        raise problem from None
    except filerules.JsonProblem as error:
        raise FileProblem(error.where, error.message) from None


def read_toml(path: Path) -> dict[str, Any]:
    """``path`` as TOML; whatever Python's reader cannot take is a located :class:`FileProblem`."""
    text = read_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        where = f"line {at.group(1)}, column {at.group(2)}" if at else "end of file"
        raise FileProblem(where, f"not TOML: {error}") from None
    except ValueError as error:  # an integer of more than 4,300 digits
        long = re.search(r"[0-9][0-9_]{4299,}", text)
        where = "<file>"
        if long is not None:
            line = text.count("\n", 0, long.start()) + 1
            where = f"line {line}, column {long.start() - text.rfind(chr(10), 0, long.start())}"
        raise FileProblem(where, f"an integer Python cannot read: {error}") from None
    except RecursionError:
        raise FileProblem("<file>", "arrays or tables nested too deeply to read") from None


# ----------------------------------------------------------------------------- writing


def write_atomically(target: Path, data: bytes) -> None:
    """:func:`filerules.write_atomically`; a refusal is the kernel's :class:`WriteError`."""
    try:
        filerules.write_atomically(target, data)
    except filerules.WriteError as error:
        raise WriteError(error.errno, error.strerror, error.filename) from None


def check_writable(target: Path) -> None:
    """:func:`filerules.check_writable`; a refusal is the kernel's :class:`WriteError`."""
    try:
        filerules.check_writable(target)
    except filerules.WriteError as error:
        raise WriteError(error.errno, error.strerror, error.filename) from None
