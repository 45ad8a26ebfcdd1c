"""Declared frontiers: inputs owned by open pull requests, tracked as obligations.

A :class:`Frontier` is one row of the committed ledger: an input the planner cannot supply
yet because an open PR owns it. :func:`classify` compares the ledger (and the ledger at a
base revision) with what is known about each owner PR and decides, per frontier, whether the
ledger is still honest:

=================  ==============================  ========================================
PR state           frontier still declared         frontier gone since the base ledger
=================  ==============================  ========================================
open / reverted    ``open`` (red if the sufficient  ``dropped_early`` (red)
                   -for claim already passes)
merged             ``stale`` (red)                 ``landed`` (red if the sufficient-for
                                                   claim is still red)
closed unmerged    ``abandoned`` (needs an owner)  ``dropped_early`` (red: not a landing)
unknown            ``unknown`` (red)               ``unknown`` (red)
=================  ==============================  ========================================

An unknown PR state is never read as merged. It is red, because a ledger whose owners cannot
be read is not being tracked; the message says which PR could not be read and how to record
it. A reverted PR counts as open again: its obligation is back.

Everything here is pure: PR states and claim verdicts come in as values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "Frontier",
    "FrontierRow",
    "FrontierStatus",
    "LedgerError",
    "PrRecord",
    "PrState",
    "classify",
    "ledger_from_json",
    "ledger_to_json",
]

_SLUG = r"^[a-z0-9][a-z0-9_]*$"
_CLAIM_ID = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$"


class LedgerError(ValueError):
    """A ledger that cannot be classified: a frontier id declared twice."""


class Frontier(BaseModel):
    """One declared frontier: an input an open PR owns, and what its landing must prove.

    ``owner`` is who holds the PR (a lane or an author), for people; tracking reads only
    ``owner_pr``. ``sufficient_for_claim`` names the claim (``witness.function``) that
    states ``sufficient_for``: it must be red while the PR is open and green once it lands.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=_SLUG)
    input: str
    owner_pr: int = Field(gt=0)
    owner: str = ""
    today: str
    trigger: str
    sufficient_for: str
    sufficient_for_claim: str | None = Field(default=None, pattern=_CLAIM_ID)


class PrState(StrEnum):
    """What is known about a pull request. ``unknown`` is never read as merged."""

    OPEN = "open"
    MERGED = "merged"
    CLOSED_UNMERGED = "closed_unmerged"
    REVERTED = "reverted"
    UNKNOWN = "unknown"


class PrRecord(BaseModel):
    """One PR's state as read from one source (``source`` says where)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int = Field(gt=0)
    state: PrState
    merged_at: str | None = None
    title: str = ""
    source: str


class FrontierStatus(StrEnum):
    """Where a frontier stands against its owner PR."""

    OPEN = "open"
    LANDED = "landed"
    STALE = "stale"
    DROPPED_EARLY = "dropped_early"
    ABANDONED = "abandoned"
    UNKNOWN = "unknown"

    @property
    def fails(self) -> bool:
        """Whether this status is red by itself, whatever the sufficient-for claim says.

        ``open`` and ``landed`` can still be red through their claim; see
        :attr:`FrontierRow.fails`.
        """
        return self in _FAILING_STATUSES


_FAILING_STATUSES = frozenset(
    {FrontierStatus.STALE, FrontierStatus.DROPPED_EARLY, FrontierStatus.UNKNOWN}
)


class FrontierRow(BaseModel):
    """The verdict on one frontier: its PR, the PR's state, the status, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    frontier: str
    pr: int
    pr_state: PrState
    status: FrontierStatus
    fails: bool
    message: str


def classify(
    ledger: Sequence[Frontier],
    base_ledger: Sequence[Frontier] | None,
    prs: Mapping[int, PrRecord],
    sufficient_verdicts: Mapping[str, bool],
) -> tuple[FrontierRow, ...]:
    """Classify every frontier of ``ledger`` and of ``base_ledger``, one row each.

    Rows follow the ledger's order, then frontiers only the base declared, in its order, so
    every PR either ledger references appears. ``base_ledger=None`` means no base was given:
    nothing can be found dropped. ``prs`` lacks a number when no source saw that PR.
    ``sufficient_verdicts`` maps a claim id to whether it passed; a claim it does not
    mention was not run and is reported, not failed.
    """
    current = _by_id(ledger, "ledger")
    base = _by_id(base_ledger or (), "base ledger")
    rows = [_row(f, True, prs, sufficient_verdicts) for f in current.values()]
    dropped = [f for fid, f in base.items() if fid not in current]
    rows += [_row(f, False, prs, sufficient_verdicts) for f in dropped]
    return tuple(rows)


