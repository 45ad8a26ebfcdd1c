"""Witness: every input reader returns exactly what its file says, in the file's order.

The planner reads its data from files (the inventory, the checkpoint manifests, each
scenario's plan inputs). A reader that drops, repeats, reorders or miscounts an entry plans
a different launch than the files describe, so each claim here reads the same file a second
time with :mod:`json` alone and compares whole values: every entry with every field, in
order.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, expect
from fixtures.builders import DATA_ROOT
from planner import data, values
from planner.checkpoint import CheckpointManifest, load_manifest
from planner.fabric import load_fabric
from planner.scenarios import load_inputs
from witnesses.support import read_json

CHECKPOINTS = DATA_ROOT / "checkpoints"


def _manifest_files() -> list[Path]:
    paths = sorted(CHECKPOINTS.glob("*.manifest.json"))
    if len(paths) < 2:
        raise AssertionError(f"expected the V4.1 and GLM manifests under {CHECKPOINTS}")
    return paths


def _as_file_says(manifest: CheckpointManifest) -> dict[str, Any]:
    """A manifest value in the file's own shape: model, revision, every file entry."""
    return {
        "model": manifest.model,
        "revision": manifest.revision,
        "files": [{"path": f.path, "bytes": f.bytes, "role": f.role} for f in manifest.files],
    }


def _said(raw: Any) -> dict[str, Any]:
    return {k: raw[k] for k in ("model", "revision", "files")}


