"""The docker stand-in encodes a command as docker 28 prints ``{{json .Config.Cmd}}``, byte
for byte: its Python encoder (``fixtures.sandbox.go_json``, which seeds containers) and its
``docker create`` (bash, which records them), both against :mod:`fixtures.go_json`, the
reference written over bytes from Go's rules. The planner's own ``go_json`` is held to the
same reference by a claim (``apply_check.a_command_is_compared_as_docker_prints_it_…``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fixtures import sandbox
from fixtures.go_json import ANY_TEXT, EDGES, as_bytes, reference
from fixtures.sandbox import STUBS


@settings(max_examples=2000)
@given(st.lists(ANY_TEXT, max_size=6))
@example([EDGES])
def test_the_stand_ins_encoder_is_gos_over_any_list_of_strings(values: list[str]) -> None:
    assert as_bytes(sandbox.go_json(tuple(values))) == reference(values)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["模型", "café"], '["模型","café"]'),
        (["<a>&b"], '["<a>&b"]'),
        (["\u2028\u2029"], '["\\u2028\\u2029"]'),
        (["\b\f\n\r\t\x00\x1f\x7f"], '["\\b\\f\\n\\r\\t\\u0000\\u001f\x7f"]'),
        (['"\\'], '["\\"\\\\"]'),
        (["\ud800"], '["\\ufffd\\ufffd\\ufffd"]'),
        ([], "[]"),
    ],
)
def test_the_reference_on_examples_written_from_gos_rules(values: list[str], expected: str) -> None:
    assert reference(values) == as_bytes(expected)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@settings(max_examples=100, deadline=None)
@given(st.lists(ANY_TEXT.filter(lambda v: "\0" not in v), min_size=1, max_size=6))
def test_the_docker_stand_in_records_cmd_as_real_docker_prints_it(values: list[str]) -> None:
    """``docker create`` of the stand-in stores ``{{json .Config.Cmd}}`` as docker 28 prints
    it: the same bytes as Go's encoder, for any argv (NUL cannot be in an argv)."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        (state / "images").mkdir()
        (state / "containers").mkdir()
        (state / "images" / "img").write_bytes(b"")
        argv = [v.encode("utf-8", "surrogatepass") for v in values]
        done = subprocess.run(
            [b"bash", bytes(STUBS / "_docker_create"), b"--name", b"c", b"img", *argv],
            env={"STUB_STATE": tmp, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert (state / "containers/c/cmd.json").read_bytes() == reference(values) + b"\n"
