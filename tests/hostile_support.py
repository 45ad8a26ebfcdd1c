"""Shared pieces of the hostile-input tests (``tests/test_hostile_*.py``).

- ``HOSTILE``: the hypothesis settings every boundary runs under, at least 1,000 examples
  each (``HOSTILE_EXAMPLES`` raises it; it never goes below 1,000 unless set explicitly for
  a quick local look). No example database and no deadline: the run is the same on CI.
- ``planner_main`` / ``claims_main``: the two command lines called in this process, what a
  console script calls, with stdout and stderr captured.
- ``corruptions``: a strategy turning a JSON document into hostile text, with where the
  error must be located: a key given twice, a value of another type, an integer beyond 64
  bits (or beyond Python's 4,300 digits), nesting past 64 levels, a lone surrogate, ``NaN``,
  bytes that are not UTF-8, a file cut short.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from claims.cli import main as claims_entry
from fixtures.builders import Ran, captured, run_planner

EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "1000"))
settings.register_profile(
    "hostile",
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HOSTILE = settings.get_profile("hostile")
"""``@HOSTILE`` on a ``@given`` test: the boundary's profile."""


def planner_main(*argv: str | Path) -> Ran:
    return run_planner(*argv)


@contextmanager
def _environment(**values: str | None) -> Iterator[None]:
    before = {key: os.environ.get(key) for key in values}
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def claims_main(*argv: str | Path) -> Ran:
    """``claims`` with only the built-in plugins and the ``-p`` ones given (no entry points:
    no witness runs, so an example costs milliseconds)."""
    with _environment(CLAIMS_DISABLE_PLUGIN_AUTOLOAD="1"):
        return captured(lambda: claims_entry([str(a) for a in argv]))


def no_crash(ran: Ran) -> None:
    """Never a traceback, never an internal error, on any input."""
    assert "Traceback" not in ran.err, ran.err
    assert "internal error" not in ran.err, ran.err
    assert ran.code != 70, ran.err


def located_error(ran: Ran, prog: str, source: str, where: str | re.Pattern[str]) -> str:
    """Exit 2, nothing on stdout, stderr one ``PROG: error: SOURCE: WHERE: message`` line;
    returns the message."""
    no_crash(ran)
    assert ran.code == 2, (ran.code, ran.out, ran.err)
    assert ran.out == "", ran.out
    assert len(ran.err_lines) == 1, ran.err
    head = f"{prog}: error: {source}: "
    assert ran.err.startswith(head), (head, ran.err)
    rest = ran.err[len(head) :].rstrip("\n")
    if isinstance(where, str):
        assert rest.startswith(f"{where}: "), (where, rest)
        return rest[len(where) + 2 :]
    found = where.match(rest)
    assert found is not None, (where.pattern, rest)
    return rest[found.end() :]


# ----------------------------------------------------------------------------- JSON corruption

Json = Any
Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Corruption:
    """Hostile bytes and where (key path, or None for a file-level problem) they must be
    refused; ``family`` names the kind of hostility."""

    data: bytes
    family: str
    path: Path_ | None
    says: str

    def dotted(self) -> str:
        """The key path as the planner writes it: ``a.b[0].c`` (``<root>`` when empty)."""
        text = ""
        for part in self.path or ():
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
        return text or "<root>"


