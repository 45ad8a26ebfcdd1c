"""A saved plan: what an operator reviewed, bound to what ``planner apply --plan`` runs.

``planner dry-run … --plan-out PLAN.json`` (and ``--format json``) writes a
:class:`SavedPlan`: the planner's version (:mod:`planner.version`), the request that made it
(arm or recipe and every planning option, paths made absolute), every input file it read with
its size and sha256 (:mod:`planner.provenance`; the authority log as the prefix it read), per
host every stage script with its sha256, and the verdict.

``planner apply --plan PLAN.json --hosts …`` applies exactly that plan (:func:`bind`):

1. the file is read strictly (any field out of place is a located error), and each script's
   sha256 must be its script's (a plan edited by hand is refused);
2. the planner's version must be the one that saved it;
3. every input must hold the bytes the plan read (the authority log: must still *begin*
   with them; events appended after are read by step 4);
4. the plan is made again from the saved request, the authority log read at the wall clock:
   it must be admitted, must read no input the saved plan does not name, and every script
   must be byte for byte the saved one.

Each failure is a :class:`~planner.refusal.PlannerInputError` naming what changed (exit 2);
nothing runs. The scripts the coordinator then sends are the saved ones (step 4 proved the
plan made now identical to them), and the commit point asks admission again as a plain apply
does.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import AwareDatetime, Field

from planner import provenance
from planner.apply import Stage, script_sha256
from planner.arm_launch import DryRun, RenderedHost
from planner.provenance import HEX64, InputRead
from planner.refusal import PlannerInputError
from planner.report import summary
from planner.values import Frozen, load_json_model
from planner.version import planner_version

SCHEMA = "gunbc-planner-plan/1"
PATH_OPTIONS = frozenset({"recipe", "authority", "inputs", "data"})


class PlanRequest(Frozen):
    """The options the plan was made from; paths absolute, so the plan applies from any
    working directory. ``now`` is the time given with ``--now`` (None: the wall clock)."""

    arm: str | None = None
    recipe: str | None = None
    scenario: str | None = None
    authority: str | None = None
    inputs: str | None = None
    now: str | None = None
    data: str | None = None
    group: str | None = None
    name: str | None = None


REQUEST_OPTIONS = tuple(PlanRequest.model_fields)
"""The dry-run options a plan is made from, as the request records them."""


class PlannedStep(Frozen):
    """One stage script of one host, and its sha256 (of the script's UTF-8 bytes)."""

    stage: Stage
    sha256: str = Field(pattern=HEX64)
    script: str


class PlannedHost(Frozen):
    """One host's part: its rank, the container and unit it runs, its create argv and every
    stage script, in the planner's stage order."""

    host: str
    rank: int = Field(ge=0)
    container: str
    unit: str
    create_argv: tuple[str, ...]
    steps: tuple[PlannedStep, ...]


class RefusalRecord(Frozen):
    """A refusal or obligation as the report prints it."""

    code: str
    location: str
    message: str
    hint: str = ""


class PlanVerdict(Frozen):
    """ADMITTED, PLANNED (rendered, no authority log: not admitted) or REFUSED, with when the
    log was read, the candidate, every refusal and warning."""

    result: Literal["ADMITTED", "PLANNED", "REFUSED"]
    read_at: AwareDatetime | None
    candidate: str
    refusals: tuple[RefusalRecord, ...]
    warnings: tuple[str, ...]


class SavedPlan(Frozen):
    """The document ``--plan-out`` writes and ``--format json`` prints (schema
    :data:`SCHEMA`; docs/formats.md)."""

    schema_id: Literal["gunbc-planner-plan/1"] = Field(alias="schema")
    planner_version: str
    arm: str
    summary: str
    request: PlanRequest
    inputs: tuple[InputRead, ...]
    hosts: tuple[PlannedHost, ...]
    verdict: PlanVerdict


def request_of(args: argparse.Namespace) -> PlanRequest:
    """The planning options of ``args`` (a dry run's or an apply's), paths made absolute."""
    given: dict[str, str] = {}
    for option in REQUEST_OPTIONS:
        value = getattr(args, option, None)
        if value is not None:
            given[option] = str(Path(value).absolute()) if option in PATH_OPTIONS else str(value)
    return PlanRequest(**given)


def planned_host(host: RenderedHost) -> PlannedHost:
    real = host.realization
    return PlannedHost(
        host=real.host_name,
        rank=real.rank,
        container=real.container_name,
        unit=real.unit_name,
        create_argv=real.create_argv,
        steps=tuple(
            PlannedStep(stage=s.stage, sha256=script_sha256(s), script=s.script) for s in host.steps
        ),
    )


def plan_verdict(run: DryRun) -> PlanVerdict:
    return PlanVerdict(
        result=run.verdict,
        read_at=run.read_at,
        candidate=run.candidate.key,
        refusals=tuple(
            RefusalRecord(code=r.code, location=r.where, message=r.message, hint=r.hint)
            for r in run.refusals
        ),
        warnings=run.warnings,
    )


def saved_plan(run: DryRun, request: PlanRequest, inputs: list[InputRead]) -> SavedPlan:
    """The saved plan of ``run``, made from ``request`` after reading ``inputs``."""
    return SavedPlan(
        schema=SCHEMA,
        planner_version=planner_version(),
        arm=run.arm,
        summary=summary(run),
        request=request,
        inputs=tuple(inputs),
        hosts=tuple(planned_host(h) for h in run.hosts),
        verdict=plan_verdict(run),
    )


def load_plan(path: Path) -> SavedPlan:
    """Read ``path`` as a saved plan, strictly; a script whose sha256 is not its recorded one
    is a located error (the plan was edited after it was saved)."""
    plan = load_json_model(SavedPlan, path, "saved plan")
    for host in plan.hosts:
        for step in host.steps:
            if script_sha256(step) != step.sha256:
                where = f"hosts[{host.rank}].steps.{step.stage.value}"
                raise PlannerInputError(
                    str(path), where, "the script is not the one its sha256 names: edited"
                )
    return plan


def check_inputs(plan: SavedPlan, source: str) -> None:
    """The planner and every input still as the plan saw them; else a located error naming
    the first that changed."""
    if plan.planner_version != planner_version():
        raise PlannerInputError(
            source,
            "planner_version",
            f"saved by planner {plan.planner_version}, this is {planner_version()}: "
            "make the plan again with this planner and review it",
        )
    for read in plan.inputs:
        why = provenance.changed(read)
        if why is not None:
            raise PlannerInputError(
                source, f"inputs: {read.role} {read.path}", f"changed since the plan: {why}"
            )


def request_args(plan: SavedPlan, now: str | None) -> argparse.Namespace:
    """The dry-run options of the saved request; ``now`` replaces the saved ``--now`` (None:
    the wall clock, or a scenario's own time)."""
    saved = plan.request.model_dump()
    values: dict[str, object] = {
        k: (Path(v) if k in PATH_OPTIONS and v is not None else v) for k, v in saved.items()
    }
    values["now"] = now
    return argparse.Namespace(**values)


def bind(
    plan: SavedPlan,
    source: str,
    args: argparse.Namespace,
    make: Callable[[argparse.Namespace], DryRun],
) -> DryRun:
    """The plan made again from ``args`` (:func:`request_args`), proven to be ``plan``:
    admitted now, on no input the plan does not name, with every script byte for byte the
    saved one. A located error (naming ``source``) otherwise."""
    check_inputs(plan, source)
    with provenance.recording() as reads:
        again = make(args)
    for read in unnamed(plan, reads):
        raise PlannerInputError(
            source, "inputs", f"planning now reads {read.role} {read.path}, which it did not"
        )
    if not again.admitted:
        at = again.read_at.isoformat() if again.read_at else "no authority log"
        why = "; ".join(r.line() for r in again.refusals) or again.verdict
        raise PlannerInputError(source, "verdict", f"admission no longer holds at {at}: {why}")
    _same_scripts(plan, again, source)
    return again


def unnamed(plan: SavedPlan, reads: list[InputRead]) -> list[InputRead]:
    """What planning read now that the saved plan does not name (by role and path)."""
    named = {(r.role, r.path) for r in plan.inputs}
    return [r for r in reads if (r.role, r.path) not in named]


def _same_scripts(plan: SavedPlan, again: DryRun, source: str) -> None:
    now = tuple(planned_host(h) for h in again.hosts)
    if now == plan.hosts:
        return
    for saved, made in zip(plan.hosts, now, strict=False):
        for old, new in zip(saved.steps, made.steps, strict=False):
            if old != new:
                where = f"hosts[{saved.rank}].steps.{old.stage.value}"
                raise PlannerInputError(source, where, "the plan made now differs from it")
    raise PlannerInputError(source, "hosts", "the plan made now has other hosts or stages")
