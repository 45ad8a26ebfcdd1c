"""Rules at a gate, written so mutmut's mutants are killed, survive, hang, crash or go uncovered."""

from __future__ import annotations

import os

ADULT = 18


def admits(age: int) -> bool:
    """Adults only."""
    return age >= ADULT


def greeting(name: str) -> str:
    """The greeting's wording is not claimed, only that it names the guest."""
    return f"hello {name}, welcome"


def count_up(n: int) -> int:
    """Count to n one step at a time (a mutated step never gets there)."""
    i = 0
    while i < n:
        i += 1
    return i


def guard(ok: bool) -> bool:
    """Ends the process when not ok (a mutant that drops the ``not`` kills its worker)."""
    if not ok:
        os._exit(3)
    return ok


def pairs(names: list[str]) -> list[tuple[str, str]]:
    """Each name with its shout; strict=True cannot fail here (an equivalent mutant)."""
    shouts = [n.upper() for n in names]
    return list(zip(names, shouts, strict=True))


def unused(x: int) -> int:
    """No claim calls this: its mutants have no coverage."""
    return x + 1
