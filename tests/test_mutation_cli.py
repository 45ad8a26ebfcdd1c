"""``claims mutate`` on the fake door, through the real CLI: each wrong way has its exit code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claims.exits import Exit
from plugins.mutate.stryker import validate
from tests.fakes_mutation.support import HERE, REPO, run_mutate, tree_digest


def test_exact_mutants_exit_zero_with_the_kill_matrix_and_the_witness_line(tmp_path: Path) -> None:
    before = tree_digest(HERE, REPO / "mutation")
    report = tmp_path / "declared.json"
    done = run_mutate("fake_door", "--report", str(report))
    assert done.returncode == Exit.EXACT, done.stdout + done.stderr
    assert (
        "fake_door: 6/6 mutants exact, combined exact, positive controls green, "
        "claims witnessed 6/6" in done.stdout
    )
    assert "[control] key_and_hours" in done.stdout
    assert "forced-fail sanity: 5/5 targets reach their declared claims" in done.stdout
    assert tree_digest(HERE, REPO / "mutation") == before
    written = json.loads(report.read_text())
    assert validate(written) == []
    entry = next(
        m
        for f in written["files"].values()
        for m in f["mutants"]
        if m["id"] == "fake_door.key_check_removed"
    )
    assert entry["status"] == "Killed"
    assert entry["expectedKilledBy"] == entry["killedBy"] == ["fake_door.a_wrong_key_is_refused"]


def test_a_survivor_exits_3_and_names_the_claim_that_stayed_green() -> None:
    done = run_mutate("fake_door", mutants="survivor")
    assert done.returncode == Exit.SURVIVOR, done.stdout + done.stderr
    assert "SURVIVED: declared red, stayed green" in done.stdout
    assert "(survived: closing_hour_still_open [green: fake_door.night_is_refused])" in done.stdout


def test_collateral_exits_4_and_names_the_undeclared_red_claim() -> None:
    done = run_mutate("fake_door", mutants="collateral")
    assert done.returncode == Exit.COLLATERAL
    assert re.search(r"a_revoked_badge_is_refused\s+green\s+red\s+COLLATERAL", done.stdout)


def test_a_red_positive_control_exits_4_and_says_so() -> None:
    done = run_mutate("fake_door", mutants="positive")
    assert done.returncode == Exit.COLLATERAL
    assert "POSITIVE CONTROL RED" in done.stdout
    assert "positive controls RED (fake_door.the_right_key_opens_by_day)" in done.stdout


def test_a_hang_is_a_timeout_exit_6() -> None:
    done = run_mutate("fake_door", "--timeout", "3", mutants="hang")
    assert done.returncode == Exit.TIMEOUT
    assert "TIMEOUT" in done.stdout and "no result after 3.0 s; killed" in done.stdout


def test_a_child_that_dies_is_a_crash_exit_6() -> None:
    done = run_mutate("fake_door", mutants="crash")
    assert done.returncode == Exit.TIMEOUT
    assert "CRASH" in done.stdout and "exit code 9, no result" in done.stdout


def test_a_target_the_claims_never_reach_fails_the_sanity_run_exit_7() -> None:
    done = run_mutate("fake_door", mutants="unreached")
    assert done.returncode == Exit.UNREACHED
    assert (
        "tests.fakes_mutation.door.badge_valid: replaced by a function that raises" in done.stdout
    )


def test_an_unwitnessed_claim_exits_8_unless_the_debt_list_names_it(tmp_path: Path) -> None:
    done = run_mutate("fake_door", mutants="partial")
    assert done.returncode == Exit.UNWITNESSED
    assert "claims witnessed 1/6 (unwitnessed: the_right_key_opens_by_day" in done.stdout
    # The end of the output says what to do: a mutant, or a debt entry.
    advice = done.stdout.rstrip().splitlines()[-3:]
    assert advice[0].startswith("unwitnessed (exit 8): no mutant turns 5 claim(s) red: ")
    assert "fake_door.the_right_key_opens_by_day" in advice[0]
    assert advice[1].startswith("  either declare a mutant that does (@mutant(")
    assert advice[2].startswith('  or owe one: `"<witness>.<claim>" = "why no mutant can yet"`')
    owed = [
        c
        for c in (
            "the_right_key_opens_by_day",
            "night_is_refused",
            "a_key_fits_its_own_lock",
            "the_sign_is_bracketed_and_calm",
            "a_revoked_badge_is_refused",
        )
    ]
    debt = tmp_path / "debt.toml"
    debt.write_text("[debt]\n" + "".join(f'"fake_door.{c}" = "owed"\n' for c in owed))
    paid = run_mutate("fake_door", "--debt", str(debt), mutants="partial")
    assert paid.returncode == Exit.EXACT, paid.stdout
    assert "claims witnessed 1/6 (5 in debt)" in paid.stdout
    debt.write_text('[debt]\n"fake_door.a_wrong_key_is_refused" = "stale"\n')
    stale = run_mutate("fake_door", "--debt", str(debt), mutants="exact")
    assert stale.returncode == Exit.UNWITNESSED
    assert "debt no longer owed: a_wrong_key_is_refused" in stale.stdout


def test_a_red_baseline_exits_5_and_runs_nothing_else() -> None:
    done = run_mutate("--all", env={"FAKE_RED_BASELINE": "1"})
    assert done.returncode == Exit.BASELINE
    assert "baseline NOT green: 1/7 claims red; nothing else was run" in done.stdout
    assert "fake_broken.this_never_holds: red by construction" in done.stdout


def test_declarations_that_break_the_floor_exit_2_listing_every_rule() -> None:
    done = run_mutate("fake_door", mutants="floor")
    assert done.returncode == Exit.USAGE
    for rule in (
        "no-statement",
        "target",
        "claim-id",
        "empty-kill-set",
        "signature",
        "positive-control-combined",
    ):
        assert f"[{rule}]" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "name the witnesses to check, or pass --all"),
        (("fake_door", "--all"), "not both"),
        (("fake_door", "--shard", "1/2"), "--shard only apply to --generated"),
        (("fake_door", "--first-kill"), "--first-kill only apply to --generated"),
        (("--values", "--first-kill", "--no-deletion"), "--first-kill, --no-deletion do not"),
        (("no_such_witness",), "unknown witness 'no_such_witness'"),
    ],
)
def test_misuse_exits_2_with_a_message(args: tuple[str, ...], message: str) -> None:
    done = run_mutate(*args)
    assert done.returncode == Exit.USAGE
    assert message in done.stderr


def test_help_documents_every_exit_code() -> None:
    done = run_mutate("--help")
    assert done.returncode == 0
    for code in (0, 2, 3, 4, 5, 6, 7, 8):
        assert f"\n  {code}  " in done.stdout
