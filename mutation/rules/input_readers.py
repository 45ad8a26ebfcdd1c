"""Declared mutants of the input readers (witness ``input_readers``).

Each is a reader that returns something other than what its file says: an entry miscounted,
the inventory's hosts in another order, an input's text cut short, a file's old parse
served after it changed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import cast

from mutation import mutant
from planner import data
from planner.checkpoint import CheckpointManifest, load_manifest
from planner.fabric import Fabric
from planner.frontiers import PlanInputs
from planner.kept import Kept
from planner.scenarios import load_inputs
from planner.values import M, load_json_model

W = "input_readers"
DATA_ROOT_READERS = f"{W}.the_data_root_readers_return_the_files_they_name"
READ_AS_IT_IS = f"{W}.a_file_changed_on_disk_is_read_as_it_is_now_however_often_it_was_read"
REUSED = f"{W}.a_long_running_caller_reuses_recent_parses_and_keeps_no_more_than_its_table"


@mutant(
    replaces="planner.checkpoint.load_manifest",
    turns_red={DATA_ROOT_READERS, READ_AS_IT_IS, REUSED},
)
def config_files_read_one_byte_short(path: Path) -> CheckpointManifest:
    """A config file's byte count is read one byte short (the weights are read right); each
    read a copy, so no parse is reused either."""
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


@mutant(replaces="planner.kept.Kept.keep", turns_red={REUSED})
def the_first_kept_goes_first_however_recently_used(
    self: Kept[Hashable, object], key: Hashable, compute: Callable[[], object]
) -> object:
    """A full table lets its oldest entry go, however recently it was used (first in,
    first out): a file read over and over is parsed again every size-th read."""
    if key not in self._values:
        self._values[key] = compute()
        if len(self._values) > self.size:
            self._values.popitem(last=False)
    return self._values[key]


@mutant(replaces="planner.kept.Kept.keep", turns_red={REUSED})
def a_table_keeps_every_value_it_computed(
    self: Kept[Hashable, object], key: Hashable, compute: Callable[[], object]
) -> object:
    """A table keeps every value it computed: a long-running caller's memory grows with
    every distinct file it reads."""
    if key not in self._values:
        self._values[key] = compute()
    return self._values[key]
