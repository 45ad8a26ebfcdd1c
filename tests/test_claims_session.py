"""Plugin loading and order, what plugins register, selection, and usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims import (
    BUILTIN_PLUGINS,
    ClaimKind,
    FloorViolation,
    PluginLoadError,
    Selection,
    Session,
    UsageError,
)
from claims.config import find_config
from claims.loader import load_plugins
from tests.fakes.plugin import WITNESSES, FakeFrontier
from tests.fakes.support import fake_session


def test_builtins_load_first_then_the_configured_plugins_then_p_options_in_order() -> None:
    config = find_config(Path(__file__).parent)
    pm = load_plugins(["tests.fakes.late_plugin", "tests.fakes.plugin"], config=config)
    order = pm.load_order
    assert order[: len(BUILTIN_PLUGINS)] == BUILTIN_PLUGINS
    assert order[-2:] == ("tests.fakes.late_plugin", "tests.fakes.plugin")
    assert order[len(BUILTIN_PLUGINS) : -2] == config.plugins == pm.configured
    assert pm.origins[config.plugins[0]] == f"{config.path} [tool.claims] plugins"


def test_witnesses_keep_plugin_load_order_not_pluggy_order() -> None:
    first = fake_session("tests.fakes.late_plugin", "tests.fakes.plugin")
    assert first.witness_names == ("fake_order", *(name for name, _ in WITNESSES))
    second = fake_session("tests.fakes.plugin", "tests.fakes.late_plugin")
    assert second.witness_names == (*(name for name, _ in WITNESSES), "fake_order")


def test_mutant_modules_are_kept_per_witness_in_registration_order() -> None:
    session = fake_session("tests.fakes.plugin", "tests.fakes.late_plugin")
    assert session.mutants == {
        "fake_red": ("tests.fakes.mutants_red",),
        "fake_green": (
            "tests.fakes.mutants_green_b",
            "tests.fakes.mutants_green_a",
            "tests.fakes.mutants_green_late",
        ),
    }


def test_frontiers_are_kept_in_registration_order() -> None:
    assert fake_session().frontiers == (FakeFrontier(12353), FakeFrontier(12351))


def test_the_builtin_reporters_register_their_formats() -> None:
    assert list(fake_session().formats) == ["table", "json", "markdown", "github"]


def test_a_plugin_that_fails_to_import_is_named_with_its_exception() -> None:
    with pytest.raises(PluginLoadError) as caught:
        fake_session("tests.fakes.broken_plugin")
    text = str(caught.value)
    assert "'tests.fakes.broken_plugin' (-p option)" in text
    assert "RuntimeError: broken on purpose" in text


def test_a_plugin_with_an_unknown_hook_is_refused() -> None:
    with pytest.raises(PluginLoadError) as caught:
        fake_session("tests.fakes.misnamed_hook_plugin")
    assert "claims_register_witnesess" in str(caught.value)


def test_a_witness_name_registered_twice_names_both_plugins() -> None:
    session = fake_session("tests.fakes.plugin", "tests.fakes.duplicate_plugin")
    with pytest.raises(FloorViolation) as caught:
        session.registry  # noqa: B018
    (violation,) = caught.value.violations
    assert violation.rule == "duplicate-witness"
    assert "tests.fakes.plugin" in violation.message
    assert "tests.fakes.duplicate_plugin" in violation.message


def test_loading_the_same_plugin_twice_registers_it_once() -> None:
    session = fake_session("tests.fakes.plugin", "tests.fakes.plugin")
    assert session.pm.load_order.count("tests.fakes.plugin") == 1


def test_an_unknown_witness_is_named_and_the_known_are_listed() -> None:
    with pytest.raises(UsageError) as caught:
        fake_session().run(["fake_green", "no_such_witness"])
    assert "unknown witness 'no_such_witness'" in str(caught.value)
    assert "fake_green, fake_red" in str(caught.value)


def test_floor_violations_of_every_witness_are_raised_together_before_running() -> None:
    session = fake_session("tests.fakes.plugin", "tests.fakes.floor_plugin")
    with pytest.raises(FloorViolation) as caught:
        session.run(["fake_green", "fake_no_kind", "fake_no_statement"])
    assert {v.rule for v in caught.value.violations} == {"no-kind", "no-statement"}


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (Selection(pattern="rank"), ["rank_zero_serves_on_the_route_port"]),
        (Selection(pattern="fake_green.*_is_re*"), ["half_utilization_is_refused"]),
        (Selection(kind=ClaimKind.PROPERTY), ["ceiling_never_rounds_down"]),
        (
            Selection(pattern="the", kind=ClaimKind.POSITIVE_CONTROL),
            ["the_right_image_is_admitted"],
        ),
    ],
)
def test_selection_by_substring_glob_and_kind(selection: Selection, expected: list[str]) -> None:
    report = fake_session().run(["fake_green"], selection)
    assert [r.name for r in report.results] == expected


def test_witnesses_with_nothing_selected_are_left_out() -> None:
    report = fake_session().run(["fake_green", "fake_red"], Selection(pattern="passes"))
    assert report.summary_lines() == ("fake_red: 1/1 PASS",)


def test_a_selection_matching_nothing_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no claim of fake_green matches -k 'zzz'"):
        fake_session().run(["fake_green"], Selection(pattern="zzz"))


def test_sessions_are_independent() -> None:
    assert isinstance(fake_session(), Session)
    assert fake_session().pm is not fake_session().pm
