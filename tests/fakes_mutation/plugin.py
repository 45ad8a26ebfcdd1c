"""The fake plugin: witness ``fake_door`` and the mutant modules named in $FAKE_MUTANTS.

``FAKE_MUTANTS`` (comma-separated, default ``exact``) picks ``mutants_<name>`` modules, so one
plugin serves every test; child processes inherit the variable. ``FAKE_RED_BASELINE=1`` adds a
claim that always fails, for the red-baseline test. ``FAKE_LOBBY=1`` adds witness
``fake_lobby``, whose claims the door's mutants turn red too, with its own mutants.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from claims import hookimpl


@hookimpl
def claims_register_witnesses(register: Callable[[str, str], None]) -> None:
    register("fake_door", "tests.fakes_mutation.witness_door")
    if os.environ.get("FAKE_RED_BASELINE"):
        register("fake_broken", "tests.fakes_mutation.witness_broken")
    if os.environ.get("FAKE_LOBBY"):
        register("fake_lobby", "tests.fakes_mutation.witness_lobby")


@hookimpl
def claims_register_mutants(register: Callable[[str, str], None]) -> None:
    for name in os.environ.get("FAKE_MUTANTS", "exact").split(","):
        register("fake_door", f"tests.fakes_mutation.mutants_{name}")
    if os.environ.get("FAKE_LOBBY"):
        register("fake_lobby", "tests.fakes_mutation.mutants_lobby")
