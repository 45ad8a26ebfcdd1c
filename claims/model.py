"""The claim/witness model: what a claim is, what it returns, how a witness groups claims.

A claim is a module-level function stamped by :func:`claim`. It takes no arguments,
states what it claims in its docstring, and returns a :class:`Verdict`. A failed
``assert`` inside a claim is a failing verdict (hypothesis properties fail that way);
any other exception is an *error* verdict, decided by the runner, never a crash.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, PlainSerializer, PlainValidator, PrivateAttr


class ClaimKind(StrEnum):
    """What sort of statement a claim makes about the code it checks (docs/claims.md)."""

    PLANNED_SHAPE = "planned_shape"
    REFUSAL = "refusal"
    POSITIVE_CONTROL = "positive_control"
    PAIRING_OBLIGATION = "pairing_obligation"
    PROPERTY = "property"
    IDENTITY = "identity"


BUILTIN_KINDS: dict[ClaimKind, str] = {
    ClaimKind.PLANNED_SHAPE: (
        "what a rendered or computed value looks like (an argv, a unit, a table)"
    ),
    ClaimKind.REFUSAL: "that a bad input is refused, and by which name",
    ClaimKind.POSITIVE_CONTROL: (
        "that a good input is accepted: the claim that keeps the refusals honest"
    ),
    ClaimKind.PAIRING_OBLIGATION: (
        "that an input owed by an open obligation is named as owed, and nothing renders without it"
    ),
    ClaimKind.PROPERTY: "a law over many generated inputs (hypothesis)",
    ClaimKind.IDENTITY: "that something is the same thing under another name or path",
}
"""What a claim of each built-in kind states (``claims kinds``; docs/claims.md holds its table
to this, tests/test_docs.py checks)."""


class CustomKind(str):
    """A claim kind a plugin registered (``claims_register_kinds``): its name, a ``str``
    with the ``value`` a :class:`ClaimKind` member has, so both read alike."""

    __slots__ = ()

    @property
    def value(self) -> str:
        return str(self)


_KIND_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_REGISTERED: dict[str, tuple[CustomKind, str]] = {}


def register_kind(name: str, description: str) -> CustomKind:
    """Add a kind a plugin defines (once per process; the same name again is the same kind).
    A name that is a built-in kind, or not lower_snake_case, is a ``ValueError``."""
    if not isinstance(name, str) or not _KIND_NAME.fullmatch(name):
        raise ValueError(f"claim kind {name!r}: a kind is lower_snake_case, at most 40 characters")
    if name in ClaimKind.__members__.values() or name in {k.value for k in ClaimKind}:
        raise ValueError(f"claim kind {name!r} is built in; register only new kinds")
    if not isinstance(description, str) or not description.strip() or not description.isprintable():
        raise ValueError(
            f"claim kind {name!r}: give it a description of printable text (what such a claim "
            f"states), not {description!r}"
        )
    found = _REGISTERED.setdefault(name, (CustomKind(name), description.strip()))
    return found[0]


def known_kinds() -> dict[ClaimKind | CustomKind, str]:
    """Every kind, built in first, then the registered ones, with what each states."""
    found: dict[ClaimKind | CustomKind, str] = {k: BUILTIN_KINDS[k] for k in ClaimKind}
    found.update(_REGISTERED.values())
    return found


def resolve_kind(value: object) -> ClaimKind | CustomKind:
    """The kind named ``value``; one that is neither built in nor registered is a
    ``ValueError`` listing the kinds there are."""
    if isinstance(value, (ClaimKind, CustomKind)):
        return value
    if isinstance(value, str):
        if value in {k.value for k in ClaimKind}:
            return ClaimKind(value)
        if value in _REGISTERED:
            return _REGISTERED[value][0]
    kinds = ", ".join(k.value for k in known_kinds())
    raise ValueError(f"unknown claim kind {value!r}; the kinds are: {kinds}")


Kind = Annotated[
    ClaimKind | CustomKind, PlainValidator(resolve_kind), PlainSerializer(str, return_type=str)
]
"""A claim's kind as a pydantic field: read by name, written as its name."""


class Outcome(StrEnum):
    """A claim's verdict: it held, it did not, or it could not be decided."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"


class Verdict(BaseModel):
    """What one claim found: the outcome, the evidence it saw, and why it failed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    outcome: Outcome
    evidence: str = ""
    reason: str = ""
    _raised: BaseException | None = PrivateAttr(default=None)
    """The exception the claim raised, in this process only (never serialized): the pytest
    bridge raises it again, so pytest shows its traceback and ``--pdb`` stops where it was
    raised."""

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS

    def __eq__(self, other: object) -> bool:
        # What a verdict says, not what the process remembers of it (:attr:`raised`): a
        # verdict read back from a report equals the one written.
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.outcome, self.evidence, self.reason) == (
            other.outcome,
            other.evidence,
            other.reason,
        )

    def __hash__(self) -> int:
        return hash((self.outcome, self.evidence, self.reason))

    @property
    def raised(self) -> BaseException | None:
        return self._raised

    def with_raised(self, error: BaseException) -> Verdict:
        """This verdict, remembering ``error`` (see :attr:`raised`)."""
        self._raised = error
        return self


