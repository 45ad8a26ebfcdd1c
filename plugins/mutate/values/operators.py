"""Value-level mutation operators: where a planner value can be wrong, and how.

A **site** is (boundary, path, operator[, argument]). The path walks a value from what its
boundary returns: ``.name`` is a pydantic field, ``[i]`` an element of a tuple or list,
``#n`` line ``n`` (1-based) of a multi-line str. Its id is readable and stable::

    planner.arm_launch.plan_arm:hosts[2].realization.create_argv[7]:drop
    planner.realize.unit_text:#5:rekey
    planner.fit.bets_above_allowance:[0]:swap_fields(per_rank_gib)

Operators are chosen by the value's type (fields walked recursively through pydantic
models, tuples and lists by index, the annotation deciding what a tuple is):

- an element of a variable-length tuple or list (``tuple[X, ...]``: an argv, env pairs,
  script lines, refusals, ranks): ``drop``, ``duplicate``, ``swap_next``;
- a line of a multi-line str (scripts, unit text): ``delete_line``, ``swap_line`` (with the
  next); in an INI-shaped text (one ``[Section]`` line or more, i.e. a systemd unit), a
  ``Key=Value`` line: ``rekey`` (``Key`` becomes ``X-Key``, which systemd accepts and
  ignores: the setting silently vanishes, as a misspelled key does). Blank lines are not
  sites: removing or moving one is no defect;
- an int: ``plus_one``, ``minus_one``; a bool: ``negate``; a datetime: ``plus_1s``,
  ``minus_1s``;
- two sibling fields (of one model, or positions of a fixed-shape tuple) with the same
  annotation: ``swap_fields(other)``.

A single-line str, bytes, a dict, a path or an enum member has no operator of its own (a
sibling swap can still move it); a fixed-shape tuple (``tuple[str, str]``) keeps its arity.

A site is only enumerated where its operator changes the value it was found in (swapping
two equal elements is not a mutant), so no operator yields the original value.

Applying a site to any value returns the mutated value when the path exists in it and
the value unchanged otherwise. Records (:mod:`.records`: frozen pydantic models, frozen
dataclasses, NamedTuples) are rebuilt with ``model_copy(update=...)``, ``dataclasses.replace``
or ``_replace``; ``model_copy`` does not validate: a mutant stands for code that returned
this value, and a validator that would have refused it is not what the claims are asked
about (the value reaches them exactly as a wrong rendering would); nor is a dataclass's
``__post_init__`` run. Nothing is ever mutated in place.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from plugins.mutate.values.records import record_fields, replaced

MAX_SHOWN = 60
KEY_VALUE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)=")
SECTION = re.compile(r"^\[[A-Za-z][A-Za-z0-9 _.-]*\]$", re.MULTILINE)
ELEMENT_OPERATORS = ("drop", "duplicate", "swap_next")
LINE_OPERATORS = ("delete_line", "swap_line", "rekey")
SCALAR_OPERATORS = ("plus_one", "minus_one", "negate", "plus_1s", "minus_1s")
OPERATORS = (*ELEMENT_OPERATORS, *LINE_OPERATORS, *SCALAR_OPERATORS, "swap_fields")


@dataclass(frozen=True)
class Attr:
    """A pydantic field."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True)
class Item:
    """An element of a tuple or list."""

    index: int

    def __str__(self) -> str:
        return f"[{self.index}]"


@dataclass(frozen=True)
class Line:
    """A line (1-based) of a str."""

    number: int

    def __str__(self) -> str:
        return f"#{self.number}"


Step = Attr | Item | Line
Path = tuple[Step, ...]
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|#(\d+)")


def render_path(path: Path) -> str:
    return "".join(map(str, path)).removeprefix(".")


def parse_path(text: str) -> Path:
    """The inverse of :func:`render_path`."""
    steps: list[Step] = []
    rest = text if text.startswith(("[", "#")) or not text else "." + text
    position = 0
    for match in _STEP.finditer(rest):
        if match.start() != position:
            break
        position = match.end()
        name, index, line = match.groups()
        steps.append(Attr(name) if name else Item(int(index)) if index else Line(int(line)))
    if position != len(rest):
        raise ValueError(f"{text!r} is not a value path")
    return tuple(steps)


