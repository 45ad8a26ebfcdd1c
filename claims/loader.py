"""Loading plugins in an explicit order: built-ins, entry points by name, the project's
``[tool.claims] plugins`` (:mod:`claims.config`), then ``-p``.

``-p no:NAME`` (as pytest's) leaves one plugin out: a built-in by module name or its last
part (``no:junit``), an entry point by its name or module (``no:NAME``), or an earlier
``-p`` module; ``[tool.claims] disable`` does the same. The kernel's runner
(``claims.runner``) cannot be left out; a NAME that names no plugin is a usage error
listing the ones there are.

pluggy calls implementations last-registered first; where order shows (witness lists,
commands) the kernel calls each plugin on its own in the order kept here instead.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from collections.abc import Iterable, Sequence
from types import ModuleType

import pluggy

from claims import hookspecs
from claims.config import NO_CONFIG, ProjectConfig
from claims.errors import PluginLoadError, UsageError
from claims.markers import PROJECT

#: Every built-in plugin, by module name, in load order.
BUILTIN_PLUGINS: tuple[str, ...] = (
    "claims.runner",
    "plugins.reporters",
    "plugins.junit",
    "plugins.frontier_commands",
    "plugins.evidence",
    "plugins.mutate",
)

ENTRY_POINT_GROUP = "claims"

#: What a plugin's import or hook may raise that is reported as that plugin's failure (exit
#: 2, naming it): any exception, and ``SystemExit``, so a plugin that calls ``sys.exit(0)``
#: (argparse and click do on their own errors) can never end a run as a pass.
#: ``KeyboardInterrupt`` and the kernel's own signal exits (``BaseException`` subclasses
#: raised when SIGTERM arrives) pass through: the run ends as the signal says.
PLUGIN_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit)

#: Set (to anything) to load only the built-ins and ``-p``: neither the ``claims`` entry-point
#: group (as pytest's ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` skips ``pytest11``) nor the
#: project's ``[tool.claims] plugins``; the rest of the configuration still applies.
AUTOLOAD_ENV = "CLAIMS_DISABLE_PLUGIN_AUTOLOAD"


class ClaimsPluginManager(pluggy.PluginManager):
    """A pluggy manager for the ``claims`` hooks that remembers load order."""

    def __init__(self) -> None:
        super().__init__(PROJECT)
        self.add_hookspecs(hookspecs)
        self._load_order: list[str] = []
        self.origins: dict[str, str] = {}
        """Plugin name -> where it was named (``built-in``, an entry point, the config, -p)."""
        self.configured: tuple[str, ...] = ()
        """The ``[tool.claims] plugins`` loaded (none when autoloading is off), in order."""

    def register(self, plugin: object, name: str | None = None) -> str | None:
        registered = super().register(plugin, name)
        if registered is not None:
            self._load_order.append(registered)
        return registered

    @property
    def load_order(self) -> tuple[str, ...]:
        """Names of the registered plugins, first loaded first."""
        return tuple(n for n in self._load_order if self.get_plugin(n) is not None)

    def load_module(self, module_name: str, origin: str) -> None:
        """Import ``module_name`` and register it; ``origin`` says where it was named."""
        try:
            module = importlib.import_module(module_name)
        except PLUGIN_FAILURES as error:
            raise PluginLoadError(module_name, origin, error) from error
        self.adopt(module, module_name, origin)

    def adopt(self, plugin: object, name: str, origin: str) -> None:
        """Register an already-imported plugin object; registering it again is a no-op."""
        if self.is_registered(plugin):
            return
        try:
            self.register(plugin, name)
            self.origins[name] = origin
            self.check_pending()
        except (pluggy.PluginValidationError, ValueError) as error:
            if self.is_registered(plugin):
                self.unregister(plugin)
            raise PluginLoadError(name, origin, error) from error

    def load_entry_points(
        self,
        blocked: frozenset[str] = frozenset(),
        found: Sequence[importlib.metadata.EntryPoint] | None = None,
    ) -> None:
        """Load the ``claims`` entry-point group (``found``, when already read), sorted by
        entry-point name."""
        for ep in _unique_entry_points() if found is None else found:
            if {ep.name, ep.module} & blocked:
                continue
            try:
                plugin = ep.load()
            except PLUGIN_FAILURES as error:
                raise PluginLoadError(ep.value, f"entry point {ep.name!r}", error) from error
            self.adopt(plugin, _plugin_name(plugin, ep.value), f"entry point {ep.name!r}")

    def plugins_with(self, hook_name: str) -> list[str]:
        """Plugins implementing ``hook_name`` (wrappers aside), in load order."""
        caller = getattr(self.hook, hook_name)
        names = {i.plugin_name for i in caller.get_hookimpls() if not _is_wrapper(i)}
        return [n for n in self.load_order if n in names]

    def call_plugin(self, plugin_name: str, hook_name: str, **kwargs: object) -> object:
        """Call one plugin's implementation of ``hook_name`` alone."""
        caller = getattr(self.hook, hook_name)
        for impl in caller.get_hookimpls():
            if impl.plugin_name == plugin_name and not _is_wrapper(impl):
                try:
                    return impl.function(**{a: kwargs[a] for a in impl.argnames})
                except PLUGIN_FAILURES as error:
                    raise PluginLoadError(plugin_name, f"hook {hook_name}", error) from error
        return None


