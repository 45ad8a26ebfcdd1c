"""What a recipe's image adds to stock vLLM: found in the args, shown per flag, or declared.

A recipe's image may be a fork that adds serve flags or config fields vLLM 0.33.0's own
parser refuses (the seed's ``--prefill-compute-share`` and Engram ``table_memory``). Read as
vLLM reads the args (:meth:`planner.recipe.Recipe.arg_readings`), each is a finding with one
line (:meth:`StockParserFinding.line`), never silence. For the seed recipe::

    warning: args[15] --prefill-compute-share is not an option of vLLM 0.33.0's serve parser;
      image jovian-r37-ds41:local (build profile jovian-r37-ds41) must add it
    warning: args[34] --engram-config.table_memory is not a field of vLLM 0.33.0's
      EngramConfig; image jovian-r37-ds41:local (build profile jovian-r37-ds41) must add it

(each one line; wrapped here). A recipe declares what its image adds::

    [image_extensions]
    flags = ["--prefill-compute-share"]
    config_fields = ["--engram-config.table_memory"]

and each finding it covers becomes an accepted, recorded extension (the argv is unchanged)::

    extension: args[15] --prefill-compute-share is not an option of vLLM 0.33.0's serve
      parser; declared at image_extensions.flags[0] for image jovian-r37-ds41:local (build
      profile jovian-r37-ds41)

The rules:

- An unknown flag is an option vLLM's parser does not have, in any spelling it reads
  (``_`` for ``-``, ``=value``, a dotted key), shown as vLLM rewrites it (``(written …)``
  when the arg differs). A declared flag covers an arg that is it, or a prefix of it and of
  no other declared flag (argparse in the image reads the prefix as the flag).
- An unknown config field is a top-level JSON key, or the first key of a dotted form
  (``--engram-config.table_memory disk``; a trailing ``+`` is vLLM's list append), of a
  config flag whose fields vLLM's parser checks (``CONFIG_FIELDS``), shown as
  ``<option>.<field>``.
- A declared flag is written as vLLM reads it: ``--`` then letters, digits and ``-``; a
  declared config field is ``<the option's own long name>.<field>``. Each entry is a problem
  of the recipe, located (``image_extensions.flags[0]``), when it is malformed, declared
  twice, already known to stock vLLM (declaring it would hide nothing), or used by no arg
  (a stale declaration).
- No build profile reads "no build profile".
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from planner.values import Frozen
from planner.vllm_serve_options import CONFIG_FIELDS, SERVE_ACTIONS, VLLM_VERSION

if TYPE_CHECKING:  # planner.recipe imports this module for its field and validation
    from planner.recipe import ArgReading, Recipe

_LONG = {dest: next(o for o in options if o.startswith("--")) for dest, options in SERVE_ACTIONS}
_CHECKED = {dest: (name, frozenset(fields)) for dest, name, fields in CONFIG_FIELDS}
_FLAG = re.compile(r"--[A-Za-z0-9][A-Za-z0-9-]*")
_FIELD = re.compile(r"(--[A-Za-z0-9][A-Za-z0-9-]*)\.([A-Za-z_][A-Za-z0-9_]*)")
_STOCK = f"vLLM {VLLM_VERSION}'s"
_HIDES = "declaring it hides nothing"


class ImageExtensions(Frozen):
    """The flags and config fields the recipe's image adds to stock vLLM."""

    flags: tuple[str, ...] = ()
    config_fields: tuple[str, ...] = ()


class Unknown(NamedTuple):
    """One thing in ``args[at]`` stock vLLM's parser refuses: a flag, or a field of
    ``config_class``; ``spelling`` is how vLLM names it, ``written`` how the arg does."""

    at: int
    written: str
    spelling: str
    config_class: str | None


def unknown_settings(readings: Sequence[ArgReading]) -> tuple[Unknown, ...]:
    """Every flag and config field of the args stock vLLM's parser does not know, in order
    (an ambiguous prefix is a problem of its own and is not listed; a recipe may not hold
    ``--``)."""
    found: list[Unknown] = []
    for reading in readings:
        if reading.dest is None and not reading.matches:
            found.append(Unknown(reading.at, _name(reading.arg), reading.option, None))
        elif reading.dest in _CHECKED:
            found += _unknown_fields(reading, reading.dest)
    return tuple(found)


