"""``planner.apply.go_json``: a list of strings as docker's ``{{json}}`` template prints it,
and the docker stand-in's ``docker create`` recording it the same way, byte for byte.

docker's CLI (``templates.basicFunctions["json"]``) encodes with Go's ``json.Encoder``,
``SetEscapeHTML(false)``, and trims the newline the encoder appends. The reference here is
written from Go's ``encoding/json`` rules over *bytes*, as Go walks a string (its
``appendString``): ASCII ``"`` and ``\\`` get a backslash; ``\\b \\f \\n \\r \\t`` their short
escapes; other bytes below 0x20 ``\\u00xx`` (lower-case hex); every other ASCII byte (``<``,
``>``, ``&`` and DEL included) as is; a byte that does not start a valid UTF-8 sequence
``\\ufffd``; U+2028 and U+2029 ``\\u2028``/``\\u2029``; any other valid sequence as its raw bytes.
``go_json`` is written over characters; the two must agree on every list of strings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures import sandbox
from fixtures.sandbox import STUBS
from planner.apply import go_json

_SHORT = {0x22: b'\\"', 0x5C: b"\\\\", 0x08: b"\\b", 0x0C: b"\\f", 0x0A: b"\\n", 0x0D: b"\\r"}
_SHORT[0x09] = b"\\t"


def _sequence_length(data: bytes, i: int) -> int:
    """How many bytes the valid UTF-8 sequence at ``data[i]`` takes; 0 when none starts
    there (Go's utf8.DecodeRune returning RuneError of size 1)."""
    lead = data[i]
    ranges: list[tuple[int, int]]
    if 0xC2 <= lead <= 0xDF:
        ranges = [(0x80, 0xBF)]
    elif lead == 0xE0:
        ranges = [(0xA0, 0xBF), (0x80, 0xBF)]
    elif lead == 0xED:  # U+D800..U+DFFF are not characters
        ranges = [(0x80, 0x9F), (0x80, 0xBF)]
    elif 0xE1 <= lead <= 0xEF:
        ranges = [(0x80, 0xBF), (0x80, 0xBF)]
    elif lead == 0xF0:
        ranges = [(0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)]
    elif 0xF1 <= lead <= 0xF3:
        ranges = [(0x80, 0xBF)] * 3
    elif lead == 0xF4:
        ranges = [(0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)]
    else:
        return 0
    tail = data[i + 1 : i + 1 + len(ranges)]
    if len(tail) < len(ranges):
        return 0
    if any(not lo <= b <= hi for b, (lo, hi) in zip(tail, ranges, strict=True)):
        return 0
    return 1 + len(ranges)


def _go_string(data: bytes) -> bytes:
    out = bytearray(b'"')
    i = 0
    while i < len(data):
        byte = data[i]
        if byte < 0x80:
            if byte in _SHORT:
                out += _SHORT[byte]
            elif byte < 0x20:
                out += b"\\u00%02x" % byte
            else:
                out.append(byte)
            i += 1
            continue
        size = _sequence_length(data, i)
        if size == 0:
            out += b"\\ufffd"
            i += 1
        elif data[i : i + size] in (b"\xe2\x80\xa8", b"\xe2\x80\xa9"):
            out += b"\\u202" + (b"8" if data[i + 2] == 0xA8 else b"9")
            i += size
        else:
            out += data[i : i + size]
            i += size
    return bytes(out + b'"')


def reference(values: list[str]) -> bytes:
    """Go's encoding of ``values`` (a lone surrogate is the invalid bytes Python's
    ``surrogatepass`` makes of it, as a Go string would hold them)."""
    parts = [_go_string(v.encode("utf-8", "surrogatepass")) for v in values]
    return b"[" + b",".join(parts) + b"]"


ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()))
"""Every code point, lone surrogates included."""


@settings(max_examples=2000)
@given(st.lists(ANY_TEXT, max_size=6))
def test_go_json_is_gos_encoder_over_any_list_of_strings(values: list[str]) -> None:
    assert go_json(tuple(values)).encode("utf-8", "surrogatepass") == reference(values)
    assert sandbox.go_json(tuple(values)).encode("utf-8", "surrogatepass") == reference(values)


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
def test_go_json_examples(values: list[str], expected: str) -> None:
    assert go_json(tuple(values)) == expected


def test_go_json_reads_back_as_the_same_strings() -> None:
    values = ("serve", "--served-model-name", "模型", "<x>&", "\u2028", "\x01")
    assert tuple(json.loads(go_json(values))) == values


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
