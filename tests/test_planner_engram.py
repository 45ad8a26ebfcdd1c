"""planner.engram: V4.1's placement, and edges of sealing, landing and the manifest.

The staging steps, the landing's four steps, its refusals of links out of its scope, its
failures, and the manifest's accepted and refused texts are witnesses/rules/engram_staging.py's
claims, and the placement's paths are its arm's expected values; what stays here is what no
claim varies: a relative path with "./", a write's own mode, a link inside the scope, further
row-store escapes, and a placement other than V4.1's.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from planner.arms.v41_group_a import V41_ENGRAM_PLACEMENT
from planner.engram import (
    EngramPlacement,
    FileTreeScope,
    TypedFileWrite,
    land_file_write,
    parse_engram_manifest,
)
from planner.refusal import PlannerInputError

ROW_DIR = "/var/tmp/engram-local/DeepSeek-V4.1-Flash"
SCOPE = FileTreeScope(root="/var/lib/gunbc/engram/v41/manifest")


def manifest_text(*paths: str) -> str:
    stores = [{"path": p, "bytes": 1, "ranks": "sparse per rank"} for p in paths]
    return json.dumps({"format": "gunbc-engram-row-store-manifest/1", "row_stores": stores})


GOOD = manifest_text(f"{ROW_DIR}/model-00047-of-00048.safetensors")


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


def _scope_dir(root: Path) -> Path:
    directory = root / SCOPE.root.lstrip("/")
    directory.mkdir(parents=True)
    return directory


def test_land_file_write_honours_the_mode(tmp_path: Path) -> None:
    _scope_dir(tmp_path)
    write = TypedFileWrite(scope=SCOPE, relative_path="m.json", content=b"x", mode=0o600)
    assert stat.S_IMODE(land_file_write(write, tmp_path).stat().st_mode) == 0o600


def test_land_file_write_follows_a_link_inside_the_scope(tmp_path: Path) -> None:
    directory = _scope_dir(tmp_path)
    (directory / "real").mkdir()
    (directory / "alias").symlink_to(directory / "real", target_is_directory=True)
    write = TypedFileWrite(scope=SCOPE, relative_path="alias/m.json", content=b"inside")
    land_file_write(write, tmp_path)
    assert (directory / "real" / "m.json").read_bytes() == b"inside"


def _parse_error(text: str) -> PlannerInputError:
    with pytest.raises(PlannerInputError) as info:
        parse_engram_manifest(text, V41_ENGRAM_PLACEMENT, "inputs.json")
    assert info.value.source == "inputs.json"
    return info.value


@pytest.mark.parametrize(
    "path",
    [f"{ROW_DIR}/a/../../b", "relative/x", f"{ROW_DIR}//x"],
)
def test_row_store_paths_that_escape_are_refused(path: str) -> None:
    """The directory itself, up one level and a sibling sharing the prefix are
    engram_staging's claims."""
    assert _parse_error(manifest_text(path)).where == "engram_manifest.row_stores[0].path"


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
