"""The dry-run report: every host's artifacts, then the verdict. Written atomically."""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path

from planner.apply import FORWARD_STAGES
from planner.arm_launch import DryRun, RenderedHost
from planner.engram import MkdirStep, PlannedRemoteStep
from planner.recipe import RecipePlan

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
    lines = [
        RULE,
        "verdict",
        RULE,
        f"candidate: {run.candidate.key}",
        f"authority read at: {run.read_at.isoformat()}",
    ]
    if run.fit is not None:
        lines.append(f"fit: {run.fit.summary()}")
    if run.launch is not None:
        lines.append(f"profile key: {run.launch.profile_key}")
        lines.append(f"apply order (each stage head first): {APPLY_ORDER}")
    if run.admission is None:
        lines.append("admission: not evaluated (the plan did not render)")
    elif run.admission.admitted:
        lines.append("admission: admitted (all four conjuncts hold)")
    lines += [r.line() for r in run.refusals]
    lines.append("result: ADMITTED" if run.admitted else f"result: REFUSED ({len(run.refusals)})")
    return lines


def render_report(run: DryRun) -> str:
    header = [f"dry run: {run.arm} — a modeled launch; nothing here has run on any host", ""]
    body = [line for host in run.hosts for line in _host_section(host)]
    if not run.hosts:
        body = ["(no host artifacts: the plan did not render; see the refusals below)", ""]
    return "\n".join([*header, *body, *_verdict(run)]) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write via a temp file in the same directory and rename: never a half-written report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def render_recipe_report(plan: RecipePlan) -> str:
    """A recipe plan: per node, the composed-model steps and the create argv."""
    lines = [f"recipe plan: {plan.name} — a modeled launch; nothing here has run on any host", ""]
    for rank in plan.ranks:
        lines += [
            RULE,
            f"host {rank.host_name} — node rank {rank.rank}{' (head)' if rank.rank == 0 else ''}",
            RULE,
            "## composed model",
        ]
        lines += [shlex.join(step) for step in rank.composed_steps] or ["(none)"]
        lines += ["", "## docker create", shlex.join(rank.create_argv), ""]
    return "\n".join(lines)
