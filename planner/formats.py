"""The JSON documents the command line prints with ``--format json``, one model each.

Each document names its schema in its first field (``"schema": "gunbc-planner-…/1"``); the
models here *are* the schemas: ``planner schema NAME`` prints each as JSON Schema, and
docs/formats.md shows them. A field is added only with a new schema number.

- ``plan``: ``planner dry-run --format json`` and ``--plan-out`` (:class:`SavedPlan`);
- ``apply-dry-run``: ``planner apply --dry-run --format json`` (:class:`ApplyDryRun`);
- ``scenarios``: ``planner scenarios --format json`` (:class:`ScenarioList`).
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import AwareDatetime, BaseModel, Field

from planner.apply import Stage
from planner.provenance import HEX64
from planner.saved_plan import SavedPlan
from planner.values import Frozen


class ScenarioEntry(Frozen):
    name: str
    description: str
    now: AwareDatetime


class ScenarioList(Frozen):
    """The named scenarios (``planner scenarios``)."""

    schema_id: Literal["gunbc-planner-scenarios/1"] = Field(alias="schema")
    scenarios: tuple[ScenarioEntry, ...]


class HostEntry(Frozen):
    host: str
    rank: int = Field(ge=0)
    destination: str
    port: int = Field(ge=1, le=65535)


class CommandEntry(Frozen):
    """One session the coordinator would run: its phase, the step, the sha256 of the script it
    sends, where ``--dry-run`` wrote that script, and the ssh argv."""

    n: int | None = Field(ge=1)
    """The step's number in the run (forward and commit); None for rollback and cleanup, which
    run only after a failure."""
    phase: Literal["forward", "commit", "rollback", "cleanup"]
    stage: Stage
    host: str
    rank: int = Field(ge=0)
    script_sha256: str = Field(pattern=HEX64)
    script_path: str
    argv: tuple[str, ...]


class ApplyDryRun(Frozen):
    """``planner apply --dry-run``: every command the coordinator would run, in order."""

    schema_id: Literal["gunbc-planner-apply-dry-run/1"] = Field(alias="schema")
    planner_version: str
    arm: str
    hosts: tuple[HostEntry, ...]
    connections: tuple[tuple[str, ...], ...]
    """Each host's connection: the ``ssh -M`` that opens it (the control path is the literal
    ``CONTROL``, a private directory the run makes)."""
    commands: tuple[CommandEntry, ...]
    stage_timeout: int
    commit_attempts: int


DOCUMENTS: dict[str, type[BaseModel]] = {
    "plan": SavedPlan,
    "apply-dry-run": ApplyDryRun,
    "scenarios": ScenarioList,
}
"""Every document by the name ``planner schema`` takes."""


def document_json(document: BaseModel) -> str:
    """A document as printed: indented JSON, fields in the model's order, a final newline."""
    return document.model_dump_json(by_alias=True, indent=2) + "\n"


def schema_json(name: str) -> str:
    """The JSON Schema of the document ``name`` (a key of :data:`DOCUMENTS`)."""
    schema = DOCUMENTS[name].model_json_schema(by_alias=True, mode="serialization")
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
