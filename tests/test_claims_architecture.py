"""The dependency rule: the kernel (claims/ and plugins/, the mutation engine plugins/mutate/
among them) never imports the planner, the engine never imports the project's witnesses or
mutant data, the planner imports none of the others, mutation/ holds mutant data and no engine,
witnesses, mutants and fixtures reach the planner through its public names, and filerules/
(the file rules both sides share) is a leaf: the standard library and nothing else."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.support import REPO
from witnesses.plugin import modules_by_room

KERNEL_DIRS = ("claims", "plugins")
FORBIDDEN = "planner"


def _sources() -> list[Path]:
    return sorted(p for d in KERNEL_DIRS for p in (REPO / d).rglob("*.py"))


def _imported_modules(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif _is_dynamic_import(node):
            assert isinstance(node, ast.Call)
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def _is_dynamic_import(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not node.args:
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"import_module", "__import__"}


def test_there_are_kernel_sources_to_check() -> None:
    assert len(_sources()) >= 10


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_kernel_never_imports_the_planner(path: Path) -> None:
    offending = [
        m for m in _imported_modules(path) if m == FORBIDDEN or m.startswith(f"{FORBIDDEN}.")
    ]
    assert offending == [], f"{path.relative_to(REPO)} imports {offending}"


ENGINE = REPO / "plugins" / "mutate"
PROJECT_DATA = ("witnesses", "mutation", "fixtures")


def test_the_engine_is_a_package_of_the_kernel() -> None:
    assert {p.parent.name for p in ENGINE.rglob("__init__.py")} >= {
        "mutate",
        "declared",
        "generated",
        "values",
    }
    assert all(p in _sources() for p in ENGINE.rglob("*.py"))


@pytest.mark.parametrize(
    "path", sorted(ENGINE.rglob("*.py")), ids=lambda p: str(p.relative_to(REPO))
)
def test_the_engine_never_imports_the_projects_witnesses_or_mutants(path: Path) -> None:
    offending = [m for m in _imported_modules(path) if m.split(".")[0] in PROJECT_DATA]
    assert offending == [], f"{path.relative_to(REPO)} imports {offending}"


def test_mutation_holds_mutant_data_and_no_engine() -> None:
    """Besides ``__init__`` files (re-exports, room docstrings) and ``plugin``
    (registration), every module of mutation/ is the mutants of the witness of the same name,
    in the same room."""
    modules = {
        p.relative_to(REPO / "mutation")
        for p in (REPO / "mutation").rglob("*.py")
        if p.stem != "__init__" and p.name != "plugin.py"
    }
    assert {m for m in modules if not (REPO / "witnesses" / m).is_file()} == set()


def test_a_witness_is_known_by_its_name_in_one_room(tmp_path: Path) -> None:
    for room, names in {
        "rules": ("fit", "_helper"),
        "surfaces": ("cli",),
        "_private": ("x",),
    }.items():
        (tmp_path / room).mkdir()
        (tmp_path / room / "__init__.py").write_text("")
        for name in names:
            (tmp_path / room / f"{name}.py").write_text("")
    (tmp_path / "rules" / "expected").mkdir()  # data a room's modules read
    (tmp_path / "rules" / "expected" / "__init__.py").write_text("")
    assert modules_by_room("w", tmp_path) == {"cli": "w.surfaces.cli", "fit": "w.rules.fit"}
    (tmp_path / "surfaces" / "fit.py").write_text("")
    with pytest.raises(ValueError, match=r"fit is in two rooms: w\.rules\.fit, w\.surfaces\.fit"):
        modules_by_room("w", tmp_path)


def test_the_check_catches_an_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom planner.fit import wall\nimportlib.import_module('planner')\n")
    assert [m for m in _imported_modules(bad) if m.startswith(FORBIDDEN)] == [
        "planner.fit",
        "planner",
    ]


PLANNER_FORBIDDEN = ("claims", "plugins", "witnesses", "mutation", "fixtures", "tests")


@pytest.mark.parametrize(
    "path", sorted((REPO / "planner").rglob("*.py")), ids=lambda p: str(p.relative_to(REPO))
)
def test_the_planner_imports_nothing_of_the_others(path: Path) -> None:
    offending = [m for m in _imported_modules(path) if m.split(".")[0] in PLANNER_FORBIDDEN]
    assert offending == [], f"{path.relative_to(REPO)} imports {offending}"


def _public_planner_imports(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("planner"):
            yield from (a.name for a in node.names if a.name.startswith("_"))


@pytest.mark.parametrize(
    "path",
    sorted(p for d in ("witnesses", "mutation", "fixtures") for p in (REPO / d).rglob("*.py")),
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_the_planner_is_used_through_its_public_names(path: Path) -> None:
    assert list(_public_planner_imports(path)) == []


LEAF = REPO / "filerules"
PROJECT = ("filerules", "planner", "claims", "plugins", "witnesses", "mutation", "fixtures")


def test_the_leaf_is_imported_by_both_sides() -> None:
    """The point of the leaf: the planner and the kernel each import it (one writer, one
    strict reader), so neither keeps a copy."""
    for side in ("planner", "claims"):
        found = {m for p in (REPO / side).rglob("*.py") for m in _imported_modules(p)}
        assert any(m.split(".")[0] == "filerules" for m in found), side


@pytest.mark.parametrize("path", sorted(LEAF.rglob("*.py")), ids=lambda p: p.name)
def test_the_leaf_imports_the_standard_library_and_itself_only(path: Path) -> None:
    tops = {m.split(".")[0] for m in _imported_modules(path)}
    outside = sorted(t for t in tops if t not in sys.stdlib_module_names and t != "filerules")
    assert outside == [], f"{path.relative_to(REPO)} imports {outside}"
    assert not tops & (set(PROJECT) - {"filerules"}), sorted(tops)


def test_importing_the_leaf_loads_nothing_of_the_project() -> None:
    """In a fresh interpreter, ``import filerules`` loads no other module of the project."""
    probe = (
        "import sys, filerules\n"
        f"project = {PROJECT!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in project[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout
