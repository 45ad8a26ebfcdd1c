"""Declared mutants of Engram staging (witness ``engram_staging``).

Staging is planned remote steps: two ``mkdir`` argvs and a sealed, readback-verified write.
Each defect here weakens one of those guarantees; the env and mounts that point at them are
``arm_launch``'s.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

import planner.engram
from mutation import mutant
from planner.arm_launch import DryRun
from planner.arms.v41_group_a import v41_group_a_launch_dry_run
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest
from planner.engram import (
    EngramPlacement,
    FileTreeScope,
    LandingMismatch,
    MkdirStep,
    PlannedRemoteStep,
    TypedFileWrite,
    engram_staging_steps,
    land_file_write,
    parse_engram_manifest,
)
from planner.fabric import Fabric
from planner.frontiers import PlanInputs
from planner.refusal import PlannerInputError

W = "engram_staging"
STAGED = f"{W}.every_host_stages_the_supplied_manifest_alike"
SEAL = FileTreeScope.seal
ESCAPE = f"{W}.a_write_escaping_its_directory_is_refused"
ACCEPTED = f"{W}.an_accepted_manifest_is_returned_byte_for_byte"
MALFORMED = f"{W}.a_malformed_manifest_is_refused_located"
STEPS = f"{W}.a_landing_writes_a_private_temp_then_renames_then_reads_back"
STALE = f"{W}.a_landing_replaces_stale_bytes_under_any_sealed_directory"
LINKS = f"{W}.a_landing_never_follows_a_link_out_of_its_scope"
FAILED = f"{W}.a_failed_landing_raises_its_own_error_and_leaves_nothing"
SAFE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
LAND = "planner.engram.land_file_write"
PARSE = "planner.engram.parse_engram_manifest"


@mutant(
    replaces="planner.engram.mkdir_step",
    turns_red={STAGED},
)
def mkdir_without_parents(path: str) -> MkdirStep:
    """Staging's mkdir loses -p, so a missing parent directory fails the step."""
    return MkdirStep(argv=("mkdir", "--", path))


@mutant(
    replaces="planner.engram.engram_staging_steps",
    turns_red={STAGED},
)
def manifest_written_as_reserialized_json(
    placement: EngramPlacement, manifest: bytes
) -> tuple[PlannedRemoteStep, ...]:
    """The manifest is written re-serialized from its parsed JSON, not as #12359's bytes."""
    reserialized = json.dumps(json.loads(manifest), indent=1).encode()
    return engram_staging_steps(placement, reserialized)


@mutant(
    replaces="planner.arms.v41_group_a.v41_group_a_launch_dry_run",
    turns_red={STAGED},
    independent=False,
)
def the_last_host_writes_its_manifest_world_writable(
    fabric: Fabric,
    manifest: CheckpointManifest,
    inputs: PlanInputs,
    state: AuthorityState,
    source: str = "inputs",
) -> DryRun:
    """The last host's manifest write is planned with mode 0666."""
    run = v41_group_a_launch_dry_run(fabric, manifest, inputs, state, source)
    if not run.hosts:
        return run
    last = run.hosts[-1]
    staging = tuple(
        s.model_copy(update={"mode": 0o666}) if s.kind == "write_file" else s for s in last.staging
    )
    hosts = (*run.hosts[:-1], last.model_copy(update={"staging": staging}))
    return run.model_copy(update={"hosts": hosts})


@mutant(replaces="planner.engram.FileTreeScope.seal", turns_red={ESCAPE})
def seal_accepts_absolute_paths(self: FileTreeScope, relative: str) -> str:
    """A sealed write no longer refuses an absolute path, which escapes its directory."""
    pure = PurePosixPath(relative)
    if not pure.parts or ".." in pure.parts or "" in pure.parts:
        raise ValueError(f"{relative!r} escapes the sealed directory {self.root}")
    return f"{self.root}/{pure.as_posix()}"


