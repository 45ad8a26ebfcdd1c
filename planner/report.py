"""The dry-run report: every host's artifacts, then the verdict. Written atomically."""

from __future__ import annotations

import shlex

from filerules import write_atomically as write_atomically  # the report's writer, by name
from planner.apply import FORWARD_STAGES
from planner.arm_launch import DryRun, RenderedHost
from planner.engram import MkdirStep, PlannedRemoteStep
from planner.provenance import InputRead
from planner.version import planner_version

RULE = "=" * 78
APPLY_ORDER = (
    " -> ".join(s.value for s in FORWARD_STAGES) + "; on any failure: rollback; then cleanup"
)


def _step_line(step: PlannedRemoteStep) -> str:
    if isinstance(step, MkdirStep):
        return "run " + shlex.join(step.argv)
    return step.describe()


def _host_section(host: RenderedHost) -> list[str]:
    real = host.realization
    lines = [
        RULE,
        f"host {real.host_name} — node rank {real.rank}{' (head)' if real.rank == 0 else ''}",
        RULE,
    ]
    if host.composed:
        lines.append("## composed model (run on the host before apply)")
        lines += [f"{i}. {shlex.join(argv)}" for i, argv in enumerate(host.composed, 1)]
        lines.append("")
    lines += [
        "## docker create",
        shlex.join(real.create_argv),
        "",
        f"## unit {real.unit_name}",
        real.unit_text.rstrip("\n"),
        "",
        "## engram staging",
    ]
    lines += [f"{i}. {_step_line(s)}" for i, s in enumerate(host.staging, 1)] or ["(none)"]
    for step in host.steps:
        lines += [
            "",
            f"## {step.stage.value} ({shlex.join(step.invocation)})",
            f"# front door: {shlex.join(step.front_door.check)}; log {step.front_door.log_path}",
            step.script.rstrip("\n"),
        ]
    return [*lines, ""]


def _verdict(run: DryRun) -> list[str]:
    read_at = (
        f"authority read at: {run.read_at.isoformat()}"
        if run.read_at is not None
        else "authority: no log given"
    )
    lines = [RULE, "verdict", RULE, f"candidate: {run.candidate.key}", read_at, *run.warnings]
    if run.fit is not None:
        lines.append(f"fit: {run.fit.summary()}")
    if run.launch is not None:
        lines.append(f"profile key: {run.launch.profile_key}")
        lines.append(f"apply order (each stage head first): {APPLY_ORDER}")
    if run.admission is None and run.read_at is None:
        lines.append("admission: not checked (no authority log; planner apply refuses it)")
    elif run.admission is None:
        lines.append("admission: not evaluated (the plan did not render)")
    elif run.admission.admitted:
        held = (
            "every checked conjunct holds" if run.admission.unchecked else "all four conjuncts hold"
        )
        lines.append(f"admission: admitted ({held})")
    if run.admission is not None:
        lines += [f"admission: not checked: {why}" for why in run.admission.unchecked]
    lines += [text for r in run.refusals for text in r.lines()]
    result = {"ADMITTED": "ADMITTED", "PLANNED": "PLANNED (admission not checked)"}
    lines.append(f"result: {result.get(run.verdict, f'REFUSED ({len(run.refusals)})')}")
    return lines


def summary(run: DryRun) -> str:
    """The verdict in one line, as the report's first lines and a saved plan give it:
    ``4 hosts, 32 steps, ADMITTED`` (steps: every stage script of every host)."""
    steps = sum(len(h.steps) for h in run.hosts)
    return f"{len(run.hosts)} hosts, {steps} steps, {run.verdict}"


def provenance_lines(inputs: tuple[InputRead, ...]) -> list[str]:
    """Which planner made the report and what it read: each input by role, sha256 and path
    (the authority log as the bytes read: events may follow them)."""
    lines = [f"planner: {planner_version()}"]
    for read in inputs:
        bound = "first " if read.prefix else ""
        lines.append(
            f"input: {read.role}: sha256 {read.sha256} ({bound}{read.size} bytes) {read.path}"
        )
    return lines


def render_report(run: DryRun, inputs: tuple[InputRead, ...] | None = None) -> str:
    """The report: a summary line first (as ``terraform plan`` ends with its count), with
    ``inputs`` the planner's version and every input read, then each host, then the verdict."""
    header = [
        f"dry run: {run.arm} — a modeled launch; nothing here has run on any host",
        f"summary: {summary(run)}",
    ]
    if run.recipe is not None:
        header.append(f"recipe: {run.recipe}")
    if inputs is not None:
        header += provenance_lines(inputs)
    header.append("")
    body = [line for host in run.hosts for line in _host_section(host)]
    if not run.hosts:
        body = ["(no host artifacts: the plan did not render; see the refusals below)", ""]
    return "\n".join([*header, *body, *_verdict(run)]) + "\n"
