"""What the plugins registered: witnesses, mutant modules and frontiers, in load order.

The ``claims_register_*`` hooks hand each plugin a ``register`` callback, so the kernel owns
collection, order and duplicates. Each plugin is called on its own, in load order, and every
registration remembers which plugin made it, so a duplicate names both sides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from claims.errors import UsageError, Violation
from claims.loader import ClaimsPluginManager
from claims.model import register_kind


@dataclass(frozen=True)
class WitnessEntry:
    """One ``register(name, module, pending=...)`` call, and the plugin that made it.

    A *pending* witness holds claims that are red by design until a frontier lands (the
    sufficient-for claims of declared obligations): ``claims frontiers`` runs them,
    ``claims run --all`` leaves them out, and the pytest bridge expects them to fail.
    """

    name: str
    module: str
    plugin: str
    pending: bool = False


@dataclass(frozen=True)
class Registry:
    """What the plugins registered, each collection in registration order (frontiers are
    collected apart, by :func:`collect_frontiers`, only when a command reads them)."""

    witnesses: tuple[WitnessEntry, ...] = ()
    mutants: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def witness(self, name: str) -> WitnessEntry | None:
        return next((w for w in self.witnesses if w.name == name), None)

    @property
    def witness_names(self) -> tuple[str, ...]:
        """The witnesses whose claims must hold now (pending ones excluded)."""
        return tuple(w.name for w in self.witnesses if not w.pending)

    @property
    def pending_names(self) -> tuple[str, ...]:
        """The witnesses whose claims stay red until their frontier lands."""
        return tuple(w.name for w in self.witnesses if w.pending)


def collect_registry(pm: ClaimsPluginManager) -> tuple[Registry, tuple[Violation, ...]]:
    """Call every ``claims_register_*`` hook; return the registry and its violations."""
    witnesses = tuple(_witness_entries(pm))
    registry = Registry(
        witnesses=witnesses,
        mutants=_mutants(pm),
    )
    return registry, tuple(_duplicate_witnesses(witnesses))


def _witness_entries(pm: ClaimsPluginManager) -> list[WitnessEntry]:
    found: list[WitnessEntry] = []
    for plugin in pm.plugins_with("claims_register_witnesses"):
        recorder = _WitnessRecorder(plugin, found)
        pm.call_plugin(plugin, "claims_register_witnesses", register=recorder)
    return found


@dataclass(frozen=True)
class _WitnessRecorder:
    """The ``register`` callback one plugin receives; it tags entries with the plugin."""

    plugin: str
    found: list[WitnessEntry]

    def __call__(self, name: str, module: str, pending: bool = False) -> None:
        self.found.append(
            WitnessEntry(name=str(name), module=str(module), plugin=self.plugin, pending=pending)
        )


def _mutants(pm: ClaimsPluginManager) -> dict[str, tuple[str, ...]]:
    modules: dict[str, list[str]] = {}

    def register(witness: str, module: str) -> None:
        modules.setdefault(witness, []).append(module)

    _call_each(pm, "claims_register_mutants", register)
    return {witness: tuple(found) for witness, found in modules.items()}


def collect_frontiers(pm: ClaimsPluginManager) -> tuple[Any, ...]:
    """The declared frontiers the plugins registered, in registration order."""
    found: list[Any] = []
    _call_each(pm, "claims_register_frontiers", found.append)
    return tuple(found)


def collect_formats(pm: ClaimsPluginManager) -> dict[str, str]:
    """Report formats the plugins registered, name -> description, first one wins."""
    found: dict[str, str] = {}

    def register(name: str, description: str) -> None:
        found.setdefault(name, description)

    _call_each(pm, "claims_register_formats", register)
    return found


def collect_kinds(pm: ClaimsPluginManager) -> None:
    """Register the claim kinds the plugins define (:func:`claims.model.register_kind`); a
    bad one is that plugin's usage error."""

    def register(name: str, description: str) -> None:
        try:
            register_kind(name, description)
        except ValueError as error:
            raise UsageError(str(error)) from None

    _call_each(pm, "claims_register_kinds", register)


def _call_each(pm: ClaimsPluginManager, hook: str, register: Callable[..., None]) -> None:
    for plugin in pm.plugins_with(hook):
        pm.call_plugin(plugin, hook, register=register)


def _duplicate_witnesses(entries: tuple[WitnessEntry, ...]) -> Iterator[Violation]:
    first: dict[str, WitnessEntry] = {}
    by_module: dict[str, WitnessEntry] = {}
    for entry in entries:
        if not entry.name.isidentifier():
            yield _bad_name(entry)
        if entry.name in first:
            yield _twice(entry, first[entry.name], "witness name")
        elif entry.module in by_module:
            yield _twice(entry, by_module[entry.module], "witness module")
        first.setdefault(entry.name, entry)
        by_module.setdefault(entry.module, entry)


def _twice(entry: WitnessEntry, earlier: WitnessEntry, what: str) -> Violation:
    return Violation(
        subject=entry.name,
        rule="duplicate-witness",
        message=(
            f"{what} registered twice: {earlier.name!r} -> {earlier.module} by plugin "
            f"{earlier.plugin}, and {entry.name!r} -> {entry.module} by plugin {entry.plugin}. "
            "A witness name prefixes every claim id and a module belongs to one witness; "
            "remove or rename one registration."
        ),
    )


def _bad_name(entry: WitnessEntry) -> Violation:
    return Violation(
        subject=entry.name,
        rule="witness-name",
        message=(
            f"witness name {entry.name!r} (plugin {entry.plugin}) is not a Python identifier; "
            "claim ids are <witness>.<function>, so use letters, digits and underscores."
        ),
    )
