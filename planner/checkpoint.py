"""Checkpoint rows: what a model is, where it lives, what it weighs, how vLLM decodes it.

A row's weight comes from its manifest's byte count, rounded once by
:func:`planner.measure.gibibyte_ceiling`. Only files whose role is ``weights`` count:
the V4.1 Engram table shards are served from row stores, not loaded as weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from planner.measure import gibibyte_ceiling
from planner.values import Frozen, SafeName, SafePath, load_json_model

CHECKPOINT_ROOT = "/var/lib/gunbc/checkpoints"
"""Where the materializer installs checkpoints on every host."""


def local_checkpoint_directory(model: str, revision: str, root: str = CHECKPOINT_ROOT) -> str:
    """The one placement rule: ``<root>/<org>--<name>/<revision>``.

    The materializer installs there and the planner mounts from there; both call this.
    """
    org, _, name = model.partition("/")
    if not org or not name or "/" in name or not revision.isalnum():
        raise ValueError(f"cannot place model {model!r} at revision {revision!r}")
    return f"{root}/{org}--{name}/{revision}"


class ManifestFile(Frozen):
    """One file of a checkpoint snapshot."""

    path: str
    bytes: int = Field(ge=0)
    role: Literal["weights", "engram_table", "config"]


class CheckpointManifest(Frozen):
    """A snapshot's file list with byte counts."""

    model: str
    revision: SafeName
    files: tuple[ManifestFile, ...]

    @property
    def weight_bytes(self) -> int:
        return sum(f.bytes for f in self.files if f.role == "weights")


def load_manifest(path: Path) -> CheckpointManifest:
    """Read a manifest file; errors name the file and the field."""
    return load_json_model(CheckpointManifest, path, "manifest")


class CheckpointVllmParsers(Frozen):
    """Which vLLM parsers decode this model's output: a fact about the model."""

    tool_call: SafeName
    reasoning: SafeName
    tokenizer_mode: SafeName | None = None

    def flags(self) -> tuple[str, ...]:
        """Rendered flags; an absent tokenizer mode renders no flag at all."""
        flags: tuple[str, ...] = (
            "--tool-call-parser",
            self.tool_call,
            "--enable-auto-tool-choice",
            "--reasoning-parser",
            self.reasoning,
        )
        if self.tokenizer_mode is not None:
            flags += ("--tokenizer-mode", self.tokenizer_mode)
        return flags


class PageCacheFromNonKvHeadroom(Frozen):
    """Resident beyond weights: the page cache, charged as the pool share outside the engine.

    On a GB10 the page cache lives in the same unified pool as the GPU's memory, so the
    Engram row stores' page cache is charged against what ``--gpu-memory-utilization``
    leaves outside the engine.
    """

    kind: Literal["page_cache_from_non_kv_headroom"] = "page_cache_from_non_kv_headroom"


class NothingBeyondWeights(Frozen):
    """The row keeps nothing resident beyond its weights."""

    kind: Literal["nothing"] = "nothing"


ResidentBeyondWeights = PageCacheFromNonKvHeadroom | NothingBeyondWeights


class CheckpointRow(Frozen):
    """A servable checkpoint: identity, placement, weight, parsers, resident extras."""

    model: str
    revision: SafeName
    weight_gib: int
    parsers: CheckpointVllmParsers
    resident_beyond_weights: ResidentBeyondWeights
    placement: SafePath

    @property
    def reference(self) -> str:
        return f"{self.model}@{self.revision}"


def checkpoint_row(
    manifest: CheckpointManifest,
    parsers: CheckpointVllmParsers,
    resident_beyond_weights: ResidentBeyondWeights,
) -> CheckpointRow:
    """Derive a row from its manifest: the weight is rounded here, once."""
    return CheckpointRow(
        model=manifest.model,
        revision=manifest.revision,
        weight_gib=gibibyte_ceiling(manifest.weight_bytes),
        parsers=parsers,
        resident_beyond_weights=resident_beyond_weights,
        placement=local_checkpoint_directory(manifest.model, manifest.revision),
    )
