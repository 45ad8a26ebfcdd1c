"""A witness whose one claim names a kind that does not exist."""

from __future__ import annotations

from claims import Verdict, claim, holds


@claim("refusals")
def a_misspelled_kind() -> Verdict:
    """Stamped with a kind nobody defined."""
    return holds("never run")
