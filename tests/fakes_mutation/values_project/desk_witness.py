"""Witness ``desk``: one claim that checks whole argvs, one that only counts seats."""

from __future__ import annotations

from desk.plan import book  # type: ignore[import-not-found]

from claims import ClaimKind, Verdict, claim, expect, expect_equal


@claim(ClaimKind.PLANNED_SHAPE)
def every_seat_has_its_whole_argv() -> Verdict:
    """Ann sits in row 1 and Bob in row 2, each with the exact command."""
    argvs = [seat.argv for seat in book(("ann", "bob")).seats]
    expected = [
        ("desk", "--name", "ann", "--row", "1"),
        ("desk", "--name", "bob", "--row", "2"),
    ]
    return expect_equal(expected, argvs, "argv per seat")


@claim(ClaimKind.PLANNED_SHAPE)
def a_booking_has_seats() -> Verdict:
    """A booking of two has some seats (a weak claim: it misses most mutants)."""
    return expect(len(book(("ann", "bob")).seats) > 0, "seated", "no seat")
