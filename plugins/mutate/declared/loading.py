"""Loading the declared mutants of some witnesses, and the floor every declaration keeps.

Rules (the ``rule`` of each :class:`claims.Violation`), all collected before anything runs:

- ``import``: a registered mutant module cannot be imported.
- ``no-statement``: a mutant has no docstring stating its defect.
- ``target``: ``replaces`` names no function, method or property, or not where it is defined.
- ``signature``: the replacement's parameters differ from the target's.
- ``empty-kill-set``: a mutant declares no claim (it could never be exact about anything).
- ``claim-id``: a declared id is not ``<witness>.<claim>`` of a registered witness's claim.
- ``foreign-claim``: a declared id names a claim of another witness; what a mutant does to
  other witnesses' claims is recorded (:mod:`.red_sets`), never typed by hand.
- ``positive-control-combined``: an independent mutant declares a positive control red; the
  combined run's positive controls must stay green, so such a mutant cannot be combined.
- ``duplicate-mutant``: one witness declares a mutant name twice.
- ``control``: a named control lists something that is not an independent mutant of its
  module, or two members share a target.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from claims import ClaimKind, FloorViolation, Session, Unresolved, UsageError, Violation
from claims.errors import describe
from claims.model import CustomKind
from claims.witness import Claim, witness_of
from plugins.mutate.declared.model import Mutant, MutantModule, discover
from plugins.mutate.patching import TargetError, resolve, signature_mismatch


class MutantFloorViolation(FloorViolation):
    """Declared mutants that break the floor; every violation is listed, nothing runs."""


@dataclass(frozen=True)
class ClaimBook:
    """The claims the harness can name: every resolvable registered witness's claims."""

    registered: frozenset[str]
    claims: Mapping[str, Claim]

    def kind(self, claim_id: str) -> ClaimKind | CustomKind | None:
        found = self.claims.get(claim_id)
        return found.kind if found else None

    def of(self, witnesses: Sequence[str]) -> tuple[Claim, ...]:
        """The claims of ``witnesses``, in witness then source order."""
        return tuple(c for c in self.claims.values() if c.witness in witnesses)

    def knows_witness(self, witness: str) -> bool:
        return any(c.witness == witness for c in self.claims.values())


@dataclass(frozen=True)
class Declared:
    """What the scope's mutant modules declare, validated."""

    modules: tuple[MutantModule, ...]

    @property
    def mutants(self) -> tuple[Mutant, ...]:
        return tuple(m for module in self.modules for m in module.mutants)

    def of_witness(self, witness: str) -> tuple[Mutant, ...]:
        return tuple(m for m in self.mutants if m.witness == witness)

    def combinable(self, witness: str) -> tuple[Mutant, ...]:
        """The mutants of ``witness`` its combined run applies together: the independent
        ones, but of several that replace one target only the first (in source order), since
        one target holds one replacement at a time; the others are checked alone."""
        seen: set[str] = set()
        found: list[Mutant] = []
        for mutant in self.of_witness(witness):
            if mutant.independent and mutant.replaces not in seen:
                seen.add(mutant.replaces)
                found.append(mutant)
        return tuple(found)


def claim_book(session: Session, scope: Sequence[str]) -> ClaimBook:
    """Resolve the scope (a floor breach there stops everything) and, quietly, the rest."""
    claims: dict[str, Claim] = {}
    for resolution in session.resolve_all(scope):
        if not isinstance(resolution, Unresolved):
            claims.update((c.id, c) for c in resolution.claims)
    for name in session.witness_names:
        if name not in scope:
            claims.update((c.id, c) for c in _quietly(session, name))
    return ClaimBook(registered=frozenset(session.witness_names), claims=claims)


def _quietly(session: Session, name: str) -> tuple[Claim, ...]:
    try:
        resolution = session.resolve(name)
    except (FloorViolation, UsageError):
        return ()
    return () if isinstance(resolution, Unresolved) else resolution.claims


def load(session: Session, scope: Sequence[str], book: ClaimBook) -> Declared:
    """Discover every mutant module registered for ``scope`` and check the floor."""
    modules: list[MutantModule] = []
    violations: list[Violation] = []
    for witness in scope:
        for module in session.mutants.get(witness, ()):
            try:
                modules.append(discover(witness, module))
            except Exception as error:
                violations.append(
                    _violation(
                        f"{witness} ({module})",
                        "import",
                        f"cannot import the mutant module: {describe(error)}",
                    )
                )
    declared = Declared(tuple(modules))
    violations += check(declared, book)
    if violations:
        raise MutantFloorViolation(violations)
    return declared


