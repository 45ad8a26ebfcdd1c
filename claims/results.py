"""What a run produced, as frozen values: per claim, per witness, per run."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from claims.exits import Exit
from claims.model import Kind, Outcome, Verdict


class ClaimResult(BaseModel):
    """One claim's verdict, with who it belongs to and how long it took."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    witness: str
    name: str
    kind: Kind
    verdict: Verdict
    duration_ms: float
    statement: str
    path: str | None = None
    """The witness source file, relative to the working directory when under it."""
    line: int | None = None
    """The line the claim's function starts on in ``path``."""

    @property
    def passed(self) -> bool:
        return self.verdict.passed

    @property
    def outcome(self) -> Outcome:
        return self.verdict.outcome

    @property
    def detail(self) -> str:
        """The evidence when the claim passed, else the reason it did not."""
        return self.verdict.evidence if self.passed else self.verdict.reason

    @property
    def headline(self) -> str:
        """The statement's first paragraph on one line, for bullets and titles."""
        first = self.statement.split("\n\n", 1)[0]
        return " ".join(first.split())


class WitnessReport(BaseModel):
    """A witness's results; ``unresolved`` says why it could not be set up, else None."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    results: tuple[ClaimResult, ...] = ()
    unresolved: str | None = None

    @property
    def passed_count(self) -> int:
        return sum(1 for r in self.results if r.passed)

    @property
    def ok(self) -> bool:
        return self.unresolved is None and self.passed_count == len(self.results)

    @property
    def summary_line(self) -> str:
        """``W: P/N PASS``, ``W: P/N FAIL`` or ``W: unresolved: <why>``."""
        if self.unresolved is not None:
            return f"{self.name}: unresolved: {self.unresolved}"
        word = "PASS" if self.ok else "FAIL"
        return f"{self.name}: {self.passed_count}/{len(self.results)} {word}"


class RunReport(BaseModel):
    """Every witness report of one run, in the order the witnesses were asked for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    witnesses: tuple[WitnessReport, ...] = ()

    @property
    def ok(self) -> bool:
        return all(w.ok for w in self.witnesses)

    @property
    def exit_code(self) -> int:
        """0 when every selected claim passed and nothing is unresolved, else 1."""
        return Exit.OK if self.ok else Exit.FAILED

    @property
    def results(self) -> tuple[ClaimResult, ...]:
        return tuple(r for w in self.witnesses for r in w.results)

    def summary_lines(self) -> tuple[str, ...]:
        return tuple(w.summary_line for w in self.witnesses)
