"""The pytest bridge: every claim of every registered witness is a pytest item.

Loaded through the ``pytest11`` entry point. A ``.py`` file whose module is a registered
witness module becomes a :class:`WitnessFile` whose children are its claims, each a
:class:`ClaimItem` named after its function and marked with its kind (``pytest -m refusal``).
Claims run through the same ``claims_run_claim`` hook as ``claims run``. A witness that
cannot be imported or set up, or that breaks the floor, is a collection error carrying the
reason. ``setup()`` runs during collection, once, as it does before ``claims run``.

A claim that raised (an ``assert`` included) fails as a test that raised does: pytest shows
the claim's own traceback, ``--pdb`` stops where it was raised, and a bare ``assert`` in a
witness module shows the compared values, since the bridge marks every registered witness
module for pytest's assertion rewriting before it is imported. A claim that returned a
failing verdict fails with its statement, reason and evidence.

The claims plugins are the built-ins, the ``claims`` entry points, the project's
``[tool.claims] plugins`` (found from pytest's root directory), ``--claims-plugin MODULE``,
and any pytest plugin (``-p MODULE``, a conftest) that implements ``claims_*`` hooks. With no
witness registered the bridge collects nothing.

A file is a witness file when it is where the witness module is imported from, or when its
dotted name (its path under the outermost enclosing package) is a registered witness
module. The second covers ``pytest witnesses`` in a checkout whose package is installed
(not editable) in site-packages: the claims then run the installed code, and the report
header says where that is.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest
from _pytest._code import Traceback

from claims import ClaimResult, ClaimsError, Session, Unresolved
from claims.config import find_config
from claims.errors import FloorViolation
from claims.model import known_kinds
from claims.registry import WitnessEntry
from claims.witness import Claim

PENDING_REASON = "sufficient-for claim of an open frontier: red until its PR lands"
SESSION = pytest.StashKey[Session]()
FILES = pytest.StashKey[dict[Path, WitnessEntry]]()
MODULES = pytest.StashKey[dict[str, WitnessEntry]]()
MADE = pytest.StashKey[set[Path]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims", "claims framework")
    group.addoption(
        "--claims-plugin",
        action="append",
        default=[],
        dest="claims_plugins",
        metavar="MODULE",
        help="load MODULE as a claims plugin (like `claims -p MODULE`)",
    )


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    try:
        # The project's [tool.claims] is found from pytest's root, as pytest found its own.
        project = find_config(config.rootpath)
        session = Session.start(config.getoption("claims_plugins"), config=project)
        for name, plugin in config.pluginmanager.list_name_plugin():
            if plugin is not None and _has_claims_hooks(plugin):
                session.pm.adopt(plugin, getattr(plugin, "__name__", name), "pytest plugin")
        registry = session.registry  # register now, so a duplicate is a usage error
        unimported = [w.module for w in registry.witnesses if w.module not in sys.modules]
        if unimported:  # a module imported already cannot be rewritten any more
            pytest.register_assert_rewrite(*unimported)
    except ClaimsError as error:
        raise pytest.UsageError(f"claims: {error}") from error
    for kind, states in known_kinds().items():  # the plugins' kinds are registered by now
        config.addinivalue_line("markers", f"{kind.value}: a claim of kind {kind.value}: {states}")
    config.stash[SESSION] = session
    config.stash[MADE] = set()


def _has_claims_hooks(plugin: object) -> bool:
    return any(
        hasattr(inspect.getattr_static(plugin, attr, None), "claims_impl")
        for attr in dir(plugin)
        if attr.startswith("claims_")
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    session = config.stash.get(SESSION, None)
    if session is None or not session.witness_names:
        return None
    files = _witness_files(config)
    located = {entry.name for entry in files.values()}
    missing = [w for w in session.registry.witnesses if w.name not in located]
    header = f"claims: {len(session.witness_names)} witnesses registered"
    places = sorted({str(path.parent) for path in files})
    if places:
        header += f", imported from {', '.join(places)}"
    if missing:
        header += "; no source file for " + ", ".join(f"{w.name} ({w.module})" for w in missing)
    return header


def _witness_files(config: pytest.Config) -> dict[Path, WitnessEntry]:
    """Source file of each registered witness module, found without importing it."""
    if FILES not in config.stash:
        files: dict[Path, WitnessEntry] = {}
        for entry in config.stash[SESSION].registry.witnesses:
            origin = _origin(entry.module)
            if origin is not None:
                files[origin] = entry
        config.stash[FILES] = files
    return config.stash[FILES]


def _origin(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except Exception:  # a missing parent package: the witness has no file to collect
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin).resolve()


def _witness_at(parent: pytest.Collector, path: Path) -> WitnessEntry | None:
    config = parent.config
    if SESSION not in config.stash:
        return None
    found = _witness_files(config).get(path.resolve())
    if found is not None:
        return found
    if MODULES not in config.stash:
        config.stash[MODULES] = {e.module: e for e in config.stash[SESSION].registry.witnesses}
    return config.stash[MODULES].get(dotted_name(path))


def dotted_name(path: Path) -> str:
    """The module name of ``path`` from its enclosing packages (``witnesses.rules.serving_fit``)."""
    path = path.resolve()
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts))


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    """Take over a witness file pytest's python plugin would collect as a test module."""
    entry = _witness_at(parent, module_path)
    if entry is None:
        return None
    parent.config.stash[MADE].add(module_path)
    return WitnessFile.from_parent(parent, path=module_path, witness=entry.name)


