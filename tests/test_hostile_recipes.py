"""Hostile recipes (``planner recipe FILE``): every problem is exit 2 naming the file and the
place (a key, ``args[i]``, a line and column, or ``<file>``), nothing written, never a
traceback; a name cannot forge report lines.

TOML has real types, so a recipe is validated strictly: ``"4"``, ``true`` and ``4.0`` are not
a node count, a date is not an image name; an integer beyond 64 bits (or beyond the 4,300
digits Python reads) is a problem at its place.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixtures.builders import TINY_RECIPE, Ran
from tests.hostile_support import HOSTILE, located_error, no_crash, planner_main
from witnesses.support import tree

TINY = TINY_RECIPE.read_text(encoding="utf-8")
BASE = "\n".join(line for line in TINY.splitlines() if not line.startswith("#")) + "\n"


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string, every non-ASCII or control character escaped."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append(f"\\U{ord(char):08X}")
    return '"' + "".join(out) + '"'


def _with(key: str, value: str) -> str:
    lines = [ln for ln in BASE.splitlines() if not ln.startswith(f"{key} =")]
    return "\n".join([*lines, f"{key} = {value}"]) + "\n"


def _breaks_lines(name: str) -> bool:
    return not name.isprintable()


_TMP = tempfile.TemporaryDirectory(prefix="hostile-recipe-")  # removed when the module goes


def _run(recipe: bytes) -> tuple[Ran, Path, Path]:
    tmp = Path(_TMP.name)
    shutil.rmtree(tmp / "out", ignore_errors=True)
    path = tmp / "recipe.toml"
    path.write_bytes(recipe)
    out = tmp / "out"
    out.mkdir()
    return planner_main("recipe", path, "--name", "tiny", "--out", out / "plan.txt"), path, out


def _baseline_lines() -> int:
    ran, _, out = _run(BASE.encode())
    assert ran.code == 0, ran.err
    return len((out / "plan.txt").read_text(encoding="utf-8").split("\n"))


BASELINE_LINES = _baseline_lines()
_NAMES = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=30)


@HOSTILE
@given(name=_NAMES)
def test_a_name_is_one_line_or_refused_at_name(name: str) -> None:
    ran, path, out = _run(_with("name", _toml_string(name)).encode())
    no_crash(ran)
    if _breaks_lines(name):
        message = located_error(ran, "planner", str(path), "1 problem(s)")
        assert message.startswith("name: ") and "not one line of printable text" in message
        assert tree(out) == []
        return
    assert ran.code == 0, ran.err
    report = (out / "plan.txt").read_text(encoding="utf-8").split("\n")
    assert report[2] == f"recipe: {path} ({name})"  # under the summary line
    assert len(report) == BASELINE_LINES


_INT_KEYS = ("required_nodes", "tensor_parallel_size", "pipeline_parallel_size")
_STR_KEYS = ("name", "docker_image", "model", "shm_size", "distributed_backend", "engine")
_NOT_INT = ('"4"', "true", "4.0", "nan", "inf", "1979-05-27", "[4]", "{ n = 4 }")
_NOT_STR = ("4", "true", "1.5", "1979-05-27T07:32:00Z", '["x"]', "{ a = 1 }")


@st.composite
def hostile_recipes(draw: st.DrawFn) -> tuple[bytes, str | re.Pattern[str], str]:
    """(recipe bytes, where the error is located, what the message says)."""
    family = draw(st.sampled_from(("int", "str", "huge", "args", "twice", "deep", "binary", "env")))
    count = re.compile(r"\d+ problem\(s\): ")
    if family == "int":
        key, value = draw(st.sampled_from(_INT_KEYS)), draw(st.sampled_from(_NOT_INT))
        return _with(key, value).encode(), count, f"{key}: "
    if family == "str":
        key, value = draw(st.sampled_from(_STR_KEYS)), draw(st.sampled_from(_NOT_STR))
        return _with(key, value).encode(), count, f"{key}: "
    if family == "huge":
        key = draw(st.sampled_from(_INT_KEYS))
        digits = draw(st.sampled_from([20, 25, 300, 4301, 6000]))
        text = _with(key, draw(st.sampled_from(["", "-"])) + "9" * digits)
        if digits > 4300:
            return text.encode(), re.compile(r"line \d+, column \d+: "), "unreadable integer"
        return text.encode(), count, f"{key}: an integer of {digits:,} digits is out of range"
    if family == "args":
        values = draw(
            st.lists(
                st.sampled_from(['"--x"', "4", "true", "[1]", "{ a = 1 }", "2.5"]),
                min_size=1,
                max_size=5,
            )
        )
        bad = next((i for i, v in enumerate(values) if v != '"--x"'), None)
        if bad is None:
            values.append("7")
            bad = len(values) - 1
        return _with("args", "[" + ", ".join(values) + "]").encode(), count, f"args[{bad}]: "
    if family == "twice":
        key = draw(st.sampled_from([*_INT_KEYS[:2], *_STR_KEYS]))
        text = BASE + f"{key} = {'4' if key in _INT_KEYS else _toml_string('x')}\n"
        return text.encode(), re.compile(r"line \d+, column \d+: "), "malformed TOML"
    if family == "deep":
        depth = draw(st.integers(min_value=2000, max_value=5000))
        text = BASE + "x = " + "[" * depth + "]" * depth + "\n"
        return text.encode(), "<file>", "nested too deeply"
    if family == "env":
        value = draw(st.sampled_from(["1", "true", "[]", "{ a = 1 }"]))
        text = BASE + f"[env]\nA = {value}\n"
        return text.encode(), count, "env.A: "
    junk = draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x00"]))
    cut = draw(st.integers(min_value=0, max_value=len(BASE)))
    data = BASE.encode()[:cut] + junk + BASE.encode()[cut:]
    where = "<file>" if junk != b"\x00" else re.compile(r"line \d+, column \d+: ")
    return data, where, "cannot read recipe" if junk != b"\x00" else "malformed TOML"


@HOSTILE
@given(case=hostile_recipes())
def test_a_hostile_recipe_is_a_located_error(
    case: tuple[bytes, str | re.Pattern[str], str],
) -> None:
    data, where, says = case
    ran, path, out = _run(data)
    message = (
        located_error(ran, "planner", str(path), where) if "\n" not in ran.err.rstrip("\n") else ""
    )
    if not message:  # several problems: the first line names the file, each problem its place
        no_crash(ran)
        assert ran.code == 2 and ran.out == ""
        assert ran.err.startswith(f"planner: error: {path}: ")
        message = ran.err.split(f"{path}: ", 1)[1]
    assert says in message, message
    assert tree(out) == []


_FLAG_PARTS = st.sampled_from(
    ["-", "--", "-r", "-n", "-O", "--node", "_rank", "--master", "-tp", "--max-num-seqs", "=", ".",
     "cpu_offload", "1", "-1", "-0.5", " ", "\x00", "\n", "'", "--engram-config", "x"]
)  # fmt: skip
_ARGS = st.lists(st.lists(_FLAG_PARTS, min_size=1, max_size=4).map("".join), max_size=8)


@HOSTILE
@given(args=_ARGS)
def test_hostile_args_are_planned_or_refused_at_their_index(args: list[str]) -> None:
    """Any args built from flag fragments (prefixes, short aliases glued to values, dotted
    keys, '--', NUL, quotes): exit 0 with a plan, or exit 2 with every problem at an
    args[i] that exists; never a traceback, nothing written on error."""
    ran, _, out = _run((BASE + f"args = [{', '.join(_toml_string(a) for a in args)}]\n").encode())
    no_crash(ran)
    assert ran.code in (0, 2), ran.err
    if ran.code == 2:
        places = re.findall(r"(?:problem\(s\): |^  )(args\[(\d+)\]): ", ran.err, re.MULTILINE)
        assert places and all(int(i) < len(args) for _, i in places), ran.err
        assert tree(out) == []


def _cpu_seconds(recipe: str, runs: int) -> float:
    """The least CPU time of ``runs`` in-process ``planner recipe`` runs on ``recipe``."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        ran, _, _ = _run(recipe.encode())
        best = min(best, time.process_time() - started)
        assert ran.code == 0, ran.err
    return best