@mutant(replaces=PARSE, turns_red={f"{W}.a_row_store_outside_its_directory_is_refused", MALFORMED})
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
    replaces=LAND, turns_red={f"{W}.the_manifest_lands_as_readback_verified_bytes", STEPS, STALE}
)
def landing_leaves_its_temp_file(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """The landing leaves its temp file beside the target."""
    target = land_file_write(write, filesystem_root)
    (filesystem_root / write.temp_target.lstrip("/")).write_bytes(write.content)
    return target


@mutant(
    replaces="planner.engram.FileTreeScope.seal",
    turns_red={ESCAPE},
    independent=False,
)
def escape_refused_without_naming_the_path(self: FileTreeScope, relative: str) -> str:
    """An escaping path is refused with a bare error that names neither the path nor the
    directory it tried to leave."""
    try:
        return SEAL(self, relative)
    except ValueError:
        raise ValueError("path escapes") from None


@mutant(replaces=PARSE, turns_red={MALFORMED}, independent=False)
def an_empty_row_store_list_is_accepted(
    text: str, placement: EngramPlacement, source: str
) -> bytes:
    """A manifest whose row_stores list is empty is accepted, staging a manifest that names
    no row store at all."""
    try:
        if json.loads(text).get("row_stores") == []:
            return text.encode()
    except (ValueError, AttributeError):
        pass
    return parse_engram_manifest(text, placement, source)


@mutant(replaces=PARSE, turns_red={MALFORMED}, independent=False)
def a_json_problem_is_located_inside_the_text(
    text: str, placement: EngramPlacement, source: str
) -> bytes:
    """NaN, a key given twice or nesting too deep is located by its path inside the manifest
    text alone (``row_stores``, ``<root>``), not as a field of the inputs file's
    ``engram_manifest``."""
    try:
        return parse_engram_manifest(text, placement, source)
    except PlannerInputError as exc:
        if not exc.message.endswith(" (in the manifest text)"):
            raise
        inner = exc.where.removeprefix("engram_manifest").lstrip(".")
        raise PlannerInputError(source, inner or "<root>", exc.message) from None


@mutant(replaces=PARSE, turns_red={ACCEPTED, STAGED}, independent=False)
def an_accepted_manifest_is_reserialized(
    text: str, placement: EngramPlacement, source: str
) -> bytes:
    """An accepted manifest is returned re-serialized from its parsed JSON, not as the
    bytes #12359 supplied."""
    parse_engram_manifest(text, placement, source)
    return json.dumps(json.loads(text)).encode()


def _land(
    write: TypedFileWrite,
    filesystem_root: Path,
    *,
    flags: int = SAFE_FLAGS,
    creation_mode: int = 0o600,
    link_scope_allowed: bool = False,
    nested_allowed: bool = True,
    read_back: bool = True,
    missing_ok: bool = True,
) -> Path:
    """``land_file_write`` as written, with one of its guarantees switched off. Like the
    planner's, it reaches the filesystem through ``planner.engram``'s ``os``."""
    os = vars(planner.engram)["os"]
    root = filesystem_root.resolve()
    scope_path = filesystem_root / write.scope.root.lstrip("/")
    scope_dir = scope_path.resolve()
    outside = scope_dir != root and root not in scope_dir.parents
    if outside or (scope_path.is_symlink() and not link_scope_allowed):
        raise ValueError(f"scope {write.scope.root} is a link or resolves outside {root}")
    target = filesystem_root / write.target.lstrip("/")
    parent = target.parent.resolve()
    if parent != scope_dir and (not nested_allowed or scope_dir not in parent.parents):
        raise ValueError(f"{write.target} resolves outside {write.scope.root}")
    temp = filesystem_root / write.temp_target.lstrip("/")
    try:
        with os.fdopen(os.open(temp, flags, creation_mode), "wb") as handle:
            handle.write(write.content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, write.mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=missing_ok)
        raise
    if read_back and target.read_bytes() != write.content:
        raise LandingMismatch(f"{write.target}: read back bytes differ from {write.digest}")
    return target


@mutant(replaces=LAND, turns_red={STEPS, STALE, LINKS}, independent=False)
def temp_opened_following_links_over_stale_bytes(
    write: TypedFileWrite, filesystem_root: Path
) -> Path:
    """The temp file is opened without O_TRUNC and O_NOFOLLOW: a link planted at the temp
    path is followed out of the scope, and a stale longer temp keeps its tail."""
    return _land(write, filesystem_root, flags=os.O_WRONLY | os.O_CREAT)


@mutant(replaces=LAND, turns_red={STEPS}, independent=False)
def temp_created_readable_by_all(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """The temp file is created with the final mode, so its partial bytes are readable by
    everyone before the write completes."""
    return _land(write, filesystem_root, creation_mode=write.mode)


@mutant(replaces=LAND, turns_red={LINKS}, independent=False)
def a_scope_that_is_a_link_inside_the_root_is_followed(
    write: TypedFileWrite, filesystem_root: Path
) -> Path:
    """A scope directory that is itself a symlink is accepted as long as it resolves inside
    the root, so the write lands wherever the link points."""
    return _land(write, filesystem_root, link_scope_allowed=True)


@mutant(replaces=LAND, turns_red={STALE, FAILED}, independent=False)
def a_target_in_a_subdirectory_is_refused(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """A target must sit directly in its scope: one in an existing subdirectory of the scope
    is refused as if it resolved outside."""
    return _land(write, filesystem_root, nested_allowed=False)


@mutant(replaces=LAND, turns_red={FAILED}, independent=False)
def the_landing_trusts_the_rename(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """The bytes are not read back after the rename, so a corrupted landing passes."""
    return _land(write, filesystem_root, read_back=False)


@mutant(replaces=LAND, turns_red={FAILED}, independent=False)
def cleanup_masks_the_failure(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """Cleanup insists the temp file exists, so a temp that was never created raises a
    second error from cleanup on top of the real one."""
    return _land(write, filesystem_root, missing_ok=False)


@mutant(
    replaces="planner.engram.TypedFileWrite.describe",
    turns_red={STEPS},
)
def the_description_omits_the_read_back(self: TypedFileWrite) -> str:
    """The step's description stops at the rename: read back and compare go unmentioned."""
    return (
        f"write-file {self.target} ({len(self.content)} bytes, {self.digest}) sealed to "
        f"{self.scope.root}: write {self.temp_target}, rename onto the target"
    )
