"""Declared mutants of Engram staging (witness ``engram_staging``).

Staging is planned remote steps: two ``mkdir`` argvs and a sealed, readback-verified write.
Each defect here weakens one of those guarantees or the env and mounts that point at them.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from mutation import mutant
from planner.arm_launch import ArmCall, arm_mounts
from planner.engram import (
    MANIFEST_ENV,
    EngramPlacement,
    FileTreeScope,
    MkdirStep,
    PlannedRemoteStep,
    TypedFileWrite,
    engram_staging_steps,
    land_file_write,
)
from planner.identity import BindMount
from planner.refusal import PlannerInputError

W = "engram_staging"
PLACEMENT_ENV = EngramPlacement.env


@mutant(
    replaces="planner.engram.mkdir_step",
    turns_red={f"{W}.staging_is_two_mkdirs_then_one_sealed_write"},
)
def mkdir_without_parents(path: str) -> MkdirStep:
    """Staging's mkdir loses -p, so a missing parent directory fails the step."""
    return MkdirStep(argv=("mkdir", "--", path))


@mutant(
    replaces="planner.engram.engram_staging_steps",
    turns_red={f"{W}.the_manifest_written_is_the_supplied_text"},
)
def manifest_written_as_reserialized_json(
    placement: EngramPlacement, manifest: bytes
) -> tuple[PlannedRemoteStep, ...]:
    """The manifest is written re-serialized from its parsed JSON, not as #12359's bytes."""
    reserialized = json.dumps(json.loads(manifest), indent=1).encode()
    return engram_staging_steps(placement, reserialized)


@mutant(
    replaces="planner.engram.FileTreeScope.seal",
    turns_red={f"{W}.a_write_escaping_its_directory_is_refused"},
)
def seal_accepts_absolute_paths(self: FileTreeScope, relative: str) -> str:
    """A sealed write no longer refuses an absolute path, which escapes its directory."""
    pure = PurePosixPath(relative)
    if not pure.parts or ".." in pure.parts or "" in pure.parts:
        raise ValueError(f"{relative!r} escapes the sealed directory {self.root}")
    return f"{self.root}/{pure.as_posix()}"


@mutant(
    replaces="planner.engram.parse_engram_manifest",
    turns_red={f"{W}.a_row_store_outside_its_directory_is_refused"},
)
def row_stores_checked_by_prefix_only(text: str, placement: EngramPlacement, source: str) -> bytes:
    """A row store is accepted by its path prefix alone, so ``..`` segments escape the
    row-store directory."""
    stores = json.loads(text).get("row_stores", [])
    for index, store in enumerate(stores):
        if not str(store.get("path", "")).startswith(placement.row_store_dir + "/"):
            where = f"engram_manifest.row_stores[{index}].path"
            raise PlannerInputError(source, where, "not inside the row-store directory")
    return text.encode()


@mutant(
    replaces="planner.engram.land_file_write",
    turns_red={f"{W}.the_manifest_lands_as_readback_verified_bytes"},
)
def landing_leaves_its_temp_file(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """The landing leaves its temp file beside the target."""
    target = land_file_write(write, filesystem_root)
    (filesystem_root / write.temp_target.lstrip("/")).write_bytes(write.content)
    return target


@mutant(
    replaces="planner.engram.EngramPlacement.env",
    turns_red={
        f"{W}.the_engram_env_points_at_what_staging_made",
        "v41_group_a_launch.every_host_create_argv_is_planned_whole",
    },
)
def manifest_env_names_the_directory(self: EngramPlacement) -> tuple[tuple[str, str], ...]:
    """The manifest env names the manifest directory instead of the manifest file."""
    return tuple((k, self.manifest_dir if k == MANIFEST_ENV else v) for k, v in PLACEMENT_ENV(self))


@mutant(
    replaces="planner.arm_launch.arm_mounts",
    turns_red={
        f"{W}.receipts_are_writable_and_the_manifest_read_only",
        "v41_group_a_launch.every_host_create_argv_is_planned_whole",
    },
)
def receipts_mounted_read_only(call: ArmCall) -> tuple[BindMount, ...]:
    """The touch-receipt directory is mounted read-only like the row stores."""
    return tuple(m.model_copy(update={"read_only": True}) for m in arm_mounts(call))
