"""Base class and field types shared by the planner's frozen values, and the reading of every
JSON input file.

A JSON input is read strictly (:func:`filerules.strict_json`, the project's one strict
reader): a key given twice in one object, a ``NaN``/``Infinity`` constant, an integer outside
the signed 64-bit range, a string holding a lone surrogate, or nesting deeper than
:data:`filerules.MAX_DEPTH` is a located input error, and the values are then validated in
pydantic's strict JSON mode (no ``true`` read as ``1``, no ``"off"`` read as false, no
number read from a string or a string from a number).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
from collections.abc import Iterable
from pathlib import Path, PosixPath
from typing import Annotated, TypeVar, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints, ValidationError

from filerules import INT_RANGE as INT_RANGE
from filerules import JsonProblem as JsonProblem
from filerules import printable as printable
from filerules import strict_json as strict_json
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
    return cast(M, _PARSED.keep(key, lambda: _json_model(model, source, what, text)))


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