def _name(arg: str) -> str:
    return arg.partition("=")[0]


def _unknown_fields(reading: ArgReading, dest: str) -> list[Unknown]:
    config_class, fields = _CHECKED[dest]
    if reading.key:
        keys = [reading.key[0].removesuffix("+")]  # vLLM's list append, on the last key
    else:
        keys = _json_keys(reading.value)
    return [
        Unknown(
            reading.at,
            _name(reading.arg) if reading.key else f"{_LONG[dest]}.{key}",
            f"{_LONG[dest]}.{key}",
            config_class,
        )
        for key in keys
        if key not in fields
    ]


def _json_keys(value: str | None) -> list[str]:
    try:
        decoded = json.loads(value) if value is not None else None
    except json.JSONDecodeError:  # a value that is not JSON is refused as such elsewhere
        return []
    return list(decoded) if isinstance(decoded, dict) else []


class DeclaredNames:
    """DeclaredNames names indexed once, so each unknown is looked up, never scanned for (a
    recipe's checks stay linear in its size): where each is first declared, and the names
    sorted, so the ones an unknown flag is a prefix of are found by bisection."""

    def __init__(self, names: Sequence[str]) -> None:
        self.first: dict[str, int] = {}
        for i, name in enumerate(names):
            self.first.setdefault(name, i)
        self.ordered = sorted(self.first)

    def covering(self, spelling: str) -> str | None:
        """The declared name that covers ``spelling``: itself, else the one it is a prefix
        of (argparse in the image reads the prefix as that flag)."""
        if spelling in self.first:
            return spelling
        at = bisect_left(self.ordered, spelling)
        longer = [n for n in self.ordered[at : at + 2] if n.startswith(spelling)]
        return longer[0] if len(longer) == 1 else None


def declared_spelling(unknown: Unknown, flags: DeclaredNames) -> str | None:
    """The declared flag that covers an unknown flag: itself, else the one declared flag it
    is a prefix of."""
    return flags.covering(unknown.spelling)


def _declared_at(
    unknown: Unknown, flags: DeclaredNames, fields: DeclaredNames
) -> tuple[str, str | None]:
    """(spelling, where it is declared) of one unknown."""
    if unknown.config_class is not None:
        if unknown.spelling in fields.first:
            at = fields.first[unknown.spelling]
            return unknown.spelling, f"image_extensions.config_fields[{at}]"
        return unknown.spelling, None
    flag = declared_spelling(unknown, flags)
    if flag is None:
        return unknown.spelling, None
    return flag, f"image_extensions.flags[{flags.first[flag]}]"


class StockParserFinding(Frozen):
    """A flag or config field of ``args[at]`` stock vLLM lacks: a warning, or an extension
    the recipe declared (``declared_at``) for its image."""

    at: int
    written: str
    spelling: str
    config_class: str | None
    image: str
    build_profile: str | None
    declared_at: str | None

    def line(self) -> str:
        """The finding as one line: ``warning: …`` or ``extension: …``."""
        what = f"args[{self.at}] {self.spelling}"
        if self.written != self.spelling:
            what += f" (written {self.written})"
        if self.config_class is None:
            lacks = f"is not an option of {_STOCK} serve parser"
        else:
            lacks = f"is not a field of {_STOCK} {self.config_class}"
        profile = self.build_profile and f"build profile {self.build_profile}"
        image = f"image {self.image} ({profile or 'no build profile'})"
        if self.declared_at is None:
            return f"warning: {what} {lacks}; {image} must add it"
        return f"extension: {what} {lacks}; declared at {self.declared_at} for {image}"


