"""Meta-tests of the contract: every hook documented, named by phase, and implemented."""

from __future__ import annotations

import inspect
import re

import pytest

import claims
from claims import BUILTIN_PLUGINS, hookspecs
from claims.markers import PROJECT
from tests.fakes.support import fake_session

HOOKS = {
    name: fn
    for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and hasattr(fn, f"{PROJECT}_spec")
}
PHASES = ("register", "add", "run", "report")


def test_the_contract_has_the_required_hooks() -> None:
    assert {
        "claims_register_witnesses",
        "claims_register_mutants",
        "claims_register_frontiers",
        "claims_run_claim",
        "claims_report",
        "claims_add_commands",
    } <= set(HOOKS)


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_every_hook_is_named_by_phase_and_says_when_it_is_called(name: str) -> None:
    assert re.fullmatch(rf"claims_({'|'.join(PHASES)})(_[a-z]+)*", name)
    doc = inspect.getdoc(HOOKS[name]) or ""
    assert "Called" in doc, f"{name}'s docstring must say when the kernel calls it"
    assert len(doc.splitlines()) >= 3


def test_only_hooks_are_public_functions_of_the_contract() -> None:
    public = {
        n
        for n, f in vars(hookspecs).items()
        if inspect.isfunction(f) and f.__module__ == hookspecs.__name__ and not n.startswith("_")
    }
    assert public == set(HOOKS)


def test_first_result_hooks() -> None:
    firstresult = {n for n, f in HOOKS.items() if getattr(f, f"{PROJECT}_spec")["firstresult"]}
    assert firstresult == {"claims_run_claim", "claims_report"}


def test_hooks_are_grouped_under_banner_comments() -> None:
    source = inspect.getsource(hookspecs)
    banners = re.findall(r"^# -{20,}\n# (\w+):", source, flags=re.MULTILINE)
    assert banners == ["register", "cli", "run", "report"]


def test_builtin_plugins_load_and_implement_only_known_hooks() -> None:
    pm = fake_session().pm
    for name in BUILTIN_PLUGINS:
        assert pm.get_plugin(name) is not None
    pm.check_pending()


def test_the_public_face_exports_what_it_lists() -> None:
    assert sorted(claims.__all__) == sorted(set(claims.__all__))
    for name in claims.__all__:
        assert hasattr(claims, name), name