def holds(evidence: str) -> Verdict:
    """A passing verdict carrying the evidence that made it pass."""
    return Verdict(outcome=Outcome.PASS, evidence=evidence)


def fails(reason: str, evidence: str = "") -> Verdict:
    """A failing verdict: ``reason`` says what was expected and what was found."""
    return Verdict(outcome=Outcome.FAIL, reason=reason, evidence=evidence)


def expect(condition: bool, evidence: str, reason: str) -> Verdict:
    """Pass with ``evidence`` when ``condition`` holds, else fail with ``reason``."""
    return holds(evidence) if condition else fails(reason, evidence)


SHOWN_WHOLE = 160
"""Two values whose reprs fit in this many characters are shown whole when they differ."""
SHOWN_PART = 60
"""Else each side of the first difference is shown cut to this many characters."""


def _cut(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_PART else text[: SHOWN_PART - 1] + "…"


def _first_difference(expected: object, actual: object, path: str = "") -> str | None:
    """Where two values first differ, as pytest's comparison says it: the index of a sequence
    or string, the key of a mapping (recursing into items of one shape); ``None`` for values
    with no parts to point at."""
    if isinstance(expected, str) and isinstance(actual, str):
        at = next(
            (i for i, (e, a) in enumerate(zip(expected, actual, strict=False)) if e != a),
            min(len(expected), len(actual)),
        )
        line = expected.count("\n", 0, at) + 1
        return (
            f"{path or 'text'} differs at index {at} (line {line}): expected "
            f"{_cut(expected[at : at + SHOWN_PART])}, got {_cut(actual[at : at + SHOWN_PART])}"
        )
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            if e != a:
                return _at(f"{path}[{index}]", e, a)
        longer, shorter = (expected, actual) if len(expected) > len(actual) else (actual, expected)
        side = "missing" if longer is expected else "extra"
        return (
            f"{path or 'sequence'}: {len(actual)} items, expected {len(expected)}; first {side} "
            f"at index {len(shorter)}: {_cut(longer[len(shorter)])}"
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        missing = [k for k in expected if k not in actual]
        extra = [k for k in actual if k not in expected]
        if missing or extra:
            return f"{path or 'mapping'}: keys missing {missing!r}, keys extra {extra!r}"[:400]
        key = next(k for k in expected if expected[k] != actual[k])
        return _at(f"{path}[{key!r}]", expected[key], actual[key])
    return None


def _at(path: str, expected: object, actual: object) -> str:
    """Two differing parts at ``path``: whole when short, else where they first differ."""
    if len(repr(expected)) + len(repr(actual)) <= SHOWN_WHOLE:
        return f"{path}: expected {expected!r}, got {actual!r}"
    return _first_difference(expected, actual, path) or (
        f"{path}: expected {_cut(expected)}, got {_cut(actual)}"
    )


def described_difference(expected: object, actual: object) -> str:
    """``expected X, got Y`` when both are short; else where they first differ and each cut."""
    whole = f"expected {expected!r}, got {actual!r}"
    if len(whole) <= SHOWN_WHOLE + len("expected , got "):
        return whole
    return _first_difference(expected, actual) or whole


def expect_equal(expected: object, actual: object, what: str) -> Verdict:
    """Pass when ``actual == expected``; the failure, located by ``what``, shows both when
    they are short and where they first differ when they are not."""
    if actual == expected:
        return holds(f"{what} = {actual!r}")
    return fails(f"{what}: {described_difference(expected, actual)}", evidence=repr(actual))


def difference(label: str, expected: object, actual: object) -> list[str]:
    """``[]`` when ``actual == expected``, else the one line saying what differs under ``label``
    (as :func:`expect_equal` says it): a claim that checks many things gathers these and ends
    with :func:`holds_unless`."""
    return [] if actual == expected else [f"{label}: {described_difference(expected, actual)}"]


def holds_unless(problems: list[str], evidence: str, shown: int = 4, width: int = 600) -> Verdict:
    """Pass with ``evidence`` when ``problems`` is empty; else fail naming how many there are
    and the first ``shown`` of them, each cut to ``width`` characters."""
    if problems:
        listed = "; ".join(p[:width] for p in problems[:shown])
        return fails(f"{len(problems)} differences; {listed}")
    return holds(evidence)


CLAIM_KIND_ATTR = "__claim_kind__"

F = TypeVar("F", bound=Callable[..., Any])


def claim(kind: ClaimKind | str) -> Callable[[F], F]:
    """Stamp a function as a claim of ``kind``: a :class:`ClaimKind`, or the name of a built-in
    or plugin-registered kind (plugins register theirs before any witness is imported).
    Discovery is a separate step. An unknown ``kind`` raises ``ValueError`` listing the kinds
    there are."""
    resolved = resolve_kind(kind)

    def stamp(fn: F) -> F:
        setattr(fn, CLAIM_KIND_ATTR, resolved)
        return fn

    return stamp
