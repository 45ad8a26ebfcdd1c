"""The operator conventions of ``planner`` no claim states: ``--out -``, apply's own
``--name`` help, a scenario's own default report, and the lines ``planner apply`` prints on
stderr while a step waits. The rest are claims: ``--version`` is
``saved_plan.a_planner_whose_code_changed_has_another_version``'s, "did you mean" (a
misspelled scenario, option, subcommand or arm) ``dry_run_cli``'s usage claim's and a
recipe key ``launcher_recipe``'s, an IPv6 address without brackets ``coordinator_cli``'s
``--hosts`` claim's, and that waiting lines go to stderr, and ``-q`` silences them,
``coordinator_cli.a_waiting_line_goes_to_stderr_at_once_and_quiet_silences_it``'s.

The command line runs in-process (``planner.cli.main``, as its console script calls it).
That a step held on its host says it still waits, over a real connection, is
``ssh_transport.a_step_still_running_says_so_at_each_tick``'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.builders import TINY_RECIPE, v41_dry_run
from planner.coordinator import (
    Ticks,
    progress_line,
)
from planner.transaction import parse_hosts, plan_transaction
from tests.hostile_support import planner_main

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


# --- 1. --out - -----------------------------------------------------------------------------


def test_out_dash_puts_the_report_alone_on_stdout_and_the_rest_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    file = planner_main("dry-run", "v41_group_a", "--scenario", "live", "--out", "r.txt")
    ran = planner_main("dry-run", "v41_group_a", "--scenario", "live", "--out", "-")
    assert (ran.code, file.code) == (1, 1)
    assert ran.out == (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert ran.err_lines[0] == "v41_group_a: report written to standard output (0 hosts rendered)"
    assert ran.err_lines[1:] == file.out.splitlines()[1:]  # refusals, hints and verdict
    assert ran.err_lines[-1] == "v41_group_a: REFUSED"
    assert _files(tmp_path) == ["r.txt"]


def test_out_dash_and_format_json_both_want_stdout_so_it_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = planner_main(
        "dry-run", "v41_group_a", "--scenario", "supplied", "--out", "-", "--format", "json"
    )
    assert (ran.code, ran.out) == (2, "")
    assert ran.err == (
        "planner: error: --out: -: --format json prints the plan on stdout: give --out a file\n"
    )
    assert _files(tmp_path) == []


def test_recipe_out_dash_writes_the_plan_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = planner_main("recipe", TINY_RECIPE, "--out", "-")
    assert ran.code == 0, ran.err
    assert ran.out.startswith("dry run: tiny")
    assert ran.err_lines[0].startswith("tiny: report written to standard output (")
    assert ran.err_lines[-1] == "tiny: PLANNED"
    assert _files(tmp_path) == []


def test_out_dot_slash_dash_is_a_file_named_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = planner_main("dry-run", "v41_group_a", "--scenario", "supplied", "--out", "./-")
    assert ran.code == 0
    assert ran.out.splitlines()[0] == "v41_group_a: report written to - (4 hosts rendered)"
    assert _files(tmp_path) == ["-"]


# --- 2. apply's --name ----------------------------------------------------------------------


def _help(command: str) -> str:
    ran = planner_main(command, "--help")
    assert ran.code == 0
    return " ".join(ran.out.split())


def test_apply_names_what_its_name_names_and_no_report() -> None:
    apply = _help("apply")
    assert "target/<name>-apply" in apply and "target/<name>-apply.journal" in apply
    assert "-plan.txt" not in apply
    assert "its report defaults to target/<name>-plan.txt" in _help("dry-run")
    assert "its report defaults to target/<name>-plan.txt" in _help("recipe")


# --- 3. a scenario's own default report -----------------------------------------------------


def test_a_refused_scenario_never_overwrites_the_admitted_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    admitted = planner_main("dry-run", "v41_group_a", "--scenario", "supplied")
    refused = planner_main("dry-run", "v41_group_a", "--scenario", "live")
    assert (admitted.code, refused.code) == (0, 1)
    target = tmp_path / "target"
    assert _files(target) == [
        "v41-group-a-launch-dry-run-live.txt",
        "v41-group-a-launch-dry-run-supplied.txt",
    ]
    report = (target / "v41-group-a-launch-dry-run-supplied.txt").read_text(encoding="utf-8")
    assert report.rstrip().endswith("result: ADMITTED")
    assert refused.out.startswith(
        "v41_group_a: report written to target/v41-group-a-launch-dry-run-live.txt "
    )


# --- 4. progress while a step waits ---------------------------------------------------------


def test_ticks_come_first_then_every_interval() -> None:
    ticks = Ticks(first=10, every=30)
    assert [ticks.after(s) for s in (0, 9.9, 10, 39.9, 40, 41, 100, 1000)] == [
        10, 10, 40, 40, 70, 70, 130, 1030,
    ]  # fmt: skip
    assert Ticks() == (10, 30)


def test_a_progress_line_names_the_step_the_time_and_the_deadline() -> None:
    plan = plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))
    door = next(s for s in plan.forward if s.stage.value == "front_door" and s.rank == 0)
    assert progress_line(door, 40.7, 2117) == (
        "  waiting: front_door@srv5: 40 s elapsed, gives up after 2117 s"
    )