RUNNER = "claims.runner"
BUILT_IN = "built-in"
"""The origin of :data:`BUILTIN_PLUGINS` in :attr:`ClaimsPluginManager.origins`."""
DISABLE = "no:"


def load_plugins(
    extra: Iterable[str] = (),
    *,
    autoload: bool | None = None,
    config: ProjectConfig = NO_CONFIG,
) -> ClaimsPluginManager:
    """A manager with the built-ins, the entry points (unless disabled), the project's
    ``config`` plugins and ``extra``; ``no:NAME`` entries of ``extra``, and the config's
    ``disable``, leave plugin NAME out."""
    extra = list(extra)
    blocked = frozenset(
        [*(e.removeprefix(DISABLE) for e in extra if e.startswith(DISABLE)), *config.disable]
    )
    if RUNNER in blocked or "runner" in blocked:
        raise UsageError(f"-p no:{RUNNER}: the kernel's runner runs every claim; it stays loaded")
    config.activate()
    autoloading = autoload if autoload is not None else not os.environ.get(AUTOLOAD_ENV)
    # Read once: finding them reads every installed distribution's metadata.
    entry_points = _unique_entry_points() if autoloading else []
    _check_blockable(blocked, [*config.plugins, *extra], entry_points)
    pm = ClaimsPluginManager()
    for name in BUILTIN_PLUGINS:
        if not {name, name.rpartition(".")[2]} & blocked:
            pm.load_module(name, BUILT_IN)
    if autoloading:
        pm.load_entry_points(blocked, entry_points)
        pm.configured = tuple(n for n in config.plugins if n not in blocked)
    for name in pm.configured:
        pm.load_module(name, f"{config.describe()} plugins")
    for name in extra:
        if not name.startswith(DISABLE) and name not in blocked:
            pm.load_module(name, "-p option")
    return pm


def _check_blockable(
    blocked: frozenset[str], extra: list[str], entry_points: Sequence[importlib.metadata.EntryPoint]
) -> None:
    names = {n for b in BUILTIN_PLUGINS for n in (b, b.rpartition(".")[2])}
    names |= {n for ep in entry_points for n in (ep.name, ep.module)}
    names |= {e for e in extra if not e.startswith(DISABLE)}
    unknown = sorted(blocked - names)
    if unknown:
        known = [*BUILTIN_PLUGINS, *(ep.name for ep in entry_points)]
        raise UsageError(
            f"-p no:{unknown[0]}: no plugin of that name to leave out; plugins: {', '.join(known)}"
        )


def _unique_entry_points() -> list[importlib.metadata.EntryPoint]:
    # The same distribution can be seen twice (an egg-info beside an installed dist-info).
    unique: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        unique.setdefault(ep.name, ep)
    return [unique[name] for name in sorted(unique)]


def _plugin_name(plugin: object, fallback: str) -> str:
    return plugin.__name__ if isinstance(plugin, ModuleType) else fallback


def _is_wrapper(impl: pluggy.HookImpl) -> bool:
    return bool(impl.wrapper or impl.hookwrapper)