def _many_dotted_keys(count: int) -> str:
    """``count`` distinct dotted Engram keys: one setting each, every one a warning."""
    args = [a for i in range(count) for a in (f"--engram-config.k{i}", "1")]
    return BASE + f"args = [{', '.join(map(_toml_string, args))}]\n"


def _many_declared_extensions(count: int) -> str:
    """``count`` unknown flags and ``count`` unknown Engram fields, each declared."""
    flags = [f"--zq{i}x" for i in range(count)]
    fields = [f"--engram-config.t{i}" for i in range(count)]
    args = [a for name in (*flags, *fields) for a in (name, "1")]
    listed = ", ".join(map(_toml_string, args))
    return BASE + (
        f"args = [{listed}]\n[image_extensions]\n"
        f"flags = [{', '.join(map(_toml_string, flags))}]\n"
        f"config_fields = [{', '.join(map(_toml_string, fields))}]\n"
    )


@pytest.mark.parametrize(
    ("make", "count"), [(_many_dotted_keys, 1000), (_many_declared_extensions, 150)]
)
def test_recipe_checks_grow_linearly(make: Callable[[int], str], count: int) -> None:
    """Ten times the args (or the declarations) costs about ten times the CPU, measured as
    a ratio of two sizes in one run (no absolute time): under 40x, where checks that scan
    what came before (quadratic: 100x, or worse) cannot stay. An 88 KB [image_extensions]
    took ~50 s and 200,000 args minutes when each setting was looked for in a list."""
    small = _cpu_seconds(make(count), runs=3)
    large = _cpu_seconds(make(10 * count), runs=2)
    assert large / small < 40, f"{large:.3f}s / {small:.3f}s = {large / small:.0f}x"


