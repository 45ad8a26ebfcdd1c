"""Where the planner's data lives, and the loaders for it.

The data (fabric inventory, checkpoint manifests, scenarios) is in the ``fixtures/``
directory that ships beside the ``planner`` package. It is located as a sibling
directory, never imported, so the planner imports nothing of the framework.
"""

from __future__ import annotations

import os
from pathlib import Path

from planner.checkpoint import CheckpointManifest, load_manifest, local_checkpoint_directory
from planner.fabric import Fabric, load_fabric
from planner.refusal import PlannerInputError
from planner.values import safe_path

DATA_ENV = "GUNBC_PLANNER_DATA"


def default_data_root() -> Path:
    """``$GUNBC_PLANNER_DATA`` when set, else the ``fixtures`` directory beside ``planner``."""
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "fixtures"


def fabric(root: Path | None = None) -> Fabric:
    return load_fabric((root or default_data_root()) / "fabric.json")


def manifest(relative: str, root: Path | None = None) -> CheckpointManifest:
    """An arm's checkpoint manifest; one the planner cannot place on a host (its model is
    not ``org/name`` of safe path characters, its revision not alphanumeric) is a located
    error naming the file."""
    path = (root or default_data_root()) / relative
    found = load_manifest(path)
    try:
        safe_path(local_checkpoint_directory(found.model, found.revision))
    except ValueError as exc:
        field = "model" if found.revision.isalnum() else "revision"
        raise PlannerInputError(str(path), field, str(exc)) from exc
    return found


def snapshot_manifest(model: str, root: Path | None = None) -> CheckpointManifest | None:
    """The checkpoint manifest of ``model`` among the data's ``checkpoints/*.manifest.json``;
    ``None`` when none is (a malformed manifest there is still a located error). Two
    manifests naming one model are a located error naming both: which snapshot (revision,
    size) the plan stands on is never decided by how the files sort."""
    base = (root or default_data_root()) / "checkpoints"
    paths = sorted(base.glob("*.manifest.json"))
    mine = [(p, m) for p, m in ((p, load_manifest(p)) for p in paths) if m.model == model]
    if len(mine) > 1:
        names = ", ".join(path.name for path, _ in mine)
        raise PlannerInputError(
            str(base), "model", f"{model} is named by {len(mine)} manifests ({names}): keep one"
        )
    return mine[0][1] if mine else None
