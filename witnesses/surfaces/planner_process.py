"""Witness: what the ``planner`` command does as a process — ``--debug``, the exit codes of
an interrupt, a reader that went away and a bug, and the located errors of the recipe
command's names and paths.

Every claim calls the real entry point, ``planner.cli.main(argv)``, in this process (a
mutant switched after import is what runs), with stdout and stderr captured and every file
in a temporary directory. Where a claim needs the command line as built now, it drops the
parser ``planner`` keeps once built (before and after, so no later run sees a parser built
under another mutant). Expected values come from the help and the module docstring of
:mod:`planner.cli` (exit codes 0, 1, 2, 70, 130), from the recipe fixtures and the fabric
inventory. An interrupt or a closed pipe is provoked by a real stdout object whose ``write``
raises what the operating system would make Python raise.
"""

from __future__ import annotations

import ast
import importlib
import json
import signal
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import planner
import planner.arms
from claims import ClaimKind, Verdict, claim, difference, expect_equal, holds_unless
from fixtures.builders import (
    TINY_RECIPE,
    Raising,
    Ran,
    captured,
    data_root_env,
    run_planner,
    scenario,
)
from planner import cli
from planner.arm_launch import DryRun
from witnesses.arms.expected import expected, stated_arms
from witnesses.support import fabric_raw, planted_bug, renderer, tree

V41 = "v41_group_a"
DEBUG_HELP = "--debug on an internal error (exit 70), also print the traceback"
"""The help line of ``--debug`` as ``--help`` lays it out (whitespace folded)."""
TRACEBACK = "Traceback (most recent call last):"


def _interrupted(run: DryRun, *_: object) -> str:
    signal.raise_signal(signal.SIGINT)
    return "not reached: Python raises KeyboardInterrupt for the signal"


@contextmanager
def _module_beside_the_arms(tmp: Path) -> Iterator[None]:
    """A module ``notarm`` whose ARM is not an Arm, beside the arms, for the block."""
    (tmp / "notarm.py").write_text('ARM = "v41_group_a"\n', encoding="utf-8")
    planner.arms.__path__.append(str(tmp))
    try:
        yield
    finally:
        planner.arms.__path__.remove(str(tmp))
        sys.modules.pop("planner.arms.notarm", None)


def _shape(ran: Ran, head: str) -> tuple[bool, bool, bool]:
    """(stderr starts with a traceback, its last line is the internal error ``head``, more
    than one line); the exit code and the rest of the line are ``dry_run_cli``'s to state."""
    lines = ran.err.splitlines() or [""]
    return lines[0] == TRACEBACK, lines[-1].startswith(head), len(lines) > 1


# --------------------------------------------------------------------------- --debug


@claim(ClaimKind.REFUSAL)
def debug_before_or_after_the_command_prints_the_traceback_of_a_bug() -> Verdict:
    """On a bug (a planted one: the report renderer raises), ``planner --debug dry-run …``
    and ``planner dry-run … --debug`` (and so for ``recipe``) both print the traceback and
    then the one located internal-error line; without ``--debug`` only that line (its exit 70 is
    ``dry_run_cli.a_bug_exits_70_in_one_located_line``)."""
    head = "planner: internal error: PlantedBug: the renderer broke"
    got = []
    with tempfile.TemporaryDirectory() as tmp, renderer(planted_bug):
        out = Path(tmp) / "r.txt"
        for command in (
            ("dry-run", V41, "--scenario", "supplied", "--out", out),
            ("recipe", TINY_RECIPE, "--out", out),
        ):
            for argv in (command, ("--debug", *command), (*command, "--debug")):
                got.append(_shape(run_planner(*argv), head))
    want = ([(False, True, False)] + [(True, True, True)] * 2) * 2
    return expect_equal(want, got, "(traceback first, the internal error last, more than one line)")


@claim(ClaimKind.REFUSAL)
def debug_counts_even_when_the_command_line_cannot_be_built() -> Verdict:
    """When the command line itself cannot be built (a module beside the arms whose ARM is
    not an Arm), ``--debug`` anywhere in the words still prints the traceback before the
    internal-error line naming the module; without it, only that line."""
    head = (
        "planner: internal error: TypeError: planner.arms.notarm: ARM must be an Arm named 'notarm'"
    )
    got = []
    with tempfile.TemporaryDirectory() as tmp, _module_beside_the_arms(Path(tmp)):
        command = ("dry-run", V41, "--scenario", "supplied", "--out", Path(tmp) / "r.txt")
        for argv in (command, ("--debug", *command), (*command, "--debug")):
            got.append(_shape(run_planner(*argv), head))
    want = [(False, True, False)] + [(True, True, True)] * 2
    return expect_equal(want, got, "(traceback first, the internal error last, more than one line)")


