"""Engram placement and staging as planned remote steps, not a shell body.

Staging is three steps per host: a ``mkdir`` argv for the manifest directory, one for
the touch-receipt directory, and a typed file write of the manifest *sealed to its own
directory*. A write lands as readback-verified bytes: temp file, rename, read back,
compare. :func:`land_file_write` is that landing, for any executor (and the tests).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path, PurePosixPath
from typing import Literal

from planner.refusal import PlannerInputError
from planner.values import Frozen, JsonProblem, SafeName, SafePath, strict_json

MANIFEST_ENV = "GUNBC_ENGRAM_ROW_STORE_MANIFEST"
RECEIPT_ENV = "GUNBC_ENGRAM_TOUCH_RECEIPT_DIR"


class EngramPlacement(Frozen):
    """Where the Engram row stores, manifest and touch receipts live on every host."""

    row_store_dir: SafePath
    manifest_dir: SafePath
    manifest_name: SafeName
    receipt_dir: SafePath

    @property
    def manifest_path(self) -> str:
        return f"{self.manifest_dir}/{self.manifest_name}"

    def env(self) -> tuple[tuple[str, str], ...]:
        return ((MANIFEST_ENV, self.manifest_path), (RECEIPT_ENV, self.receipt_dir))


class FileTreeScope(Frozen):
    """A directory a write is sealed to: the target may not leave it."""

    root: SafePath

    def seal(self, relative: str) -> str:
        """The absolute target for ``relative``; a path that escapes the root is refused."""
        pure = PurePosixPath(relative)
        # PurePosixPath drops empty and "." parts, so "" is the only name with no parts
        if pure.is_absolute() or not pure.parts or ".." in pure.parts:
            raise ValueError(f"{relative!r} escapes the sealed directory {self.root}")
        return f"{self.root}/{pure.as_posix()}"


class MkdirStep(Frozen):
    """A planned remote ``mkdir`` argv."""

    kind: Literal["mkdir"] = "mkdir"
    argv: tuple[str, ...]


class TypedFileWrite(Frozen):
    """A planned remote file write sealed to ``scope``; lands as readback-verified bytes."""

    kind: Literal["write_file"] = "write_file"
    scope: FileTreeScope
    relative_path: str
    content: bytes
    mode: int = 0o644

    @property
    def target(self) -> str:
        return self.scope.seal(self.relative_path)

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.content).hexdigest()

    @property
    def temp_target(self) -> str:
        """The temp file beside the target, named by content so retries collide safely."""
        return self.scope.seal(f"{self.relative_path}.landing-{self.digest[7:19]}")

    def describe(self) -> str:
        return (
            f"write-file {self.target} ({len(self.content)} bytes, {self.digest}) sealed to "
            f"{self.scope.root}: write {self.temp_target}, rename onto the target, "
            "read back, compare bytes"
        )


PlannedRemoteStep = MkdirStep | TypedFileWrite


def mkdir_step(path: str) -> MkdirStep:
    return MkdirStep(argv=("mkdir", "-p", "--", path))


def parse_engram_manifest(text: str, placement: EngramPlacement, source: str) -> bytes:
    """Validate #12359's manifest text: JSON naming row stores inside the row-store dir."""
    try:
        body = strict_json(text)
    except json.JSONDecodeError as exc:
        raise PlannerInputError(source, "engram_manifest", f"not JSON: {exc}") from exc
    except JsonProblem as exc:
        where = "engram_manifest"
        if exc.where != "<root>" and not exc.position:  # nesting too deep is told by position
            where += exc.where if exc.where.startswith("[") else f".{exc.where}"
        raise PlannerInputError(source, where, f"{exc.message} (in the manifest text)") from exc
    stores = body.get("row_stores") if isinstance(body, dict) else None
    if not isinstance(stores, list) or not stores:
        raise PlannerInputError(source, "engram_manifest.row_stores", "must be a non-empty list")
    scope = FileTreeScope(root=placement.row_store_dir)
    for index, store in enumerate(stores):
        path = store.get("path") if isinstance(store, dict) else None
        if not _inside(scope, path):
            raise PlannerInputError(
                source,
                f"engram_manifest.row_stores[{index}].path",
                f"{path!r} is not inside the row-store directory {placement.row_store_dir}",
            )
    return text.encode()


def _inside(scope: FileTreeScope, path: object) -> bool:
    if not isinstance(path, str) or not path.startswith(scope.root + "/"):
        return False
    try:
        scope.seal(path[len(scope.root) + 1 :])
    except ValueError:
        return False
    return True


def engram_staging_steps(
    placement: EngramPlacement, manifest: bytes
) -> tuple[PlannedRemoteStep, ...]:
    """The three planned steps that stage Engram on one host before the apply's preflight."""
    return (
        mkdir_step(placement.manifest_dir),
        mkdir_step(placement.receipt_dir),
        TypedFileWrite(
            scope=FileTreeScope(root=placement.manifest_dir),
            relative_path=placement.manifest_name,
            content=manifest,
        ),
    )


class LandingMismatch(Exception):
    """The bytes read back after the rename differ from the bytes planned."""


def land_file_write(write: TypedFileWrite, filesystem_root: Path) -> Path:
    """Land ``write`` under ``filesystem_root`` (``/`` on a host): temp, rename, read back.

    The sealed target is re-checked against the real directory (symlinks resolved), so a
    link cannot carry the write out of its scope: the scope directory may not itself be a
    symlink nor resolve outside ``filesystem_root``, and the temp file is never followed.
    """
    root = filesystem_root.resolve()
    scope_path = filesystem_root / write.scope.root.lstrip("/")
    scope_dir = scope_path.resolve()
    if scope_path.is_symlink() or (scope_dir != root and root not in scope_dir.parents):
        raise ValueError(f"scope {write.scope.root} is a link or resolves outside {root}")
    target = filesystem_root / write.target.lstrip("/")
    if target.parent.resolve() != scope_dir and scope_dir not in target.parent.resolve().parents:
        raise ValueError(f"{write.target} resolves outside {write.scope.root}")
    temp = filesystem_root / write.temp_target.lstrip("/")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    try:
        with os.fdopen(os.open(temp, flags, 0o600), "wb") as handle:
            handle.write(write.content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, write.mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if target.read_bytes() != write.content:
        raise LandingMismatch(f"{write.target}: read back bytes differ from {write.digest}")
    return target
