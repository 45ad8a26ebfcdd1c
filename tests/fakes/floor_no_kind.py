"""A public helper with no stamp: a claim with no kind (``setup``/``artifacts`` are fine)."""

from __future__ import annotations

from os.path import join

from claims import ClaimKind, Verdict, claim, holds


def setup() -> None:
    """Allowed: setup is not a claim."""


def artifacts() -> dict[str, str]:
    """Allowed: what revision-pair controls render and compare."""
    return {"argv": render_argv()}


def render_argv() -> str:
    return join("docker", "create")


def _private_helper() -> str:
    return "allowed"


@claim(ClaimKind.PLANNED_SHAPE)
def argv_renders() -> Verdict:
    """The argv renders."""
    return holds(render_argv() + _private_helper())
