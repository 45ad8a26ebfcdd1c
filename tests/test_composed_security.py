"""The composed model is built where only root can write, and its steps refuse any other place.

The steps (``planner.recipe.composed_steps``) run here for real, as root (the stand-in for a
host): each test lays out a directory tree, makes part of it another user's (``chown``) or
writable by others (``chmod``), runs the steps in order as an operator would (stopping at
the first that fails), and reads what was made.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.checkpoint import CheckpointManifest, ManifestFile
from planner.recipe import (
    COMPOSED_DIR_SCRIPT,
    COMPOSED_FILES_SCRIPT,
    ComposedLocalFile,
    ComposedModel,
    ComposedSource,
    composed_steps,
)
from tests.realtools import bash_parses, shellcheck_clean

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the steps run as root (CI is root)")

SNAPSHOT = CheckpointManifest(
    model="org/tiny",
    revision="r1",
    files=(ManifestFile(path="config.json", bytes=2, role="config"),),
)


@pytest.fixture
def base() -> Iterator[Path]:
    """A root-owned 0755 directory in a root-only place (``/run``, not the sticky /tmp)."""
    with tempfile.TemporaryDirectory(dir="/run", prefix="gunbc-composed-test-") as tmp:
        os.chmod(tmp, 0o755)
        root = Path(tmp)
        shots = root / "cache/models--org--tiny/snapshots/r1"
        shots.mkdir(parents=True)
        (shots / "config.json").write_text("{}")
        (root / "local").mkdir()
        (root / "local/table.bin").write_text("local")
        yield root


def _compose(base: Path, where: Path) -> subprocess.CompletedProcess[str] | None:
    """Run every step into ``where``; the first that fails, or None when all passed."""
    composed = ComposedModel(
        mount="/model",
        sources=(ComposedSource(repo="org/tiny"),),
        local_files=(ComposedLocalFile(host=str(base / "local/table.bin")),),
    )
    for step in composed_steps(composed, SNAPSHOT, str(where), str(base / "cache")):
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return done
    return None


@as_root
def test_every_missing_directory_is_made_root_0755(base: Path) -> None:
    old = os.umask(0)  # the steps' modes are their own, whatever the umask
    try:
        assert _compose(base, base / "composed/org--tiny") is None
    finally:
        os.umask(old)
    for made in (base / "composed", base / "composed/org--tiny"):
        info = os.lstat(made)
        assert (info.st_uid, oct(info.st_mode & 0o7777)) == (0, "0o755")
    assert (base / "composed/org--tiny/config.json").read_text() == "{}"
    assert (base / "composed/org--tiny/table.bin").read_text() == "local"


@pytest.mark.parametrize(
    ("prepare", "message"),
    [
        ("mkdir -p composed/org--tiny && chmod 1777 composed/org--tiny", "{d} is writable"),
        ("mkdir -p composed/org--tiny && chmod 0775 composed/org--tiny", "{d} is writable"),
        ("mkdir composed && chown 1234 composed", "{b}/composed is owned by uid 1234"),
        # a sticky directory may hold the path, but nothing is made in one: anyone could
        # have made that name first
        ("mkdir composed && chmod 1777 composed", "{b}/composed is writable by others"),
        ("mkdir -p elsewhere && chown 1234 elsewhere && ln -s elsewhere composed", "owned by"),
        ("mkdir composed && touch composed/org--tiny", "{d} is not a directory"),
    ],
)
@as_root
def test_a_composed_dir_another_user_could_change_is_refused(
    base: Path, prepare: str, message: str
) -> None:
    """The first step refuses, naming the directory, before anything is linked (the cases
    ``launcher_recipe.a_composed_model_another_user_could_change_is_refused`` states are not
    repeated here)."""
    subprocess.run(["bash", "-c", prepare], cwd=base, check=True)
    where = base / "composed/org--tiny"
    failed = _compose(base, where)
    assert failed is not None, "composed where another user could change it"
    assert failed.args[0] == "bash"
    wanted = message.format(d=where, b=base)
    assert failed.stderr.startswith("composed model: "), failed.stderr
    assert wanted in failed.stderr, failed.stderr
    assert not (where / "config.json").exists()


@pytest.mark.parametrize(
    ("prepare", "message"),
    [
        ("chmod 0666 local/table.bin", "table.bin is writable by group or others (mode 666)"),
    ],
)
@as_root
def test_a_local_file_another_user_could_change_is_refused(
    base: Path, prepare: str, message: str
) -> None:
    """A hardlink is the same file: anyone it lets write changes the weights the container
    reads, so the last step refuses it (one another user owns is ``launcher_recipe``'s
    claim)."""
    subprocess.run(["bash", "-c", prepare], cwd=base, check=True)
    failed = _compose(base, base / "composed/org--tiny")
    assert failed is not None
    assert f"composed model: {base}/composed/org--tiny/{message}" in failed.stderr


@pytest.mark.parametrize("script", [COMPOSED_DIR_SCRIPT, COMPOSED_FILES_SCRIPT])
def test_the_composed_scripts_pass_bash_n_and_shellcheck(script: str) -> None:
    assert bash_parses(script, "compose.sh").ok
    result = shellcheck_clean(script, "compose.sh")
    assert result.ok and result.stdout == "", str(result)
