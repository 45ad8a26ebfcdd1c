"""Witness: a saved plan is bound to what it read and to what ``planner apply --plan`` runs.

``planner dry-run --plan-out PLAN`` saves the plan an operator reviews; ``planner apply
--plan PLAN`` must run exactly it or refuse naming what changed. Each claim saves the V4.1
plan from copies of its inputs in a temporary directory (:mod:`fixtures.saved_plans`), then
changes one thing and runs the real command line. The expected digests are computed here
from the files themselves with :mod:`hashlib`, never copied from a plan.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import planner
from claims import ClaimKind, Verdict, claim, difference, holds_unless
from fixtures.builders import (
    TINY_RECIPE,
    data_root_env,
    run_planner,
    v41_dry_run,
    working_directory,
)
from fixtures.live_log import append_event
from fixtures.saved_plans import HOSTS, V41_MANIFEST, SavedPlanFiles, scratch
from planner.formats import DOCUMENTS
from planner.realize import HostRealization
from planner.version import code_digest, planner_version
from witnesses.support import PLAN_HOLDS, recording_client, refused_each_and_together

TERMINAL = 120
"""The columns ``apply --dry-run`` must fit by default."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextmanager
def _saved(data: bool = True) -> Iterator[SavedPlanFiles]:
    with scratch("saved-plan-") as tmp:
        files = SavedPlanFiles(Path(tmp))
        ran = files.save(data=data)
        if ran.code != 0:
            raise AssertionError(f"the plan could not be saved: exit {ran.code}: {ran.err}")
        yield files


@claim(ClaimKind.PLANNED_SHAPE)
def a_saved_plan_names_every_file_it_read_with_the_sha256_of_its_bytes() -> Verdict:
    """The plan names exactly the files planning read (the log, the inputs, the inventory,
    the V4.1 manifest), each with the size and sha256 of its bytes as they are on disk; the
    authority log as a prefix (events may be appended), every other file whole."""
    with _saved() as files:
        want = {
            ("authority log", str(files.log), True),
            ("plan inputs", str(files.inputs), False),
            ("inventory", str(files.data / "fabric.json"), False),
            ("manifest", str(files.data / V41_MANIFEST), False),
        }
        named = files.document()["inputs"]
        problems = difference("inputs", sorted(want), sorted(_named(named)))
        for read in named:
            data = Path(read["path"]).read_bytes()
            problems += difference(read["path"], (len(data), _sha(data)), _digest(read))
    return holds_unless(problems, "4 inputs, each its file's size and sha256")


def _named(inputs: list[dict[str, Any]]) -> set[tuple[str, str, bool]]:
    return {(r["role"], r["path"], r["prefix"]) for r in inputs}


def _digest(read: dict[str, Any]) -> tuple[int, str]:
    return read["size"], read["sha256"]


@claim(ClaimKind.PLANNED_SHAPE)
def a_saved_plan_holds_every_stage_script_of_every_host_with_its_sha256() -> Verdict:
    """Per host in rank order, what the operator reviews of it (host, rank, container, unit,
    the whole docker create argv) as the dry run realizes it, and every stage script the dry
    run renders (forward, rollback and cleanup), byte for byte, each with the sha256 of its
    bytes; the summary counts them."""
    planned = v41_dry_run("supplied")
    want = [
        [(s.stage.value, s.script, _sha(s.script.encode())) for s in h.steps] for h in planned.hosts
    ]
    with _saved() as files:
        saved = files.document()
    got = [[(s["stage"], s["script"], s["sha256"]) for s in h["steps"]] for h in saved["hosts"]]
    problems = difference("hosts' steps", want, got)
    problems += difference(
        "hosts",
        [_reviewed(h.realization) for h in planned.hosts],
        [
            (h["host"], h["rank"], h["container"], h["unit"], h["create_argv"])
            for h in saved["hosts"]
        ],
    )
    problems += difference("summary", "4 hosts, 32 steps, ADMITTED", saved["summary"])
    return holds_unless(problems, "4 hosts x 8 stage scripts with their sha256")


def _reviewed(real: HostRealization) -> tuple[str, int, str, str, list[str]]:
    return real.host_name, real.rank, real.container_name, real.unit_name, list(real.create_argv)


