"""Helpers for the ecosystem tests: a wheel of this checkout and venvs that hold only it and
the dependencies it declares, built offline from the distributions this interpreter has.

A venv made here has no pip and no project checkout on its path. Its site-packages holds a
``.pth`` naming one directory of symlinks: one per top-level file of every distribution in
the dependency closure of the requirements asked for (read from the wheel's own
``Requires-Dist``), taken from this interpreter's environment. A dependency the wheel
forgets to declare is therefore missing in the venv, as it would be after ``pip install``.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO_ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "gunbc-claims"


def tracked_files(root: Path = REPO_ROOT) -> list[str]:
    """The files git tracks in ``root`` plus untracked ones not ignored (a working tree)."""
    done = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    )
    return [name for name in done.stdout.decode().split("\0") if name]


def copy_checkout(into: Path, root: Path = REPO_ROOT) -> Path:
    """Copy the working tree's files (not .venv, target, caches) to ``into``."""
    for name in tracked_files(root):
        source = root / name
        if not source.is_file():
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return into


def build_wheel(checkout: Path, out: Path) -> Path:
    """``pip wheel`` of ``checkout``, as a user's ``pip install .`` builds it: in an isolated
    build environment (setuptools from the package index or pip's cache)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(out),
            str(checkout),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = out.glob("gunbc_claims-*.whl")
    return wheel


def wheel_requirements(wheel: Path, extras: Iterable[str] = ()) -> list[Requirement]:
    """The wheel's ``Requires-Dist`` that apply with ``extras`` on this interpreter."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
    wanted = set(extras)
    found = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        requirement = Requirement(line.removeprefix("Requires-Dist:").strip())
        if requirement.marker is None or any(
            requirement.marker.evaluate({"extra": extra}) for extra in ("", *wanted)
        ):
            found.append(requirement)
    return found


def closure(requirements: Iterable[Requirement]) -> dict[str, importlib.metadata.Distribution]:
    """Every installed distribution the requirements need, transitively (by canonical name)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = list(requirements)
    while todo:
        requirement = todo.pop()
        key = canonicalize_name(requirement.name)
        if key in found or key == DISTRIBUTION:
            continue
        dist = importlib.metadata.distribution(requirement.name)
        found[key] = dist
        for text in dist.requires or ():
            nested = Requirement(text)
            if nested.marker is None or nested.marker.evaluate({"extra": ""}):
                todo.append(nested)
    return found


def _top_level(dist: importlib.metadata.Distribution) -> Iterator[Path]:
    base = Path(str(dist.locate_file("")))
    seen: set[str] = set()
    for file in dist.files or ():
        first = file.parts[0]
        if first in seen or first in ("..", "__pycache__") or first.endswith(".pth"):
            continue
        seen.add(first)
        yield base / first


def offline_venv(where: Path, wheel: Path, extras: Iterable[str] = ()) -> Path:
    """A venv at ``where`` holding ``wheel`` and only what its requirements need."""
    venv.EnvBuilder(with_pip=False, clear=True, symlinks=True).create(where)
    python = where / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    deps = where / "deps"
    deps.mkdir()
    for dist in closure(wheel_requirements(wheel, extras)).values():
        for path in _top_level(dist):
            link = deps / path.name
            if path.exists() and not link.exists():
                link.symlink_to(path)
    (purelib / "offline-deps.pth").write_text(f"{deps}\n")
    for dist in closure(wheel_requirements(wheel, extras)).values():
        for ep in dist.entry_points.select(group="console_scripts"):
            _console_script(where / "bin" / ep.name, python, ep)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return where


def _console_script(path: Path, python: Path, ep: importlib.metadata.EntryPoint) -> None:
    """A console script as pip writes one: import the entry point, exit with its result."""
    module, _, attr = ep.value.partition(":")
    path.write_text(
        f"#!{python}\nimport sys\nfrom {module} import {attr.split('.')[0]}\nsys.exit({attr}())\n"
    )
    path.chmod(0o755)


def venv_env(venv_dir: Path) -> dict[str, str]:
    """An environment for running the venv's scripts: its bin first, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv_dir)
    return env
