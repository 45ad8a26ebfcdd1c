"""Witness ``gate``: claims about the fake gate rules."""

from __future__ import annotations

from gate.rules import admits, count_up, greeting, guard, pairs  # type: ignore[import-not-found]

from claims import ClaimKind, Verdict, claim, expect, expect_equal


@claim(ClaimKind.POSITIVE_CONTROL)
def an_adult_is_admitted() -> Verdict:
    """An 18-year-old is admitted."""
    return expect(admits(18), "admitted", "an adult was refused")


@claim(ClaimKind.REFUSAL)
def a_minor_is_refused() -> Verdict:
    """A 17-year-old is refused."""
    return expect(not admits(17), "refused", "a minor was admitted")


@claim(ClaimKind.PLANNED_SHAPE)
def counting_reaches_n() -> Verdict:
    """Counting up to 3 ends at 3."""
    return expect_equal(3, count_up(3), "count_up(3)")


@claim(ClaimKind.PLANNED_SHAPE)
def the_greeting_names_the_guest() -> Verdict:
    """The greeting names the guest."""
    return expect("ann" in greeting("ann"), "named", "the guest is not named")


@claim(ClaimKind.PLANNED_SHAPE)
def the_guard_lets_ok_through() -> Verdict:
    """guard(True) returns True."""
    return expect(guard(True), "through", "guard(True) did not return True")


@claim(ClaimKind.PLANNED_SHAPE)
def names_pair_with_their_shouts() -> Verdict:
    """pairs pairs each name with its upper case."""
    return expect_equal([("ab", "AB")], pairs(["ab"]), "pairs(['ab'])")
