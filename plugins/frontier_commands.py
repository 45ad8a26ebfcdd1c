"""``claims frontiers`` and ``claims identity``: the frontier tracker and the byte-identity control.

``claims frontiers`` classifies the registered ledger (``claims_register_frontiers``)
against recorded PR states and, with ``--base REV``, against the ledger that revision's own
code declares (read by running ``claims frontiers --ledger-json`` in a worktree of REV).
Sufficient-for claims run through the session, and only where their verdict decides the
row: an open frontier's claim must be red, a landed one's green.

``claims identity W --base REV`` renders witness W's ``artifacts()`` at REV and at the
working tree, each in its own subprocess running that tree's code, and compares bytes.

This module only adds the commands; what they do is in :mod:`plugins.frontier_run`, imported
when one of them runs, so ``claims run`` never pays for it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from claims import hookimpl
from claims.lazy import lazy_handler

FRONTIERS_EPILOG = """\
Statuses: open, landed, stale (PR merged, obligation still declared), dropped_early
(obligation gone while its PR has not merged), abandoned (PR closed unmerged: needs a new
owner), unknown (no source knows the PR; never read as merged). Red: stale, dropped_early,
unknown, an open frontier whose sufficient-for claim passes, a landed one whose claim fails.
Exit 0 when nothing is red, 1 otherwise, 2 for unreadable input.

Sources: later --prs files win per PR; gh records win over --git-log history, except that a
revert in history beats a gh MERGED record (GitHub cannot see reverts).

examples:
  claims frontiers --prs fixtures/prs/all_open.json
  claims frontiers --prs prs.json --git-log . --base origin/main --format json
  claims frontiers --ledger-json
"""

IDENTITY_EPILOG = """\
The witness module defines `artifacts() -> dict[str, str]` (name -> rendered text). The last
line is `W: identical (N bytes)` (exit 0) or `W: differs (...)` after a unified diff per
differing artifact (exit 1); 2 when a side cannot be rendered.

example:
  claims identity my_witness --base origin/main
"""


@hookimpl
def claims_add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``frontiers`` and ``identity``."""
    _add_frontiers(subparsers)
    _add_identity(subparsers)


def _parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    epilog: str,
) -> argparse.ArgumentParser:
    return subparsers.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _add_frontiers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    summary = "classify the declared frontiers against the state of their owner PRs"
    parser = _parser(subparsers, "frontiers", summary, FRONTIERS_EPILOG)
    parser.add_argument(
        "--prs",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="recorded `gh pr list --state all --json number,state,mergedAt,title` output "
        "(repeatable; a later file wins per PR)",
    )
    parser.add_argument(
        "--git-log", type=Path, metavar="REPO", help="read merges and reverts from REPO's HEAD"
    )
    parser.add_argument(
        "--base", metavar="REV", help="also find frontiers dropped since REV's ledger"
    )
    _add_repo(parser)
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument(
        "--ledger-json", action="store_true", help="print the registered ledger as JSON and exit"
    )
    parser.set_defaults(handler=lazy_handler("plugins.frontier_run:frontiers_command"))


def _add_identity(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    summary = "compare a witness's rendered artifacts at a base revision and the working tree"
    parser = _parser(subparsers, "identity", summary, IDENTITY_EPILOG)
    parser.add_argument("witness", metavar="W", help="a registered witness defining artifacts()")
    parser.add_argument("--base", required=True, metavar="REV", help="the revision to compare")
    _add_repo(parser)
    parser.set_defaults(handler=lazy_handler("plugins.frontier_run:identity_command"))


def _add_repo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repo",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project's git checkout, where the base revision lives (default: .)",
    )