@dataclass(frozen=True)
class Site:
    """One mutant: ``operator`` (with ``argument``) at ``path`` of what ``boundary`` returns."""

    boundary: str
    path: Path
    operator: str
    argument: str = ""

    @property
    def id(self) -> str:
        op = f"{self.operator}({self.argument})" if self.argument else self.operator
        return f"{self.boundary}:{render_path(self.path)}:{op}"

    @property
    def shape(self) -> str:
        """The path with indices and line numbers blanked: which field, not which element."""
        return re.sub(r"\[\d+\]", "[]", re.sub(r"#\d+", "#", render_path(self.path)))

    @classmethod
    def parse(cls, text: str) -> Site:
        boundary, path, op = text.split(":")
        match = re.fullmatch(r"([a-z_0-9]+)(?:\((.+)\))?", op)
        if match is None or match[1] not in OPERATORS:
            raise ValueError(f"{text!r}: unknown operator {op!r}")
        return cls(boundary, parse_path(path), match[1], match[2] or "")


@dataclass(frozen=True)
class Found:
    """A site and what it changes in the value it was found in (for the report)."""

    site: Site
    change: str


# --- annotations ---------------------------------------------------------------------------


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _matches(annotation: Any, value: Any) -> bool:
    annotation = _strip(annotation)
    if annotation is None or annotation is type(None):
        return value is None
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    if _is_union(annotation):
        return any(_matches(a, value) for a in typing.get_args(annotation))
    target = origin if origin is not None else annotation
    return isinstance(target, type) and isinstance(value, target)


def narrow(annotation: Any, value: Any) -> Any:
    """The member of a union ``value`` is an instance of (``Any`` when none says)."""
    annotation = _strip(annotation)
    if _is_union(annotation):
        for member in typing.get_args(annotation):
            if _matches(member, value):
                return narrow(member, value)
        return Any
    return annotation


def _elements(annotation: Any, length: int) -> tuple[bool, list[Any]]:
    """(variable length?, each element's annotation) of a tuple or list annotation."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple and args and args[-1] is not Ellipsis and len(args) == length:
        return False, list(args)
    item = args[0] if origin in (tuple, list) and args else Any
    return True, [item] * length


# --- enumeration ---------------------------------------------------------------------------


def show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def enumerate_sites(boundary: str, value: Any, annotation: Any) -> Iterator[Found]:
    """Every site of ``value`` (returned by ``boundary``, declared as ``annotation``)."""
    yield from _walk(boundary, value, annotation, ())


def _walk(boundary: str, value: Any, annotation: Any, path: Path) -> Iterator[Found]:
    annotation = narrow(annotation, value)
    fields = record_fields(value)  # before the tuples: a NamedTuple is a record
    if fields is not None:
        children: list[tuple[Step, Any, Any]] = [
            (Attr(n), declared, getattr(value, n)) for n, declared in fields
        ]
        yield from _swaps(boundary, path, children)
    elif isinstance(value, (tuple, list)):
        variable, each = _elements(annotation, len(value))
        children = [(Item(i), each[i], child) for i, child in enumerate(value)]
        if variable:
            yield from _element_sites(boundary, path, value)
        else:
            yield from _swaps(boundary, path, children)
    elif isinstance(value, str) and "\n" in value:
        yield from _line_sites(boundary, path, value)
        return
    else:
        yield from _scalar_sites(boundary, path, value)
        return
    for step, declared, child in children:
        yield from _walk(boundary, child, declared, (*path, step))


def _scalar_sites(boundary: str, path: Path, value: Any) -> Iterator[Found]:
    for operator in SCALAR_OPERATORS:
        try:
            after = _scalar(operator, value)
        except Missing:
            continue
        yield Found(Site(boundary, path, operator), f"{show(value)} → {show(after)}")


def _swaps(boundary: str, path: Path, siblings: Sequence[tuple[Step, Any, Any]]) -> Iterator[Found]:
    for i, (step_a, declared_a, a) in enumerate(siblings):
        for step_b, declared_b, b in siblings[i + 1 :]:
            if declared_a == declared_b and type(a) is type(b) and a != b:
                argument = step_b.name if isinstance(step_b, Attr) else str(step_b).strip("[]#")
                yield Found(
                    Site(boundary, (*path, step_a), "swap_fields", argument),
                    f"{show(a)} ⇄ {show(b)}",
                )


def _element_sites(boundary: str, path: Path, items: Sequence[Any]) -> Iterator[Found]:
    for i, item in enumerate(items):
        where = (*path, Item(i))
        yield Found(Site(boundary, where, "drop"), f"drop {show(item)}")
        yield Found(Site(boundary, where, "duplicate"), f"duplicate {show(item)}")
        if i + 1 < len(items) and items[i + 1] != item:
            yield Found(
                Site(boundary, where, "swap_next"), f"swap {show(item)} with {show(items[i + 1])}"
            )


def _line_sites(boundary: str, path: Path, text: str) -> Iterator[Found]:
    lines = text.split("\n")
    ini = SECTION.search(text) is not None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = (*path, Line(n))
        yield Found(Site(boundary, where, "delete_line"), f"delete {show(line)}")
        following = lines[n] if n < len(lines) else ""
        if following.strip() and following != line:
            yield Found(
                Site(boundary, where, "swap_line"), f"swap {show(line)} with {show(following)}"
            )
        key = KEY_VALUE.match(line)
        if ini and key:
            yield Found(Site(boundary, where, "rekey"), f"{key[1]}= → X-{key[1]}=")


# --- application ---------------------------------------------------------------------------


class Missing(Exception):
    """The site's path does not exist in this value (or its operator does not apply)."""


