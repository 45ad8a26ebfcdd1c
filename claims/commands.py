"""The kernel's own commands, ``claims list`` and ``claims run``; plugins add the others."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from claims.errors import UsageError
from claims.exits import Exit
from claims.model import ClaimKind
from claims.session import Selection, Session
from claims.witness import Unresolved

LIST_EPILOG = """\
Exit 0 when every witness resolves, 1 when one is unresolved (its import or setup failed:
the status column says why), 2 for a usage error or a floor violation.

examples:
  claims list
  claims -p no:mutation list
"""

RUN_EPILOG = """\
Ends with one line per witness: `W: P/N PASS`, `W: P/N FAIL` or `W: unresolved: <why>`.
Exit 0 when every selected claim passed and nothing is unresolved, 1 otherwise,
2 for a usage error or a floor violation.

examples:
  claims run v41_group_a_launch
  claims run --all --kind refusal
  claims run --all -k 'v41_*.headless*' --format markdown
  claims run --all --format github --junit-xml target/claims.xml

"""


def add_builtin_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], formats: dict[str, str]
) -> argparse.ArgumentParser:
    """Add ``list`` and ``run``; returns the ``run`` parser for plugins' run options."""
    listing = subparsers.add_parser(
        "list",
        help="list the witnesses and their claim counts per kind",
        description="List every registered witness with its number of claims of each kind.",
        epilog=LIST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    listing.set_defaults(handler=list_witnesses)
    return _add_run_parser(subparsers, formats)


def list_witnesses(args: argparse.Namespace, session: Session) -> int:
    """Print a table: witness, claims per kind, total, status; exit 1 if one is unresolved."""
    kinds = list(ClaimKind)
    pending = set(session.pending_names)
    resolutions = session.resolve_all((*session.witness_names, *session.pending_names))
    rows: list[list[object]] = []
    for resolution in resolutions:
        if isinstance(resolution, Unresolved):
            rows.append(
                [resolution.name, *["" for _ in kinds], "", f"unresolved: {resolution.reason}"]
            )
            continue
        counts = [sum(1 for c in resolution.claims if c.kind is k) for k in kinds]
        status = "pending: red until its frontier lands" if resolution.name in pending else "ok"
        rows.append([resolution.name, *counts, len(resolution.claims), status])
    from tabulate import tabulate

    headers = ["witness", *[k.value for k in kinds], "total", "status"]
    print(tabulate(rows, headers=headers) if rows else "no witnesses registered")
    unresolved = [r.name for r in resolutions if isinstance(r, Unresolved)]
    if unresolved:
        print(f"unresolved: {', '.join(unresolved)}", file=sys.stderr)
        return Exit.FAILED
    return Exit.OK


def _add_run_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], formats: dict[str, str]
) -> argparse.ArgumentParser:
    run = subparsers.add_parser(
        "run",
        help="run the claims of some witnesses and report their verdicts",
        description=(
            "Run the claims of the named witnesses (or --all), each claim on its own, then "
            "print a report in --format."
        ),
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("witnesses", nargs="*", metavar="W", help="witness names to run")
    run.add_argument("--all", action="store_true", help="run every registered witness")
    run.add_argument("-k", dest="pattern", metavar="PATTERN", help="claim id substring or glob")
    run.add_argument(
        "--kind",
        choices=[k.value for k in ClaimKind],
        metavar="KIND",
        help=f"only claims of KIND: {', '.join(k.value for k in ClaimKind)}",
    )
    run.add_argument(
        "--format",
        default="table",
        choices=list(formats) or None,
        help="; ".join(f"{name}: {text}" for name, text in formats.items()),
    )
    run.add_argument(
        "--baseline",
        metavar="REV",
        help="also run the claims at REV (a git worktree, REV's own code) and label each "
        "failing claim new or pre-existing; exit 0 when every failure is pre-existing",
    )
    run.add_argument(
        "--changed-since",
        metavar="REV",
        help="run only the witnesses whose claims reach a file changed since REV",
    )
    run.add_argument(
        "--repo", type=Path, default=Path("."), help="git repository for REV (default: .)"
    )
    run.set_defaults(handler=run_witnesses)
    return run


def run_witnesses(args: argparse.Namespace, session: Session) -> int:
    """Run, tell plugins the run finished, print the report; exit 0 only when all passed."""
    names = _chosen(args, session)
    if args.changed_since:
        from claims.baseline import changed_witnesses

        names = changed_witnesses(session, names, args.repo, args.changed_since)
        if not names:
            print(f"no witness reaches a file changed since {args.changed_since}")
            return Exit.OK
    selection = Selection(args.pattern, ClaimKind(args.kind) if args.kind else None)
    report = session.run(names, selection)
    session.run_finished(report, args)
    session.report(report, args.format, sys.stdout)
    if not args.baseline:
        return report.exit_code
    from claims.baseline import baseline_outcomes, label_failures, print_labels

    labels = label_failures(
        report, baseline_outcomes(args.repo, args.baseline, names, args.plugins)
    )
    stream = sys.stdout if args.format == "table" else sys.stderr
    print_labels(labels, args.baseline, stream)
    unresolved = any(w.unresolved is not None for w in report.witnesses)
    return Exit.FAILED if unresolved or any(label == "new" for _, label in labels) else Exit.OK


def _chosen(args: argparse.Namespace, session: Session) -> Sequence[str]:
    if args.all and args.witnesses:
        raise UsageError("give witness names or --all, not both")
    if args.all:
        if not session.witness_names:
            raise UsageError(
                "--all found no witness: no loaded plugin registers one. Install the package "
                "that declares them, or load a plugin with `claims -p MODULE`."
            )
        return session.witness_names
    if not args.witnesses:
        raise UsageError(
            "name the witnesses to run, or pass --all; `claims list` shows them "
            "(example: claims run v41_group_a_launch)"
        )
    return list(dict.fromkeys(args.witnesses))
