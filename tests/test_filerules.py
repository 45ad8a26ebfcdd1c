"""The leaf's small rules (``filerules``): ``--version`` computed only when asked for, and text
shown on one message line as both sides showed it before they shared one function. The writer
and the strict reader have their own hostile tests (test_hostile_writer.py, test_hostile_*)."""

from __future__ import annotations

import argparse
import sys

import pytest

from claims.files import FileProblem, parse_json
from filerules import JsonProblem, VersionAction, printable, strict_json


def _parser(calls: list[str]) -> argparse.ArgumentParser:
    def version() -> str:
        calls.append("asked")
        return "1.2.3+abc"

    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--version", action=VersionAction, version_text=version)
    parser.add_argument("--other", action="store_true")
    return parser


def test_version_is_computed_only_when_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[str] = []
    assert _parser(calls).parse_args(["--other"]).other and calls == []
    with pytest.raises(SystemExit) as ended:
        _parser(calls).parse_args(["--version"])
    assert (ended.value.code, calls) == (0, ["asked"])
    assert capsys.readouterr().out == "tool 1.2.3+abc\n"


def test_printable_escapes_as_python_writes_an_escape() -> None:
    """Every character that is not printable, in the form ``unicode_escape`` writes it (the
    kernel's rule before the two were one), and the rest as it is."""
    wrong = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        want = char if char.isprintable() else char.encode("unicode_escape").decode()
        if printable(char) != want:
            wrong.append(code)
    assert wrong == []
    assert printable(b"x") == "b'x'" and printable("a\nb") == "a\\nb"


def test_the_kernel_reads_the_same_refusal_located_alike() -> None:
    """The kernel's adapter keeps the leaf's place and words, and says where text that is
    not JSON stops being JSON."""
    text = '{"a": 1, "a": 2}'
    with pytest.raises(JsonProblem) as leaf:
        strict_json(text)
    with pytest.raises(FileProblem) as kernel:
        parse_json(text)
    assert (kernel.value.where, kernel.value.message) == (leaf.value.where, leaf.value.message)
    assert leaf.value.where == "a" and "(values 1 and 2)" in leaf.value.message
    with pytest.raises(FileProblem) as syntax:
        parse_json('{"a": }')
    assert syntax.value.where == "line 1, column 7" and syntax.value.syntax is not None