def _first_difference(label: str, want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    if want == got:
        return []
    if want["files"] != got["files"]:
        w, g = want["files"], got["files"]
        at = next((i for i, (a, b) in enumerate(zip(w, g, strict=False)) if a != b), None)
        if at is None:
            return [f"{label}: {len(w)} file entries in the file, {len(g)} read"]
        return [f"{label}: file entry {at} is {w[at]} in the file, read as {g[at]}"]
    return [f"{label}: {want['model']}@{want['revision']} read as {got['model']}@{got['revision']}"]


@claim(ClaimKind.PLANNED_SHAPE)
def the_data_root_readers_return_the_files_they_name() -> Verdict:
    """The data root's readers return the file they name, whole: ``fabric`` the inventory
    ``fabric.json`` (every host and group as the inventory reader reads that file), ``manifest``
    the named manifest entry by entry, and ``snapshot_manifest`` of each model the manifest
    whose model it is — with the root given or defaulted."""
    problems: list[str] = []
    for root in (None, DATA_ROOT):
        label = "default root" if root is None else "given root"
        if data.fabric(root) != load_fabric(DATA_ROOT / "fabric.json"):
            problems.append(f"{label}: fabric differs from fabric.json")
        for path in _manifest_files():
            want = _said(read_json(path))
            relative = path.relative_to(DATA_ROOT).as_posix()
            got = _as_file_says(data.manifest(relative, root))
            problems += _first_difference(f"{label}: manifest {relative}", want, got)
            found = data.snapshot_manifest(want["model"], root)
            if found is None:
                problems.append(f"{label}: no snapshot of {want['model']}")
                continue
            snapshot = _as_file_says(found)
            problems += _first_difference(f"{label}: snapshot of {want['model']}", want, snapshot)
    return expect(
        not problems,
        "fabric, both manifests and both snapshots read whole, root given or defaulted",
        "; ".join(problems[:4]),
    )


@claim(ClaimKind.PLANNED_SHAPE)
def plan_inputs_are_read_as_the_file_says() -> Verdict:
    """Each scenario's ``inputs.json`` is read as written: the Engram manifest text character
    for character, the launch shape's axes and the produced image's digest and reading; an
    input the file leaves out is not supplied."""
    problems: list[str] = []
    scenarios = sorted(p for p in (DATA_ROOT / "scenarios").iterdir() if p.is_dir())
    for directory in scenarios:
        path = directory / "inputs.json"
        raw = read_json(path)
        inputs = load_inputs(path)
        got = {
            "engram_manifest": inputs.engram_manifest,
            # a field the file leaves out is left unset, so the dump is what the file says
            "launch_shape": None
            if inputs.launch_shape is None
            else inputs.launch_shape.model_dump(mode="json", exclude_unset=True),
            "produced_image": None
            if inputs.produced_image is None
            else inputs.produced_image.model_dump(mode="json", exclude_unset=True),
        }
        want = {key: raw.get(key) for key in got}
        for key in got:
            if want[key] != got[key]:
                problems.append(f"{directory.name}: {key} is {want[key]!r:.80} in the file")
    return expect(
        not problems,
        f"{len(scenarios)} scenarios' inputs read as written",
        "; ".join(problems[:4]),
    )


TINY = CHECKPOINTS / "tiny-1a2b3c4d.manifest.json"
DISTINCT_FILES = 300
"""More distinct files than the planner keeps parses of (128): the first ones are gone."""


@claim(ClaimKind.PLANNED_SHAPE)
def a_file_changed_on_disk_is_read_as_it_is_now_however_often_it_was_read() -> Verdict:
    """Read as a long-running caller reads, many times in one process: a manifest changed on
    disk after it was read is read as it says now, at the same path; after more distinct
    manifests than the planner keeps parses of, each (the first included) is still read as
    its own file says; and a file changed back is read as its first text again."""
    problems: list[str] = []
    raw = read_json(TINY)
    with tempfile.TemporaryDirectory(prefix="input-readers-") as name:
        path = Path(name) / "m.manifest.json"

        def write(revision: str, where: Path = path) -> dict[str, Any]:
            said = {**raw, "revision": revision}
            where.write_text(json.dumps(said), encoding="utf-8")
            return _said(said)

        first = write("first")
        problems += _first_difference("read once", first, _as_file_says(load_manifest(path)))
        second = write("second")
        problems += _first_difference("changed", second, _as_file_says(load_manifest(path)))
        others = [Path(name) / f"{n}.manifest.json" for n in range(DISTINCT_FILES)]
        wanted = [write(f"r{n}", other) for n, other in enumerate(others)]
        for n, (other, want) in enumerate(zip(others, wanted, strict=True)):
            problems += _first_difference(f"file {n}", want, _as_file_says(load_manifest(other)))
        problems += _first_difference(
            "file 0, last", wanted[0], _as_file_says(load_manifest(others[0]))
        )
        back = write("first")
        problems += _first_difference("changed back", back, _as_file_says(load_manifest(path)))
    return expect(
        not problems,
        f"one path rewritten twice and {DISTINCT_FILES} distinct manifests read as they say",
        "; ".join(problems[:4]),
    )


@claim(ClaimKind.PROPERTY)
def a_long_running_caller_reuses_recent_parses_and_keeps_no_more_than_its_table() -> Verdict:
    """A process that reads many files keeps what it parsed, within bounds: a manifest read
    again with the same text is the value already parsed (the same object, not parsed
    again) while it is among the most recently read — its table's size of them, the file
    just read included, a file read again counting as just read — and the planner never
    holds more parses than that size, however many distinct files it read."""
    problems: list[str] = []
    table = values._PARSED
    size = table.cache_info().size
    raw = read_json(TINY)
    table.cache_clear()
    with tempfile.TemporaryDirectory(prefix="input-readers-") as name:
        paths = [Path(name) / f"{n}.manifest.json" for n in range(size + 1)]
        for n, path in enumerate(paths):
            path.write_text(json.dumps({**raw, "revision": f"r{n}"}), encoding="utf-8")
        first = load_manifest(paths[0])
        for path in paths[1:size]:  # the table is full: the first file and size - 1 others
            load_manifest(path)
        if load_manifest(paths[0]) is not first:
            problems.append(f"file 0, read again among the last {size}: parsed again")
        newest = load_manifest(paths[size])  # one more: the least recently read goes
        if load_manifest(paths[0]) is not first:
            problems.append("file 0, read again before the oldest went: parsed again")
        if load_manifest(paths[size]) is not newest:
            problems.append(f"file {size}, just read: parsed again")
        held = table.cache_info().entries
        if held != size:
            problems.append(f"{held} parses held after {size + 1} distinct files, not {size}")
    table.cache_clear()
    return expect(
        not problems,
        f"the last {size} parses reused; {size} held after {size + 1} distinct files",
        "; ".join(problems[:4]),
    )
