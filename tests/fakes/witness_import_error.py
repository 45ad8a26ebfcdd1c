"""A witness whose module cannot be imported: it is unresolved, not failing."""

from __future__ import annotations

import tests.fakes.no_such_fixture  # type: ignore[import-not-found]  # noqa: F401
from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def never_collected() -> Verdict:
    """Never reached: the import above fails."""
    return holds("unreachable")
