"""Showing the declared harness's findings: the kill matrix and one line per witness."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from claims.tables import fitted
from plugins.mutate.declared.harness import Findings, Judgement, RunKind

HEADERS = ("run", "claim", "expected", "actual", "verdict")


def _short(claim_id: str, witness: str) -> str:
    return claim_id.removeprefix(witness).removeprefix(".")


def _run_name(j: Judgement) -> str:
    e = j.expectation
    if e.kind is RunKind.SOLO:
        return e.mutants[0].name
    return f"[{e.kind.value}] {e.label.removeprefix(e.witness + '.')}"


def _verdict(j: Judgement, claim: str) -> str:
    declared, actual = claim in j.expectation.declared, claim in j.actual
    recorded = claim in j.expectation.recorded
    if declared and actual:
        return "red as declared"
    if declared:
        return "SURVIVED: declared red, stayed green"
    if recorded and actual:
        return "red as recorded"
    if recorded:
        return "LOCK STALE: recorded red, stayed green (re-record)"
    if actual and claim in j.positives:
        return "POSITIVE CONTROL RED"
    if actual:
        return "COLLATERAL: red, neither declared nor recorded"
    return "positive control green"


def _rows(j: Judgement, order: Sequence[str]) -> Iterator[list[str]]:
    name, witness = _run_name(j), j.expectation.witness
    if not j.result.ok:
        first = j.result.detail.splitlines()[0] if j.result.detail else ""
        yield [name, "—", "", j.result.status.value.upper(), first]
        return
    shown = j.expectation.expected | j.actual
    if j.expectation.kind in (RunKind.COMBINED, RunKind.CONTROL):
        shown |= j.positives
    for claim in (c for c in order if c in shown):
        expected = "red" if claim in j.expectation.expected else "green"
        actual = "red" if claim in j.actual else "green"
        yield [name, _short(claim, witness), expected, actual, _verdict(j, claim)]
        name = ""


def kill_matrix(findings: Findings, witness: str) -> str:
    """The mutant × claim table of one witness's runs (alone, combined, controls)."""
    order = [c.id for c in findings.book.claims.values()]
    rows = [
        row
        for j in findings.of_kind(RunKind.SOLO, RunKind.COMBINED, RunKind.CONTROL)
        if j.expectation.witness == witness
        for row in _rows(j, order)
    ]
    return fitted(rows, HEADERS, (0, 1, 4)) if rows else f"{witness}: no declared mutants"


def sanity_line(findings: Findings) -> str:
    """How many forced-fail runs reached every claim their target's mutants declare."""
    runs = findings.of_kind(RunKind.SANITY)
    reached = [j for j in runs if j.result.ok and not j.missing]
    line = f"forced-fail sanity: {len(reached)}/{len(runs)} targets reach their declared claims"
    problems = [_sanity_problem(j) for j in runs if j not in reached]
    return "\n".join([line, *problems])


def _sanity_problem(j: Judgement) -> str:
    target = j.expectation.request.patches[0].target
    if not j.result.ok:
        return f"  {target}: {j.result.status.value}: {j.result.detail}"
    names = ", ".join(sorted(j.missing))
    return (
        f"  {target}: replaced by a function that raises, yet {names} stayed green: the claims "
        "do not call this target (is it bound somewhere the patch cannot reach, e.g. a dict?)"
    )


def _names(judgements: Sequence[Judgement]) -> str:
    return ", ".join(_run_name(j) for j in judgements)


def _mutants_part(solo: Sequence[Judgement]) -> str:
    exact = [j for j in solo if j.exact]
    details = _problems(solo)
    return f"{len(exact)}/{len(solo)} mutants exact" + (f" ({details})" if details else "")


def _problems(runs: Sequence[Judgement]) -> str:
    """What went wrong in ``runs``, each run named with the claims concerned (the last line
    of a CI log is often all a reader has of the kill matrix above it)."""
    problems = (
        ("timeout/crash", _names([j for j in runs if not j.result.ok])),
        ("survived", ", ".join(_listed(j, j.missing, "green") for j in runs if j.missing)),
        ("collateral", ", ".join(_listed(j, j.collateral, "red") for j in runs if j.collateral)),
        ("lock stale", ", ".join(_listed(j, j.stale, "green") for j in runs if j.stale)),
    )
    return "; ".join(f"{label}: {found}" for label, found in problems if found)


def _listed(j: Judgement, claims: frozenset[str], colour: str) -> str:
    return f"{_run_name(j)} [{colour}: {', '.join(sorted(claims))}]"


