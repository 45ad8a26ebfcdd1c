"""Declared mutants of the ``planner`` command line (witness ``dry_run_cli``).

Most replace ``planner.cli.main``, the entry point the console script calls, and change one
thing the user sees (an exit code, a printed line, an argument quietly dropped); the rest
replace the report renderers, the atomic writer or the scenario listing. Each mutant that
replaces ``main`` delegates to the real one, which the patching dispatcher runs.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import filerules.writing
from mutation import mutant
from planner.admission import hosts_held_by_subject
from planner.arm_launch import DryRun
from planner.arms import arm
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest, load_manifest
from planner.cli import dry_run, main, print_verdict
from planner.data import default_data_root
from planner.fabric import FabricGroup
from planner.frontiers import PlanInputs
from planner.provenance import InputRead
from planner.refusal import PlannerInputError, Refusal
from planner.report import render_report, write_atomically
from planner.runtime import ProducedImage, runtime_key_wall
from planner.scenarios import Scenario, load_scenario, scenario_names

Inputs = tuple[InputRead, ...] | None
"""What the report renderer is given of the files the plan read (its header)."""

W = "dry_run_cli"
BUG = f"{W}.a_bug_exits_70_in_one_located_line"
HOSTILE_INPUTS = f"{W}.a_hostile_inputs_file_exits_2_at_its_key"
ARGUMENTS = f"{W}.empty_and_unplannable_arguments_exit_2_located"
RUNTIME = f"{W}.an_image_built_for_another_runtime_is_refused"
ONE_LINE = f"{W}.every_error_is_one_line_whatever_the_input_holds"
WHERE = f"{W}.the_writer_writes_where_the_user_points"
SIGTERM = f"{W}.a_write_cut_short_by_sigterm_leaves_no_temp_file"
HINTS = f"{W}.every_refusal_prints_its_hint_on_the_next_line"
WHY = f"{W}.the_writers_errors_say_why_and_name_the_path"
HIDDEN = f"{W}.a_report_is_made_in_a_hidden_temp_beside_it_and_keeps_its_owner"
RECIPE_PLANS = f"{W}.recipe_prints_its_nodes_and_writes_each_nodes_plan"
USAGE_ERRORS = f"{W}.usage_and_input_errors_exit_2_naming_the_value_and_writing_nothing"
NOW = f"{W}.now_overrides_the_scenario_time"
DATA_FILES = f"{W}.every_data_file_is_read_from_the_data_root"
HELP_DEFAULTS = f"{W}.help_states_the_defaults_the_commands_use"
HELP_EXITS = f"{W}.help_states_the_exit_codes_and_its_examples_run"
RECIPE_ERRORS = f"{W}.recipe_errors_exit_2_with_every_problem_located"
REFUSED = f"{W}.refused_dry_runs_exit_1_printing_every_refusal_in_order"
VERDICT = f"{W}.the_verdict_section_states_the_decision"
UNWRITABLE = f"{W}.an_unwritable_out_exits_2_and_leaves_nothing_behind"
HELP_COMMANDS = f"{W}.help_documents_every_command_and_option"
SCENARIOS = f"{W}.scenarios_lists_every_scenario_with_its_description"
MAIN = "planner.cli.main"
WRITE_ATOMICALLY = "filerules.writing.write_atomically"
RENDER_REPORT = "planner.report.render_report"


def _rewritten(
    argv: Sequence[str] | None,
    out: Callable[[str], str] = lambda text: text,
    err: Callable[[str], str] = lambda text: text,
    code: Callable[[int], int] = lambda code: code,
) -> int:
    """Run the real ``main`` and pass its stdout, stderr and exit code through rewrites."""
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr):
            result = main(argv)
    except SystemExit:
        _relay(out(stdout.getvalue()), err(stderr.getvalue()))
        raise
    if not _relay(out(stdout.getvalue()), err(stderr.getvalue())):
        return 0  # the reader went away, as the real main treats it
    return code(result)


def _relay(out: str, err: str) -> bool:
    try:
        print(out, end="")
    except BrokenPipeError:
        sys.stderr.close()
        return False
    print(err, end="", file=sys.stderr)
    return True


@mutant(
    replaces=MAIN,
    turns_red={f"{W}.admitted_dry_runs_exit_0_and_say_where_the_report_went", NOW},
    independent=False,
)
def admitted_printed_in_lower_case(argv: Sequence[str] | None = None) -> int:
    """The decision line reads `ARM: admitted`, which a script matching ADMITTED misses."""
    return _rewritten(argv, out=lambda text: text.replace(": ADMITTED\n", ": admitted\n"))


@mutant(
    replaces=MAIN,
    turns_red={
        HELP_EXITS,
        f"{W}.without_out_each_arm_writes_its_default_report_under_the_working_directory",
        # the help now states each default report path, and these claims run them
        HELP_COMMANDS,
        HELP_DEFAULTS,
    },
    independent=False,
)
def default_report_lands_beside_the_caller(argv: Sequence[str] | None = None) -> int:
    """Without --out the dry-run report is written in the working directory itself, not
    under target/."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["dry-run"] and "--out" not in words and len(words) > 1:
        words += ["--out", f"{words[1].replace('_', '-')}-launch-dry-run.txt"]
    return _rewritten(words)


