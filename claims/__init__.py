"""The claims framework: witnesses of claims about the code they check, run through pluggy
hooks.

A witness module::

    from claims import ClaimKind, Verdict, claim, expect_equal
    from postage.rates import price

    def setup() -> None:  # optional, run once before the claims
        ...

    @claim(ClaimKind.PLANNED_SHAPE)
    def a_started_step_is_charged_whole() -> Verdict:
        \"\"\"100 g is one step and 101 g two.\"\"\"
        cents = (price("europe", 100).cents, price("europe", 101).cents)
        return expect_equal((285, 320), cents, "100 g and 101 g to europe")

is registered by a plugin, which the project names in ``[tool.claims] plugins``::

    from claims import hookimpl

    @hookimpl
    def claims_register_witnesses(register):
        register("postage", "postage.evidence.witness")

A claim taking one parameter, ``case``, in a module defining ``cases()`` (an ordered mapping
of case id to value) runs once per case, with id ``<witness>[<case>].<function>``
(:mod:`claims.witness`). docs/adopting.md walks through the rest; examples/postage is a whole
project.
"""

from claims.errors import (
    ClaimsError,
    FloorViolation,
    PassThrough,
    PluginLoadError,
    UsageError,
    Violation,
)
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
    "PassThrough",
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