def _combined_part(runs: Sequence[Judgement]) -> str:
    if not runs:
        return "no combined run"
    bad = [j for j in runs if not j.exact]
    return "combined exact" if not bad else f"combined NOT exact ({_problems(bad)})"


def _positives_part(runs: Sequence[Judgement]) -> str:
    red = sorted({c for j in runs for c in j.positive_red})
    return "positive controls green" if not red else f"positive controls RED ({', '.join(red)})"


def _witnessed_part(findings: Findings, witness: str) -> str:
    claims = [c.id for c in findings.book.of([witness])]
    witnessed = [c for c in claims if c in findings.witnessed]
    debt = [c for c in claims if c in findings.debt and c not in findings.witnessed]
    text = f"claims witnessed {len(witnessed)}/{len(claims)}"
    extra = [f"{len(debt)} in debt"] if debt else []
    missing = [_short(c, witness) for c in claims if c in findings.unwitnessed]
    extra += [f"unwitnessed: {', '.join(missing)}"] if missing else []
    stale = [_short(c, witness) for c in claims if c in findings.stale_debt]
    extra += [f"debt no longer owed: {', '.join(stale)}"] if stale else []
    return text + (f" ({'; '.join(extra)})" if extra else "")


def witness_line(findings: Findings, witness: str) -> str:
    """``W: K/M mutants exact, combined exact, positive controls green, claims witnessed C/N``."""
    mine = [j for j in findings.judgements if j.expectation.witness == witness]
    solo = [j for j in mine if j.expectation.kind is RunKind.SOLO]
    together = [j for j in mine if j.expectation.kind in (RunKind.COMBINED, RunKind.CONTROL)]
    parts = (
        _mutants_part(solo),
        _combined_part(together),
        _positives_part([*solo, *together]),
        _witnessed_part(findings, witness),
    )
    return f"{witness}: {', '.join(parts)}"


def baseline_lines(findings: Findings) -> list[str]:
    """The baseline's verdict; when it is not green, the claims that are not."""
    total = len(findings.scope_claims)
    red = sorted(findings.baseline_red)
    if not findings.baseline.ok:
        return [
            f"baseline: {findings.baseline.status.value}: {findings.baseline.detail}",
            "nothing else was run",
        ]
    if red:
        lost = findings.baseline.unresolved
        reasons = [f"  {w}: unresolved: {why}" for w, why in lost.items()]
        reasons += [
            f"  {c}: {findings.baseline.reasons[c]}" for c in red if c in findings.baseline.reasons
        ]
        return [
            f"baseline NOT green: {len(red)}/{total} claims red; nothing else was run",
            *reasons,
        ]
    return [
        f"baseline: {total}/{total} claims green in {findings.baseline.seconds:.1f} s; "
        f"timeout per run {findings.timeout:.0f} s"
    ]


def unknown_pair_lines(findings: Findings) -> list[str]:
    """Lock pairs of the scope that name a mutant or claim that does not exist."""
    if not findings.unknown_pairs:
        return []
    return [
        f"red sets: {len(findings.unknown_pairs)} recorded pair(s) name a mutant or claim "
        "that does not exist (re-record with claims mutate --all --record):",
        *(f"  {m} {c}" for m, c in sorted(findings.unknown_pairs)),
    ]


def render(findings: Findings) -> str:
    """The whole report: baseline, kill matrix per witness, sanity, one line per witness."""
    lines = baseline_lines(findings)
    if findings.baseline_red:
        return "\n".join(lines)
    for witness in findings.scope:
        lines += ["", kill_matrix(findings, witness)]
    lines += ["", sanity_line(findings), *unknown_pair_lines(findings), ""]
    lines += [witness_line(findings, w) for w in findings.scope]
    return "\n".join([*lines, *witnessing_advice(findings)])


def witnessing_advice(findings: Findings) -> list[str]:
    """What to do about exit 8: the claims, and the two ways out of it."""
    lines: list[str] = []
    missing = sorted(findings.unwitnessed)
    if missing:
        lines += [
            "",
            f"unwitnessed (exit 8): no mutant turns {len(missing)} claim(s) red: "
            f"{', '.join(missing)}",
            "  either declare a mutant that does (@mutant(replaces=..., turns_red={...}) in "
            "the witness's mutant module),",
            '  or owe one: `"<witness>.<claim>" = "why no mutant can yet"` under [debt] in '
            "the debt ledger (--debt FILE, or debt in [tool.claims])",
        ]
    stale = sorted(findings.stale_debt)
    if stale:
        lines += [
            "",
            f"debt no longer owed (exit 8): a mutant now turns {', '.join(stale)} red; "
            "remove their entries from the debt ledger",
        ]
    return lines