@mutant(replaces=MAIN, turns_red={DATA_FILES, REFUSED, NOW, HELP_EXITS, RUNTIME})
def refused_runs_exit_0(argv: Sequence[str] | None = None) -> int:
    """A refused dry run exits 0, as if admitted: a script gating on the exit code launches."""
    return _rewritten(argv, code=lambda code: 0 if code == 1 else code)


@mutant(replaces=MAIN, turns_red={DATA_FILES, REFUSED, NOW, RUNTIME, HINTS}, independent=False)
def refusal_lines_not_printed(argv: Sequence[str] | None = None) -> int:
    """Only the decision is printed; the user is not told which condition refused."""
    return _rewritten(argv, out=lambda text: re.sub(r"(?m)^refused: .*\n", "", text))


@mutant(
    replaces=MAIN,
    turns_red={
        USAGE_ERRORS,
        UNWRITABLE,
        DATA_FILES,
        SCENARIOS,
        RECIPE_ERRORS,
        HOSTILE_INPUTS,
        ARGUMENTS,
    },
    independent=False,
)
def input_errors_exit_1(argv: Sequence[str] | None = None) -> int:
    """A usage or input error exits 1, the code of a refusal, so a bad flag reads as a
    refused launch."""
    return _rewritten(argv, code=lambda code: 1 if code == 2 else code)


@mutant(replaces=MAIN, turns_red={USAGE_ERRORS, NOW, ARGUMENTS}, independent=False)
def now_ignored_with_a_scenario(argv: Sequence[str] | None = None) -> int:
    """With --scenario, --now is dropped: the log is always read at the scenario's time."""
    words = list(sys.argv[1:] if argv is None else argv)
    if "--scenario" in words and "--now" in words:
        at = words.index("--now")
        del words[at : at + 2]
    return _rewritten(words)


@mutant(replaces=MAIN, turns_red={RECIPE_ERRORS, USAGE_ERRORS}, independent=False)
def recipe_errors_stop_at_the_first_problem(argv: Sequence[str] | None = None) -> int:
    """A recipe with several problems reports only the first one."""
    if list(sys.argv[1:] if argv is None else argv)[:1] != ["recipe"]:
        return _rewritten(argv)
    return _rewritten(argv, err=lambda text: "".join(text.splitlines(keepends=True)[:1]))


@mutant(replaces=MAIN, turns_red={HELP_COMMANDS, HELP_DEFAULTS, HELP_EXITS}, independent=False)
def help_shows_only_the_usage(argv: Sequence[str] | None = None) -> int:
    """--help prints the usage line alone: no descriptions, defaults, examples or exit
    codes."""
    if "--help" not in list(sys.argv[1:] if argv is None else argv):
        return _rewritten(argv)
    return _rewritten(argv, out=lambda text: text.split("\n\n", 1)[0] + "\n")


