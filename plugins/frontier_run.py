"""What `claims frontiers` and `claims identity` do (parsers: plugins.frontier_commands)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claims import Session, Unresolved, UsageError
from claims.exits import Exit
from claims.frontiers import (
    Frontier,
    FrontierRow,
    FrontierStatus,
    LedgerError,
    PrRecord,
    classify,
    ledger_from_json,
    ledger_to_json,
)
from claims.revisions import RevisionError, identity_at, run_at_revision
from claims.tables import fitted
from plugins.pr_sources import (
    PrSourceError,
    combine_sources,
    read_gh_pr_lists,
    read_git_history,
)

#: A subprocess at another revision that runs longer than this is treated as broken.
TIMEOUT_SECONDS = 900.0


# ----------------------------------------------------------------------------- frontiers


def frontiers_command(args: argparse.Namespace, session: Session) -> int:
    """Classify the ledger; print the table or JSON; 0 when nothing is red, else 1."""
    ledger = registered_ledger(session)
    if args.ledger_json:
        print(ledger_to_json(ledger))
        return Exit.OK
    plugins = getattr(args, "plugins", [])
    base = base_ledger(args.repo, args.base, plugins) if args.base else None
    prs = pr_states(args.prs, args.git_log)
    try:
        rows = classify(ledger, base, prs, {})
        verdicts = sufficient_verdicts(session, ledger, base or (), rows)
        rows = classify(ledger, base, prs, verdicts)
    except LedgerError as error:
        raise UsageError(str(error)) from error
    print(render_rows(rows, prs, args.format))
    return Exit.FAILED if any(row.fails for row in rows) else Exit.OK


def registered_ledger(session: Session) -> tuple[Frontier, ...]:
    """The frontiers the plugins registered, refusing anything that is not a Frontier."""
    frontiers = tuple(session.frontiers)
    strangers = [f for f in frontiers if not isinstance(f, Frontier)]
    if strangers:
        raise UsageError(
            f"claims_register_frontiers received {len(strangers)} value(s) that are not "
            f"claims.frontiers.Frontier, first {strangers[0]!r}; register Frontier(...) values"
        )
    return frontiers


def base_ledger(repo: Path, rev: str, plugins: Sequence[str]) -> tuple[Frontier, ...]:
    """The ledger REV declares, read by running REV's own ``claims frontiers --ledger-json``."""
    options = [arg for module in plugins for arg in ("-p", module)]
    argv = [sys.executable, "-m", "claims.cli", *options, "frontiers", "--ledger-json"]
    try:
        done = run_at_revision(repo, rev, argv, timeout=TIMEOUT_SECONDS)
    except (RevisionError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"cannot read the ledger at {rev!r}: {error}") from error
    if done.returncode != 0:
        raise UsageError(
            f"cannot read the ledger at {rev!r}: `claims frontiers --ledger-json` exited "
            f"{done.returncode} there:\n{done.stderr.strip()}\n"
            "A base must be a revision whose own code has the frontiers command."
        )
    return _parse_ledger(done.stdout, rev)


def _parse_ledger(text: str, rev: str) -> tuple[Frontier, ...]:
    # Fields a later schema added are dropped, so an older tracker can read a newer base.
    try:
        items = json.loads(text)
        known = [{k: v for k, v in i.items() if k in Frontier.model_fields} for i in items]
        return ledger_from_json(json.dumps(known))
    except (ValueError, AttributeError, TypeError, ValidationError) as error:
        raise UsageError(
            f"the ledger printed at {rev!r} is not a frontier list: {error}"
        ) from error


def pr_states(gh_files: Sequence[Path], git_repo: Path | None) -> dict[int, PrRecord]:
    """Read every source and combine them under the documented precedence."""
    try:
        gh = read_gh_pr_lists(gh_files)
        git = read_git_history(git_repo) if git_repo is not None else {}
    except PrSourceError as error:
        raise UsageError(str(error)) from error
    return combine_sources(gh, git)


def sufficient_verdicts(
    session: Session,
    ledger: Iterable[Frontier],
    base: Iterable[Frontier],
    rows: Sequence[FrontierRow],
) -> dict[str, bool]:
    """Run the sufficient-for claims whose verdict decides a row (open or landed ones)."""
    deciding = {r.frontier for r in rows if r.status in _DECIDED_BY_CLAIM}
    frontiers = {f.id: f for f in (*base, *ledger)}
    claim_ids = sorted(
        {
            claim_id
            for fid in deciding
            if (claim_id := frontiers[fid].sufficient_for_claim) is not None
        }
    )
    return {claim_id: claim_passes(session, claim_id) for claim_id in claim_ids}


_DECIDED_BY_CLAIM = (FrontierStatus.OPEN, FrontierStatus.LANDED)


def claim_passes(session: Session, claim_id: str) -> bool:
    """Run one claim by id through the session (setup first); unresolved counts as red."""
    witness_name, _, function = claim_id.partition(".")
    resolution = session.resolve(witness_name)
    if isinstance(resolution, Unresolved):
        return False
    claim = next((c for c in resolution.claims if c.name == function), None)
    if claim is None:
        raise UsageError(
            f"sufficient-for claim {claim_id!r} does not exist: witness {witness_name} has no "
            f"claim {function!r}; name an existing claim in the frontier's sufficient_for_claim"
        )
    if session.prepare(resolution) is not None:
        return False
    return session.run_claim(claim).passed


def render_rows(rows: Sequence[FrontierRow], prs: Mapping[int, PrRecord], fmt: str) -> str:
    """The rows as a tabulate table with a summary line, or as a JSON document."""
    failing = sum(row.fails for row in rows)
    if fmt == "json":
        document: dict[str, Any] = {
            "ok": failing == 0,
            "rows": [row.model_dump(mode="json") for row in rows],
            "prs": {str(n): prs[n].model_dump(mode="json") for n in _referenced(rows, prs)},
        }
        return json.dumps(document, indent=2, sort_keys=True)
    table = [
        [
            row.frontier,
            f"#{row.pr}",
            row.pr_state.value,
            row.status.value,
            "FAIL" if row.fails else "ok",
            row.message,
        ]
        for row in rows
    ]
    headers = ("frontier", "pr", "pr state", "status", "verdict", "message")
    body = fitted(table, headers, 5) if table else "no frontiers declared"
    return f"{body}\nfrontiers: {len(rows)} tracked, {failing} red"


def _referenced(rows: Sequence[FrontierRow], prs: Mapping[int, PrRecord]) -> list[int]:
    return sorted({row.pr for row in rows} & set(prs))


# ----------------------------------------------------------------------------- identity


def identity_command(args: argparse.Namespace, session: Session) -> int:
    """Compare W's artifacts at ``--base`` and the working tree; 0 identical, 1 differs."""
    session.check_known([args.witness])
    entry = session.registry.witness(args.witness)
    assert entry is not None  # check_known raised otherwise
    try:
        result = identity_at(args.repo, args.base, entry.module, TIMEOUT_SECONDS)
    except (RevisionError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"cannot render {args.witness} for comparison: {error}") from error
    for diff in result.diffs:
        sys.stdout.write(diff.diff)
    print(result.summary(args.witness))
    return Exit.OK if result.identical else Exit.FAILED
