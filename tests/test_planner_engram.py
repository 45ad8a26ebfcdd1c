"""planner.engram: placement, sealed writes, staging steps, landing and the manifest."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from planner.arms.v41_group_a import V41_ENGRAM_PLACEMENT
from planner.engram import (
    MANIFEST_ENV,
    RECEIPT_ENV,
    EngramPlacement,
    FileTreeScope,
    MkdirStep,
    TypedFileWrite,
    engram_staging_steps,
    land_file_write,
    mkdir_step,
    parse_engram_manifest,
)
from planner.refusal import PlannerInputError

ROW_DIR = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"
SCOPE = FileTreeScope(root="/var/lib/gunbc/engram/v41/manifest")


def manifest_text(*paths: str) -> str:
    stores = [{"path": p, "bytes": 1, "ranks": "sparse per rank"} for p in paths]
    return json.dumps({"format": "gunbc-engram-row-store-manifest/1", "row_stores": stores})


GOOD = manifest_text(f"{ROW_DIR}/model-00047-of-00048.safetensors")


# --- placement --------------------------------------------------------------------------


def test_v41_placement_and_env() -> None:
    placement = V41_ENGRAM_PLACEMENT
    assert placement.row_store_dir == ROW_DIR
    assert placement.manifest_path == ("/var/lib/gunbc/engram/v41/manifest/row-store-manifest.json")
    assert placement.env() == (
        (MANIFEST_ENV, placement.manifest_path),
        (RECEIPT_ENV, "/var/lib/gunbc/engram/v41/receipts"),
    )
    assert MANIFEST_ENV == "GUNBC_ENGRAM_ROW_STORE_MANIFEST"
    assert RECEIPT_ENV == "GUNBC_ENGRAM_TOUCH_RECEIPT_DIR"


# --- sealing ----------------------------------------------------------------------------


@pytest.mark.parametrize("relative", ["../x", "/abs", "a/../../b", "", ".", "a/..", "..", "/"])
def test_seal_refuses_paths_that_escape_or_name_nothing(relative: str) -> None:
    with pytest.raises(ValueError, match="escapes the sealed directory"):
        SCOPE.seal(relative)


@pytest.mark.parametrize(
    ("relative", "target"),
    [
        ("row-store-manifest.json", "/var/lib/gunbc/engram/v41/manifest/row-store-manifest.json"),
        ("sub/file", "/var/lib/gunbc/engram/v41/manifest/sub/file"),
        ("./a", "/var/lib/gunbc/engram/v41/manifest/a"),
    ],
)
def test_seal_keeps_paths_inside(relative: str, target: str) -> None:
    assert SCOPE.seal(relative) == target


def test_a_write_whose_relative_path_escapes_cannot_name_a_target() -> None:
    write = TypedFileWrite(scope=SCOPE, relative_path="../escape", content=b"x")
    with pytest.raises(ValueError, match="escapes"):
        _ = write.target


# --- staging steps ----------------------------------------------------------------------


def test_staging_is_two_mkdir_argvs_then_one_typed_write() -> None:
    steps = engram_staging_steps(V41_ENGRAM_PLACEMENT, b"{}")
    assert len(steps) == 3
    first, second, third = steps
    assert isinstance(first, MkdirStep)
    assert first.argv == ("mkdir", "-p", "--", "/var/lib/gunbc/engram/v41/manifest")
    assert isinstance(second, MkdirStep)
    assert second.argv == ("mkdir", "-p", "--", "/var/lib/gunbc/engram/v41/receipts")
    assert isinstance(third, TypedFileWrite)
    assert third.scope == FileTreeScope(root=V41_ENGRAM_PLACEMENT.manifest_dir)
    assert third.relative_path == "row-store-manifest.json"
    assert third.target == V41_ENGRAM_PLACEMENT.manifest_path
    assert third.content == b"{}"
    assert third.mode == 0o644


def test_mkdir_step_argv() -> None:
    assert mkdir_step("/x/y") == MkdirStep(argv=("mkdir", "-p", "--", "/x/y"))


def test_typed_write_digest_temp_target_and_description() -> None:
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"hello")
    digest = "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    assert write.digest == digest
    assert write.temp_target == f"{SCOPE.root}/m.json.landing-2cf24dba5fb0"
    text = write.describe()
    assert f"write-file {SCOPE.root}/m.json (5 bytes, {digest})" in text
    assert f"sealed to {SCOPE.root}" in text
    assert "rename onto the target, read back, compare bytes" in text


# --- landing into a real directory --------------------------------------------------------


def _scope_dir(root: Path) -> Path:
    directory = root / SCOPE.root.lstrip("/")
    directory.mkdir(parents=True)
    return directory


def test_land_file_write_lands_the_exact_bytes(tmp_path: Path) -> None:
    directory = _scope_dir(tmp_path)
    content = GOOD.encode() + b"\x00\xff trailing"
    write = TypedFileWrite(scope=SCOPE, relative_path="row-store-manifest.json", content=content)
    landed = land_file_write(write, tmp_path)
    assert landed == directory / "row-store-manifest.json"
    assert landed.read_bytes() == content
    assert stat.S_IMODE(landed.stat().st_mode) == 0o644
    assert sorted(p.name for p in directory.iterdir()) == ["row-store-manifest.json"]
    assert not any(".landing-" in p.name for p in tmp_path.rglob("*"))


def test_land_file_write_replaces_an_existing_target_by_rename(tmp_path: Path) -> None:
    directory = _scope_dir(tmp_path)
    target = directory / "m.json"
    target.write_bytes(b"old")
    old_inode = target.stat().st_ino
    land_file_write(TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"new"), tmp_path)
    assert target.read_bytes() == b"new"
    assert target.stat().st_ino != old_inode
    assert [p.name for p in directory.iterdir()] == ["m.json"]


def test_land_file_write_overwrites_a_stale_temp_from_an_earlier_try(tmp_path: Path) -> None:
    directory = _scope_dir(tmp_path)
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"whole document")
    stale = tmp_path / write.temp_target.lstrip("/")
    stale.write_bytes(b"half a docu")
    land_file_write(write, tmp_path)
    assert (directory / "m.json").read_bytes() == b"whole document"
    assert not stale.exists()


def test_land_file_write_honours_the_mode(tmp_path: Path) -> None:
    _scope_dir(tmp_path)
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"x", mode=0o600)
    assert stat.S_IMODE(land_file_write(write, tmp_path).stat().st_mode) == 0o600


def test_land_file_write_refuses_a_scope_that_is_a_symlink_pointing_outside(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    outside.mkdir()
    link = root / SCOPE.root.lstrip("/")
    link.parent.mkdir(parents=True)
    link.symlink_to(outside, target_is_directory=True)
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"x")
    with pytest.raises(ValueError, match="outside"):
        land_file_write(write, root)
    assert list(outside.iterdir()) == []


def test_land_file_write_refuses_a_scope_under_a_symlinked_parent(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (outside / "engram" / "v41" / "manifest").mkdir(parents=True)
    (root / "var" / "lib").mkdir(parents=True)
    (root / "var" / "lib" / "gunbc").symlink_to(outside, target_is_directory=True)
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"x")
    with pytest.raises(ValueError, match="outside"):
        land_file_write(write, root)
    assert list((outside / "engram" / "v41" / "manifest").iterdir()) == []


def test_land_file_write_refuses_a_subdirectory_link_out_of_the_scope(tmp_path: Path) -> None:
    directory = _scope_dir(tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    (directory / "sub").symlink_to(outside, target_is_directory=True)
    write = TypedFileWrite(scope=SCOPE, relative_path="sub/m.json", content=b"x")
    with pytest.raises(ValueError, match="resolves outside"):
        land_file_write(write, tmp_path / "root")
    assert list(outside.iterdir()) == []


def test_land_file_write_never_follows_a_planted_temp_link(tmp_path: Path) -> None:
    _scope_dir(tmp_path / "root")
    victim = tmp_path / "victim"
    victim.write_bytes(b"untouched")
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"x")
    (tmp_path / "root" / write.temp_target.lstrip("/")).symlink_to(victim)
    with pytest.raises(OSError):
        land_file_write(write, tmp_path / "root")
    assert victim.read_bytes() == b"untouched"


def test_land_file_write_follows_a_link_inside_the_scope(tmp_path: Path) -> None:
    directory = _scope_dir(tmp_path)
    (directory / "real").mkdir()
    (directory / "alias").symlink_to(directory / "real", target_is_directory=True)
    write = TypedFileWrite(scope=SCOPE, relative_path="alias/m.json", content=b"inside")
    land_file_write(write, tmp_path)
    assert (directory / "real" / "m.json").read_bytes() == b"inside"


def test_land_file_write_into_a_missing_directory_fails_loudly(tmp_path: Path) -> None:
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"x")
    with pytest.raises(OSError):
        land_file_write(write, tmp_path)
    assert not any(tmp_path.rglob("*.landing-*"))


def test_staged_manifest_lands_after_the_mkdir_steps(tmp_path: Path) -> None:
    steps = engram_staging_steps(V41_ENGRAM_PLACEMENT, GOOD.encode())
    for step in steps:
        if isinstance(step, MkdirStep):
            os.makedirs(tmp_path / step.argv[-1].lstrip("/"), exist_ok=True)
        else:
            land_file_write(step, tmp_path)
    landed = tmp_path / V41_ENGRAM_PLACEMENT.manifest_path.lstrip("/")
    assert landed.read_text(encoding="utf-8") == GOOD
    assert (tmp_path / V41_ENGRAM_PLACEMENT.receipt_dir.lstrip("/")).is_dir()


# --- the manifest (#12359) ----------------------------------------------------------------


def test_parse_engram_manifest_returns_the_text_as_bytes() -> None:
    assert parse_engram_manifest(GOOD, V41_ENGRAM_PLACEMENT, "inputs.json") == GOOD.encode()


def _parse_error(text: str) -> PlannerInputError:
    with pytest.raises(PlannerInputError) as info:
        parse_engram_manifest(text, V41_ENGRAM_PLACEMENT, "inputs.json")
    assert info.value.source == "inputs.json"
    return info.value


def test_row_store_outside_the_row_store_dir_is_refused_naming_the_index() -> None:
    text = manifest_text(f"{ROW_DIR}/model-00047-of-00048.safetensors", "/etc/shadow")
    err = _parse_error(text)
    assert err.where == "engram_manifest.row_stores[1].path"
    assert "'/etc/shadow'" in err.message
    assert ROW_DIR in err.message


@pytest.mark.parametrize(
    "path",
    [
        ROW_DIR,
        f"{ROW_DIR}/",
        f"{ROW_DIR}/../escape",
        f"{ROW_DIR}/a/../../b",
        f"{ROW_DIR}-sibling/x",
        "relative/x",
        f"{ROW_DIR}//x",
    ],
)
def test_row_store_paths_that_escape_are_refused(path: str) -> None:
    assert _parse_error(manifest_text(path)).where == "engram_manifest.row_stores[0].path"


def test_row_store_without_a_path_is_refused() -> None:
    text = json.dumps({"row_stores": [{"bytes": 1}]})
    assert _parse_error(text).where == "engram_manifest.row_stores[0].path"


def test_row_store_that_is_not_an_object_is_refused() -> None:
    text = json.dumps({"row_stores": [f"{ROW_DIR}/x"]})
    assert _parse_error(text).where == "engram_manifest.row_stores[0].path"


@pytest.mark.parametrize("text", ["{}", '{"row_stores": []}', '{"row_stores": "x"}', "[]"])
def test_manifest_without_row_stores_is_refused(text: str) -> None:
    assert _parse_error(text).where == "engram_manifest.row_stores"


def test_manifest_that_is_not_json_is_refused() -> None:
    err = _parse_error("{nope")
    assert err.where == "engram_manifest"
    assert "not JSON" in err.message


def test_manifest_against_another_placement() -> None:
    placement = EngramPlacement(
        row_store_dir="/srv/rows",
        manifest_dir="/srv/m",
        manifest_name="m.json",
        receipt_dir="/srv/r",
    )
    assert parse_engram_manifest(manifest_text("/srv/rows/a"), placement, "x") is not None
    with pytest.raises(PlannerInputError):
        parse_engram_manifest(GOOD, placement, "x")


def test_a_landing_that_fails_leaves_no_temp_file(tmp_path: Path) -> None:
    scope_dir = tmp_path / SCOPE.root.lstrip("/")
    scope_dir.mkdir(parents=True)
    (scope_dir / "m.json").mkdir()  # the rename onto a directory fails
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"{}")
    with pytest.raises(OSError):
        land_file_write(write, tmp_path)
    assert sorted(p.name for p in scope_dir.iterdir()) == ["m.json"]