@claim(ClaimKind.PLANNED_SHAPE)
def a_saved_plan_states_the_verdict_of_its_dry_run() -> Verdict:
    """Saved from a scenario (admitted, refused before rendering, refused after), the plan's
    verdict is the dry run's: its result, when the log was read, the candidate and every
    refusal (code, location, message, hint) in order."""
    problems = []
    with scratch("saved-plan-") as tmp:
        for name in ("supplied", "live", "active_incumbent"):
            plan = Path(tmp) / f"{name}.json"
            out = ("--out", Path(tmp) / "r.txt", "--plan-out", plan)
            run_planner("dry-run", "v41_group_a", "--scenario", name, *out)
            saved = json.loads(plan.read_text(encoding="utf-8"))["verdict"]
            planned = v41_dry_run(name)
            refusals = [[r.code, r.where, r.message, r.hint] for r in planned.refusals]
            want = [planned.verdict, planned.read_at, planned.candidate.key, refusals]
            got = [saved["result"], _time(saved["read_at"]), saved["candidate"]]
            got.append(
                [[r["code"], r["location"], r["message"], r["hint"]] for r in saved["refusals"]]
            )
            problems += difference(name, want, got)
    return holds_unless(problems, "3 verdicts saved as planned")


@claim(ClaimKind.REFUSAL)
def a_plan_that_cannot_be_saved_stops_the_run_before_the_report() -> Verdict:
    """``--plan-out`` is written first and said so (``ARM: plan saved to PATH``, the first
    line); a path that cannot take the plan (a directory) exits 2 naming it and why, says
    nothing on stdout and writes no report: no report is reviewed whose plan was not saved."""
    with scratch("saved-plan-") as tmp:
        report, plan = Path(tmp) / "r.txt", Path(tmp) / "plan.json"
        argv = ("dry-run", "v41_group_a", "--scenario", "supplied")
        ran = run_planner(*argv, "--out", report, "--plan-out", plan)
        first = ran.out.splitlines()[0] if ran.out else ""
        problems = difference("saved", (0, f"v41_group_a: plan saved to {plan}"), (ran.code, first))
        blocked = Path(tmp) / "a-directory"
        blocked.mkdir()
        other = Path(tmp) / "r2.txt"
        ran = run_planner(*argv, "--out", other, "--plan-out", blocked)
        said = f"planner: error: --plan-out {blocked}: cannot write the plan: Is a directory"
        said += " (refused: nothing was written)\n"
        problems += difference(
            "a directory", (2, "", said, False), (ran.code, ran.out, ran.err, other.exists())
        )
    return holds_unless(problems, "the plan saved first and said so; unsaved, nothing after")


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@claim(ClaimKind.PROPERTY)
def a_planner_whose_code_changed_has_another_version() -> Verdict:
    """The version a plan is bound to follows the planner's code: a copy of ``planner/``
    digests as the original does, and any edit, a file added, or a file in a subpackage
    (``arms/``) changed gives another digest; ``planner --version`` prints the version,
    ``RELEASE+DIGEST`` (the digest's first 12 hex digits), and exits 0."""
    source = Path(planner.__file__).parent
    with scratch("planner-copy-") as tmp:
        copy = Path(shutil.copytree(source, Path(tmp) / "planner", ignore=_no_cache))
        digests = [code_digest(copy)]
        (copy / "added.py").write_text("")
        digests.append(code_digest(copy))
        arm = copy / "arms" / "v41_group_a.py"
        arm.write_text(arm.read_text() + "# edited\n")
        digests.append(code_digest(copy))
    problems = difference("the copy", code_digest(source), digests[0])
    problems += difference("distinct digests", 3, len(set(digests)))
    ran = run_planner("--version")
    said = (0, f"planner {planner_version()}\n", "")
    problems += difference("--version", said, (ran.code, ran.out, ran.err))
    shape = re.fullmatch(r"\S+\+[0-9a-f]{12}", planner_version()) is not None
    problems += difference("the version is RELEASE+DIGEST (12 hex digits)", True, shape)
    return holds_unless(problems, "copy equal; an added file and an edit in arms/ each change it")