def _by_id(ledger: Sequence[Frontier], what: str) -> dict[str, Frontier]:
    seen: dict[str, Frontier] = {}
    for frontier in ledger:
        if frontier.id in seen:
            raise LedgerError(
                f"{what}: frontier {frontier.id!r} is declared twice "
                f"(owner PRs #{seen[frontier.id].owner_pr} and #{frontier.owner_pr}); "
                "each frontier id must be declared once"
            )
        seen[frontier.id] = frontier
    return seen


def _row(
    frontier: Frontier,
    declared: bool,
    prs: Mapping[int, PrRecord],
    verdicts: Mapping[str, bool],
) -> FrontierRow:
    record = prs.get(frontier.owner_pr)
    state = record.state if record is not None else PrState.UNKNOWN
    passed = verdicts.get(_claim(frontier))
    status, message = _decide(frontier, state, declared, passed)
    fails = status.fails or _claim_contradicts(status, passed)
    return FrontierRow(
        frontier=frontier.id,
        pr=frontier.owner_pr,
        pr_state=state,
        status=status,
        fails=fails,
        message=message,
    )


def _claim(frontier: Frontier) -> str:
    return frontier.sufficient_for_claim or ""


def _claim_contradicts(status: FrontierStatus, passed: bool | None) -> bool:
    """An open frontier whose claim passes, or a landed one whose claim is red."""
    if status is FrontierStatus.OPEN:
        return passed is True
    if status is FrontierStatus.LANDED:
        return passed is False
    return False


def _decide(
    frontier: Frontier, state: PrState, declared: bool, passed: bool | None
) -> tuple[FrontierStatus, str]:
    pr = f"#{frontier.owner_pr}"
    if state is PrState.UNKNOWN:
        return FrontierStatus.UNKNOWN, _unknown_message(pr, declared)
    if state in (PrState.OPEN, PrState.REVERTED):
        return _decide_open(frontier, state, declared, passed)
    if state is PrState.MERGED:
        return _decide_merged(frontier, declared, passed)
    if declared:
        return FrontierStatus.ABANDONED, (
            f"{pr} was closed unmerged: the obligation needs a new owner PR"
        )
    return FrontierStatus.DROPPED_EARLY, (
        f"dropped from the ledger but {pr} was closed unmerged, which is not a landing; "
        "restore the frontier and give it a new owner PR"
    )


def _unknown_message(pr: str, declared: bool) -> str:
    where = "declared" if declared else "dropped from the ledger"
    return (
        f"{where}, but the state of {pr} could not be read from any source; "
        "record it with `gh pr list --state all --json number,state,mergedAt,title` "
        "or point at a git history that contains it"
    )


def _decide_open(
    frontier: Frontier, state: PrState, declared: bool, passed: bool | None
) -> tuple[FrontierStatus, str]:
    pr = f"#{frontier.owner_pr}"
    why = f"{pr} was merged and then reverted" if state is PrState.REVERTED else f"{pr} is open"
    if not declared:
        return FrontierStatus.DROPPED_EARLY, (
            f"dropped from the ledger but {why}; restore the frontier until {pr} merges"
        )
    if passed is True:
        return FrontierStatus.OPEN, (
            f"{why} but its sufficient-for claim {frontier.sufficient_for_claim} already "
            "passes: the obligation is obsolete or the claim is hollow"
        )
    return FrontierStatus.OPEN, f"{why}; {_claim_note(frontier, passed, 'red as expected')}"


def _decide_merged(
    frontier: Frontier, declared: bool, passed: bool | None
) -> tuple[FrontierStatus, str]:
    pr = f"#{frontier.owner_pr}"
    if declared:
        return FrontierStatus.STALE, (
            f"{pr} merged but the obligation is still declared; remove it from the ledger "
            "and make the plan consume the landed input"
        )
    if passed is False:
        return FrontierStatus.LANDED, (
            f"{pr} merged but its sufficient-for claim {frontier.sufficient_for_claim} is "
            f"red: the landing does not yet give {frontier.sufficient_for!r}"
        )
    return FrontierStatus.LANDED, f"{pr} merged; {_claim_note(frontier, passed, 'green')}"


def _claim_note(frontier: Frontier, passed: bool | None, expected: str) -> str:
    if frontier.sufficient_for_claim is None:
        return "no sufficient-for claim is named"
    if passed is None:
        return f"sufficient-for claim {frontier.sufficient_for_claim} was not evaluated"
    return f"sufficient-for claim {frontier.sufficient_for_claim} is {expected}"


def ledger_to_json(ledger: Sequence[Frontier]) -> str:
    """The ledger as a JSON array, one object per frontier, in ledger order."""
    return json.dumps([f.model_dump(mode="json") for f in ledger], indent=2, sort_keys=True)


def ledger_from_json(text: str) -> tuple[Frontier, ...]:
    """Read back what :func:`ledger_to_json` printed (pydantic errors locate bad rows)."""
    return _LEDGER.validate_json(text)


_LEDGER: TypeAdapter[tuple[Frontier, ...]] = TypeAdapter(tuple[Frontier, ...])
