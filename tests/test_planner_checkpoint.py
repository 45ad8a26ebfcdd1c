"""planner.checkpoint: manifests, rows, weight rounding, parsers and placement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.arms.glm_group_b import GLM_PARSERS, glm_row
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.v41_group_a import DEEPSEEK_V41_PARSERS, deepseek_v41_flash_row
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.checkpoint import (
    CHECKPOINT_ROOT,
    CheckpointManifest,
    CheckpointVllmParsers,
    NothingBeyondWeights,
    PageCacheFromNonKvHeadroom,
    checkpoint_row,
    load_manifest,
    local_checkpoint_directory,
)
from planner.data import default_data_root
from planner.measure import GIB, gibibyte_ceiling
from planner.refusal import PlannerInputError

V41_PATH = default_data_root() / V41_MANIFEST
GLM_PATH = default_data_root() / GLM_MANIFEST


@pytest.fixture(scope="module")
def v41() -> CheckpointManifest:
    return load_manifest(V41_PATH)


@pytest.fixture(scope="module")
def glm() -> CheckpointManifest:
    return load_manifest(GLM_PATH)


def test_v41_manifest_identity(v41: CheckpointManifest) -> None:
    assert v41.model == "deepseek-ai/DeepSeek-V4.1-Flash"
    assert v41.revision == "dba1be0a"
    assert len(v41.files) == 50


def test_v41_manifest_has_exactly_two_engram_shards(v41: CheckpointManifest) -> None:
    shards = [f for f in v41.files if f.role == "engram_table"]
    assert [f.path for f in shards] == [
        "model-00047-of-00048.safetensors",
        "model-00048-of-00048.safetensors",
    ]


def test_weight_bytes_sum_only_the_weights_role(v41: CheckpointManifest) -> None:
    raw = json.loads(V41_PATH.read_text(encoding="utf-8"))
    expected = sum(f["bytes"] for f in raw["files"] if f["role"] == "weights")
    assert v41.weight_bytes == expected
    everything = sum(f["bytes"] for f in raw["files"])
    assert v41.weight_bytes < everything


def test_v41_weight_is_the_287_gib_backbone(v41: CheckpointManifest) -> None:
    row = deepseek_v41_flash_row(v41)
    assert row.weight_gib == 287
    assert row.weight_gib == gibibyte_ceiling(v41.weight_bytes)


def test_v41_weight_excludes_the_engram_shards(v41: CheckpointManifest) -> None:
    with_shards = gibibyte_ceiling(sum(f.bytes for f in v41.files if f.role != "config"))
    assert with_shards > 287
    assert deepseek_v41_flash_row(v41).weight_gib != with_shards


def test_v41_weight_is_rounded_once_not_per_file(v41: CheckpointManifest) -> None:
    per_file = sum(gibibyte_ceiling(f.bytes) for f in v41.files if f.role == "weights")
    assert per_file != 287
    assert deepseek_v41_flash_row(v41).weight_gib == 287


def test_weight_rounds_up_from_the_manifest_bytes(tmp_path: Path) -> None:
    manifest = {
        "model": "org/tiny",
        "revision": "abc123",
        "files": [
            {"path": "config.json", "bytes": 10 * GIB, "role": "config"},
            {"path": "a.safetensors", "bytes": GIB, "role": "weights"},
            {"path": "b.safetensors", "bytes": 1, "role": "weights"},
            {"path": "table.safetensors", "bytes": 50 * GIB, "role": "engram_table"},
        ],
    }
    path = tmp_path / "tiny.manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    row = deepseek_v41_flash_row(load_manifest(path))
    assert row.weight_gib == 2


def test_v41_row_parsers_and_tokenizer_flags(v41: CheckpointManifest) -> None:
    row = deepseek_v41_flash_row(v41)
    assert row.parsers == DEEPSEEK_V41_PARSERS
    assert row.parsers.flags() == (
        "--tool-call-parser",
        "deepseek_v41",
        "--enable-auto-tool-choice",
        "--reasoning-parser",
        "deepseek_v41",
        "--tokenizer-mode",
        "deepseek_v41",
    )


def test_glm_row_renders_no_tokenizer_mode(glm: CheckpointManifest) -> None:
    row = glm_row(glm)
    assert row.parsers == GLM_PARSERS
    assert row.parsers.tokenizer_mode is None
    flags = row.parsers.flags()
    assert "--tokenizer-mode" not in flags
    assert flags == (
        "--tool-call-parser",
        "glm45",
        "--enable-auto-tool-choice",
        "--reasoning-parser",
        "glm45",
    )


def test_parsers_refuse_unsafe_names() -> None:
    with pytest.raises(ValueError, match="not a safe name"):
        CheckpointVllmParsers(tool_call="x; rm -rf /", reasoning="r")


def test_resident_beyond_weights(v41: CheckpointManifest, glm: CheckpointManifest) -> None:
    assert isinstance(
        deepseek_v41_flash_row(v41).resident_beyond_weights, PageCacheFromNonKvHeadroom
    )
    assert isinstance(glm_row(glm).resident_beyond_weights, NothingBeyondWeights)


def test_local_checkpoint_directory() -> None:
    assert (
        local_checkpoint_directory("deepseek-ai/DeepSeek-V4.1-Flash", "dba1be0a")
        == "/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"
    )
    assert CHECKPOINT_ROOT == "/var/lib/gunbc/checkpoints"
    assert local_checkpoint_directory("a/b", "r1", root="/srv/ckpt") == "/srv/ckpt/a--b/r1"


@pytest.mark.parametrize(
    ("model", "revision"),
    [
        ("noslash", "abc"),
        ("/name", "abc"),
        ("org/", "abc"),
        ("a/b/c", "abc"),
        ("a/b", "../x"),
        ("a/b", ""),
        ("a/b", "de-ad"),
    ],
)
def test_local_checkpoint_directory_refuses_what_it_cannot_place(model: str, revision: str) -> None:
    with pytest.raises(ValueError, match="cannot place"):
        local_checkpoint_directory(model, revision)


def test_rows_are_placed_by_the_one_placement_rule(
    v41: CheckpointManifest, glm: CheckpointManifest
) -> None:
    for manifest, row in ((v41, deepseek_v41_flash_row(v41)), (glm, glm_row(glm))):
        assert row.placement == local_checkpoint_directory(manifest.model, manifest.revision)
        assert row.reference == f"{manifest.model}@{manifest.revision}"


def test_checkpoint_row_takes_the_parsers_and_extras_it_is_given(
    glm: CheckpointManifest,
) -> None:
    parsers = CheckpointVllmParsers(tool_call="t", reasoning="r", tokenizer_mode="m")
    row = checkpoint_row(glm, parsers, PageCacheFromNonKvHeadroom())
    assert row.parsers.flags()[-2:] == ("--tokenizer-mode", "m")
    assert row.weight_gib == glm_row(glm).weight_gib


def test_bad_manifest_role_names_the_file_and_field(tmp_path: Path) -> None:
    raw = json.loads(V41_PATH.read_text(encoding="utf-8"))
    raw["files"][2]["role"] = "weightz"
    path = tmp_path / "bad.manifest.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_manifest(path)
    assert info.value.source == str(path)
    assert info.value.where == "files.2.role"
    assert "'weightz'" in info.value.message


def test_malformed_manifest_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.manifest.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_manifest(path)
    assert (info.value.source, info.value.where) == (str(path), "<file>")
