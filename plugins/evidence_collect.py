"""What ``claims evidence`` collects and prints; the command and what each part means are in
:mod:`plugins.evidence`, which imports this only when the command runs."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from claims import Session, UsageError
from claims.exits import Exit
from claims.files import signals_unwind
from claims.results import RunReport
from plugins.reporters import code_span, markdown_text

IDENTITY_TIMEOUT_SECONDS = 600
MUTATE_TIMEOUT_SECONDS = 3600


class MutantLine(BaseModel):
    """One declared mutant the control ran: what it broke and which claims went red."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    description: str
    status: str
    red: tuple[str, ...]
    declared: tuple[str, ...]


class Evidence(BaseModel):
    """Everything the evidence block says, as data (``--format json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: str
    base_commit: str
    changed: tuple[str, ...]
    witnesses: tuple[str, ...]
    counts: dict[str, tuple[int, int]]
    touched: tuple[str, ...]
    identity: tuple[tuple[str, bool, str], ...]
    mutation_ran: bool
    mutation_exit: int | None
    mutation_lines: tuple[str, ...]
    mutants: tuple[MutantLine, ...]
    labels: tuple[tuple[str, str], ...]
    ok: bool
    failed: tuple[str, ...] = ()
    """Which parts do not hold, each with what to look at (empty when ``ok``)."""


def evidence_command(args: argparse.Namespace, session: Session) -> int:
    """Collect the evidence, print it in ``--format``; exit 0 only when it all holds."""
    evidence = collect(session, args.repo, args.base, not args.no_mutation, args.plugins)
    if args.evidence_format == "json":
        print(evidence.model_dump_json(indent=2))
    else:
        sys.stdout.write(render_markdown(evidence))
    return Exit.OK if evidence.ok else Exit.FAILED


def collect(
    session: Session, repo: Path, base: str, mutation: bool, plugins: Sequence[str]
) -> Evidence:
    # the revision controls load here, not with the plugin: `claims run` never needs them
    from claims.baseline import baseline_outcomes, label_failures, witnesses_reaching
    from claims.revisions import RevisionError, changed_files, commit_of

    try:
        commit = commit_of(repo, base)
        changed = changed_files(repo, base)
    except RevisionError as error:
        raise UsageError(f"--base {base}: {error}") from error
    names = session.witness_names
    if not names:
        raise UsageError("no witness is registered: there is no evidence to collect")
    reached = witnesses_reaching(session, names, repo)
    touched = _touched(reached, set(changed), repo, names)
    report = session.run(names)
    identity = tuple(_identities(session, repo, base, touched))
    exit_code, lines, mutants = (
        _mutation(session, repo, touched, plugins) if mutation and touched else (None, (), ())
    )
    failing = [w.name for w in report.witnesses if not w.ok]
    labels = (
        tuple(
            label_failures(
                report, baseline_outcomes(repo, base, failing, session.plugin_arguments(plugins))
            )
        )
        if failing
        else ()
    )
    new = [claim for claim, label in labels if label != "pre-existing"]
    unresolved = [w.name for w in report.witnesses if w.unresolved is not None]
    differing = [name for name, same, _ in identity if not same]
    failed = (
        *([f"failing claims new since the base: {', '.join(new)}"] if new else []),
        *([f"unresolved witnesses: {', '.join(unresolved)}"] if unresolved else []),
        *([f"byte identity differs: {', '.join(differing)}"] if differing else []),
        *(
            [f"mutation control: claims mutate exited {exit_code} (its lines above say why)"]
            if exit_code not in (None, 0)
            else []
        ),
    )
    ok = not failed
    return Evidence(
        base=base,
        base_commit=commit,
        changed=tuple(changed),
        witnesses=report.summary_lines(),
        counts=_counts(report),
        touched=tuple(touched),
        identity=identity,
        mutation_ran=exit_code is not None,
        mutation_exit=exit_code,
        mutation_lines=tuple(lines),
        mutants=tuple(mutants),
        labels=labels,
        ok=ok,
        failed=failed,
    )


def _touched(
    reached: dict[str, set[str]], changed: set[str], repo: Path, names: Sequence[str]
) -> list[str]:
    """The witnesses whose claims reach a changed file; a changed Python module no claim
    executes (constants, tables) might reach any of them, so it selects every one."""
    anywhere = set().union(*reached.values()) if reached else set()
    untraced = [
        f for f in changed if f.endswith(".py") and f not in anywhere and _module_loaded(repo / f)
    ]
    if untraced:
        return list(names)
    return [name for name in names if reached[name] & changed]


def _module_loaded(path: Path) -> bool:
    resolved = str(path.resolve())
    return any(getattr(m, "__file__", None) == resolved for m in list(sys.modules.values()))


def _counts(report: RunReport) -> dict[str, tuple[int, int]]:
    return {w.name: (w.passed_count, len(w.results)) for w in report.witnesses}


def _identities(
    session: Session, repo: Path, base: str, touched: Sequence[str]
) -> Iterator[tuple[str, bool, str]]:
    from claims.revisions import RevisionError, identity_at

    for name in touched:
        entry = session.registry.witness(name)
        module = sys.modules.get(entry.module) if entry is not None else None
        if entry is None or not callable(getattr(module, "artifacts", None)):
            continue
        try:
            result = identity_at(repo, base, entry.module, IDENTITY_TIMEOUT_SECONDS)
        except (RevisionError, subprocess.TimeoutExpired) as error:
            yield name, False, f"{name}: could not render both revisions: {error}"
            continue
        yield name, result.identical, result.summary(name)


def _mutation(
    session: Session, repo: Path, touched: Sequence[str], plugins: Sequence[str]
) -> tuple[int, list[str], list[MutantLine]]:
    """``claims mutate`` over the touched witnesses that have declared mutants."""
    scope = [w for w in touched if w in session.mutants]
    if not scope:
        return 0, ["no touched witness declares mutants"], []
    loads = [arg for plugin in plugins for arg in ("-p", plugin)]
    # signals_unwind outside: on SIGTERM or SIGHUP the directory is removed, then the signal
    # ends the process.
    with signals_unwind(), tempfile.TemporaryDirectory(prefix="claims-evidence-") as holder:
        report = Path(holder) / "declared.json"
        argv = [sys.executable, "-m", "claims.cli", *loads, "mutate", *scope]
        done = subprocess.run(
            [*argv, "--report", str(report)],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=MUTATE_TIMEOUT_SECONDS,
            check=False,
        )
        lines = [ln for ln in done.stdout.splitlines() if " mutants exact" in ln or ": " in ln]
        verdicts = [ln for ln in lines if any(ln.startswith(f"{w}: ") for w in scope)]
        if not verdicts:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            verdicts = [f"claims mutate exited {done.returncode}: " + " | ".join(tail)]
        mutants = _mutant_lines(report) if report.exists() else []
    return done.returncode, verdicts, mutants


def _mutant_lines(report: Path) -> list[MutantLine]:
    doc: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return [
        MutantLine(
            id=str(m["id"]),
            description=str(m.get("description", "")),
            status=str(m["status"]),
            red=tuple(m.get("killedBy", ())),
            declared=tuple(m.get("expectedKilledBy", ())),
        )
        for entry in doc.get("files", {}).values()
        for m in entry.get("mutants", ())
    ]


# --- markdown -------------------------------------------------------------------------------


def render_markdown(evidence: Evidence) -> str:
    """The evidence section, in the order a reviewer reads it."""
    lines = [
        f"### Evidence (against {code_span(evidence.base)}, {evidence.base_commit[:12]})",
        "",
        "**Witnesses** (every registered witness, run on this tree):",
        "",
        *(f"- {code_span(line)}" for line in evidence.witnesses),
        "",
    ]
    lines += _identity_section(evidence)
    lines += _mutation_section(evidence)
    lines += _touched_section(evidence)
    lines += _labels_section(evidence)
    if evidence.ok:
        lines += ["**Verdict:** the evidence holds.", ""]
    else:
        lines += ["**Verdict:** the evidence does NOT hold:", ""]
        lines += [*(f"- {markdown_text(part)}" for part in evidence.failed), ""]
    return "\n".join(lines)


def _identity_section(evidence: Evidence) -> list[str]:
    lines = [
        "**Byte identity** (witnesses that reach the change, rendered at the base and now):",
        "",
    ]
    if not evidence.identity:
        lines.append("- no touched witness renders artifacts (`artifacts()`)")
    lines += [f"- {code_span(summary)}" for _, _, summary in evidence.identity]
    return [*lines, ""]


def _mutation_section(evidence: Evidence) -> list[str]:
    lines = ["**Mutation control** (`claims mutate` over the touched witnesses):", ""]
    if not evidence.mutation_ran:
        why = "nothing touched" if not evidence.touched else "left out (--no-mutation)"
        return [*lines, f"- not run: {why}", ""]
    lines += [f"- {code_span(line)}" for line in evidence.mutation_lines]
    if evidence.mutants:
        lines += [
            "",
            f"<details><summary>{len(evidence.mutants)} mutants and the claims each "
            "turned red</summary>",
            "",
        ]
        for m in evidence.mutants:
            red = ", ".join(m.red) or "none"
            exact = (
                "exact" if set(m.red) == set(m.declared) else f"declared {', '.join(m.declared)}"
            )
            lines.append(
                f"- {code_span(m.id)} ({m.status}, {exact}): {markdown_text(m.description)} "
                f"→ red: {red}"
            )
        lines += ["", "</details>"]
    return [*lines, ""]


def _touched_section(evidence: Evidence) -> list[str]:
    if not evidence.changed:
        return [f"**Touched modules:** nothing changed since {code_span(evidence.base)}.", ""]
    files = ", ".join(code_span(f) for f in evidence.changed[:20])
    more = f" and {len(evidence.changed) - 20} more" if len(evidence.changed) > 20 else ""
    lines = [f"**Existing witnesses over the touched modules** ({files}{more}):", ""]
    if not evidence.touched:
        lines.append("- no claim reaches a changed file")
    total = 0
    for name in evidence.touched:
        passed, selected = evidence.counts.get(name, (0, 0))
        total += selected
        word = "PASS" if passed == selected else "FAIL"
        lines.append(f"- {code_span(name)}: {passed}/{selected} {word}")
    if evidence.touched:
        lines.append(f"- {len(evidence.touched)} witnesses, {total} claims together")
    return [*lines, ""]


def _labels_section(evidence: Evidence) -> list[str]:
    if not evidence.labels:
        return ["**Failing claims:** none.", ""]
    lines = [f"**Failing claims**, against {code_span(evidence.base)}:", ""]
    for claim_id, label in evidence.labels:
        why = (
            "fails identically at the base"
            if label == "pre-existing"
            else ("passes at the base, or is absent there")
        )
        lines.append(f"- {code_span(claim_id)}: **{label}** ({why})")
    return [*lines, ""]