def _help(*command: str) -> Ran:
    """``planner COMMAND --help`` from the parser itself (not through ``main``, whose exit
    codes are ``dry_run_cli``'s); the code is None when it does not exit."""

    def parsed() -> None:
        cli.build_parser().parse_args([*command, "--help"])

    return captured(parsed)


def _help_says(*command: str) -> bool:
    """Whether ``planner COMMAND --help`` exits 0 listing ``--debug`` as it should."""
    ran = _help(*command)
    return ran.code == 0 and DEBUG_HELP in " ".join(ran.out.split())


@claim(ClaimKind.PLANNED_SHAPE)
def every_commands_help_says_what_debug_does() -> Verdict:
    """``planner --help`` and the help of ``dry-run``, ``recipe`` and ``scenarios`` each
    list ``--debug``: on an internal error (exit 70), also print the traceback."""
    commands = ((), ("dry-run",), ("recipe",), ("scenarios",))
    got = {" ".join(("planner", *c)): _help_says(*c) for c in commands}
    return expect_equal(dict.fromkeys(got, True), got, "the help lists --debug")


def _inputs_help() -> str:
    """The --inputs paragraph of ``planner dry-run --help``, from the parser itself."""
    text = " ".join(_help("dry-run").out.split())
    return text.partition("--inputs INPUTS ")[2].partition(" --now")[0]


@contextmanager
def _arm_modules(tmp: Path, modules: dict[str, str], *, only: bool) -> Iterator[None]:
    """``modules`` (name: text) written to ``tmp`` and found among the arms for the block;
    with ``only``, the arms are those modules alone."""
    for name, text in modules.items():
        (tmp / f"{name}.py").write_text(text, encoding="utf-8")
    real = planner.arms.arms()  # imported first: a module of the same name is the real arm
    before = list(planner.arms.__path__)
    planner.arms.__path__[:] = [str(tmp)] if only else [*before, str(tmp)]
    try:
        yield
    finally:
        planner.arms.__path__[:] = before
        for name in modules.keys() - real.keys():
            sys.modules.pop(f"planner.arms.{name}", None)


GLM_COPY = (
    "from planner.arms.glm_group_b import ARM as GLM\n"
    'ARM = GLM.model_copy(update={"name": "glm_copy"})\n'
)
"""A second arm whose inputs are pinned: the GLM arm under another name."""
PINNED = (
    "inputs are all pinned, so for {} the file is read and validated but its values are not used"
)


@claim(ClaimKind.PLANNED_SHAPE)
def the_inputs_help_names_the_arms_that_do_not_use_the_values() -> Verdict:
    """``planner dry-run --help`` describes --inputs as frontier inputs (JSON) and names the
    arms whose inputs are all pinned (read and validated, values not used): none, one
    ("for it") or several ("for them"), as the arms say."""
    cases = {
        "the arms": ({}, False),
        "with a pinned copy": ({"glm_copy": GLM_COPY}, False),
        "only v41_group_a": ({"v41_group_a": "# the real arm, imported already\n"}, True),
    }
    got = {}
    for case, (modules, only) in cases.items():
        with tempfile.TemporaryDirectory() as tmp, _arm_modules(Path(tmp), modules, only=only):
            got[case] = _inputs_help()
    pinned = [arm for arm in stated_arms() if expected(arm).pinned]
    want = {
        "the arms": _pinned_help(pinned),
        "with a pinned copy": _pinned_help([*pinned, "glm_copy"]),
        "only v41_group_a": _pinned_help([]),
    }
    return expect_equal(want, got, "the --inputs help")


def _pinned_help(arms: list[str]) -> str:
    """The --inputs help naming ``arms`` (in the registry's order) as pinned."""
    head = "frontier inputs (JSON)"
    if not arms:
        return head
    whose = " and ".join(f"{arm}'s" for arm in arms)
    return f"{head}; {whose} {PINNED.format('it' if len(arms) == 1 else 'them')}"


