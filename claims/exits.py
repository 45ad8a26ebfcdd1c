"""Every exit code of the ``claims`` command and its built-in plugins, in one place.

The README's exit-code table is this enum (a test holds the two together). The planner keeps
its own codes (``planner/cli.py``): the kernel never imports the planner, nor it the kernel.
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """What a ``claims`` invocation's exit status means.

    ``claims mutate`` uses 3 to 8; when several apply, ``plugins.mutate`` picks the first of
    BASELINE, TIMEOUT, UNREACHED, COLLATERAL, SURVIVOR, UNWITNESSED.
    """

    OK = 0
    """Every claim passed; every mutant exact; every floor held."""
    EXACT = 0
    """``claims mutate``'s name for OK: every mutant turned exactly its declared claims red."""
    FAILED = 1
    """A claim failed or errored, or a witness is unresolved."""
    USAGE = 2
    """A bad command line, or an input it cannot read (a file, a ledger, a report)."""
    SURVIVOR = 3
    """A mutant some declared claim missed, or a survey below its floors."""
    COLLATERAL = 4
    """A mutant turned an undeclared claim or a positive control red (a survey worker's own
    exit when state leaked between mutants)."""
    BASELINE = 5
    """A claim is red with no mutant applied."""
    TIMEOUT = 6
    """A run outlived its timeout or crashed, or a survey worker failed before its first
    mutant or leaked state between mutants."""
    UNREACHED = 7
    """A target the claims never reach: forcing it to fail turned nothing red."""
    UNWITNESSED = 8
    """A claim no mutant turns red and no debt entry names (or a stale debt entry)."""
    INTERNAL = 70
    """``EX_SOFTWARE`` (sysexits.h): a bug in the framework or a plugin, not in the input."""
    INTERRUPTED = 130
    """Interrupted (Ctrl-C), as a shell reports SIGINT."""
