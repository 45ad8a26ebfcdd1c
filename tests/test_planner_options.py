"""The planning options (:mod:`planner.options`): each defined once, in one table, and taken
by ``planner dry-run``, ``planner recipe`` and ``planner apply`` through argparse parents."""

from __future__ import annotations

import argparse

import pytest

from planner.cli import _inputs_help, build_parser
from planner.options import PLANNING, Command, Option, planning_options

PAIRS = [(o, c) for o in PLANNING for c in sorted(o.commands)]


def _action(command: str, flag: str) -> argparse.Action:
    parser = build_parser().commands[command]
    found = [a for a in parser._actions if flag in a.option_strings]
    assert len(found) == 1, (command, flag, found)
    return found[0]


@pytest.mark.parametrize(("option", "command"), PAIRS, ids=lambda x: getattr(x, "flag", x))
def test_each_command_takes_the_tables_option(option: Option, command: Command) -> None:
    """The command's parser holds the row's option: its type, choices and default as the
    row says, its help the shared help then the command's own clause (``--inputs``: the
    arms' own words)."""
    action = _action(command, option.flag)
    assert action.type is option.extra.get("type")
    assert action.choices == option.extra.get("choices")
    assert action.default == option.extra.get("default")
    assert action.help == option.help_for(command, _inputs_help())


def test_no_flag_is_in_the_table_twice() -> None:
    flags = [o.flag for o in PLANNING]
    assert len(flags) == len(set(flags))


def test_the_inputs_help_is_the_arms_own() -> None:
    assert _action("apply", "--inputs").help == _action("dry-run", "--inputs").help
    assert _action("apply", "--inputs").help == _inputs_help()


def test_the_parent_keeps_the_tables_order() -> None:
    """Help lists a command's planning options in table order (the parent comes first)."""
    parent = planning_options("recipe", "inputs")
    flags = [a.option_strings[0] for a in parent._actions]
    assert flags == [o.flag for o in PLANNING if "recipe" in o.commands]