def _no_cache(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


CHANGED = "changed since the plan: "
LAPSED = "3000-01-01T00:00:00+00:00: refused:"
"""A time past the live log's leases (they end in 2999), as the refusal prints it."""

Change = Callable[[SavedPlanFiles, dict[str, Any]], str]
"""Changes one thing after the plan was saved (given the saved document) and returns the
error line ``apply --plan`` must print for it, after ``planner: error: PLAN: ``."""


def _input(saved: dict[str, Any], role: str) -> dict[str, Any]:
    return dict(next(r for r in saved["inputs"] if r["role"] == role))


def _edited(files: SavedPlanFiles, saved: dict[str, Any], role: str, path: Path) -> str:
    """The file's last byte replaced (its size kept): its bytes differ."""
    path.write_bytes(path.read_bytes()[:-1] + b" ")
    sha = _input(saved, role)["sha256"][:12]
    why = f"its bytes differ from what the plan read (sha256 {sha}…)"
    return f"inputs: {role} {path}: {CHANGED}{why}"


def _grown(saved: dict[str, Any], role: str, path: Path) -> str:
    """A line break appended: the file reads the same, but it is not the file the plan read
    (only the authority log is bound as a prefix)."""
    path.write_bytes(path.read_bytes() + b"\n")
    size = _input(saved, role)["size"]
    return f"inputs: {role} {path}: {CHANGED}is longer now (the plan read {size} bytes)"


def _log_rewritten(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.log.write_text(files.log.read_text().replace('"seq":1,', '"seq":0,', 1))
    read = _input(saved, "authority log")
    return (
        f"inputs: authority log {files.log}: changed since the plan: its first {read['size']} "
        f"bytes differ from what the plan read (sha256 {read['sha256'][:12]}…)"
    )


def _log_cut(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    text = files.log.read_bytes()[:-2]
    files.log.write_bytes(text)
    size = _input(saved, "authority log")["size"]
    return (
        f"inputs: authority log {files.log}: changed since the plan: is shorter now "
        f"({len(text)} bytes; the plan read {size})"
    )


def _removed(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.inputs.unlink()
    return (
        f"inputs: plan inputs {files.inputs}: changed since the plan: cannot be read now: "
        "No such file or directory"
    )


def _other_planner(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.edit_plan(lambda d: d.update(planner_version="0+elsewhere"))
    return (
        f"planner_version: saved by planner 0+elsewhere, this is {planner_version()}: make the "
        "plan again with this planner and review it"
    )


def _script_edited(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.edit_plan(lambda d: d["hosts"][2]["steps"][2].update(script="true\n"))
    return "hosts[2].steps.apply: the script is not the one its sha256 names: edited"


def _script_and_digest_edited(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    forged = {"script": "true\n", "sha256": _sha(b"true\n")}
    files.edit_plan(lambda d: d["hosts"][1]["steps"][3].update(forged))
    return "hosts[1].steps.readback: the plan made now differs from it"


def _host_removed(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.edit_plan(lambda d: d.update(hosts=d["hosts"][:3]))
    return "hosts: the plan made now has other hosts or stages"


def _stage_removed(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.edit_plan(lambda d: d["hosts"][0].update(steps=d["hosts"][0]["steps"][:-1]))
    return "hosts: the plan made now has other hosts or stages"


def _plan_not_text(files: SavedPlanFiles, saved: dict[str, Any]) -> str:
    files.plan.write_bytes(b"\xff")
    return (
        "<file>: cannot read saved plan: 'utf-8' codec can't decode byte 0xff in position 0: "
        "invalid start byte"
    )


CHANGES: dict[str, Change] = {
    "inputs edited": lambda f, d: _edited(f, d, "plan inputs", f.inputs),
    "manifest edited": lambda f, d: _edited(f, d, "manifest", f.data / V41_MANIFEST),
    "inventory grown": lambda f, d: _grown(d, "inventory", f.data / "fabric.json"),
    "inputs grown": lambda f, d: _grown(d, "plan inputs", f.inputs),
    "manifest grown": lambda f, d: _grown(d, "manifest", f.data / V41_MANIFEST),
    "log rewritten": _log_rewritten,
    "log cut short": _log_cut,
    "inputs removed": _removed,
    "another planner": _other_planner,
    "a script edited": _script_edited,
    "a script and its sha256 edited": _script_and_digest_edited,
    "a host removed": _host_removed,
    "a stage removed": _stage_removed,
    "the plan not text": _plan_not_text,
}


@claim(ClaimKind.REFUSAL)
def anything_changed_after_the_plan_was_saved_is_refused_by_name() -> Verdict:
    """An input edited (same size), grown, cut short or removed; the authority log rewritten
    or cut short; another planner version; a script edited in the plan, with or without its
    sha256; a host removed from it: ``apply --plan`` exits 2 with one line, ``planner: error:
    PLAN: WHERE: WHY``, saying exactly what changed, prints nothing and writes no script."""
    problems = []
    for name, change in CHANGES.items():
        with _saved() as files:
            said = change(files, files.document())
            ran = files.apply_dry_run()
            want = (2, "", f"planner: error: {files.plan}: {said}\n", False)
            problems += difference(name, want, (ran.code, ran.out, ran.err, files.scripts.exists()))
    return holds_unless(problems, f"{len(CHANGES)} changes, each refused by name")


@claim(ClaimKind.REFUSAL)
def planning_that_reads_a_file_the_plan_does_not_name_is_refused() -> Verdict:
    """A plan saved from the default data root, applied where ``$GUNBC_PLANNER_DATA`` names
    another (a copy, byte for byte): planning now reads an inventory the plan never read, and
    ``apply --plan`` refuses naming it (exit 2), though every named file is unchanged."""
    with _saved(data=False) as files, data_root_env(files.data):
        ran = files.apply_dry_run()
        said = f"planner: error: {files.plan}: inputs: planning now reads inventory "
        said += f"{files.data / 'fabric.json'}, which it did not\n"
        got = (ran.code, ran.out, ran.err, files.scripts.exists())
    return holds_unless(
        difference("(exit, stdout, stderr, written)", (2, "", said, False), got),
        "the other data root refused",
    )


@claim(ClaimKind.REFUSAL)
def a_plan_no_longer_admitted_at_the_wall_clock_is_refused() -> Verdict:
    """A host released after the plan was saved (an event appended to the log), or a time
    past the lease (``--now``, a dry run's): admission no longer holds, so ``apply --plan``
    exits 2 saying when it read the log and why, printing and writing nothing."""
    problems = []
    with _saved() as files:
        ran = files.apply_dry_run("--now", "3000-01-01T00:00:00Z")
        at = f"planner: error: {files.plan}: verdict: admission no longer holds at {LAPSED} "
        problems += difference(
            "past the lease",
            (2, "", True),
            (ran.code, ran.out, ran.err.startswith(at) and "lease" in ran.err),
        )
        append_event(files.log, {"event": "host_released", "host": "srv7"})
        ran = files.apply_dry_run()
        said = (
            "admission no longer holds at " in ran.err
            and "admission.host_not_held at authority.holdings.srv7" in ran.err
        )
        got = (ran.code, ran.out, said, files.scripts.exists())
        problems += difference("released", (2, "", True, False), got)
        both = files.apply_dry_run("--now", "3000-01-01T00:00:00Z").err
        problems += difference("both refusals, joined by '; '", 1, both.count("; refused: "))
    problems += _planned_only()
    return holds_unless(problems, "a released host and a lapsed lease refuse the saved plan")


CHOSEN_NOW = "2026-11-29T12:00:00Z"


@claim(ClaimKind.REFUSAL)
def a_saved_plan_takes_no_planning_input_and_a_real_apply_no_chosen_clock() -> Verdict:
    """``apply --plan PLAN`` exits 2 with one line and writes nothing when it is given what
    the plan holds (an arm, ``--scenario``, ``--authority``, ``--inputs``, ``--data``,
    ``--recipe``, ``--group``, ``--name``): ``planner: error: --plan: PLAN: holds its own
    inputs; drop NAMES``, every one given named, in that order. A real apply (not
    ``--dry-run``) also refuses a plan made with ``--scenario`` or ``--now`` (``the plan was
    made with OPTION VALUE: a real apply reads --authority at the wall clock``), and
    ``--now`` beside a plan (``arguments: --now: is for --dry-run``), before it runs ssh; a
    dry run takes both plans."""
    problems = []
    with _saved() as files:
        said = f"planner: error: --plan: {files.plan}: holds its own inputs; drop {{}}\n"
        problems += refused_each_and_together(files.apply_dry_run, PLAN_HOLDS, said.format)
        problems += difference("scripts written when refused", False, files.scripts.exists())
        made: list[tuple[str, str, tuple[str | Path, ...]]] = [
            ("--scenario", "supplied", ()),
            ("--now", CHOSEN_NOW, ("--authority", files.log, "--inputs", files.inputs)),
        ]
        for option, value, request in made:
            plan = files.tmp / f"{option.strip('-')}.json"
            out = ("--out", files.tmp / "report.txt", "--plan-out", plan)
            if run_planner("dry-run", "v41_group_a", *request, option, value, *out).code != 0:
                raise AssertionError(f"no plan could be saved with {option} {value}")
            real = _real_apply(files, "--plan", plan)
            said = (
                f"planner: error: {plan}: request: the plan was made with {option} {value}: a real "
                "apply reads --authority at the wall clock; make the plan from --authority "
                "(tests: --for-testing)\n"
            )
            problems += difference(f"made with {option}", (2, said, [], False), real)
            dry = run_planner(
                "apply", "--plan", plan, "--dry-run", "--hosts", HOSTS, "--scripts", files.scripts
            )
            problems += difference(f"made with {option}: a dry run", 0, dry.code)
        real = _real_apply(files, "--plan", files.plan, "--now", CHOSEN_NOW)
        said = "planner: error: arguments: --now: is for --dry-run (or --for-testing)\n"
        problems += difference("--now beside a real apply", (2, said, [], False), real)
        problems += difference("written where apply ran", [], sorted(os.listdir(files.elsewhere)))
    return holds_unless(
        problems,
        f"{len(PLAN_HOLDS)} inputs refused beside a plan; a chosen clock refused for real",
    )


def _real_apply(files: SavedPlanFiles, *argv: str | Path) -> tuple[object, str, list[str], bool]:
    """``planner apply`` for real from ``tmp/elsewhere``, its ssh client one that only records
    it ran: its exit, stderr, stdout lines, and whether the client ran."""
    with tempfile.TemporaryDirectory() as bin_dir, working_directory(files.elsewhere):
        client = recording_client(Path(bin_dir))
        ran = run_planner("apply", *argv, "--hosts", HOSTS, "--ssh", client.path)
        return ran.code, ran.err, ran.lines, client.ran


def _planned_only() -> list[str]:
    """A recipe planned with no authority log is PLANNED, never admitted: its saved plan is
    refused saying there was no log to admit it."""
    with scratch("saved-plan-") as tmp:
        plan = Path(tmp) / "plan.json"
        out = ("--out", Path(tmp) / "r.txt", "--plan-out", plan)
        run_planner("recipe", TINY_RECIPE, "--name", "tiny", *out)
        ran = run_planner("apply", "--plan", plan, "--dry-run", "--hosts", HOSTS)
    said = (
        f"planner: error: {plan}: verdict: admission no longer holds at no authority log: PLANNED\n"
    )
    return difference("planned only", (2, said), (ran.code, ran.err))


@claim(ClaimKind.POSITIVE_CONTROL)
def an_unchanged_plan_and_one_whose_log_only_grew_apply_their_saved_scripts() -> Verdict:
    """Unchanged, and again after an event that keeps admission is appended to the log,
    ``apply --plan --dry-run`` exits 0 and writes, per host and stage, exactly the saved
    scripts (their sha256 as the plan names them)."""
    problems = []
    with _saved() as files:
        saved = {
            (h["host"], s["stage"]): s["sha256"]
            for h in files.document()["hosts"]
            for s in h["steps"]
        }
        for when in ("unchanged", "log grown"):
            if when == "log grown":
                append_event(files.log, {"event": "host_held", "host": "srv9", "subject": "x"})
            ran = files.apply_dry_run()
            written = {
                (p.parent.name, p.stem): _sha(p.read_bytes()) for p in files.scripts.glob("*/*.sh")
            }
            problems += difference(f"{when}: exit", 0, ran.code)
            problems += difference(f"{when}: scripts", saved, written)
    return holds_unless(problems, "32 saved scripts written as saved, twice")


@claim(ClaimKind.PLANNED_SHAPE)
def a_bound_plan_applies_as_its_request_applies() -> Verdict:
    """``apply --plan PLAN --dry-run -v`` prints, word for word, what ``apply`` given the
    plan's own request (arm, log, inputs, data root) prints: every connection, every step in
    the same order with the same ssh argv and sha256, every rollback and cleanup. Binding a
    plan proves it; it must not change what runs, nor the order it runs in."""
    with _saved() as files:
        bound = files.apply_dry_run("-v")
        direct = run_planner(
            "apply",
            "v41_group_a",
            *("--authority", files.log, "--inputs", files.inputs, "--data", files.data),
            *("--dry-run", "-v", "--hosts", HOSTS, "--scripts", files.tmp / "direct"),
        )
        mine = bound.out.replace(str(files.scripts), "SCRIPTS")
        theirs = direct.out.replace(str(files.tmp / "direct"), "SCRIPTS")
    problems = difference("exit codes", (0, 0), (bound.code, direct.code))
    problems += difference("apply --dry-run -v", theirs.splitlines(), mine.splitlines())
    return holds_unless(problems, f"{len(mine.splitlines())} lines alike, bound or not")


@claim(ClaimKind.PLANNED_SHAPE)
def every_json_document_validates_against_its_schema() -> Verdict:
    """``dry-run --format json``, ``apply --dry-run --format json`` and ``scenarios --format
    json`` each print one JSON document and nothing else on stdout, which its schema's model
    reads strictly; ``planner schema NAME`` prints that model's JSON Schema, and any other
    NAME is a usage error (exit 2) listing the documents there are."""
    problems = []
    with _saved() as files:
        printed = {
            "plan": files.save("--format", "json"),
            "apply-dry-run": files.apply_dry_run("--format", "json"),
            "scenarios": run_planner("scenarios", "--format", "json"),
        }
    for name, ran in printed.items():
        problems += difference(f"{name}: exit", 0, ran.code)
        try:
            DOCUMENTS[name].model_validate_json(ran.out, strict=True)
        except ValueError as exc:
            problems.append(f"{name}: {str(exc)[:300]}")
        problems += _laid_out(name, ran.out)
        printed_schema = run_planner("schema", name).out
        schema = json.loads(printed_schema or "null")
        problems += difference(f"{name}: schema", DOCUMENTS[name].model_json_schema(), schema)
        problems += _laid_out(f"{name} schema", printed_schema)
    bogus = run_planner("schema", "bogus")
    choices = ", ".join(repr(name) for name in sorted(DOCUMENTS))
    said = (
        f"planner schema: error: argument document: invalid choice: 'bogus' (choose from {choices})"
    )
    problems += difference(
        "schema bogus", (2, "", said), (bogus.code, bogus.out, (bogus.err_lines or [""])[-1])
    )
    return holds_unless(problems, "3 documents valid, one field a line; 3 schemas printed")


def _laid_out(name: str, text: str) -> list[str]:
    """One field a line, indented by two, one final newline: readable in a review's diff."""
    try:
        value = json.loads(text)
    except ValueError:
        return [f"{name}: not JSON"]
    return difference(
        f"{name}: layout", json.dumps(value, indent=2, ensure_ascii=False) + "\n", text
    )


@claim(ClaimKind.PLANNED_SHAPE)
def apply_dry_run_is_one_line_a_step_that_fits_a_terminal() -> Verdict:
    """By default ``apply --dry-run`` prints one line per step (its stage, host and the sha256
    of the script it sends), every line within 120 columns; ``-v`` prints every ssh argv."""
    with _saved() as files:
        terse = files.apply_dry_run().lines
        verbose = files.apply_dry_run("-v").lines
        saved = [
            (s["stage"], h["host"], s["sha256"])
            for h in files.document()["hosts"]
            for s in h["steps"]
        ]
    steps = [tuple(line.split()[-4:]) for line in terse if "sha256" in line]
    got = sorted((stage, host, digest) for stage, host, _, digest in steps)
    problems = difference("steps", sorted(saved), got)
    problems += [f"{len(line)} columns: {line[:60]}…" for line in terse if len(line) > TERMINAL]
    problems += difference(
        "-v names the ssh client", True, any(" ssh " in f" {line} " for line in verbose)
    )
    return holds_unless(problems, f"{len(steps)} steps, one line each, within {TERMINAL} columns")