def stock_parser_findings(recipe: Recipe) -> tuple[StockParserFinding, ...]:
    """Per arg, each flag and config field vLLM 0.33.0's serve parser refuses, naming the
    recipe's image and build profile: a warning, or an extension once the recipe declares
    it in ``image_extensions``."""
    declared = recipe.image_extensions or ImageExtensions()
    flags, fields = DeclaredNames(declared.flags), DeclaredNames(declared.config_fields)
    found = []
    for unknown in unknown_settings(recipe.arg_readings()):
        spelling, declared_at = _declared_at(unknown, flags, fields)
        found.append(
            StockParserFinding(
                at=unknown.at,
                written=unknown.written,
                spelling=spelling,
                config_class=unknown.config_class,
                image=recipe.docker_image,
                build_profile=recipe.build_profile,
                declared_at=declared_at,
            )
        )
    return tuple(found)


Reader = Callable[[Sequence[str]], tuple["ArgReading", ...]]


def declaration_problems(
    declared: object, readings: Sequence[ArgReading], read: Reader
) -> tuple[tuple[str, str], ...]:
    """(where, message) of each entry of a raw ``image_extensions`` table that is malformed,
    declared twice, known to stock vLLM, or used by no arg; ``read`` is
    :func:`planner.recipe.read_args` (passed in: that module imports this one). Entries of
    the wrong type are the structure check's problems."""
    if not isinstance(declared, dict):
        return ()
    unknowns = unknown_settings(readings)
    found: list[tuple[str, str]] = []
    for field, check in (("flags", _flag_problem), ("config_fields", _field_problem)):
        entries = declared.get(field)
        listed: list[object] = entries if isinstance(entries, list) else []
        written = DeclaredNames([e for e in listed if isinstance(e, str)])
        used = _used(unknowns, written, flags=field == "flags")
        first: dict[str, int] = {}
        for i, entry in enumerate(listed):
            if not isinstance(entry, str):
                continue
            if first.setdefault(entry, i) < i:
                again = f"{field}[{first[entry]}]"
                message: str | None = f"{entry} is declared again (first at {again})"
            else:
                message = check(entry, used, read)
            if message is not None:
                found.append((f"image_extensions.{field}[{i}]", message))
    return tuple(found)


def _used(unknowns: Sequence[Unknown], declared: DeclaredNames, *, flags: bool) -> frozenset[str]:
    """The declared flags (``flags``) or config fields some arg uses: computed once, so each
    declaration's staleness is a lookup."""
    if flags:
        covered = (declared_spelling(u, declared) for u in unknowns if u.config_class is None)
        return frozenset(flag for flag in covered if flag is not None)
    return frozenset(u.spelling for u in unknowns if u.config_class is not None)


def _flag_problem(flag: str, used: frozenset[str], read: Reader) -> str | None:
    if not _FLAG.fullmatch(flag):
        dashed = flag.replace("_", "-")
        hint = f": write {dashed}" if _FLAG.fullmatch(dashed) else ""
        return f"{flag!r} is not a flag as vLLM reads it ('--', then letters, digits, '-'){hint}"
    reading = read([flag])[0]
    if reading.dest is not None and reading.option == flag:
        return f"{flag} is an option of {_STOCK} serve parser: {_HIDES}"
    if reading.dest is not None:
        return f"{_STOCK} serve parser reads {flag} as its own {reading.option}: {_HIDES}"
    if reading.matches:
        known = ", ".join(reading.matches)
        return f"{_STOCK} serve parser reads {flag} as a prefix of its own {known}: {_HIDES}"
    if flag not in used:
        return f"no arg sets {flag}: a stale declaration (remove it)"
    return None


def _field_problem(entry: str, used: frozenset[str], read: Reader) -> str | None:
    shape = _FIELD.fullmatch(entry)
    if shape is None:
        return f"{entry!r} is not <option>.<field> (as in --engram-config.table_memory)"
    option, field = shape.groups()
    dest = read([option])[0].dest
    if dest is None:
        return f"{option} is not an option of {_STOCK} serve parser: declare it in flags"
    if dest not in _CHECKED:
        return f"{_STOCK} serve parser checks no fields of {option}: nothing to declare"
    if option != _LONG[dest]:
        return f"write the option as vLLM names it: {_LONG[dest]}.{field}"
    config_class, fields = _CHECKED[dest]
    if field in fields:
        return f"{field} is a field of {_STOCK} {config_class}: {_HIDES}"
    if entry not in used:
        return f"no arg sets {entry}: a stale declaration (remove it)"
    return None