@mutant(replaces=MAIN, turns_red={RECIPE_PLANS, HELP_DEFAULTS}, independent=False)
def recipe_defaults_to_group_b(argv: Sequence[str] | None = None) -> int:
    """A recipe without --group is planned over Group B, not the group_a the help states."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["recipe"] and "--group" not in words:
        words += ["--group", "group_b"]
    return _rewritten(words)


@mutant(replaces="planner.cli.dry_run", turns_red={USAGE_ERRORS, DATA_FILES, ARGUMENTS, ONE_LINE})
def data_root_ignored(args: argparse.Namespace) -> DryRun:
    """The dry run reads the fixtures whatever --data says."""
    return dry_run(argparse.Namespace(**{**vars(args), "data": None}))


@mutant(replaces=RENDER_REPORT, turns_red={HELP_DEFAULTS, RECIPE_PLANS, VERDICT})
def hosts_reported_in_reverse_rank_order(run: DryRun, inputs: Inputs = None) -> str:
    """The report lists the followers first and the head last."""
    return render_report(run.model_copy(update={"hosts": tuple(reversed(run.hosts))}), inputs)


@mutant(replaces=RENDER_REPORT, turns_red={VERDICT}, independent=False)
def refusal_count_dropped(run: DryRun, inputs: Inputs = None) -> str:
    """The verdict says `result: REFUSED` without how many conditions refused."""
    report = render_report(run, inputs)
    return re.sub(r"(?m)^result: REFUSED \(\d+\)$", "result: REFUSED", report)


@mutant(replaces=RENDER_REPORT, turns_red={RECIPE_PLANS}, independent=False)
def composed_steps_left_out_of_a_recipe_report(run: DryRun, inputs: Inputs = None) -> str:
    """A recipe's report leaves out each host's composed-model section: a reader applying
    it would never build the directory the container mounts."""
    hosts = tuple(h.model_copy(update={"composed": ()}) for h in run.hosts)
    return render_report(run.model_copy(update={"hosts": hosts}), inputs)


def _encoded(data: bytes | str) -> bytes:
    """What the writer writes: text as UTF-8 (a lone surrogate fails before anything is done)."""
    return data.encode("utf-8") if isinstance(data, str) else data


@mutant(replaces=WRITE_ATOMICALLY, turns_red={UNWRITABLE, WHERE, SIGTERM, WHY, HIDDEN})
def temp_file_left_when_the_rename_fails(target: Path, data: bytes | str) -> None:
    """A write that fails at the rename leaves its temp file beside the report."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f".{target.name}.partial"
    temp.write_bytes(_encoded(data))
    os.replace(temp, target)


@mutant(replaces=WRITE_ATOMICALLY, turns_red={SIGTERM, WHY, HIDDEN}, independent=False)
def written_in_place(target: Path, data: bytes | str) -> None:
    """The report is written in place: a write that fails halfway destroys the old one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        handle.write(_encoded(data))


@mutant(replaces=WRITE_ATOMICALLY, turns_red={WHY}, independent=False)
def write_errors_lose_their_reason(target: Path, data: bytes | str) -> None:
    """A write error says only what its errno means: "Is a directory" without "nothing was
    written", "Invalid argument" for a socket or a NUL byte, "Not a directory" without the
    file in the way."""
    try:
        write_atomically(target, data)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno is not None else None
        raise OSError(exc.errno, reason, exc.filename) from None


@mutant(replaces="filerules.writing._mode_for", turns_red={WHERE, HIDDEN})
def a_new_report_is_0644_whatever_the_umask(found: os.stat_result | None) -> int:
    """A new report is made rw-r--r-- whatever the umask: 027 leaves it readable by all,
    000 leaves it unwritable by the group the user meant to share it with."""
    return stat.S_IMODE(found.st_mode) if found is not None else 0o644


@mutant(replaces="filerules.writing._replace", turns_red={HIDDEN}, independent=False)
def the_temp_file_is_visible_and_owned_by_the_writer(
    target: Path, found: os.stat_result | None, data: bytes
) -> None:
    """The temp is a visible ``tmpXXXXXXXX`` beside the report (no leading dot, no .tmp), so
    ``ls`` and a bare glob see it mid-write; a report root rewrites becomes root's."""
    fd, temp = tempfile.mkstemp(dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), filerules.writing._mode_for(found))
            handle.write(data)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@mutant(replaces="planner.scenarios.scenario_names", turns_red={SCENARIOS, USAGE_ERRORS})
