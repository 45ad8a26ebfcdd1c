"""Base class and field types shared by the planner's frozen values, and the strict JSON reader
every input file goes through.

A JSON input is read strictly (:func:`strict_json`): a key given twice in one object, a
``NaN``/``Infinity`` constant, an integer outside the signed 64-bit range, a string holding a
lone surrogate, or nesting deeper than :data:`MAX_DEPTH` is a located input error, and the
values are then validated in pydantic's strict JSON mode (no ``true`` read as ``1``, no
``"off"`` read as false, no number read from a string or a string from a number).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path, PosixPath
from typing import Annotated, TypeVar, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints, ValidationError

from planner import provenance
from planner.kept import Kept
from planner.refusal import PlannerInputError


class Frozen(BaseModel):
    """A planner value: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:-]*$")
_SAFE_PATH = re.compile(r"^/[A-Za-z0-9_.@+/-]*$")


def safe_name(value: str) -> str:
    """``value`` when it is safe to render unquoted into scripts, units and argv; else raises."""
    if not _SAFE_NAME.fullmatch(value):
        raise ValueError(_unsafe_name(value))
    return value


def _unsafe_name(value: object) -> str:
    return (
        f"{value!r} is not a safe name: start with a letter or digit and use letters, "
        "digits and _ . @ : - only "
        "(it is rendered into shell scripts, units and docker argv)"
    )


def safe_path(value: str) -> str:
    """``value`` when it is an absolute, normalized path safe to render unquoted; else raises."""
    segments = value.split("/")[1:]
    normal = value == "/" or all(s not in ("", ".", "..") for s in segments)
    if not _SAFE_PATH.fullmatch(value) or not normal:
        raise ValueError(
            f"{value!r} is not a safe absolute path: it must start with '/', hold no '.' or "
            "'..' segment, no empty segment (no '//', no trailing '/') and no shell "
            "metacharacters"
        )
    return value


SafeName = Annotated[str, AfterValidator(safe_name)]
"""A name that is rendered unquoted-safe: no whitespace or shell metacharacters."""

BulkSafeName = Annotated[str, StringConstraints(pattern=_SAFE_NAME.pattern)]
""":data:`SafeName` checked by pydantic's own engine, with no Python call per value: for
values read by the million (the authority log). :func:`located` words its refusal as
:func:`safe_name` does."""

SafePath = Annotated[str, AfterValidator(safe_path)]
"""An absolute, normalized path with no shell metacharacters."""


M = TypeVar("M", bound=BaseModel)


