"""Helpers for the mutation harness tests: the real ``claims`` CLI on the fake door."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PROJECT = HERE / "project"
CLAIMS_EXE = Path(sys.executable).with_name("claims")
PLUGINS = ("-p", "mutation.plugin", "-p", "tests.fakes_mutation.plugin")


def run_mutate(
    *args: str, mutants: str = "exact", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``claims -p mutation.plugin -p tests.fakes_mutation.plugin mutate ARGS`` at the repo root,
    with no entry-point plugins and ``FAKE_MUTANTS`` naming the mutant modules."""
    full = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1",
        "FAKE_MUTANTS": mutants,
        **(env or {}),
    }
    return subprocess.run(
        [str(CLAIMS_EXE), *PLUGINS, "mutate", *args],
        cwd=REPO,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def copy_project(destination: Path) -> Path:
    """A fresh copy of the fake gate project (mutmut writes mutants/ inside it)."""
    target = destination / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("mutants", "__pycache__"))
    return target


def run_generated(
    project: Path, *args: str, plugins: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``claims mutate --generated`` inside ``project``, loading its gate plugin (and
    ``plugins``), with this checkout's code (not whichever the venv's editable install
    points at)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), str(REPO)]),
        "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    return subprocess.run(
        [
            str(CLAIMS_EXE),
            "-p",
            "mutation.plugin",
            "-p",
            "gate_plugin",
            *(arg for plugin in plugins for arg in ("-p", plugin)),
            "mutate",
            "--generated",
            *args,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def tree_digest(*roots: Path) -> str:
    """A digest of every file's path and bytes under ``roots`` (caches excluded)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def with_witness(root: Path, name: str, witness: str) -> str:
    """Add witness ``name`` (its module, and a plugin registering it) to the project copy at
    ``root``; the plugin's module name."""
    (root / f"{name}_witness.py").write_text(witness)
    plugin = f'''"""Registers witness ``{name}``."""

from claims import hookimpl


@hookimpl
def claims_register_witnesses(register):
    register("{name}", "{name}_witness")
'''
    (root / f"{name}_plugin.py").write_text(plugin)
    pyproject = (root / "pyproject.toml").read_text()
    extra = f'"{name}_witness.py", "{name}_plugin.py", '
    (root / "pyproject.toml").write_text(
        pyproject.replace("also_copy = [", f"also_copy = [{extra}")
    )
    return f"{name}_plugin"
