"""Recorded red sets: ``--record`` writes what the mutants do to other witnesses' claims, and
every run holds the lock exactly (the fake door and the fake lobby, through the real CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims import UsageError
from claims.exits import Exit
from plugins.mutate.declared.red_sets import HEADER, RedSets, observed, parse, render
from tests.fakes_mutation.support import run_mutate

LOBBY = {"FAKE_LOBBY": "1"}
RECORDED = {
    ("fake_door.key_check_removed", "fake_lobby.a_stranger_waits_in_the_lobby"),
    ("fake_door.the_door_never_closes", "fake_lobby.the_lobby_closes_at_night"),
    ("fake_lobby.the_lobby_never_closes", "fake_door.night_is_refused"),
    ("fake_lobby.the_lobby_takes_any_key", "fake_door.a_wrong_key_is_refused"),
}
"""What the door's and the lobby's mutants do to each other's claims (read off the fakes:
``key_fits`` and ``within_hours`` are called by both witnesses' claims)."""


def _lock(tmp_path: Path, pairs: set[tuple[str, str]]) -> Path:
    path = tmp_path / "red_sets.lock"
    path.write_text(render(pairs))
    return path


def test_record_writes_every_cross_witness_pair_and_the_run_is_then_exact(tmp_path: Path) -> None:
    lock = tmp_path / "new" / "red_sets.lock"
    done = run_mutate("--all", "--record", "--red-sets", str(lock), env=LOBBY)
    assert done.returncode == Exit.EXACT, done.stdout + done.stderr
    assert lock.read_text() == render(RECORDED)
    assert f"red sets: {lock} written, 4 pairs (+4 -0)" in done.stderr
    assert "red as recorded" in done.stdout
    again = run_mutate("--all", "--red-sets", str(lock), env=LOBBY)
    assert again.returncode == Exit.EXACT, again.stdout + again.stderr


def test_a_red_claim_the_lock_lacks_is_collateral_naming_mutant_and_claim(tmp_path: Path) -> None:
    lock = _lock(tmp_path, RECORDED - {next(iter(sorted(RECORDED)))})
    done = run_mutate("--all", "--red-sets", str(lock), env=LOBBY)
    assert done.returncode == Exit.COLLATERAL, done.stdout + done.stderr
    assert "collateral: key_check_removed [red: fake_lobby.a_stranger_waits_in_the_lobby]" in (
        done.stdout
    )
    assert "COLLATERAL: red, neither declared nor recorded" in done.stdout


def test_a_recorded_claim_that_stays_green_is_a_stale_lock(tmp_path: Path) -> None:
    extra = ("fake_door.every_sign_shouts", "fake_lobby.the_lobby_closes_at_night")
    done = run_mutate("--all", "--red-sets", str(_lock(tmp_path, RECORDED | {extra})), env=LOBBY)
    assert done.returncode == Exit.COLLATERAL, done.stdout + done.stderr
    assert "lock stale: every_sign_shouts [green: fake_lobby.the_lobby_closes_at_night]" in (
        done.stdout
    )
    assert "LOCK STALE: recorded red, stayed green" in done.stdout


def test_a_pair_naming_no_mutant_or_no_claim_is_listed_and_exits_4(tmp_path: Path) -> None:
    ghosts = {
        ("fake_door.no_such_mutant", "fake_lobby.the_lobby_closes_at_night"),
        ("fake_door.key_check_removed", "fake_lobby.no_such_claim"),
    }
    done = run_mutate("--all", "--red-sets", str(_lock(tmp_path, RECORDED | ghosts)), env=LOBBY)
    assert done.returncode == Exit.COLLATERAL, done.stdout + done.stderr
    assert "red sets: 2 recorded pair(s) name a mutant or claim that does not exist" in done.stdout
    assert "  fake_door.no_such_mutant fake_lobby.the_lobby_closes_at_night" in done.stdout


def test_a_run_of_one_witness_holds_none_of_its_cross_witness_pairs(tmp_path: Path) -> None:
    done = run_mutate("fake_door", "--red-sets", str(_lock(tmp_path, set())), env=LOBBY)
    assert done.returncode == Exit.EXACT, done.stdout + done.stderr


def test_a_named_lock_must_exist_and_a_malformed_line_is_located(tmp_path: Path) -> None:
    missing = run_mutate("--all", "--red-sets", str(tmp_path / "nope.lock"), env=LOBBY)
    assert missing.returncode == Exit.USAGE
    assert "nope.lock: the red sets: no such file" in missing.stderr
    bad = tmp_path / "bad.lock"
    bad.write_text(HEADER + "fake_door.key_check_removed\n")
    done = run_mutate("--all", "--red-sets", str(bad), env=LOBBY)
    assert done.returncode == Exit.USAGE
    assert f"{bad}:4: 'fake_door.key_check_removed' is not" in done.stderr
    assert "Traceback" not in done.stderr


def test_record_writes_nothing_when_a_mutant_run_ended_without_a_result(tmp_path: Path) -> None:
    """A partial observation would drop the hung mutant's pairs: the lock is left as it was."""
    lock = _lock(tmp_path, RECORDED)
    before = lock.read_bytes()
    done = run_mutate(
        "--all", "--record", "--red-sets", str(lock), "--timeout", "3", mutants="exact,hang",
        env=LOBBY,
    )  # fmt: skip
    assert done.returncode == Exit.TIMEOUT, done.stdout + done.stderr
    assert "nothing written" in done.stderr and "hours_computed_forever" in done.stderr
    assert lock.read_bytes() == before


def test_record_needs_all_and_the_declared_harness() -> None:
    alone = run_mutate("fake_door", "--record", env=LOBBY)
    assert alone.returncode == Exit.USAGE
    assert "--record needs --all" in alone.stderr
    survey = run_mutate("--generated", "--record", env=LOBBY)
    assert survey.returncode == Exit.USAGE
    assert "--record and --red-sets apply to the declared mutants only" in survey.stderr


def test_a_mutant_that_declares_another_witness_claim_breaks_the_floor() -> None:
    done = run_mutate("--all", mutants="foreign", env=LOBBY)
    assert done.returncode == Exit.USAGE
    assert "foreign-claim" in done.stderr
    assert "'fake_lobby.a_stranger_waits_in_the_lobby' is a claim of witness fake_lobby" in (
        done.stderr
    )


def test_parse_refuses_an_own_witness_pair_and_keeps_comments_out() -> None:
    assert parse("# note\n\nw.m v.c\n", "lock") == frozenset({("w.m", "v.c")})
    with pytest.raises(UsageError, match=r"lock:1: w\.c is a claim of the mutant's own witness"):
        parse("w.m w.c\n", "lock")
    with pytest.raises(UsageError, match=r"lock:2: .* is not"):
        parse("w.m v.c\nw.m v.c; rm\n", "lock")


def test_a_scope_holds_only_pairs_whose_two_witnesses_it_has() -> None:
    sets = RedSets(frozenset({("a.m", "b.c"), ("a.m", "c.d")}))
    assert sets.held(["a", "b"]) == frozenset({("a.m", "b.c")})
    assert sets.held(["a"]) == frozenset()
    assert observed({"a.m": frozenset({"a.x", "b.c"})}) == frozenset({("a.m", "b.c")})
