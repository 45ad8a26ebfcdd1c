"""Launcher recipes: a safe shm size, the owned flags against vLLM's table, systemd's limit.

Validation, every spelling of an owned flag, the N-host plan, the composed model on real
files and the command line's exits are witnesses/rules/launcher_recipe.py's and
witnesses/surfaces/dry_run_cli.py's claims.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planner import data
from planner.identity import arm_name
from planner.recipe import (
    FIELD_DESTS,
    LAUNCHER_OWNED_DESTS,
    LAUNCHER_OWNED_FLAGS,
    RecipeInvalid,
    load_recipe,
    read_args,
    recipe_serve_argv,
)
from planner.recipe_launch import RecipeSources, recipe_dry_run
from planner.vllm_serve_options import SERVE_ACTIONS
from tests.realtools import systemd_unit_verifies

TINY_RECIPE = data.default_data_root() / "recipes" / "tiny.toml"
MINIMAL = TINY_RECIPE.read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "recipe.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> list[tuple[str, str]]:
    with pytest.raises(RecipeInvalid) as caught:
        load_recipe(path)
    return [(p.where, p.message) for p in caught.value.problems]


def test_a_name_with_shell_metacharacters_is_refused(tmp_path: Path) -> None:
    text = MINIMAL.replace('shm_size = "8g"', 'shm_size = "8g; rm -rf /"')
    assert [w for w, _ in _problems(_write(tmp_path, text))] == ["shm_size"]


def test_the_owned_flags_are_vllm_options_and_all_the_launcher_renders(tmp_path: Path) -> None:
    """Each launcher-owned flag is an option string of its dest in vLLM's serve option table
    (the real parser's, tests/test_recipe_vllm_spellings.py), and the flags the launcher
    renders after a recipe's (empty) args, over every rank, are every owned one and otherwise
    only the fields' (TP, PP): a flag rendered but not owned would override a recipe's
    silently."""
    options = dict(SERVE_ACTIONS)
    assert len(LAUNCHER_OWNED_FLAGS) == len(LAUNCHER_OWNED_DESTS)
    for flag, dest in zip(LAUNCHER_OWNED_FLAGS, LAUNCHER_OWNED_DESTS, strict=True):
        assert flag in options.get(dest, ()), f"{flag} is not vLLM's option of {dest}"
    recipe = load_recipe(_write(tmp_path, MINIMAL))
    group = data.fabric().group("group_a")
    rendered: set[str | None] = set()
    for rank in range(group.size):
        argv = recipe_serve_argv(recipe, group, rank, "org/tiny")
        assert argv[: argv.index("org/tiny") + 1] == (*recipe.entrypoint[1:], "org/tiny")
        rendered |= {r.dest for r in read_args(argv[argv.index("org/tiny") + 1 :])}
    assert set(LAUNCHER_OWNED_DESTS) <= rendered <= {*LAUNCHER_OWNED_DESTS, *FIELD_DESTS}


def test_the_longest_arm_name_makes_units_systemd_verifies(tmp_path: Path) -> None:
    """arm_name's length limit is systemd's, and tight: the longest name it takes plans
    units the real systemd-analyze verifies; one more character makes a unit name no file
    system here can even hold (NAME_MAX) and systemd refuses (UNIT_NAME_MAX)."""
    longest = "x" * 242
    assert arm_name(longest) == longest
    with pytest.raises(ValueError, match="systemd takes 255 at most"):
        arm_name(longest + "x")
    assert len(longest + "x-head.service") > os.pathconf(tmp_path, "PC_NAME_MAX")
    recipe = load_recipe(_write(tmp_path, MINIMAL))
    group = data.fabric().group("group_a")
    sources = RecipeSources(
        recipe=recipe, source="r", name=longest, group=group, manifest=None, state=None
    )
    for host in recipe_dry_run(sources).hosts:
        real = host.realization
        verified = systemd_unit_verifies(real.unit_name, real.unit_text)
        assert verified.ok, verified
