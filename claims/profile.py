"""The deterministic hypothesis profile every claim runs under, loaded only where it is used.

hypothesis is imported only by the witnesses that use it, so ``claims run`` of a witness that
does not never imports it (about 0.2 s of start-up). Its ``@given`` copies the current
settings when the decorator runs, so the profile must be active both while a witness module
is imported and while its claims run. :func:`deterministic_hypothesis` is entered around both:
when hypothesis is already imported it loads the profile at once; otherwise it watches the
import system and loads the profile the moment something inside the block imports hypothesis
(before the importing module goes on to decorate anything). Either way it restores the previous
profile on the way out, leaving a surrounding pytest run as it found it. The kernel loads it
always when running claims, CI or not: a claim's verdict must not depend on a random seed or
on an example database left by an earlier run.

Nor on what else the process imported. Hypothesis (6.170, the version pinned here) mixes into
its examples the literals of every *local* module loaded at the time (it reads each one's
source, and caches what it found under ``.hypothesis/constants/`` in the working directory):
a property run in a survey worker that loaded every witness, in a fresh ``claims run`` of
one witness, under pytest, or on a mutated copy of a file holding every mutant's literals
would each draw other examples, and a cell key would have to hold the source of every loaded
module. While the block runs, that pool is empty (:func:`_without_local_constants`): the
examples are a function of the property and its strategies alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

PROFILE = "claims-deterministic"
HYPOTHESIS = "hypothesis"


LOCAL_CONSTANTS = "hypothesis.internal.conjecture.providers"
"""Where hypothesis keeps the literals it mines from loaded modules (``_get_local_constants``
and the cache of what it filtered from them, ``CONSTANTS_CACHE``). A hypothesis without them
mines nothing, and there is nothing to turn off; ``tests/test_claims_profile.py`` shows the
examples independent of what is loaded, so a version that moves them turns that test red."""


def _without_local_constants() -> Callable[[], None]:
    """Empty hypothesis's pool of local literals; what puts it back."""
    providers = sys.modules.get(LOCAL_CONSTANTS)
    mined = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    kind = getattr(providers, "Constants", None)
    if providers is None or mined is None or cache is None or kind is None:
        return lambda: None
    empty = kind()
    providers._get_local_constants = lambda: empty  # type: ignore[attr-defined]
    cache.clear()  # filtered from the pool as it was

    def restore() -> None:
        providers._get_local_constants = mined  # type: ignore[attr-defined]
        cache.clear()

    return restore


def _load(settings: Any) -> tuple[str, Callable[[], None]]:
    """Register and load the kernel's profile, local literals left out; the name of the
    profile it replaced and what puts the literals back."""
    previous: str = settings.get_current_profile_name()
    settings.register_profile(
        PROFILE,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,
    )
    settings.load_profile(PROFILE)
    return previous, _without_local_constants()


class _LoadOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; when ``hypothesis`` is imported, loads the profile right after."""

    def __init__(self) -> None:
        self.previous: str | None = None
        self.restore: Callable[[], None] = lambda: None

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != HYPOTHESIS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        loader = spec.loader
        execute = loader.exec_module

        def exec_then_load(module: ModuleType) -> None:
            execute(module)
            self.previous, self.restore = _load(module.settings)

        loader.exec_module = exec_then_load  # type: ignore[method-assign]
        return spec


@contextmanager
def deterministic_hypothesis() -> Iterator[None]:
    """Load the kernel's hypothesis profile for the duration of the block, if used."""
    module = sys.modules.get(HYPOTHESIS)
    if module is not None:
        previous, restore = _load(module.settings)
        try:
            yield
        finally:
            restore()
            module.settings.load_profile(previous)
        return
    watcher = _LoadOnImport()
    sys.meta_path.insert(0, watcher)
    try:
        yield
    finally:
        sys.meta_path.remove(watcher)
        imported = sys.modules.get(HYPOTHESIS)
        if imported is not None and watcher.previous is not None:
            watcher.restore()
            imported.settings.load_profile(watcher.previous)
