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
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

PROFILE = "claims-deterministic"
HYPOTHESIS = "hypothesis"


def _load(settings: Any) -> str:
    """Register and load the kernel's profile; the name of the profile it replaced."""
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
    return previous


class _LoadOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; when ``hypothesis`` is imported, loads the profile right after."""

    def __init__(self) -> None:
        self.previous: str | None = None

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
            self.previous = _load(module.settings)

        loader.exec_module = exec_then_load  # type: ignore[method-assign]
        return spec


@contextmanager
def deterministic_hypothesis() -> Iterator[None]:
    """Load the kernel's hypothesis profile for the duration of the block, if used."""
    module = sys.modules.get(HYPOTHESIS)
    if module is not None:
        previous = _load(module.settings)
        try:
            yield
        finally:
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
            imported.settings.load_profile(watcher.previous)
