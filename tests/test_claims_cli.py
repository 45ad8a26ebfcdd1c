"""The real ``claims`` command in a subprocess: output, summary lines and exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.fakes.support import run_cli

P = ("-p", "tests.fakes.plugin")


def test_a_green_witness_exits_0_with_its_summary_line() -> None:
    done = run_cli(*P, "run", "fake_green")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "fake_green: 4/4 PASS"
    assert "fake_green.rank_zero_serves_on_the_route_port" in done.stdout


def test_a_failing_claim_exits_1() -> None:
    done = run_cli(*P, "run", "fake_green", "fake_red")
    assert done.returncode == 1
    assert done.stdout.splitlines()[-2:] == ["fake_green: 4/4 PASS", "fake_red: 1/7 FAIL"]


def test_unresolved_witnesses_exit_1_with_the_reason() -> None:
    done = run_cli(*P, "run", "fake_setup_error", "fake_import_error")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "fake_setup_error: unresolved: setup() failed: RuntimeError: "
        "authority log fixture is empty",
        "fake_import_error: unresolved: import of tests.fakes.witness_import_error failed: "
        "ModuleNotFoundError: No module named 'tests.fakes.no_such_fixture'",
    ]


def test_all_runs_every_witness_in_registration_order() -> None:
    done = run_cli(*P, "-p", "tests.fakes.late_plugin", "run", "--all", "-k", "fake_")
    assert done.returncode == 1
    witnesses = [line.split(":")[0] for line in done.stdout.splitlines()[-6:]]
    assert witnesses == [
        "fake_green",
        "fake_red",
        "fake_import_error",
        "fake_setup_error",
        "fake_missing",
        "fake_order",
    ]


def test_selection_narrows_the_run() -> None:
    done = run_cli(*P, "run", "fake_red", "--kind", "planned_shape", "-k", "passes")
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "fake_red: 1/1 PASS"


def test_an_unknown_witness_exits_2_naming_it_and_the_known_ones() -> None:
    done = run_cli(*P, "run", "fake_green", "v99_nowhere")
    assert done.returncode == 2
    assert "unknown witness 'v99_nowhere'" in done.stderr
    assert "fake_green, fake_red, fake_import_error" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    "args",
    [("run",), ("run", "--all", "fake_green"), ("run", "fake_green", "--kind", "vibes"), ()],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    assert run_cli(*P, *args).returncode == 2


def test_a_floor_violation_exits_2_with_a_message_not_a_traceback() -> None:
    done = run_cli(*P, "-p", "tests.fakes.floor_plugin", "run", "fake_green", "fake_aggregator")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "fake_aggregator.everything_is_planned [aggregator]" in done.stderr
    assert done.stdout == ""


def test_a_plugin_that_fails_to_load_exits_2_naming_it() -> None:
    done = run_cli("-p", "tests.fakes.broken_plugin", "list")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "'tests.fakes.broken_plugin'" in done.stderr
    assert "RuntimeError: broken on purpose" in done.stderr


def test_a_plugin_that_exits_at_import_is_a_load_failure_not_a_pass() -> None:
    done = run_cli(*P, "-p", "tests.fakes.exiting_plugin", "run", "fake_red")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "'tests.fakes.exiting_plugin' (-p option): SystemExit: 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_hook_that_raises_system_exit_cannot_turn_a_red_run_green() -> None:
    done = run_cli(*P, "-p", "tests.fakes.exit_on_finish_plugin", "run", "fake_red")
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "plugin tests.fakes.exit_on_finish_plugin failed in hook claims_run_finished: "
        "SystemExit: 0" in done.stderr
    )
    without = run_cli(*P, "run", "fake_red")
    assert without.returncode == 1, without.stdout + without.stderr


def test_a_duplicate_witness_exits_2() -> None:
    done = run_cli(*P, "-p", "tests.fakes.duplicate_plugin", "run", "fake_green")
    assert done.returncode == 2
    assert "[duplicate-witness]" in done.stderr


def test_list_shows_counts_per_kind() -> None:
    done = run_cli(*P, "list")
    # The fakes include two unresolved witnesses: listed with their reason, and exit 1.
    assert done.returncode == 1
    assert done.stderr.strip() == "unresolved: fake_import_error, fake_missing"
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "witness",
        "planned_shape",
        "refusal",
        "positive_control",
        "pairing_obligation",
        "property",
        "identity",
        "total",
        "status",
    ]
    assert lines[3].split() == ["fake_red", "2", "1", "1", "1", "1", "1", "7", "ok"]
    assert "unresolved: import of tests.fakes.witness_import_error" in done.stdout


def test_json_format_parses(tmp_path: Path) -> None:
    done = run_cli(*P, "run", "fake_red", "--format", "json")
    doc = json.loads(done.stdout)
    assert doc["witnesses"]["fake_red"]["summary"] == "fake_red: 1/7 FAIL"


def test_markdown_and_github_formats() -> None:
    markdown = run_cli(*P, "run", "fake_green", "--format", "markdown")
    assert markdown.stdout.startswith("**fake_green: 4/4 PASS**\n")
    github = run_cli(*P, "run", "fake_red", "--format", "github")
    assert github.stdout.count(",title=") == 6
    assert github.stdout.splitlines()[-1] == "fake_red: 1/7 FAIL"


def test_junit_xml_is_written(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "claims.xml"
    done = run_cli(*P, "run", "fake_red", "--junit-xml", str(target))
    assert done.returncode == 1
    assert ET.parse(target).getroot().get("failures") == "4"


def test_a_plugin_command_receives_the_session() -> None:
    done = run_cli(*P, "-p", "tests.fakes.late_plugin", "fake-echo")
    assert done.returncode == 3
    assert done.stdout.splitlines()[0].endswith("fake_missing fake_order")
    assert "frontiers: [12353, 12351]" in done.stdout


@pytest.mark.parametrize("command", [(), ("list",), ("run",), ("fake-echo",)])
def test_every_help_says_what_it_does_with_an_example(command: tuple[str, ...]) -> None:
    done = run_cli(*P, *command, "--help")
    assert done.returncode == 0
    assert "example" in done.stdout


def test_entry_point_plugins_load_by_default() -> None:
    done = run_cli(*P, "run", "fake_green", autoload=True)
    assert done.returncode == 0, done.stderr
