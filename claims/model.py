"""The claim/witness model: what a claim is, what it returns, how a witness groups claims.

A claim is a module-level function stamped by :func:`claim`. It takes no arguments,
states what it claims in its docstring, and returns a :class:`Verdict`. A failed
``assert`` inside a claim is a failing verdict (hypothesis properties fail that way);
any other exception is an *error* verdict, decided by the runner, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict


class ClaimKind(StrEnum):
    """What sort of statement a claim makes about the planner."""

    PLANNED_SHAPE = "planned_shape"
    REFUSAL = "refusal"
    POSITIVE_CONTROL = "positive_control"
    PAIRING_OBLIGATION = "pairing_obligation"
    PROPERTY = "property"
    IDENTITY = "identity"


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

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS


def holds(evidence: str) -> Verdict:
    """A passing verdict carrying the evidence that made it pass."""
    return Verdict(outcome=Outcome.PASS, evidence=evidence)


def fails(reason: str, evidence: str = "") -> Verdict:
    """A failing verdict: ``reason`` says what was expected and what was found."""
    return Verdict(outcome=Outcome.FAIL, reason=reason, evidence=evidence)


def expect(condition: bool, evidence: str, reason: str) -> Verdict:
    """Pass with ``evidence`` when ``condition`` holds, else fail with ``reason``."""
    return holds(evidence) if condition else fails(reason, evidence)


def expect_equal(expected: object, actual: object, what: str) -> Verdict:
    """Pass when ``actual == expected``; the failure shows both, located by ``what``."""
    if actual == expected:
        return holds(f"{what} = {actual!r}")
    return fails(f"{what}: expected {expected!r}, got {actual!r}", evidence=repr(actual))


def difference(label: str, expected: object, actual: object) -> list[str]:
    """``[]`` when ``actual == expected``, else the one line saying what differs under ``label``:
    a claim that checks many things gathers these and ends with :func:`holds_unless`."""
    return [] if actual == expected else [f"{label}: expected {expected!r}, got {actual!r}"]


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
    """Stamp a function as a claim of ``kind``; discovery is a separate step."""
    resolved = ClaimKind(kind)

    def stamp(fn: F) -> F:
        setattr(fn, CLAIM_KIND_ATTR, resolved)
        return fn

    return stamp
