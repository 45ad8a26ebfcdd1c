"""A witness whose statements look like Markdown and HTML."""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, holds


@claim(ClaimKind.PLANNED_SHAPE)
def statement_with_markup() -> Verdict:
    """rank_0 *serves* <script>x</script> | [#12353](http://x) `tick` ~~gone~~ & more."""
    return holds("ok")