def scenarios_listed_in_reverse(root: Path) -> tuple[str, ...]:
    """Scenario names come out in reverse order (the listing and the 'known:' hint)."""
    return tuple(reversed(scenario_names(root)))


@mutant(replaces="planner.scenarios.load_scenario", turns_red={USAGE_ERRORS})
def an_unknown_scenario_names_no_near_one(root: Path, name: str) -> Scenario:
    """An unknown scenario lists the known ones, but not the one it was likely meant to be."""
    try:
        return load_scenario(root, name)
    except PlannerInputError as error:
        said = error.message.split("; did you mean")[0]
        raise PlannerInputError(error.source, error.where, said) from None


# --- hostile input ---------------------------------------------------------------------------


@mutant(replaces=MAIN, turns_red={BUG}, independent=False)
def a_bug_exits_1(argv: Sequence[str] | None = None) -> int:
    """A bug exits 1, the code for a refused plan: a script gating on the exit code takes a
    crash for a decision."""
    return _rewritten(argv, code=lambda code: 1 if code == 70 else code)


@mutant(replaces="planner.cli.internal_error_line", turns_red={BUG})
def a_bug_is_not_located(prog: str, exc: BaseException) -> str:
    """The internal-error line says what was raised but not where."""
    return f"{prog}: internal error: {type(exc).__name__}: {exc}"


