"""The deterministic hypothesis profile every claim runs under.

hypothesis is a test extra, so it is imported only if installed. Its ``@given`` copies the
current settings when the decorator runs, so the profile must be active both while a witness
module is imported and while its claims run; :func:`deterministic_hypothesis` is entered
around both and restores the previous profile afterwards, leaving a surrounding pytest run
as it found it. The kernel loads it always when running claims, CI or not: a claim's verdict
must not depend on a random seed or on an example database left by an earlier run.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

PROFILE = "claims-deterministic"


def _settings_class() -> Any:
    try:
        module = importlib.import_module("hypothesis")
    except ImportError:
        return None
    return module.settings


@contextmanager
def deterministic_hypothesis() -> Iterator[None]:
    """Load the kernel's hypothesis profile for the duration of the block, if installed."""
    settings = _settings_class()
    if settings is None:
        yield
        return
    previous = settings.get_current_profile_name()
    settings.register_profile(
        PROFILE,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,
    )
    settings.load_profile(PROFILE)
    try:
        yield
    finally:
        settings.load_profile(previous)