def nodes(value: Json, path: Path_ = ()) -> Iterator[tuple[Path_, Json]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from nodes(item, (*path, index))


def replaced(value: Json, path: Path_, new: Json) -> Json:
    if not path:
        return new
    head, *rest = path
    if isinstance(value, dict):
        return {k: (replaced(v, tuple(rest), new) if k == head else v) for k, v in value.items()}
    return [replaced(v, tuple(rest), new) if i == head else v for i, v in enumerate(value)]


class Raw(str):
    """Text spliced into the JSON as written (a huge integer, NaN, deep nesting)."""


class Twice:
    """An object whose key ``key`` is written twice: first ``first``, then ``second``."""

    def __init__(self, pairs: list[tuple[str, Json]]) -> None:
        self.pairs = pairs


def dumps(value: Json) -> str:
    """JSON text, with :class:`Raw` spliced in and :class:`Twice` keys repeated."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Twice):
        inner = ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.pairs)
        return "{" + inner + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value)


def at(value: Json, path: Path_) -> Json:
    for part in path:
        value = value[part]
    return value


_OTHER_TYPES: tuple[Json, ...] = (True, False, 0, 1, -1, 1.5, 8000.0, "1", "off", "true", [], {})


def _json_type(value: Json) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


@st.composite
def corruptions(
    draw: st.DrawFn, document: Json, *, nullable: frozenset[Path_] = frozenset()
) -> Corruption:
    """One hostile version of ``document`` (a dict): see the module doc. ``nullable`` lists
    paths where ``null`` would be valid (never used as a replacement there)."""
    family = draw(
        st.sampled_from(
            ("twice", "retype", "huge", "deep", "surrogate", "constant", "binary", "cut")
        )
    )
    places = list(nodes(document))
    if family == "twice":
        objects = [(p, v) for p, v in places if isinstance(v, dict) and v]
        path, obj = draw(st.sampled_from(objects))
        key = draw(st.sampled_from(sorted(obj)))
        second = draw(st.sampled_from([obj[key], "other", 0, True, None, {"x": 1}]))
        pairs = [*obj.items(), (key, second)]
        if draw(st.booleans()):  # the repeated key may come first
            pairs = [(key, second), *obj.items()]
        text = dumps(replaced(document, path, Twice(pairs)))
        return Corruption(text.encode(), family, (*path, key), "is given twice")
    if family == "retype":
        path, old = draw(st.sampled_from(places))
        pool = [v for v in _OTHER_TYPES if _json_type(v) != _json_type(old)]
        if _json_type(old) == "number" and isinstance(old, int):
            pool += [float(old)] if path else []
        if path not in nullable and old is not None:
            pool.append(None)
        new = draw(st.sampled_from(pool))
        return Corruption(dumps(replaced(document, path, new)).encode(), family, path, "")
    if family == "huge":
        path, _ = draw(st.sampled_from(places))
        digits = draw(st.sampled_from([20, 21, 300, 4301, 6000]))
        sign = draw(st.sampled_from(["", "-"]))
        number = Raw(sign + "9" * digits) if digits != 20 else Raw(sign + str(2**63 + 7))
        text = dumps(replaced(document, path, number))
        return Corruption(text.encode(), family, path, "out of range")
    if family == "deep":
        path, _ = draw(st.sampled_from(places))
        depth = draw(st.integers(min_value=65, max_value=3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a": ', "}")]))
        nested = Raw(opener * depth + "1" + closer * depth)
        text = dumps(replaced(document, path, nested))
        return Corruption(text.encode(), family, None, "nested deeper than 64 levels")
    if family == "surrogate":
        strings = [(p, v) for p, v in places if isinstance(v, str)]
        path, old = draw(st.sampled_from(strings))
        code = draw(st.integers(min_value=0xD800, max_value=0xDFFF))
        cut = draw(st.integers(min_value=0, max_value=len(old)))
        lone = Raw(json.dumps(old[:cut])[:-1] + f"\\u{code:04x}" + json.dumps(old[cut:])[1:])
        text = dumps(replaced(document, path, lone))
        return Corruption(text.encode(), family, path, "lone surrogate")
    if family == "constant":
        path, _ = draw(st.sampled_from(places))
        constant = Raw(draw(st.sampled_from(["NaN", "Infinity", "-Infinity"])))
        text = dumps(replaced(document, path, constant))
        return Corruption(text.encode(), family, path, "is not a JSON number")
    if family == "binary":
        encoded = dumps(document).encode()
        cut = draw(st.integers(min_value=0, max_value=len(encoded)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80\x80"]))
        return Corruption(encoded[:cut] + junk + encoded[cut:], family, None, "")
    whole = dumps(document).encode()
    cut = draw(st.integers(min_value=0, max_value=len(whole) - 1))
    return Corruption(whole[:cut], "cut", None, "")


def null_device(path: Path) -> Path:
    """A private character device with /dev/null's numbers: tests point the writers at it,
    never at the machine's own /dev/null (a broken writer could replace that)."""
    import stat

    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path
