"""``claims evidence --base REV``: a pull request's evidence section in one command.

In the seed's order, each part computed, never typed:

1. **Witnesses**: every registered witness run now, one ``W: P/N PASS|FAIL`` line each.
2. **Byte identity**: for each witness that defines ``artifacts()`` and whose claims reach a
   file changed since REV (a witness the change reaches), its rendering at REV and now compared
   byte for byte (``W: identical (N bytes)``), as ``claims identity`` does.
3. **Mutation control**: ``claims mutate`` over the touched witnesses (in a subprocess, so the
   mutation plugin is a plugin like any other): each witness's verdict line (mutants exact,
   combined exact, positive controls green), and per mutant the claims it turned red.
4. **Existing witnesses over the touched modules**: the changed files and the witnesses whose
   claims reach them, with their counts.
5. **Failing claims**: each labelled ``new`` or ``pre-existing`` by running the same witnesses
   at REV (``claims run --baseline``).

Markdown by default (paste it, or append it to ``$GITHUB_STEP_SUMMARY``); ``--format json``
for tools. Exit 0 when every claim passes or fails identically at REV, every identity holds
and the mutation control is exact; 1 otherwise; 2 for a usage error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from claims import hookimpl
from claims.lazy import lazy_handler

EPILOG = """\
examples:
  claims evidence --base origin/main                  # markdown, to paste into the PR
  claims evidence --base HEAD~1 --format json
  claims evidence --base origin/main --no-mutation    # skip the (slowest) mutation control
  claims evidence --base origin/main >> "$GITHUB_STEP_SUMMARY"

Exit 0 when every claim passes (or fails identically at REV), every byte identity holds and
the mutation control is exact; 1 otherwise; 2 for a usage error.
"""


@hookimpl
def claims_add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "evidence",
        help="the pull request's evidence: witnesses, byte identity, mutation control, labels",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--base", required=True, metavar="REV", help="the revision to compare with")
    parser.add_argument(
        "--repo", type=Path, default=Path("."), help="git repository for REV (default: .)"
    )
    parser.add_argument(
        "--format", dest="evidence_format", choices=("markdown", "json"), default="markdown"
    )
    parser.add_argument(
        "--no-mutation",
        action="store_true",
        help="leave out the mutation control (it runs every declared mutant of the touched "
        "witnesses, the slowest part)",
    )
    parser.set_defaults(handler=lazy_handler("plugins.evidence_collect:evidence_command"))
