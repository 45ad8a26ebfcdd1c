"""Declared mutants of the input readers (witness ``input_readers``).

Each is a reader that returns something other than what its file says: an entry miscounted,
the inventory's hosts in another order, an input's text cut short, a file's old parse
served after it changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from mutation import mutant
from planner import data
from planner.checkpoint import CheckpointManifest, load_manifest
from planner.fabric import Fabric
from planner.frontiers import PlanInputs
from planner.scenarios import load_inputs
from planner.values import M, load_json_model

W = "input_readers"
DATA_ROOT_READERS = f"{W}.the_data_root_readers_return_the_files_they_name"
READ_AS_IT_IS = f"{W}.a_file_changed_on_disk_is_read_as_it_is_now_however_often_it_was_read"


@mutant(replaces="planner.checkpoint.load_manifest", turns_red={DATA_ROOT_READERS, READ_AS_IT_IS})
def config_files_read_one_byte_short(path: Path) -> CheckpointManifest:
    """A config file's byte count is read one byte short (the weights are read right)."""
    manifest = load_manifest(path)
    files = tuple(
        f.model_copy(update={"bytes": f.bytes - 1}) if f.role == "config" else f
        for f in manifest.files
    )
    return manifest.model_copy(update={"files": files})


@mutant(replaces="planner.data.fabric", turns_red={DATA_ROOT_READERS})
def inventory_hosts_in_reverse(root: Path | None = None) -> Fabric:
    """The data root's inventory lists its hosts last first (the groups are as written)."""
    fabric = data.fabric(root)
    return fabric.model_copy(update={"hosts": fabric.hosts[::-1]})


@mutant(
    replaces="planner.scenarios.load_inputs",
    turns_red={f"{W}.plan_inputs_are_read_as_the_file_says"},
)
def engram_manifest_loses_its_last_newline(path: Path) -> PlanInputs:
    """The Engram manifest text is read without its final newline."""
    inputs = load_inputs(path)
    if inputs.engram_manifest is None:
        return inputs
    return inputs.model_copy(update={"engram_manifest": inputs.engram_manifest.rstrip("\n")})


_KEPT_BY_PATH: dict[tuple[type, str, str], object] = {}
"""The defect's own table (the planner's is keyed by the text too): empty in each run's
process, kept for as long as it lives."""


@mutant(replaces="planner.values.load_json_model", turns_red={READ_AS_IT_IS})
def a_parse_is_kept_by_path_not_by_text(model: type[M], path: Path, what: str) -> M:
    """The parse of a data file is kept by its path alone: a file changed on disk after its
    first read keeps planning as it was, for the life of the process."""
    key = (model, str(path), what)
    if key not in _KEPT_BY_PATH:
        _KEPT_BY_PATH[key] = load_json_model(model, path, what)
    return cast(M, _KEPT_BY_PATH[key])
