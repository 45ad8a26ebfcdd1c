"""The declared-mutant harness: baseline, forced-fail sanity, each mutant alone, combined.

Every run is a child forked from this process (:mod:`.runs`), so a patch never
outlives its run and the source tree is never touched; a run executes only the claims that
call one of its patched targets (the baseline records who calls what). The *scope* is the
witnesses asked for: each run observes the claims of the scope; a mutant's recorded pairs are
checked when both witnesses are in scope (all of them with ``--all``).

1. Baseline: every claim of the scope green, or nothing else runs. Its wall time sets the
   timeout of every other run: ``max(10 s, 5 × baseline)`` unless given.
2. Forced-fail sanity, per target: the target replaced by a function that raises; every
   claim a mutant of that target declares must go red. Otherwise the claims do not call the
   code the patch replaces, and a "kill" would mean nothing.
3. Each mutant alone: its red set must equal its declared set (its own witness's claims) and
   its recorded set (the lock's pairs for it, other witnesses' claims: :mod:`.red_sets`); an
   undeclared positive control turning red is reported as such.
4. Per witness, the independent mutants together, and each named control: red set equals the
   union of the members' declared and recorded sets, positive controls green.

A claim no mutant turns red (as declared) is *unwitnessed* unless the debt list names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from claims import ClaimKind
from claims.exits import Exit
from claims.memo import private_tmpdir, shared_memo
from plugins.mutate.declared.loading import ClaimBook, Declared
from plugins.mutate.declared.model import Mutant
from plugins.mutate.declared.red_sets import RedSets
from plugins.mutate.declared.runs import PatchSpec, Progress, Runner, RunRequest, RunResult
from plugins.mutate.profile import verdict_profile

TIMEOUT_FLOOR_SECONDS = 10.0
TIMEOUT_BASELINE_FACTOR = 5.0
BASELINE_TIMEOUT_SECONDS = 600.0


EXIT_PRECEDENCE = (
    Exit.BASELINE,
    Exit.TIMEOUT,
    Exit.UNREACHED,
    Exit.COLLATERAL,
    Exit.SURVIVOR,
    Exit.UNWITNESSED,
)
"""When several exit codes apply to one run, the first of these wins."""


class RunKind(StrEnum):
    BASELINE = "baseline"
    SANITY = "forced-fail"
    SOLO = "alone"
    COMBINED = "combined"
    CONTROL = "control"


@dataclass(frozen=True)
class Expectation:
    """One planned run and what it must show: ``declared`` red (the members' own witness's
    claims, typed by hand) and ``recorded`` red (other witnesses' claims, from the lock)."""

    kind: RunKind
    label: str
    witness: str
    declared: frozenset[str]
    mutants: tuple[Mutant, ...]
    request: RunRequest
    recorded: frozenset[str] = frozenset()

    @property
    def expected(self) -> frozenset[str]:
        return self.declared | self.recorded


@dataclass(frozen=True)
class Judgement:
    """A run measured against its expectation."""

    expectation: Expectation
    result: RunResult
    actual: frozenset[str]
    positives: frozenset[str]

    @property
    def missing(self) -> frozenset[str]:
        """Declared red but green: the mutant survived those claims."""
        return self.expectation.declared - self.actual if self.result.ok else frozenset()

    @property
    def stale(self) -> frozenset[str]:
        """Recorded red but green: the lock no longer says what the mutant does."""
        if not self.result.ok:
            return frozenset()
        return self.expectation.recorded - self.expectation.declared - self.actual

    @property
    def collateral(self) -> frozenset[str]:
        """Red but not declared (a sanity run may turn anything red)."""
        if not self.result.ok or self.expectation.kind is RunKind.SANITY:
            return frozenset()
        return self.actual - self.expectation.expected

    @property
    def positive_red(self) -> frozenset[str]:
        return self.collateral & self.positives

    @property
    def exact(self) -> bool:
        return self.result.ok and not self.missing and not self.stale and not self.collateral


@dataclass(frozen=True)
class Findings:
    """Everything one harness invocation found."""

    scope: tuple[str, ...]
    book: ClaimBook
    declared: Declared
    baseline: RunResult
    timeout: float
    judgements: tuple[Judgement, ...] = ()
    debt: Mapping[str, str] = field(default_factory=dict)
    unknown_pairs: frozenset[tuple[str, str]] = frozenset()
    """Lock pairs of this scope naming a mutant or a claim that does not exist."""

    @property
    def scope_claims(self) -> frozenset[str]:
        return frozenset(c.id for c in self.book.of(self.scope))

    @property
    def baseline_red(self) -> frozenset[str]:
        if not self.baseline.ok:
            return self.scope_claims
        return (self.scope_claims - frozenset(self.baseline.outcomes)) | self.baseline.red

    def of_kind(self, *kinds: RunKind) -> tuple[Judgement, ...]:
        return tuple(j for j in self.judgements if j.expectation.kind in kinds)

    @property
    def witnessed(self) -> frozenset[str]:
        """Claims some mutant declares and turned red, alone."""
        return frozenset(
            claim for j in self.of_kind(RunKind.SOLO) for claim in j.expectation.declared & j.actual
        )

    @property
    def unwitnessed(self) -> frozenset[str]:
        return self.scope_claims - self.witnessed - frozenset(self.debt)

    @property
    def stale_debt(self) -> frozenset[str]:
        """Debt entries for claims that are witnessed after all (remove them)."""
        return frozenset(self.debt) & self.witnessed

    def exit_code(self) -> Exit:
        failed = self._failures()
        return next((code for code in EXIT_PRECEDENCE if code in failed), Exit.EXACT)

    def _failures(self) -> set[Exit]:
        if self.baseline_red:
            return {Exit.BASELINE}
        found: set[Exit] = set()
        for j in self.judgements:
            if not j.result.ok:
                found.add(Exit.TIMEOUT)
            elif j.expectation.kind is RunKind.SANITY and j.missing:
                found.add(Exit.UNREACHED)
            elif j.collateral or j.stale:
                found.add(Exit.COLLATERAL)
            elif j.missing:
                found.add(Exit.SURVIVOR)
        if self.unwitnessed or self.stale_debt:
            found.add(Exit.UNWITNESSED)
        if self.unknown_pairs:
            found.add(Exit.COLLATERAL)
        return found

    def observed(self) -> dict[str, frozenset[str]]:
        """Each mutant's red set alone (runs that ended with a result only)."""
        return {
            j.expectation.mutants[0].id: j.actual for j in self.of_kind(RunKind.SOLO) if j.result.ok
        }


def timeout_for(baseline_seconds: float) -> float:
    """The timeout of every run after the baseline."""
    return max(TIMEOUT_FLOOR_SECONDS, TIMEOUT_BASELINE_FACTOR * baseline_seconds)


@dataclass(frozen=True)
class Planner:
    """Turns the declared mutants of a scope into requests and expectations."""

    scope: tuple[str, ...]
    book: ClaimBook
    declared: Declared
    plugins: tuple[str, ...]
    red_sets: RedSets = field(default_factory=RedSets)

    @property
    def scope_claims(self) -> frozenset[str]:
        return frozenset(c.id for c in self.book.of(self.scope))

    @property
    def held_pairs(self) -> frozenset[tuple[str, str]]:
        """The lock's pairs this scope checks."""
        return self.red_sets.held(self.scope)

    @property
    def unknown_pairs(self) -> frozenset[tuple[str, str]]:
        """Held pairs whose mutant is not declared or whose claim does not exist."""
        mutants = frozenset(m.id for m in self.declared.mutants)
        return frozenset(
            (m, c) for m, c in self.held_pairs if m not in mutants or c not in self.scope_claims
        )

    def baseline(self) -> RunRequest:
        return RunRequest(label="baseline", witnesses=self.scope, plugins=self.plugins)

    def expected(self, mutants: Iterable[Mutant]) -> frozenset[str]:
        """The union of the mutants' declared sets, on the scope's claims."""
        return frozenset(c for m in mutants for c in m.turns_red) & self.scope_claims

    def recorded(self, mutants: Iterable[Mutant]) -> frozenset[str]:
        """The union of the mutants' recorded sets held by this scope."""
        ids = frozenset(m.id for m in mutants)
        return frozenset(c for m, c in self.held_pairs if m in ids) & self.scope_claims

    def with_red_sets(self, red_sets: RedSets) -> Planner:
        return replace(self, red_sets=red_sets)

    def _request(
        self, label: str, mutants: Sequence[Mutant], claims: Iterable[str] | None = None
    ) -> RunRequest:
        return RunRequest(
            label=label,
            witnesses=self.scope,
            claims=tuple(sorted(claims)) if claims is not None else None,
            patches=tuple(PatchSpec(target=m.replaces, mutant=m.reference) for m in mutants),
            plugins=self.plugins,
        )

    def sanity(self) -> list[Expectation]:
        by_target: dict[str, list[Mutant]] = {}
        for mutant in self.declared.mutants:
            by_target.setdefault(mutant.replaces, []).append(mutant)
        found = []
        for target, mutants in by_target.items():
            expected = self.expected(mutants)
            if not expected:
                continue
            request = RunRequest(
                label=f"forced-fail {target}",
                witnesses=self.scope,
                claims=tuple(sorted(expected)),
                patches=(PatchSpec(target=target),),
                plugins=self.plugins,
            )
            found.append(
                Expectation(
                    RunKind.SANITY,
                    request.label,
                    mutants[0].witness,
                    expected,
                    tuple(mutants),
                    request,
                )
            )
        return found

    def solo(self) -> list[Expectation]:
        return [
            Expectation(
                RunKind.SOLO,
                m.id,
                m.witness,
                self.expected([m]),
                (m,),
                self._request(m.id, [m]),
                self.recorded([m]),
            )
            for m in self.declared.mutants
        ]

    def combined(self) -> list[Expectation]:
        found = []
        for witness in self.scope:
            members = list(self.declared.combinable(witness))
            if len(members) < 2:
                continue
            label = f"{witness}: {len(members)} independent mutants together"
            found.append(
                Expectation(
                    RunKind.COMBINED,
                    label,
                    witness,
                    self.expected(members),
                    tuple(members),
                    self._request(label, members),
                    self.recorded(members),
                )
            )
        return found

    def controls(self) -> list[Expectation]:
        found = []
        for module in self.declared.modules:
            by_name = {m.name: m for m in module.mutants}
            for control in module.controls:
                members = [by_name[n] for n in control.members]
                found.append(
                    Expectation(
                        RunKind.CONTROL,
                        control.id,
                        module.witness,
                        self.expected(members),
                        tuple(members),
                        self._request(control.id, members),
                        self.recorded(members),
                    )
                )
        return found

    def plan(self) -> list[Expectation]:
        return [*self.sanity(), *self.solo(), *self.combined(), *self.controls()]


def judge(expectation: Expectation, result: RunResult, book: ClaimBook) -> Judgement:
    """Measure a run against its expectation; an unresolved witness counts all red."""
    asked = (
        frozenset(expectation.request.claims)
        if expectation.request.claims is not None
        else frozenset(c.id for c in book.of(expectation.request.witnesses))
    )
    lost = frozenset(c.id for c in book.of(tuple(result.unresolved))) & asked
    positives = frozenset(
        c.id for c in book.of(expectation.request.witnesses) if c.kind is ClaimKind.POSITIVE_CONTROL
    )
    return Judgement(expectation, result, result.red | lost, positives)


def run_harness(
    planner: Planner,
    debt: Mapping[str, str],
    jobs: int,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> Findings:
    """Run the baseline, then (if it is green) every planned run; judge them all.

    The runs share one memo directory (:mod:`claims.memo`), so a costly claim result keyed by
    the bytes it depends on is computed once per distinct input, not once per child; and one
    private ``TMPDIR`` (:func:`claims.memo.private_tmpdir`), so what a mutant's broken cleanup
    leaves goes when the run ends.
    """
    with shared_memo(), private_tmpdir():
        return _run_harness(planner, debt, jobs, timeout, progress)


def _run_harness(
    planner: Planner,
    debt: Mapping[str, str],
    jobs: int,
    timeout: float | None,
    progress: Progress | None,
) -> Findings:
    plan = planner.plan()
    with verdict_profile():
        return _run_plan(planner, plan, debt, jobs, timeout, progress)


def _run_plan(
    planner: Planner,
    plan: Sequence[Expectation],
    debt: Mapping[str, str],
    jobs: int,
    timeout: float | None,
    progress: Progress | None,
) -> Findings:
    runner = Runner(planner.plugins, planner.scope)
    targets = [p.target for e in plan for p in e.request.patches]
    base_timeout = timeout if timeout is not None else BASELINE_TIMEOUT_SECONDS
    baseline = runner.baseline(planner.baseline(), targets, base_timeout)
    if progress is not None:
        progress(baseline, 1, 1)
    limit = timeout if timeout is not None else timeout_for(baseline.seconds)
    outcome = Findings(planner.scope, planner.book, planner.declared, baseline, limit, debt=debt)
    if outcome.baseline_red:
        return outcome
    results = runner.run_all([e.request for e in plan], limit, jobs, progress)
    return rejudge(outcome, planner, results)


def rejudge(outcome: Findings, planner: Planner, results: Sequence[RunResult]) -> Findings:
    """The same runs judged against ``planner``'s expectations (its red sets may have been
    re-recorded from these very runs: the requests do not depend on them)."""
    plan = planner.plan()
    judgements = tuple(judge(e, r, planner.book) for e, r in zip(plan, results, strict=True))
    return replace(outcome, judgements=judgements, unknown_pairs=planner.unknown_pairs)


def results_of(findings: Findings) -> tuple[RunResult, ...]:
    return tuple(j.result for j in findings.judgements)