# --------------------------------------------------------------------------- the process


@claim(ClaimKind.PLANNED_SHAPE)
def the_console_script_reads_the_words_after_the_program_name() -> Verdict:
    """``planner scenarios`` as the console script runs it (``main()`` with no argument, the
    words in ``sys.argv``) lists the scenarios and exits 0: the program name is not a word."""
    before = sys.argv
    sys.argv = ["planner", "scenarios"]
    try:
        ran = captured(lambda: cli.main(None))
    finally:
        sys.argv = before
    listed = run_planner("scenarios")
    got = (ran.code, ran.out, ran.err)
    return expect_equal((0, listed.out, ""), got, "(exit, stdout, stderr)")


@claim(ClaimKind.REFUSAL)
def an_interrupt_exits_130_and_a_closed_pipe_exits_0() -> Verdict:
    """A Ctrl-C (a real SIGINT) while a dry run renders exits 130 with ``planner:
    interrupted`` on stderr and nothing else, no report written; a reader that went away
    while a dry run prints (the report already written) exits 0 with stderr closed and
    nothing on it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.txt"
        argv = ("dry-run", V41, "--scenario", "supplied", "--out", out)
        with renderer(_interrupted):
            stopped = run_planner(*argv)
        left = tree(Path(tmp))
        gone = run_planner(*argv, stdout=Raising(BrokenPipeError(32, "Broken pipe")))
        written = out.is_file()
    got = [
        (stopped.code, stopped.out, stopped.err, left),
        (gone.code, gone.err, gone.stderr_closed, written),
    ]
    want = [(130, "", "planner: interrupted\n", []), (0, "", True, True)]
    return expect_equal(
        want, got, "[(interrupt: exit, stdout, stderr, left), (pipe: exit, stderr, closed, report)]"
    )


# --------------------------------------------------------------------------- located errors
# Each error below is one stderr line and nothing on stdout; that input errors exit 2 is
# dry_run_cli's claim (usage_and_input_errors_exit_2_naming_the_value_and_writing_nothing).


@claim(ClaimKind.REFUSAL)
def a_bad_container_name_is_an_input_error_at_name() -> Verdict:
    """``planner recipe FILE --name NAME`` with a NAME docker would refuse as a container
    name (here with a space) prints one line naming ``--name``, the value and the grammar
    it breaks; a recipe file whose own stem is such a name, with no --name, is named by its
    file and "the name of its file stem", and told to give --name; nothing is written."""
    name = "two words"
    with tempfile.TemporaryDirectory() as tmp:
        ran = run_planner("recipe", TINY_RECIPE, "--name", name, "--out", Path(tmp) / "p.txt")
        unnamed = Path(tmp) / f"{name}.toml"
        unnamed.write_bytes(TINY_RECIPE.read_bytes())
        stem = run_planner("recipe", unnamed, "--out", Path(tmp) / "p.txt")
        left = tree(Path(tmp))
    why = (
        f"{name!r} is not a container and unit name: docker takes [a-zA-Z0-9][a-zA-Z0-9_.-]+ "
        "(two characters at least; no '@', which systemd reads as a template instance, no ':')"
    )
    return expect_equal(
        (
            "",
            f"planner: error: arguments: --name: {why}\n",
            f"planner: error: {unnamed}: the name of its file stem: {why}; give --name\n",
            [unnamed.name],
        ),
        (ran.out, ran.err, stem.err, left),
        "(stdout, stderr with --name and without, left)",
    )


@claim(ClaimKind.REFUSAL)
def a_composed_model_linking_another_repo_is_located_in_the_recipe() -> Verdict:
    """A recipe whose ``[composed_model]`` first source names a repo other than the recipe's
    model prints one line naming the file, ``composed_model.sources[0].repo``, both repos
    and why; nothing is written."""
    model = "deepseek-ai/DeepSeek-V4.1-Flash"  # the model of a snapshot in fixtures/checkpoints
    text = TINY_RECIPE.read_text(encoding="utf-8").replace('"org/tiny"', f'"{model}"')
    composed = (
        '[composed_model]\nmount = "/model"\n\n[[composed_model.sources]]\nrepo = "org/other"\n'
    )
    with tempfile.TemporaryDirectory() as tmp:
        recipe = Path(tmp) / "other.toml"
        recipe.write_text(text + composed, encoding="utf-8")
        ran = run_planner("recipe", recipe, "--out", Path(tmp) / "p.txt")
        left = tree(Path(tmp))
    line = (
        f"planner: error: {recipe}: 1 problem(s): composed_model.sources[0].repo: 'org/other' "
        f"is not the recipe's model '{model}', whose snapshot is linked\n"
    )
    return expect_equal(
        ("", line, ["other.toml"]), (ran.out, ran.err, left), "(stdout, stderr, left)"
    )


@claim(ClaimKind.REFUSAL)
def an_out_that_cannot_take_the_report_says_why() -> Verdict:
    """An --out the system refuses (here a file name over 255 bytes) prints one line naming
    --out and the reason the system gives (that nothing is left behind is
    ``dry_run_cli.an_unwritable_out_exits_2_and_leaves_nothing_behind``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / ("r" * 300)
        ran = run_planner("dry-run", V41, "--scenario", "supplied", "--out", out)
    line = f"planner: error: --out {out}: cannot write the report: File name too long\n"
    return expect_equal(("", line), (ran.out, ran.err), "(stdout, stderr)")


@claim(ClaimKind.REFUSAL)
def a_data_root_without_the_arms_group_names_it_and_the_groups_it_has() -> Verdict:
    """A data root whose fabric.json has no group for the arm prints one line naming that
    file, the group, the arm and the groups it does have — ``none`` when it lists none."""
    supplied = scenario("supplied")
    raw = fabric_raw()
    got, want = [], []
    for groups in ([], [g for g in raw["groups"] if g["name"] != "group_a"]):
        with tempfile.TemporaryDirectory() as tmp, data_root_env(Path(tmp)):
            (Path(tmp) / "fabric.json").write_text(json.dumps({**raw, "groups": groups}))
            ran = run_planner(
                "dry-run", V41, "--authority", supplied.authority,
                "--now", supplied.now.isoformat(), "--out", Path(tmp) / "r.txt",
            )  # fmt: skip
            got.append((ran.out, ran.err))
        known = ", ".join(g["name"] for g in groups) or "none"
        message = f"no fabric group 'group_a', which {V41} plans over; known groups: {known}"
        want.append(("", f"planner: error: {tmp}/fabric.json: groups: {message}\n"))
    return expect_equal(want, got, "(stdout, stderr)")


def _typed_homes() -> dict[str, str]:
    """Each public name and the module the type checker imports it from: the imports under
    ``if TYPE_CHECKING:`` in ``planner/__init__.py``, read from its source."""
    tree = ast.parse(Path(planner.__file__).read_text(encoding="utf-8"))
    guarded = [n for n in tree.body if isinstance(n, ast.If)]
    return {
        alias.name: node.module or ""
        for block in guarded
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


@claim(ClaimKind.PLANNED_SHAPE)
def every_public_name_is_the_object_its_module_defines() -> Verdict:
    """``planner.NAME`` (what ``from planner import NAME`` reads), for each name of
    ``planner.__all__``, is the very object the module the type checker imports it from
    defines, the same object each time it is asked for (kept on the package once asked for,
    so a later use is a dictionary lookup); ``dir(planner)`` lists every one; and
    a name the planner does not have is an ``AttributeError`` naming it, as for any module."""
    homes, face = _typed_homes(), vars(planner)
    kept = {name: face.pop(name) for name in planner.__all__ if name in face}
    problems = []
    try:
        for name in planner.__all__:  # each asked for afresh, as by a process new to it
            if name not in homes:
                problems.append(f"{name} is not imported for the type checker")
                continue
            want = getattr(importlib.import_module(homes[name]), name)
            got = [getattr(planner, name, None) for _ in range(2)]
            problems += [f"planner.{name} is {g!r}, not its module's" for g in got if g is not want]
            problems += (
                [f"planner.{name} is not kept on the package"] if face.get(name) is not want else []
            )
        listed = dir(planner)
        problems += [f"dir(planner) leaves out {n}" for n in planner.__all__ if n not in listed]
        try:
            problems += [f"planner.no_such_name is {planner.no_such_name!r}"]
        except AttributeError as exc:
            said = "module 'planner' has no attribute 'no_such_name'"
            problems += difference("an unknown name", said, str(exc))
    finally:
        face.update(kept)
    return holds_unless(problems, f"{len(planner.__all__)} public names, each its module's object")
