"""One strict JSON reader: well-formed JSON that says something no reader should guess at is
refused, located by its key path.

Refused (:class:`JsonProblem`): a key given twice in one object (both values quoted), a
``NaN``/``Infinity`` constant, an integer outside the signed 64-bit range (Python cannot even
print one of more than 4,300 digits), a string or key holding a lone surrogate, and nesting
deeper than :data:`MAX_DEPTH` (located by line and column: a path that deep says nothing).

Where two readers once differed, this one keeps the stricter and more telling form: a repeated
key's message quotes both values and a bad value is quoted, so the reader of one message line
needs nothing else to see what the file says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

MAX_DEPTH = 64
"""How deep arrays and objects may nest (the document is level 1); no input needs a tenth."""

INT_RANGE = range(-(2**63), 2**63)
"""Integers a document may hold: signed 64-bit."""

_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


class JsonProblem(ValueError):
    """Well-formed JSON refused, located by the key path (``produced_image.artifact``, or
    ``<root>``) or, for nesting too deep, by the line and column (``position``) where the
    level past :data:`MAX_DEPTH` opens. ``message`` says why, quoting the value."""

    def __init__(self, where: str, message: str, position: tuple[int, int] | None = None) -> None:
        self.where = where
        self.message = message
        self.position = position
        super().__init__(f"{where}: {message}")


_NESTED = JsonProblem("", _TOO_DEEP)
"""What the walk finds past :data:`MAX_DEPTH`; :func:`_too_deep` then locates it in the text."""


class _Unlocated(Exception):
    """Raised by a parse hook, which cannot see where it is; the slow path locates it."""


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Unlocated
    return found


def _in_range(text: str) -> bool:
    """Whether the integer written ``text`` is signed 64-bit (one Python will not even read,
    of more than 4,300 digits, is not)."""
    try:
        return int(text) in INT_RANGE
    except ValueError:
        return False


def _bounded_int(text: str) -> int:
    if not _in_range(text):
        raise _Unlocated
    return int(text)


def _no_constant(text: str) -> object:
    raise _Unlocated


def strict_json(text: str) -> object:
    """``text`` parsed as JSON, refusing what the module doc lists.

    Raises :class:`json.JSONDecodeError` for text that is not JSON and :class:`JsonProblem`
    for JSON refused: a repeated key, an integer out of range or a constant (found by the
    parse, then located by reading the text again as written), a lone surrogate or nesting
    too deep (found by walking what was read; only text with an escape, a non-ASCII
    character or more than :data:`MAX_DEPTH` brackets can hold either, so only it is walked)."""
    try:
        value = json.loads(
            text, object_pairs_hook=_unique, parse_int=_bounded_int, parse_constant=_no_constant
        )
    except (_Unlocated, RecursionError):
        raise _locate(text) from None
    deep = text.count("[") + text.count("{") > MAX_DEPTH
    if not deep and "\\" not in text and text.isascii():
        return value
    problem = _walk(value, (), 1)
    if problem is None:
        return value
    if problem is _NESTED:
        raise _deepest(text)
    raise problem


class _Pairs(list[tuple[str, object]]):
    """An object as written: every key, in order, duplicates kept."""


class _RawNumber(str):
    """An integer or constant as written."""


def _locate(text: str) -> JsonProblem:
    """What a parse hook refused, or the recursion limit hit, found in the text as written."""
    if _too_deep(text) is not None:
        return _deepest(text)
    written = json.loads(
        text, object_pairs_hook=_Pairs, parse_int=_RawNumber, parse_constant=_RawNumber
    )
    problem = _walk(written, (), 1)
    assert problem is not None
    return problem


def _deepest(text: str) -> JsonProblem:
    found = _too_deep(text)
    assert found is not None
    return found


_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]')
"""What nesting depends on: a whole string (its brackets do not count), a bracket, a line end."""


def _too_deep(text: str) -> JsonProblem | None:
    """The line and column where nesting first passes :data:`MAX_DEPTH`, strings skipped."""
    depth, line, line_start = 0, 1, 0
    for token in _TOKENS.finditer(text):
        found = token.group()
        if found == "\n":
            line, line_start = line + 1, token.end()
        elif found in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                column = token.start() - line_start + 1
                return JsonProblem(f"line {line}, column {column}", _TOO_DEEP, (line, column))
        elif found in ("]", "}"):
            depth -= 1
    return None


def _path(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "<root>"


def _walk(value: object, path: tuple[str | int, ...], level: int) -> JsonProblem | None:
    """The first problem in document order: nesting past :data:`MAX_DEPTH` (``level`` is
    the nesting of ``value``), a lone surrogate, and (in a tree read as written) a repeated
    key or a number out of range."""
    if isinstance(value, _RawNumber):
        return _number_problem(value, path)
    if isinstance(value, str):
        return _surrogate_problem(value, path)
    items: Iterator[tuple[str | int, object]]
    if isinstance(value, _Pairs):
        if (problem := _repeated_key(value, path)) is not None:
            return problem
        items = iter(value)
    elif isinstance(value, dict):
        items = iter(value.items())
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    if level > MAX_DEPTH:
        return _NESTED
    for step, item in items:
        if isinstance(step, str) and (problem := _surrogate_problem(step, path)) is not None:
            return problem
        problem = _walk(item, (*path, step), level + 1)
        if problem is not None:
            return problem
    return None


def _repeated_key(pairs: _Pairs, path: tuple[str | int, ...]) -> JsonProblem | None:
    seen: dict[str, object] = {}
    for key, item in pairs:
        if key in seen:
            first, again = _shown(seen[key]), _shown(item)
            return JsonProblem(
                _path((*path, key)),
                f"key {key!r} is given twice (values {first} and {again}): "
                "an input that says two things is corrupt",
            )
        seen[key] = item
    return None


def _shown(value: object) -> str:
    """A value quoted for a message, cut to a readable length."""
    if isinstance(value, _RawNumber):
        text = str(value)
    elif isinstance(value, str):
        text = repr(value)
    elif isinstance(value, (_Pairs, dict)):
        text = "an object"
    elif isinstance(value, list):
        text = "an array"
    else:
        text = json.dumps(value)
    return text if len(text) <= 200 else text[:150] + f"… ({len(text):,} characters)"


def _number_problem(value: _RawNumber, path: tuple[str | int, ...]) -> JsonProblem | None:
    if value in ("NaN", "Infinity", "-Infinity"):
        return JsonProblem(_path(path), f"{value} is not a JSON number")
    if _in_range(value):
        return None
    digits = len(value.lstrip("-"))
    return JsonProblem(
        _path(path),
        f"an integer of {digits:,} digits is out of range: integers here are signed 64-bit "
        f"(value {_shown(value)})",
    )


def _surrogate_problem(text: str, path: tuple[str | int, ...]) -> JsonProblem | None:
    for char in text:
        if "\ud800" <= char <= "\udfff":
            return JsonProblem(
                _path(path),
                f"a lone surrogate \\u{ord(char):04x} is not a character (value {_shown(text)})",
            )
    return None
