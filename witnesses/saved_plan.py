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
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, difference, holds_unless
from fixtures.builders import v41_dry_run
from fixtures.live_log import append_event
from fixtures.saved_plans import V41_MANIFEST, SavedPlanFiles, run
from planner.formats import DOCUMENTS

TERMINAL = 120
"""The columns ``apply --dry-run`` must fit by default."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextmanager
def _saved() -> Iterator[SavedPlanFiles]:
    with tempfile.TemporaryDirectory(prefix="saved-plan-") as tmp:
        files = SavedPlanFiles(Path(tmp))
        ran = files.save()
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
    """Per host in rank order, every stage script the dry run renders (forward, rollback and
    cleanup), byte for byte, each with the sha256 of its bytes; the summary counts them."""
    planned = v41_dry_run("supplied")
    want = [
        [(s.stage.value, s.script, _sha(s.script.encode())) for s in h.steps] for h in planned.hosts
    ]
    with _saved() as files:
        saved = files.document()
    got = [[(s["stage"], s["script"], s["sha256"]) for s in h["steps"]] for h in saved["hosts"]]
    problems = difference("hosts' steps", want, got)
    problems += difference("summary", "4 hosts, 32 steps, ADMITTED", saved["summary"])
    return holds_unless(problems, "4 hosts x 8 stage scripts with their sha256")


def _rewrite(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n", 1))


def _log_rewritten(files: SavedPlanFiles) -> None:
    files.log.write_text(files.log.read_text().replace('"seq":1,', '"seq":0,', 1))


CHANGES: dict[str, tuple[Callable[[SavedPlanFiles], object], str]] = {
    "inputs edited": (lambda f: _rewrite(f.inputs), "inputs: plan inputs {inputs}"),
    "inventory edited": (lambda f: _rewrite(f.data / "fabric.json"), "inputs: inventory {data}"),
    "manifest edited": (lambda f: _rewrite(f.data / V41_MANIFEST), "inputs: manifest {data}"),
    "inputs grown": (
        lambda f: f.inputs.write_text(f.inputs.read_text() + "\n"),
        "inputs: plan inputs {inputs}",
    ),
    "log rewritten": (_log_rewritten, "inputs: authority log {log}"),
    "log cut short": (
        lambda f: f.log.write_text(f.log.read_text()[:-2]),
        "inputs: authority log {log}",
    ),
    "another planner": (
        lambda f: f.edit_plan(lambda d: d.update(planner_version="0+elsewhere")),
        "planner_version: saved by planner 0+elsewhere",
    ),
    "a script edited": (
        lambda f: f.edit_plan(lambda d: d["hosts"][2]["steps"][2].update(script="true\n")),
        "hosts[2].steps.apply: the script is not the one its sha256 names",
    ),
}


@claim(ClaimKind.REFUSAL)
def anything_changed_after_the_plan_was_saved_is_refused_by_name() -> Verdict:
    """Changing an input (one byte's worth: a line end; or one more line), rewriting or
    cutting the authority
    log, another planner version, or a script edited in the plan: ``apply --plan`` exits 2
    with one ``planner: error:`` line naming what changed, prints nothing and writes no
    script."""
    problems = []
    for name, (change, named) in CHANGES.items():
        with _saved() as files:
            change(files)
            ran = files.apply_dry_run()
            where = named.format(inputs=files.inputs, data=files.data, log=files.log)
            said = ran.err.startswith("planner: error: ") and where in ran.err
            got = (ran.code, ran.out, said, files.scripts.exists())
            problems += difference(name, (2, "", True, False), got)
    return holds_unless(problems, f"{len(CHANGES)} changes, each refused by name")


@claim(ClaimKind.REFUSAL)
def a_revocation_appended_to_the_log_after_the_plan_refuses_it() -> Verdict:
    """A host released after the plan was saved (an event appended to the log): admission
    no longer holds at the wall clock, so ``apply --plan`` exits 2 saying so and naming the
    refusal; nothing is printed or written."""
    with _saved() as files:
        append_event(files.log, {"event": "host_released", "host": "srv7"})
        ran = files.apply_dry_run()
        written = files.scripts.exists()
    said = "verdict: admission no longer holds" in ran.err and "admission.host_not_held" in ran.err
    return holds_unless(
        difference(
            "(exit, stdout, said, written)",
            (2, "", True, False),
            (ran.code, ran.out, said, written),
        ),
        "the released host refuses the saved plan",
    )


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
def every_json_document_validates_against_its_schema() -> Verdict:
    """``dry-run --format json``, ``apply --dry-run --format json`` and ``scenarios --format
    json`` each print one JSON document and nothing else on stdout, which its schema's model
    reads strictly; ``planner schema NAME`` prints that model's JSON Schema."""
    problems = []
    with _saved() as files:
        printed = {
            "plan": files.save("--format", "json"),
            "apply-dry-run": files.apply_dry_run("--format", "json"),
            "scenarios": run("scenarios", "--format", "json"),
        }
    for name, ran in printed.items():
        problems += difference(f"{name}: exit", 0, ran.code)
        try:
            DOCUMENTS[name].model_validate_json(ran.out, strict=True)
        except ValueError as exc:
            problems.append(f"{name}: {str(exc)[:300]}")
        schema = json.loads(run("schema", name).out or "null")
        problems += difference(
            f"{name}: schema",
            DOCUMENTS[name].model_json_schema(by_alias=True, mode="serialization"),
            schema,
        )
    return holds_unless(problems, "3 documents valid; 3 schemas printed")


@claim(ClaimKind.PLANNED_SHAPE)
def apply_dry_run_is_one_line_a_step_that_fits_a_terminal() -> Verdict:
    """By default ``apply --dry-run`` prints one line per step (its stage, host and the sha256
    of the script it sends), every line within 120 columns; ``-v`` prints every ssh argv."""
    with _saved() as files:
        terse = files.apply_dry_run().out.splitlines()
        verbose = files.apply_dry_run("-v").out.splitlines()
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
