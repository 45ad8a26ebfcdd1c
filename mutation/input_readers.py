"""Declared mutants of the input readers (witness ``input_readers``).

Each is a reader that returns something other than what its file says: an entry miscounted,
the inventory's hosts in another order, an input's text cut short.
"""

from __future__ import annotations

from pathlib import Path

from mutation import mutant
from planner import data
from planner.checkpoint import CheckpointManifest, load_manifest
from planner.fabric import Fabric
from planner.frontiers import PlanInputs
from planner.scenarios import load_inputs

W = "input_readers"


@mutant(
    replaces="planner.checkpoint.load_manifest",
    turns_red={
        f"{W}.a_manifest_is_read_entry_by_entry",
        f"{W}.the_data_root_readers_return_the_files_they_name",
    },
)
def config_files_read_one_byte_short(path: Path) -> CheckpointManifest:
    """A config file's byte count is read one byte short (the weights are read right)."""
    manifest = load_manifest(path)
    files = tuple(
        f.model_copy(update={"bytes": f.bytes - 1}) if f.role == "config" else f
        for f in manifest.files
    )
    return manifest.model_copy(update={"files": files})


@mutant(
    replaces="planner.data.fabric",
    turns_red={f"{W}.the_data_root_readers_return_the_files_they_name"},
)
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
