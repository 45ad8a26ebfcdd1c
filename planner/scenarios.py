"""Named scenarios: a directory holding ``scenario.json``, ``inputs.json`` and ``authority.jsonl``.

``scenario.json`` gives the time the authority log is read at (``now``) and a one-line
description. Scenario names are a stable contract (``live``, ``supplied``, one per refusal).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import AwareDatetime

from planner.frontiers import PlanInputs
from planner.refusal import PlannerInputError
from planner.values import Frozen, OneLine, did_you_mean, load_json_model


class ScenarioMeta(Frozen):
    now: AwareDatetime
    description: OneLine


class Scenario(Frozen):
    name: str
    directory: Path
    now: datetime
    description: str

    @property
    def authority(self) -> Path:
        return self.directory / "authority.jsonl"

    @property
    def inputs(self) -> Path:
        return self.directory / "inputs.json"


def scenario_names(root: Path) -> tuple[str, ...]:
    base = root / "scenarios"
    if not base.is_dir():
        raise PlannerInputError(str(base), "<dir>", "no scenarios directory (check --data)")
    return tuple(sorted(p.name for p in base.iterdir() if (p / "scenario.json").is_file()))


def load_scenario(root: Path, name: str) -> Scenario:
    directory = root / "scenarios" / name
    if not name.replace("_", "").isalnum() or not (directory / "scenario.json").is_file():
        names = scenario_names(root)
        known = f"no such scenario; known: {', '.join(names)}{did_you_mean(name, names)}"
        raise PlannerInputError("--scenario", name, known)
    meta = load_json_model(ScenarioMeta, directory / "scenario.json", "scenario")
    return Scenario(name=name, directory=directory, now=meta.now, description=meta.description)


def load_inputs(path: Path) -> PlanInputs:
    """Read the frontier inputs; every error names the file and the field."""
    return load_json_model(PlanInputs, path, "plan inputs")