@pytest.hookimpl(trylast=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect a witness file the python plugin passed over (it is not ``test_*.py``)."""
    if file_path.suffix != ".py":
        return None
    entry = _witness_at(parent, file_path)
    if entry is None:
        return None
    made = parent.config.stash[MADE]
    if file_path in made:
        made.discard(file_path)
        return None
    return WitnessFile.from_parent(parent, path=file_path, witness=entry.name)


class WitnessFile(pytest.File):
    """A witness module: resolved, set up, and collected as one item per claim."""

    def __init__(self, *, witness: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.witness = witness

    def collect(self) -> list[ClaimItem]:
        session = self.config.stash[SESSION]
        try:
            resolution = session.resolve(self.witness)
        except FloorViolation as error:
            raise self.CollectError(f"witness {self.witness} breaks the floor: {error}") from None
        if isinstance(resolution, Unresolved):
            raise self.CollectError(f"witness {self.witness} unresolved: {resolution.reason}")
        reason = session.prepare(resolution)
        if reason is not None:
            raise self.CollectError(f"witness {self.witness} unresolved: {reason}")
        items = [ClaimItem.from_parent(self, name=c.label, claim=c) for c in resolution.claims]
        entry = session.registry.witness(self.witness)
        if entry is not None and entry.pending:
            for item in items:
                item.add_marker(pytest.mark.xfail(strict=True, reason=PENDING_REASON))
        return items


class ClaimFailed(Exception):
    """Raised by :meth:`ClaimItem.runtest` to carry a result that did not pass."""

    def __init__(self, result: ClaimResult) -> None:
        super().__init__(result.id)
        self.result = result


class ClaimItem(pytest.Item):
    """One claim as a pytest item, marked with its kind."""

    def __init__(self, *, claim: Claim, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim
        self.add_marker(claim.kind.value)

    def runtest(self) -> None:
        __tracebackhide__ = True
        result = self.config.stash[SESSION].run_claim(self.claim)
        if not result.passed:
            raised = result.verdict.raised
            if raised is not None:
                raise raised  # its traceback goes on from the claim down to where it raised
            raise ClaimFailed(result)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        if isinstance(excinfo.value, ClaimFailed):
            return failure_text(excinfo.value.result)
        return super().repr_failure(excinfo, style)

    def _traceback_filter(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Traceback:
        """From the claim's own frame on, as pytest shows a test function's (``--fulltrace``:
        everything)."""
        traceback = excinfo.traceback
        if self.config.getoption("fulltrace", False):
            return traceback
        code = inspect.unwrap(self.claim.function).__code__
        cut = traceback.cut(path=Path(code.co_filename), firstlineno=code.co_firstlineno - 1)
        return (cut if cut != traceback else traceback).filter(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.claim.lineno - 1, f"claim {self.claim.id} [{self.claim.kind.value}]"


def failure_text(result: ClaimResult) -> str:
    """What a reviewer needs: the claim id, its statement, the reason and the evidence."""
    lines = [f"claim {result.id} [{result.kind.value}]: {result.outcome.value.upper()}"]
    lines += _field("statement", result.statement)
    lines += _field("reason", result.verdict.reason)
    lines += _field("evidence", result.verdict.evidence)
    return "\n".join(lines)


def _field(label: str, text: str) -> list[str]:
    if not text:
        return []
    first, *rest = text.splitlines() or [""]
    pad = " " * (len(label) + 4)
    return [f"  {label}: {first}", *(f"{pad}{line}".rstrip() for line in rest)]