def _located(recipe: str, where: str) -> str:
    """The one problem of ``recipe`` (exit 2, located at ``where``, nothing written)."""
    ran, path, out = _run(recipe.encode())
    message = located_error(ran, "planner", str(path), "1 problem(s)")
    assert message.startswith(f"{where}: "), message
    assert tree(out) == []
    return message.removeprefix(f"{where}: ")


@pytest.mark.parametrize(
    ("words", "at"),
    [
        (["serve", "--port=9000"], 2),
        (["-m", "vllm.entrypoints.cli.main", "serve"], 1),
        (["serve", "a\u2028b"], 2),
    ],
)
def test_the_entrypoints_words_hold_no_option_and_no_control(words: list[str], at: int) -> None:
    """entrypoint[1:] reach the argv before the model, where vLLM's parser would read an
    option outside every rule the args are held to: each is one printable word, not an
    option (vLLM's options go in args). The other options and words are launcher_recipe's
    ``env_and_entrypoint_that_would_break_the_argv_are_refused``."""
    listed = ", ".join(map(_toml_string, ["vllm", *words]))
    message = _located(_with("entrypoint", f"[{listed}]"), f"entrypoint[{at}]")
    assert message.startswith(repr(words[at - 1]))


@pytest.mark.parametrize("key", ["build_profile", "docker_image_dir", "parent_model"])
@pytest.mark.parametrize("bad", ["\n", "\r", "\x1b", "\x85", "\u2028", "\t", "\0"])
def test_a_text_the_report_shows_is_one_line(key: str, bad: str) -> None:
    """A build profile (the candidate's runtime key, in the report), an image dir or a
    parent model holding a line break or a control character is refused at its key: it
    would forge report sections (``fit: …``) or reach the terminal raw."""
    text = BASE + f"{key} = {_toml_string(f'p{bad}fit: forged')}\n"
    assert "not one line of printable text" in _located(text, key)


