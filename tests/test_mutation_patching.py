"""Patching in memory: every binding of a target, methods and properties, and the way back."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

import tests.fakes_mutation.witness_door as witness
from plugins.mutate.patching import (
    ForcedFailure,
    Target,
    TargetError,
    drop_caches,
    forced_failure,
    install,
    patched,
    resolve,
    restore,
    signature_mismatch,
)
from tests.fakes_mutation import cached, door


def _always(key: str, lock: str) -> bool:
    return True


def test_a_function_is_replaced_where_defined_and_wherever_it_was_imported() -> None:
    target = resolve("tests.fakes_mutation.door.key_fits")
    original = door.key_fits
    undo = install(target, _always)
    try:
        assert door.key_fits("x", "k") is True
        assert vars(witness)["key_fits"]("x", "k") is True
        assert door.door_opens("x", "k", 9) is True
    finally:
        restore(undo)
    assert door.key_fits is original and vars(witness)["key_fits"] is original


def test_a_method_and_a_property_are_replaced_on_their_class() -> None:
    sign = door.Sign("open")
    label = (resolve("tests.fakes_mutation.door.Sign.label"), lambda self: "LABEL")
    shouting = (resolve("tests.fakes_mutation.door.Sign.shouting"), lambda self: True)
    with patched([label, shouting]):
        assert (sign.label(), sign.shouting) == ("LABEL", True)
    assert (sign.label(), sign.shouting) == ("[open]", False)


def test_a_replacement_delegating_to_its_target_by_name_reaches_the_original() -> None:
    def stricter(key: str, lock: str) -> bool:
        return door.key_fits(key, lock) and key != "k"

    with patched([(resolve("tests.fakes_mutation.door.key_fits"), stricter)]):
        assert door.key_fits("k", "k") is False
        assert door.key_fits("j", "j") is True


def test_replacements_of_one_run_compose_through_each_other() -> None:
    def opens(key: str, lock: str, hour: int, badge: str = "staff") -> bool:
        return door.key_fits(key, lock)

    both: list[tuple[Target, Callable[..., Any]]] = [
        (resolve("tests.fakes_mutation.door.door_opens"), opens),
        (resolve("tests.fakes_mutation.door.key_fits"), _always),
    ]
    with patched(both):
        assert door.door_opens("x", "k", 22) is True


def test_a_call_from_another_thread_reaches_the_replacement_while_one_runs_it() -> None:
    """The coordinator's transport runs one host per thread: while one thread is inside a
    replacement (delegating to the original), another thread's call must still reach the
    replacement, or the mutant is missed at random."""
    inside, leave = threading.Event(), threading.Event()

    def slow_stricter(key: str, lock: str) -> bool:
        if key == "wait":
            inside.set()
            leave.wait(10)
        return door.key_fits(key, lock) and key != "k"

    with patched([(resolve("tests.fakes_mutation.door.key_fits"), slow_stricter)]):
        first = threading.Thread(target=door.key_fits, args=("wait", "wait"))
        first.start()
        try:
            assert inside.wait(10)
            assert door.key_fits("k", "k") is False
        finally:
            leave.set()
            first.join()


def test_a_dispatch_table_bound_at_import_is_out_of_reach() -> None:
    target = resolve("tests.fakes_mutation.door.badge_valid")
    with patched([(target, forced_failure(target))]):
        assert door.door_opens("k", "k", 9, "revoked-1") is False
        with pytest.raises(ForcedFailure):
            door.badge_valid("x")


@pytest.mark.parametrize(
    "path",
    [
        "tests.fakes_mutation.door.nothing_here",
        "tests.fakes_mutation.door.OPENING",
        "tests.fakes_mutation.door.Missing.label",
        "no_such_package.f",
    ],
)
def test_a_path_that_names_no_function_is_refused(path: str) -> None:
    with pytest.raises(TargetError):
        resolve(path)


def test_a_replacement_with_other_parameters_is_named() -> None:
    target = resolve("tests.fakes_mutation.door.within_hours")
    assert signature_mismatch(target, lambda hour: True) is None
    why = signature_mismatch(target, lambda h, extra: True)
    assert why is not None and "takes (h, extra)" in why and "(hour)" in why


def test_what_the_code_kept_is_dropped_when_a_patch_goes_in_and_when_it_comes_out() -> None:
    """A value computed before a patch is not served under it, nor after it is undone."""
    assert (cached.cached_greeting("ann"), cached.kept_greeting("ann")) == ("hello ann",) * 2
    undo = install(resolve("tests.fakes_mutation.cached.greeting"), lambda name: f"bye {name}")
    try:
        assert (cached.cached_greeting("ann"), cached.kept_greeting("ann")) == ("bye ann",) * 2
    finally:
        restore(undo)
    assert (cached.cached_greeting("ann"), cached.kept_greeting("ann")) == ("hello ann",) * 2


def test_drop_caches_empties_only_the_packages_named() -> None:
    drop_caches(["tests"])
    cached.cached_greeting("bob")
    cached.kept_greeting("bob")
    drop_caches(["planner"])
    assert cached.cached_greeting.cache_info().currsize == 1
    assert cached.KEPT.cache_info() == 1
    drop_caches(["tests"])
    assert cached.cached_greeting.cache_info().currsize == 0
    assert cached.KEPT.cache_info() == 0
