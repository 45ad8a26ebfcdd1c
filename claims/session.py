"""The session: loaded plugins, what they registered, and running claims through the hooks.

It is the object every CLI handler receives as ``session``: the mutation harness and the
frontier tracker reach witnesses, mutants and frontiers through it.
"""

from __future__ import annotations

import fnmatch
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TextIO

from claims.config import NO_CONFIG, ProjectConfig, find_config
from claims.errors import ClaimsError, FloorViolation, UsageError, Violation, describe
from claims.loader import PLUGIN_FAILURES, ClaimsPluginManager, load_plugins
from claims.model import ClaimKind, CustomKind, Outcome, Verdict, known_kinds
from claims.registry import (
    Registry,
    collect_formats,
    collect_frontiers,
    collect_kinds,
    collect_registry,
)
from claims.results import ClaimResult, RunReport, WitnessReport
from claims.runner import run_setup
from claims.witness import Claim, Resolution, Unresolved, Witness, resolve_witness

_GLOB = frozenset("*?[")


@dataclass(frozen=True)
class Selection:
    """Which claims to run: ``pattern`` (substring, or fnmatch when it has ``*?[``), ``kind``."""

    pattern: str | None = None
    kind: ClaimKind | CustomKind | None = None

    @property
    def active(self) -> bool:
        return self.pattern is not None or self.kind is not None

    def matches(self, claim: Claim) -> bool:
        if self.kind is not None and claim.kind != self.kind:
            return False
        if self.pattern is None:
            return True
        if _GLOB & set(self.pattern):
            return fnmatch.fnmatchcase(claim.id, self.pattern)
        return self.pattern in claim.id

    def describe(self) -> str:
        parts = [f"-k {self.pattern!r}"] if self.pattern is not None else []
        parts += [f"--kind {self.kind.value}"] if self.kind is not None else []
        return " ".join(parts) or "no filter"


def source_path(module: str) -> str | None:
    """The file of an imported ``module``, relative to the working directory when under it
    (the form CI annotations and JUnit readers resolve against the checkout)."""
    found = getattr(sys.modules.get(module), "__file__", None)
    if found is None:
        return None
    path = Path(found).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