def located(exc: ValidationError) -> tuple[str, str]:
    """The first validation error as (dotted field, message quoting the bad value)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "<root>"
    message = first["msg"]
    if (
        first["type"] == "string_pattern_mismatch"
        and first.get("ctx", {}).get("pattern") == _SAFE_NAME.pattern
    ):  # a BulkSafeName, refused in SafeName's words
        message = f"Value error, {_unsafe_name(first['input'])}"
    return where, f"{message} (value {first.get('input')!r})"


def read_text_file(path: Path, what: str) -> str:
    """The UTF-8 text of ``path``, line ends read as :meth:`Path.read_text` reads them
    (``\r\n`` and ``\r`` as ``\n``); a missing, unreadable or binary file names the file.
    The bytes read are noted as ``what`` (:mod:`planner.provenance`: a saved plan binds them)."""
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or a path Linux cannot take
        raise PlannerInputError(str(path), "<file>", f"cannot read {what}: {exc}") from exc
    provenance.note(path, what, data)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_json_model(model: type[M], path: Path, what: str) -> M:
    """Read ``path`` as strict JSON into ``model``; any error names the file and the field.

    The file is read every time; its parse is kept for its exact text (:data:`_PARSED`)."""
    text, source = read_text_file(path, what), str(path)
    key = (model, source, what, text)
    return cast(M, _PARSED.get(key, lambda: _json_model(model, source, what, text)))


_PARSED: Kept[tuple[type[BaseModel], str, str, str], BaseModel] = Kept(128)
"""Parsed files by model, name and exact text (:mod:`planner.kept`): the same text always
validates to the same frozen value, so a process that reads one manifest a thousand times
parses it once. An error is raised each time, never kept."""


def _json_model(model: type[BaseModel], path: str, what: str, text: str) -> BaseModel:
    """``text``, read from ``path``, validated into ``model``."""
    try:
        strict_json(text)
    except JsonProblem as problem:
        raise PlannerInputError(path, problem.where, problem.message) from problem
    except json.JSONDecodeError as exc:
        raise PlannerInputError(path, "<file>", f"cannot read {what}: {exc}") from exc
    try:
        return model.model_validate_json(text, strict=True)
    except ValidationError as exc:
        raise PlannerInputError(path, *located(exc)) from exc


# --- strict JSON -------------------------------------------------------------------------------

MAX_DEPTH = 64
"""How deep arrays and objects may nest in an input file (the document is level 1); no
planner input needs a tenth of it."""

INT_RANGE = range(-(2**63), 2**63)
"""Integers an input may hold: signed 64-bit. No planner field needs more, and Python cannot
even print an integer of more than 4,300 digits."""

_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


class JsonProblem(ValueError):
    """Well-formed JSON that says something the planner refuses to guess at, located by the
    key path (``produced_image.artifact.runtime_key``) or, for nesting too deep, by the line
    and column (``position``) where the level past :data:`MAX_DEPTH` opens."""

    def __init__(self, where: str, message: str, position: tuple[int, int] | None = None) -> None:
        self.where = where
        self.message = message
        self.position = position


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
    """``text`` parsed as JSON, refusing what :class:`JsonProblem` lists.

    Raises :class:`json.JSONDecodeError` for text that is not JSON and :class:`JsonProblem`
    for JSON the planner will not read: a repeated key, an integer out of range or a
    constant (found by the parse, then located by reading the text again as written), a
    lone surrogate or nesting too deep (found by walking what was read)."""
    try:
        value = json.loads(
            text, object_pairs_hook=_unique, parse_int=_bounded_int, parse_constant=_no_constant
        )
    except (_Unlocated, RecursionError):
        raise _locate(text) from None
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
        seen: dict[str, object] = {}
        for key, item in value:
            if key in seen:
                first, again = _shown(seen[key]), _shown(item)
                return JsonProblem(
                    _path((*path, key)),
                    f"key {key!r} is given twice (values {first} and {again}): "
                    "an input that says two things is corrupt",
                )
            seen[key] = item
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


# --- text shown to the user --------------------------------------------------------------------


def one_line(value: str) -> str:
    """``value`` when it is one line of printable text (no control, format or line-breaking
    character, no separator but the plain space); else raises: a name shown in a report
    must not break the report's lines."""
    for char in value:
        if not char.isprintable():
            raise ValueError(
                f"{value!r} is not one line of printable text: it holds U+{ord(char):04X}"
            )
    return value


def _one_line_rule(value: str) -> str:
    return one_line(value)  # looked up at each call, like the other rules


OneLine = Annotated[str, AfterValidator(_one_line_rule)]
"""Text rendered as it is into a report line: no control or line-breaking characters."""


def printable(text: str) -> str:
    """``text`` with control and line-breaking characters escaped, for one message line."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean X?"`` naming the choice closest to ``word`` (difflib's ratio, 0.6 or
    more), or ``""`` when none is that close: a typo's message names its fix, so the
    operator need not read a list. Printable, as every message line."""
    found = closest(word, choices)
    return "" if found is None else f"; did you mean {printable(found)}?"


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to ``word`` by difflib's ratio (0.6 or more), or None."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return close[0] if close else None


class Dash(PosixPath):
    """``-`` as the command line gave it: standard output to an option that writes
    (``--out -``). To anything else it is ``Path("-")`` (an input option given ``-`` reads
    the file named ``-``); ``./-``, which :class:`~pathlib.Path` also reads as ``-``, is a
    plain path, so a file named ``-`` stays reachable."""


def path_argument(text: str) -> Path:
    """A path option of the command line: an empty path or one holding a NUL byte is a
    usage error (``planner dry-run``, ``recipe`` and ``apply`` read their paths alike);
    ``-`` itself is a :class:`Dash`."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{printable(text)} holds a NUL byte")
    return Dash(text) if text == "-" else Path(text)
