"""planner.data: where the planner's data lives and the loaders for it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import planner
from planner import data
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.refusal import PlannerInputError


def test_default_root_is_the_fixtures_directory_beside_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(data.DATA_ENV, raising=False)
    root = data.default_data_root()
    assert root == Path(planner.__file__).resolve().parent.parent / "fixtures"
    assert (root / "fabric.json").is_file()
    assert (root / V41_MANIFEST).is_file()
    assert (root / GLM_MANIFEST).is_file()


def test_env_overrides_the_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(data.DATA_ENV, str(tmp_path))
    assert data.default_data_root() == tmp_path


def test_an_empty_env_value_is_no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(data.DATA_ENV, "")
    assert data.default_data_root().name == "fixtures"


def test_loaders_read_from_a_copied_root(tmp_path: Path) -> None:
    source = data.default_data_root()
    shutil.copy(source / "fabric.json", tmp_path / "fabric.json")
    (tmp_path / "checkpoints").mkdir()
    shutil.copy(source / V41_MANIFEST, tmp_path / V41_MANIFEST)
    assert data.fabric(tmp_path) == data.fabric(source)
    assert data.manifest(V41_MANIFEST, tmp_path) == data.manifest(V41_MANIFEST)


def test_loaders_follow_the_env_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    shutil.copy(data.default_data_root() / "fabric.json", tmp_path / "fabric.json")
    text = (tmp_path / "fabric.json").read_text(encoding="utf-8")
    (tmp_path / "fabric.json").write_text(text.replace('"srv8"', '"srv9"'), encoding="utf-8")
    monkeypatch.setenv(data.DATA_ENV, str(tmp_path))
    assert [h.name for h in data.fabric().group("group_a").hosts][-1] == "srv9"


def test_a_missing_manifest_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(PlannerInputError) as info:
        data.manifest(GLM_MANIFEST, tmp_path)
    assert info.value.source == str(tmp_path / GLM_MANIFEST)