def check(declared: Declared, book: ClaimBook) -> list[Violation]:
    """Every floor violation of ``declared``, in declaration order."""
    found: list[Violation] = []
    for mutant in declared.mutants:
        found += _mutant_violations(mutant, book)
    for module in declared.modules:
        found += _control_violations(module)
    found += _duplicates(declared)
    return found


def _violation(subject: str, rule: str, message: str) -> Violation:
    return Violation(subject=subject, rule=rule, message=message)


def _mutant_violations(mutant: Mutant, book: ClaimBook) -> Iterator[Violation]:
    if not mutant.statement.strip():
        yield _violation(
            mutant.id,
            "no-statement",
            "the mutant has no docstring; state its defect in one sentence",
        )
    yield from _target_violations(mutant)
    if not mutant.turns_red:
        yield _violation(
            mutant.id,
            "empty-kill-set",
            "turns_red is empty; declare the exact claims the defect turns red",
        )
    yield from _claim_id_violations(mutant, book)
    positives = sorted(c for c in mutant.turns_red if book.kind(c) is ClaimKind.POSITIVE_CONTROL)
    if mutant.independent and positives:
        yield _violation(
            mutant.id,
            "positive-control-combined",
            f"it declares positive control(s) {', '.join(positives)} red, so it "
            "cannot be combined (the combined run keeps positive controls green); "
            "declare it independent=False",
        )


def _target_violations(mutant: Mutant) -> Iterator[Violation]:
    try:
        target = resolve(mutant.replaces)
    except (TargetError, ImportError) as error:
        yield _violation(mutant.id, "target", f"replaces={mutant.replaces!r}: {error}")
        return
    defined_in = getattr(target.callable(), "__module__", None)
    if not target.on_class and defined_in != target.owner.__name__:
        yield _violation(
            mutant.id,
            "target",
            f"{mutant.replaces} is defined in {defined_in}; name it where it is "
            "defined (every module that imported it is patched too)",
        )
    why = signature_mismatch(target, mutant.function)
    if why is not None:
        yield _violation(mutant.id, "signature", f"the replacement {why}")


def _claim_id_violations(mutant: Mutant, book: ClaimBook) -> Iterator[Violation]:
    for claim_id in sorted(mutant.turns_red):
        witness, (_, dot, name) = witness_of(claim_id), claim_id.partition(".")
        if not dot or not name or not witness:
            yield _violation(mutant.id, "claim-id", f"{claim_id!r} is not <witness>.<claim>")
        elif witness != mutant.witness:
            yield _violation(
                mutant.id,
                "foreign-claim",
                f"{claim_id!r} is a claim of witness {witness}, not {mutant.witness}: declare "
                "only this witness's claims; `claims mutate --all --record` records the rest",
            )
        elif witness not in book.registered:
            yield _violation(
                mutant.id, "claim-id", f"{claim_id!r}: no witness {witness!r} is registered"
            )
        elif book.knows_witness(witness) and claim_id not in book.claims:
            yield _violation(
                mutant.id, "claim-id", f"{claim_id!r}: witness {witness} has no such claim"
            )


def _control_violations(module: MutantModule) -> Iterator[Violation]:
    by_name = {m.name: m for m in module.mutants if m.independent}
    for control in module.controls:
        members = [by_name.get(name) for name in control.members]
        strangers = [n for n, m in zip(control.members, members, strict=True) if m is None]
        if strangers:
            yield _violation(
                control.id,
                "control",
                f"{', '.join(strangers)} is not an independent mutant of {module.module}",
            )
        targets = [m.replaces for m in members if m is not None]
        if len(set(targets)) != len(targets):
            yield _violation(control.id, "control", "two members replace the same target")


def _duplicates(declared: Declared) -> Iterator[Violation]:
    for mutant_id, count in Counter(m.id for m in declared.mutants).items():
        if count > 1:
            yield _violation(
                mutant_id, "duplicate-mutant", "declared twice for one witness; rename one"
            )