class Session:
    """Plugins, registrations and resolved witnesses of one ``claims`` invocation."""

    def __init__(self, pm: ClaimsPluginManager, config: ProjectConfig | None = None) -> None:
        self.pm = pm
        self.config = config if config is not None else NO_CONFIG
        """The ``[tool.claims]`` configuration the plugins were loaded with."""
        self._resolved: dict[str, Resolution] = {}
        self._set_up: dict[str, str | None] = {}

    @classmethod
    def start(
        cls,
        extra_plugins: Iterable[str] = (),
        *,
        autoload: bool | None = None,
        config: ProjectConfig | None = None,
    ) -> Session:
        """Load built-ins, entry points (unless disabled), the project's plugins (``config``;
        default: the one :func:`claims.config.find_config` finds from the working directory)
        and ``extra_plugins``, in order."""
        found = find_config() if config is None else config
        pm = load_plugins(extra_plugins, autoload=autoload, config=found)
        collect_kinds(pm)  # before any witness module is imported: @claim reads them
        return cls(pm, found)

    def plugin_arguments(self, extra: Iterable[str] = ()) -> tuple[str, ...]:
        """``-p`` arguments that load in a process of its own (a survey worker, started with
        no configuration) what this session loaded from its configuration, then ``extra``."""
        return (
            *self.pm.configured,
            *(f"no:{name}" for name in self.config.disable),
            *extra,
        )

    @cached_property
    def registry(self) -> Registry:
        """What the plugins registered; a duplicate witness raises :class:`FloorViolation`."""
        registry, violations = collect_registry(self.pm)
        if violations:
            raise FloorViolation(violations)
        return registry

    @cached_property
    def formats(self) -> dict[str, str]:
        """Report formats registered by plugins (name -> description)."""
        return collect_formats(self.pm)

    @property
    def witness_names(self) -> tuple[str, ...]:
        return self.registry.witness_names

    @property
    def pending_names(self) -> tuple[str, ...]:
        return self.registry.pending_names

    @property
    def mutants(self) -> dict[str, tuple[str, ...]]:
        return self.registry.mutants

    @cached_property
    def frontiers(self) -> tuple[Any, ...]:
        """The declared frontiers (collected on first use: ``claims run`` never needs them)."""
        return collect_frontiers(self.pm)

    def check_known(self, names: Sequence[str]) -> None:
        """Raise :class:`UsageError` naming every unknown witness and listing the known."""
        unknown = [n for n in names if self.registry.witness(n) is None]
        if unknown:
            every = (*self.witness_names, *self.pending_names)
            known = ", ".join(every) or "none (no plugin registers a witness)"
            raise UsageError(
                f"unknown witness {', '.join(repr(n) for n in unknown)}; known witnesses: "
                f"{known}. Run `claims list` to see them, or load the plugin that registers "
                "it with `claims -p MODULE`."
            )

    def resolve(self, name: str) -> Resolution:
        """Import witness ``name`` once and discover its claims (floor checked)."""
        if name not in self._resolved:
            self.check_known([name])
            entry = self.registry.witness(name)
            assert entry is not None
            self._resolved[name] = resolve_witness(name, entry.module)
        return self._resolved[name]

    def resolve_all(self, names: Sequence[str]) -> list[Resolution]:
        """Resolve every witness, raising one :class:`FloorViolation` listing all breaches."""
        self.check_known(names)
        resolutions: list[Resolution] = []
        violations: list[Violation] = []
        for name in names:
            try:
                resolutions.append(self.resolve(name))
            except FloorViolation as error:
                violations.extend(error.violations)
        if violations:
            raise FloorViolation(violations)
        return resolutions

    def prepare(self, witness: Witness) -> str | None:
        """Run the witness's ``setup()`` once; the reason it failed, or None."""
        if witness.name not in self._set_up:
            self._set_up[witness.name] = run_setup(witness.setup) if witness.setup else None
        return self._set_up[witness.name]

    def run_claim(self, claim: Claim) -> ClaimResult:
        """Run one claim through ``claims_run_claim`` and time the whole hook call."""
        start = time.perf_counter()
        verdict = self._verdict(claim)
        elapsed = (time.perf_counter() - start) * 1000.0
        return ClaimResult(
            id=claim.id,
            witness=claim.witness,
            name=claim.label,
            kind=claim.kind,
            verdict=verdict,
            duration_ms=round(elapsed, 3),
            statement=claim.statement,
            path=source_path(claim.module),
            line=claim.lineno,
        )

    def _verdict(self, claim: Claim) -> Verdict:
        try:
            verdict = self.pm.hook.claims_run_claim(claim=claim)
        except PLUGIN_FAILURES as error:
            return Verdict(
                outcome=Outcome.ERROR, reason=f"claims_run_claim raised {describe(error)}"
            )
        if isinstance(verdict, Verdict):
            return verdict
        return Verdict(
            outcome=Outcome.ERROR,
            reason=f"no claims_run_claim implementation returned a Verdict (got {verdict!r})",
        )

    def run_witness(self, resolution: Resolution, selection: Selection) -> WitnessReport:
        """Set up a resolved witness and run its selected claims, each on its own."""
        if isinstance(resolution, Unresolved):
            return WitnessReport(name=resolution.name, unresolved=resolution.reason)
        selected = [c for c in resolution.claims if selection.matches(c)]
        if selected:
            reason = self.prepare(resolution)
            if reason is not None:
                return WitnessReport(name=resolution.name, unresolved=reason)
        return WitnessReport(
            name=resolution.name, results=tuple(self.run_claim(c) for c in selected)
        )

    def run(self, names: Sequence[str], selection: Selection = Selection()) -> RunReport:
        """Run the selected claims of ``names``; nothing runs if any witness breaks the floor."""
        reports = [self.run_witness(r, selection) for r in self.resolve_all(names)]
        if selection.active:
            reports = [w for w in reports if w.results or w.unresolved is not None]
            if not reports:
                raise UsageError(
                    f"no claim of {', '.join(names)} matches {selection.describe()}; "
                    "`claims list` shows the witnesses, `--kind` takes "
                    f"{', '.join(k.value for k in known_kinds())}."
                )
        return RunReport(witnesses=tuple(reports))

    def report(self, report: RunReport, fmt: str, stream: TextIO) -> None:
        """Write ``report`` in ``fmt`` through ``claims_report``."""
        if not self.call_hook("claims_report", first=True, report=report, fmt=fmt, stream=stream):
            known = ", ".join(self.formats) or "none"
            raise UsageError(f"no plugin writes format {fmt!r}; known formats: {known}")

    def run_finished(self, report: RunReport, args: Any) -> None:
        """Tell every plugin the run finished (``claims_run_finished``: JUnit and the like)."""
        self.call_hook("claims_run_finished", first=False, report=report, args=args)

    def call_hook(self, name: str, *, first: bool, **kwargs: Any) -> Any:
        """Call a hook's implementations in pluggy's order, one at a time, so that one that
        raises is named: a :class:`ClaimsError` it raises passes through, any other
        exception becomes one (exit 2) naming the plugin and the hook, never a traceback."""
        caller = getattr(self.pm.hook, name)
        for impl in reversed(caller.get_hookimpls()):
            if impl.wrapper or impl.hookwrapper:
                continue
            try:
                result = impl.function(**{a: kwargs[a] for a in impl.argnames})
            except ClaimsError:
                raise
            except PLUGIN_FAILURES as error:
                raise ClaimsError(
                    f"plugin {impl.plugin_name} failed in hook {name}: {describe(error)}. "
                    f"Fix the plugin, or leave it out with -p no:{impl.plugin_name}."
                ) from error
            if first and result is not None:
                return result
        return None