@pytest.mark.parametrize("value", ["a\nb", "a\x1b[2Jb", "a\u2028b", "a\x85b", "a\tb"])
def test_an_env_value_or_arg_is_one_line(value: str) -> None:
    env = _located(BASE + f"[env]\nA = {_toml_string(value)}\n", "env.A")
    assert "a line break or a control character" in env
    for args in (["--served-model-name", value], [f"--x{value}"]):
        listed = ", ".join(map(_toml_string, args))
        at = len(args) - 1
        message = _located(BASE + f"args = [{listed}]\n", f"args[{at}]")
        assert message.endswith("a line break or control character: an arg is one line")


@pytest.mark.parametrize(
    "args",
    [
        ["--speculative-config", "{bad"],
        ["--speculative-config={bad"],
        ["--speculative_config={bad"],
        ["--speculative-conf={bad"],
        ["-sc={bad"],
        ["--limit-mm-per-prompt=[1,"],
        ["--engram-config.x={bad"],
        ["--engram-config.x", "{bad"],
    ],
)
def test_a_json_value_is_checked_in_every_spelling(args: list[str]) -> None:
    """A value that opens JSON is JSON whether it is the next arg or spelled in the flag
    (``=``, underscores, a prefix, a short alias, a dotted key)."""
    listed = ", ".join(map(_toml_string, args))
    message = _located(BASE + f"args = [{listed}]\n", f"args[{len(args) - 1}]")
    assert message.startswith("not JSON: ")


_BAD_NAMES = ["a@b:c", "a@b", "a:b", "a", "-a", ".a", "_a", "a" * 243, "a b", "a/b", "é-x"]


@pytest.mark.parametrize("name", _BAD_NAMES)
def test_a_name_docker_or_systemd_would_misread_is_refused(name: str, tmp_path: Path) -> None:
    """The arm name is the container's (docker: ``[a-zA-Z0-9][a-zA-Z0-9_.-]+``) and the
    units' (``<name>-head.service``: no '@', which systemd reads as a template instance,
    at most 255 characters): --name, or the name a recipe's file stem or directory gives,
    that either refuses is a usage/input error (exit 2) naming where it came from, and
    nothing is written."""
    recipe = tmp_path / "r.toml"
    recipe.write_text(BASE, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    ran = planner_main("dry-run", "--recipe", recipe, f"--name={name}", "--out", out / "p.txt")
    message = located_error(ran, "planner", "arguments", "--name")
    assert "is not a container and unit name" in message
    assert repr(name) in message or f"a name of {len(name)} characters" in message
    assert tree(out) == []
    if "/" in name or len(name) > 200:
        return  # no file stem of its own to derive it from (or too long for a file name)
    named = tmp_path / f"{name}.toml"
    named.write_text(BASE, encoding="utf-8")
    ran = planner_main("dry-run", "--recipe", named, "--out", out / "p.txt")
    located_error(ran, "planner", str(named), "the name of its file stem")
    in_dir = tmp_path / name / "recipe.toml"
    in_dir.parent.mkdir()
    in_dir.write_text(BASE, encoding="utf-8")
    ran = planner_main("dry-run", "--recipe", in_dir, "--out", out / "p.txt")
    located_error(ran, "planner", str(in_dir), "the name of its directory")
    assert tree(out) == []


@pytest.mark.parametrize("name", ["ab", "A1"])
def test_a_name_both_take_plans(name: str, tmp_path: Path) -> None:
    """The shortest names and a capital (``a.b-c_d`` and 242 characters are launcher_recipe's
    ``a_name_docker_or_systemd_would_misread_is_refused``)."""
    recipe = tmp_path / "r.toml"
    recipe.write_text(BASE, encoding="utf-8")
    ran = planner_main("dry-run", "--recipe", recipe, "--name", name, "--out", tmp_path / "p")
    assert ran.code == 0, ran.err
    assert f"## unit {name}-head.service" in (tmp_path / "p").read_text(encoding="utf-8")
