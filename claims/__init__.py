"""The claims framework: witnesses of claims about the planner, run through pluggy hooks.

A witness module::

    from claims import ClaimKind, Verdict, claim, expect_equal

    def setup() -> None:  # optional, run once before the claims
        ...

    @claim(ClaimKind.PLANNED_SHAPE)
    def followers_are_headless() -> Verdict:
        \"\"\"Every rank above 0 is started with --headless.\"\"\"
        argvs = [rank.serve_argv for rank in _plan().ranks]  # _plan: a private helper
        return expect_equal([False, True, True, True], ["--headless" in a for a in argvs],
                            "headless per rank")

is registered by a plugin::

    from claims import hookimpl

    @hookimpl
    def claims_register_witnesses(register):
        register("v41_group_a_launch", "witnesses.v41_group_a_launch")
"""

from claims.errors import ClaimsError, FloorViolation, PluginLoadError, UsageError, Violation
from claims.exits import Exit
from claims.loader import BUILTIN_PLUGINS, ENTRY_POINT_GROUP
from claims.markers import PROJECT, hookimpl, hookspec
from claims.model import (
    ClaimKind,
    Outcome,
    Verdict,
    claim,
    difference,
    expect,
    expect_equal,
    fails,
    holds,
    holds_unless,
)
from claims.results import ClaimResult, RunReport, WitnessReport
from claims.session import Selection, Session
from claims.witness import Claim, Unresolved, Witness

__all__ = [
    "BUILTIN_PLUGINS",
    "ENTRY_POINT_GROUP",
    "PROJECT",
    "Claim",
    "ClaimKind",
    "ClaimResult",
    "ClaimsError",
    "Exit",
    "FloorViolation",
    "Outcome",
    "PluginLoadError",
    "RunReport",
    "Selection",
    "Session",
    "Unresolved",
    "UsageError",
    "Verdict",
    "Violation",
    "Witness",
    "WitnessReport",
    "claim",
    "difference",
    "expect",
    "expect_equal",
    "fails",
    "holds",
    "holds_unless",
    "hookimpl",
    "hookspec",
]