def apply(site: Site, value: Any) -> Any:
    """``value`` with ``site`` applied, or ``value`` itself when the path does not exist."""
    try:
        return _apply(site, value)
    except Missing:
        return value


def _apply(site: Site, value: Any) -> Any:
    if site.operator in SCALAR_OPERATORS:
        return _at(value, site.path, lambda leaf: _scalar(site.operator, leaf))
    if not site.path:
        raise Missing
    *parent, last = site.path
    return _at(value, tuple(parent), lambda container: _local(site, container, last))


def _at(value: Any, path: Path, change: Callable[[Any], Any]) -> Any:
    if not path:
        return change(value)
    step, rest = path[0], path[1:]
    if isinstance(step, Attr):
        if step.name not in _field_names(value):
            raise Missing
        return replaced(value, {step.name: _at(getattr(value, step.name), rest, change)})
    if isinstance(step, Item):
        if not isinstance(value, (tuple, list)) or step.index >= len(value):
            raise Missing
        items = list(value)
        items[step.index] = _at(items[step.index], rest, change)
        return _like(value, items)
    raise Missing


def _field_names(value: Any) -> set[str]:
    return {name for name, _ in record_fields(value) or ()}


def _like(original: Sequence[Any], items: list[Any]) -> Any:
    return tuple(items) if isinstance(original, tuple) else items


def _local(site: Site, container: Any, last: Step) -> Any:
    if isinstance(last, Line):
        return _line(site.operator, container, last.number)
    if site.operator == "swap_fields":
        return _swap_fields(container, last, site.argument)
    if not isinstance(last, Item) or not isinstance(container, (tuple, list)):
        raise Missing
    items, i = list(container), last.index
    if i >= len(items):
        raise Missing
    if site.operator == "drop":
        del items[i]
    elif site.operator == "duplicate":
        items.insert(i, items[i])
    elif site.operator == "swap_next" and i + 1 < len(items):
        items[i], items[i + 1] = items[i + 1], items[i]
    else:
        raise Missing
    return _like(container, items)


def _line(operator: str, text: Any, number: int) -> str:
    if not isinstance(text, str):
        raise Missing
    lines = text.split("\n")
    i = number - 1
    if i >= len(lines):
        raise Missing
    if operator == "delete_line":
        del lines[i]
    elif operator == "swap_line" and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif operator == "rekey" and (key := KEY_VALUE.match(lines[i])):
        lines[i] = f"X-{key[0]}{lines[i][key.end() :]}"
    else:
        raise Missing
    return "\n".join(lines)


def _swap_fields(container: Any, step: Step, other: str) -> Any:
    if isinstance(step, Attr):
        fields = _field_names(container)
        if step.name not in fields or other not in fields:
            raise Missing
        a, b = getattr(container, step.name), getattr(container, other)
        return replaced(container, {step.name: b, other: a})
    if isinstance(step, Item) and isinstance(container, (tuple, list)) and other.isdigit():
        items, j = list(container), int(other)
        if max(step.index, j) >= len(items):
            raise Missing
        items[step.index], items[j] = items[j], items[step.index]
        return _like(container, items)
    raise Missing


def _scalar(operator: str, value: Any) -> Any:
    if isinstance(value, bool):
        if operator == "negate":
            return not value
    elif isinstance(value, int):
        if operator in ("plus_one", "minus_one"):
            return value + (1 if operator == "plus_one" else -1)
    elif isinstance(value, datetime) and operator in ("plus_1s", "minus_1s"):
        try:
            return value + timedelta(seconds=1 if operator == "plus_1s" else -1)
        except OverflowError:  # the calendar's last (or first) second has none beyond it
            raise Missing from None
    raise Missing
