"""The kernel's own commands, ``claims list`` and ``claims run``; plugins add the others."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from claims.errors import UsageError
from claims.exits import Exit
from claims.files import shown
from claims.model import ClaimKind, known_kinds, resolve_kind
from claims.session import Selection, Session
from claims.tables import fitted, terminal_width, widest
from claims.witness import Resolution, Unresolved

LIST_EPILOG = """\
Exit 0 when every witness resolves, 1 when one is unresolved (its import or setup failed:
the status column says why), 2 for a usage error or a floor violation.

examples:
  claims list
  claims list --format json
"""

PLUGINS_EPILOG = """\
Names the configuration read ([tool.claims] of the nearest pyproject.toml, from the working
directory upward), then each plugin in load order: its name, where it was named (built-in,
an entry point of the `claims` group, [tool.claims] plugins, or -p) and its file.
Exit 0.

examples:
  claims plugins
  claims -p no:junit plugins --format json
"""

RUN_EPILOG = """\
Ends with one line per witness: `W: P/N PASS`, `W: P/N FAIL` or `W: unresolved: <why>`.
Exit 0 when every selected claim passed and nothing is unresolved, 1 otherwise,
2 for a usage error or a floor violation.

examples:
  claims run my_witness
  claims run --all --kind refusal
  claims run --all -k 'my_*.refuses*' --format markdown
  claims run --all --format github --junit-xml target/claims.xml