@mutant(replaces="planner.scenarios.load_inputs", turns_red={HOSTILE_INPUTS})
def inputs_read_leniently(path: Path) -> PlanInputs:
    """The inputs file is read with plain ``json`` and validated in lax mode: a key given
    twice keeps its last value, ``"off"`` is false and ``"8000"`` a number."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return PlanInputs.model_validate(raw)
    except (OSError, ValueError) as exc:
        raise PlannerInputError(str(path), "<file>", f"cannot read plan inputs: {exc}") from exc


@mutant(
    replaces="planner.cli.dry_run",
    turns_red={
        USAGE_ERRORS,
        DATA_FILES,
        HELP_DEFAULTS,
        HELP_EXITS,
        RECIPE_ERRORS,
        RECIPE_PLANS,
        HOSTILE_INPUTS,
    },
    independent=False,
)
def glm_ignores_its_inputs(args: argparse.Namespace) -> DryRun:
    """An arm that does not use the inputs' values (glm_group_b) never reads --inputs, not
    even a missing file."""
    if not arm(args.arm).uses_inputs and args.scenario is None:
        return dry_run(argparse.Namespace(**{**vars(args), "inputs": None}))
    return dry_run(args)


@mutant(replaces=MAIN, turns_red={ARGUMENTS}, independent=False)
def an_empty_now_reads_the_wall_clock(argv: Sequence[str] | None = None) -> int:
    """``--now ''`` is taken as no --now at all: the log is read at the wall clock (or the
    scenario's time) instead of refusing the empty value."""
    words = list(sys.argv[1:] if argv is None else argv)
    while "--now" in words and words[words.index("--now") + 1 :][:1] == [""]:
        at = words.index("--now")
        del words[at : at + 2]
    return _rewritten(words)


@mutant(
    replaces="planner.data.manifest",
    turns_red={ARGUMENTS},
)
def a_manifest_is_loaded_unplaced(relative: str, root: Path | None = None) -> CheckpointManifest:
    """An arm's manifest is loaded without checking the planner can place its model: a model
    with no organisation crashes the plan further on."""
    return load_manifest((root or default_data_root()) / relative)


@mutant(replaces="planner.runtime.runtime_key_wall", turns_red={RUNTIME})
def the_images_runtime_key_is_ignored(image: ProducedImage, runtime_key: str) -> Refusal | None:
    """The produced image's runtime key is validated and then ignored: an image built for
    another runtime passes the wall."""
    return None


@mutant(replaces="planner.runtime.runtime_key_wall", turns_red={RUNTIME}, independent=False)
def the_runtime_refusal_has_no_hint(image: ProducedImage, runtime_key: str) -> Refusal | None:
    """An image built for another runtime is refused without a hint: the user is told what
    is wrong but not what to supply instead."""
    refused = runtime_key_wall(image, runtime_key)
    return None if refused is None else refused.model_copy(update={"hint": ""})


@mutant(
    replaces="filerules.text.printable",
    turns_red={ONE_LINE, ARGUMENTS, USAGE_ERRORS},
)
def errors_print_what_the_input_holds(text: object) -> str:
    """Error messages print keys and paths as they are: a newline in a key starts a new
    stderr line that looks like the tool's own."""
    return str(text)


@mutant(replaces=WRITE_ATOMICALLY, turns_red={WHERE, SIGTERM, WHY, HIDDEN}, independent=False)
def whatever_is_at_the_target_is_replaced(target: Path, data: bytes | str) -> None:
    """Every report goes through a 0600 temp file renamed over the target: a FIFO or
    /dev/null becomes a regular file, a symlink is replaced by a file, the umask is ignored
    and a replaced file loses its mode."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name[:40]}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(_encoded(data))
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@mutant(
    replaces=WRITE_ATOMICALLY,
    turns_red={SIGTERM, WHERE, UNWRITABLE, WHY, HIDDEN},
    independent=False,
)
def a_signal_mid_write_is_ignored(target: Path, data: bytes | str) -> None:
    """SIGTERM during a write is left to its handler and the write carries on: a program
    whose handler returns sees its report written as if nothing happened, and the default
    handler would end the process with the temp file still there."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name[:40]}.", dir=target.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(_encoded(data))
    os.replace(temp, target)


# --- hints ----------------------------------------------------------------------------------


@mutant(replaces="planner.refusal.Refusal.lines", turns_red={HINTS, REFUSED, NOW, VERDICT, RUNTIME})
def hints_left_unprinted(self: Refusal) -> tuple[str, ...]:
    """A refusal is printed and reported without its hint: the way out is dead data."""
    return (self.line(),)


@mutant(
    replaces="planner.admission.hosts_held_by_subject",
    turns_red={HINTS},
)
def a_host_not_held_refused_without_a_hint(
    state: AuthorityState, group: FabricGroup
) -> tuple[Refusal, ...]:
    """A host not held by the group's subject is refused with no hint of how to hold it."""
    return tuple(r.model_copy(update={"hint": ""}) for r in hosts_held_by_subject(state, group))


@mutant(replaces="planner.cli._one_of_arm_or_recipe", turns_red={USAGE_ERRORS})
def the_other_commands_options_are_ignored(args: argparse.Namespace) -> None:
    """An arm or --recipe is still required, but --scenario/--inputs with a recipe and
    --group/--name with an arm are silently ignored."""
    if (args.arm is None) == (args.recipe is None):
        raise PlannerInputError(
            "arguments",
            "arm" if args.arm is None else "--recipe",
            "give an arm or --recipe FILE" + ("" if args.arm is None else ", not both"),
        )


@mutant(replaces="planner.cli._unrecognized", turns_red={USAGE_ERRORS})
def a_misspelled_option_is_only_unrecognized(
    words: list[str], chosen: argparse.ArgumentParser, top: argparse.ArgumentParser
) -> str:
    """argparse's own message for a misspelled option: the user is not told which option
    was meant."""
    return f"unrecognized arguments: {' '.join(words)}"


@mutant(replaces="planner.cli.print_verdict", turns_red={RECIPE_PLANS})
def warnings_kept_out_of_stdout(run: DryRun) -> int:
    """The flags a recipe's image adds to stock vLLM are in the report only: a user reading
    the terminal never learns the stock parser would refuse them."""
    return print_verdict(run.model_copy(update={"warnings": ()}))


@mutant(replaces=RENDER_REPORT, turns_red={RECIPE_PLANS}, independent=False)
def warnings_kept_out_of_the_report(run: DryRun, inputs: Inputs = None) -> str:
    """The report leaves out the warnings stdout prints: the record of the dry run does not
    say which flags stock vLLM would refuse."""
    return render_report(run.model_copy(update={"warnings": ()}), inputs)