"""


def add_builtin_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], formats: dict[str, str]
) -> argparse.ArgumentParser:
    """Add ``list``, ``plugins``, ``kinds`` and ``run``; returns the ``run`` parser for
    plugins' run options."""
    listings = (
        (
            "list",
            list_witnesses,
            "list the witnesses and their claim counts per kind",
            "List every registered witness with its number of claims of each kind.",
            LIST_EPILOG,
            "json: one object per witness with its claims per kind",
        ),
        (
            "plugins",
            list_plugins,
            "list the loaded plugins, where each was named, and the configuration read",
            "List the configuration file read and every loaded plugin, in load order.",
            PLUGINS_EPILOG,
            "json",
        ),
        (
            "kinds",
            list_kinds,
            "list the claim kinds, built in and registered by plugins, and what each states",
            "List every claim kind: its name, what a claim of it states, who defines it.",
            None,
            "json",
        ),
    )
    for name, handler, summary, description, epilog, json_help in listings:
        listing = subparsers.add_parser(
            name,
            help=summary,
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        listing.add_argument(
            "--format",
            choices=["table", "json"],
            default="table",
            help=f"table (default), or {json_help}",
        )
        listing.set_defaults(handler=handler)
    return _add_run_parser(subparsers, formats)


def list_kinds(args: argparse.Namespace, session: Session) -> int:
    """Print every claim kind with what it states and whether it is built in."""
    rows = [
        {"kind": k.value, "states": states, "built_in": isinstance(k, ClaimKind)}
        for k, states in known_kinds().items()
    ]
    if args.format == "json":
        print(json.dumps({"kinds": rows}, indent=2))
        return Exit.OK
    table = [[r["kind"], "built in" if r["built_in"] else "a plugin", r["states"]] for r in rows]
    print(fitted(table, ["kind", "defined by", "what a claim of it states"], 2))
    return Exit.OK


def list_plugins(args: argparse.Namespace, session: Session) -> int:
    """Print the configuration read and each loaded plugin: name, origin, file."""
    pm = session.pm
    rows = [
        {
            "name": name,
            "origin": pm.origins.get(name, "registered by a plugin"),
            "file": getattr(pm.get_plugin(name), "__file__", None),
        }
        for name in pm.load_order
    ]
    config = session.config.path
    if args.format == "json":
        document = {"config": None if config is None else str(config), "plugins": rows}
        print(json.dumps(document, indent=2))
        return Exit.OK
    print(f"configuration: {session.config.describe()}")
    shown_rows = [[shown(r["name"]), shown(r["origin"]), shown(r["file"] or "")] for r in rows]
    print(fitted(shown_rows, ["plugin", "named by", "file"], (1, 2)))
    return Exit.OK


def list_witnesses(args: argparse.Namespace, session: Session) -> int:
    """Print a table: witness, claims per kind, total, status; exit 1 if one is unresolved."""
    kinds = list(known_kinds())
    pending = set(session.pending_names)
    resolutions = session.resolve_all((*session.witness_names, *session.pending_names))
    if args.format == "json":
        return _list_json(resolutions, pending)
    rows: list[list[object]] = []
    for resolution in resolutions:
        if isinstance(resolution, Unresolved):
            rows.append(
                [resolution.name, *["" for _ in kinds], "", f"unresolved: {resolution.reason}"]
            )
            continue
        counts = [sum(1 for c in resolution.claims if c.kind == k) for k in kinds]
        status = "pending: red until its frontier lands" if resolution.name in pending else "ok"
        rows.append([resolution.name, *counts, len(resolution.claims), status])
    headers = ["witness", *[k.value for k in kinds], "total", "status"]
    table = fitted(rows, headers, len(headers) - 1)
    limit = terminal_width()
    if (
        limit is not None and widest(table) > limit
    ):  # one column of counts instead of a column a kind
        table = _narrow_listing(rows, [k.value for k in kinds])
    print(table if rows else "no witnesses registered")
    unresolved = [r.name for r in resolutions if isinstance(r, Unresolved)]
    if unresolved:
        print(f"unresolved: {', '.join(unresolved)}", file=sys.stderr)
        return Exit.FAILED
    return Exit.OK


def _narrow_listing(rows: Sequence[Sequence[object]], kinds: Sequence[str]) -> str:
    """The witness table for a narrow terminal: the kinds a witness has, with their counts,
    in one column that wraps."""
    narrow = []
    for row in rows:
        counts = row[1 : 1 + len(kinds)]
        present = ", ".join(f"{k} {n}" for k, n in zip(kinds, counts, strict=True) if n)
        narrow.append([row[0], present, row[-2], row[-1]])
    return fitted(narrow, ["witness", "claims per kind", "total", "status"], (1, 3))


def _list_json(resolutions: Sequence[Resolution], pending: set[str]) -> int:
    witnesses: list[dict[str, object]] = []
    known = list(known_kinds())
    for resolution in resolutions:
        entry: dict[str, object] = {"name": resolution.name}
        if isinstance(resolution, Unresolved):
            entry |= {"status": "unresolved", "reason": resolution.reason}
        else:
            counts = {k.value: sum(1 for c in resolution.claims if c.kind == k) for k in known}
            status = "pending" if resolution.name in pending else "ok"
            entry |= {"status": status, "claims": counts, "total": len(resolution.claims)}
        witnesses.append(entry)
    print(json.dumps({"witnesses": witnesses}, indent=2))
    return Exit.FAILED if any(isinstance(r, Unresolved) for r in resolutions) else Exit.OK


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
        choices=[k.value for k in known_kinds()],
        metavar="KIND",
        help=f"only claims of KIND: {', '.join(k.value for k in known_kinds())}",
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
    selection = Selection(args.pattern, resolve_kind(args.kind) if args.kind else None)
    report = session.run(names, selection)
    session.run_finished(report, args)
    session.report(report, args.format, sys.stdout)
    if not args.baseline:
        return report.exit_code
    from claims.baseline import baseline_outcomes, label_failures, print_labels

    labels = label_failures(
        report,
        baseline_outcomes(args.repo, args.baseline, names, session.plugin_arguments(args.plugins)),
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
                "--all found no witness: no loaded plugin registers one. Name the plugin that "
                "does in [tool.claims] plugins (see `claims plugins`), install the package "
                "that declares them, or load a plugin with `claims -p MODULE`."
            )
        return session.witness_names
    if not args.witnesses:
        raise UsageError(
            "name the witnesses to run, or pass --all; `claims list` shows them "
            "(example: claims run my_witness)"
        )
    return list(dict.fromkeys(args.witnesses))
