"""The package as a user gets it: a wheel of this checkout in a fresh venv.

The venvs (tests/ecosystem.py) hold the wheel and only what it declares, so a dependency
the package forgets to declare fails here as it would after ``pip install``. Nothing is
imported from the checkout: the commands run from the venv's scripts with no PYTHONPATH.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.ecosystem import (
    REPO_ROOT,
    build_wheel,
    copy_checkout,
    offline_venv,
    venv_env,
    wheel_requirements,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a copy of the checkout, the wheel built from it)."""
    root = tmp_path_factory.mktemp("install")
    checkout = copy_checkout(root / "checkout")
    return checkout, build_wheel(checkout, root / "dist")


@pytest.fixture(scope="module")
def runtime_venv(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return offline_venv(tmp_path_factory.mktemp("runtime") / "venv", built[1])


@pytest.fixture(scope="module")
def test_venv(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return offline_venv(tmp_path_factory.mktemp("testextra") / "venv", built[1], ["test"])


def _run(venv: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / argv[0]), *argv[1:]],
        cwd=cwd,
        env=venv_env(venv),
        capture_output=True,
        text=True,
        timeout=600,
    )


#: A project that opts into the installed planner's evidence, as this repository's own
#: pyproject.toml does: nothing of it loads without being named.
OPTED_IN = '[tool.claims]\nplugins = ["witnesses.plugin", "mutation.plugin"]\n'


def _opted_in(directory: Path) -> Path:
    (directory / "pyproject.toml").write_text(OPTED_IN, encoding="utf-8")
    return directory


def _claim_total(venv: Path, cwd: Path) -> int:
    """Every claim `claims list` counts, pending witnesses included."""
    done = _run(venv, ["claims", "list"], cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    totals = [
        int(m.group(1))
        for line in done.stdout.splitlines()
        if (m := re.search(r"\s(\d+)\s+(ok|pending.*)$", line))
    ]
    assert totals, done.stdout
    return sum(totals)


def test_runtime_dependencies_are_ranges_and_hypothesis_is_one(built: tuple[Path, Path]) -> None:
    requirements = {r.name: r for r in wheel_requirements(built[1])}
    assert set(requirements) == {"pluggy", "pydantic", "tabulate", "hypothesis"}
    for requirement in requirements.values():
        operators = {s.operator for s in requirement.specifier}
        assert "==" not in operators and {">=", "<"} <= operators, requirement


def test_claims_run_all_passes_with_only_the_runtime_dependencies(
    runtime_venv: Path, tmp_path: Path
) -> None:
    imported = _run(
        runtime_venv, ["python", "-c", "import witnesses; print(witnesses.__file__)"], tmp_path
    )
    assert str(runtime_venv) in imported.stdout, imported.stdout + imported.stderr
    missing = _run(runtime_venv, ["python", "-c", "import pytest"], tmp_path)
    assert missing.returncode != 0, "the runtime venv must not hold pytest"
    bare = _run(runtime_venv, ["claims", "list"], tmp_path)
    assert (bare.returncode, bare.stdout.strip()) == (0, "no witnesses registered"), bare.stderr
    done = _run(runtime_venv, ["claims", "run", "--all"], _opted_in(tmp_path))
    summary = [line for line in done.stdout.splitlines() if re.match(r"^\w+: ", line)]
    assert done.returncode == 0, "\n".join(summary) + done.stderr
    assert summary and all(line.endswith("PASS") for line in summary), summary


def test_pytest_pyargs_collects_every_claim_of_the_installed_package(
    test_venv: Path, tmp_path: Path
) -> None:
    total = _claim_total(test_venv, _opted_in(tmp_path))
    done = _run(test_venv, ["pytest", "--pyargs", "witnesses", "--collect-only", "-q"], tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert f"{total} tests collected" in done.stdout, done.stdout[-500:]


def test_pytest_witnesses_from_a_checkout_collects_every_claim(
    test_venv: Path, built: tuple[Path, Path]
) -> None:
    checkout = built[0]
    total = _claim_total(test_venv, checkout)
    done = _run(test_venv, ["pytest", "witnesses", "--collect-only", "-q"], checkout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert f"{total} tests collected" in done.stdout, done.stdout[-500:]
    header = _run(test_venv, ["pytest", "witnesses", "--collect-only"], checkout).stdout
    # The claims run the installed code; the header says where that is.
    assert f"imported from {test_venv}" in header, header[:800]


def test_the_wheel_ships_py_typed_and_the_data(built: tuple[Path, Path]) -> None:
    import zipfile

    names = set(zipfile.ZipFile(built[1]).namelist())
    for package in ("claims", "planner", "plugins", "witnesses", "mutation", "fixtures"):
        assert f"{package}/py.typed" in names, package
    assert "fixtures/fabric.json" in names
    assert "fixtures/stubs/docker" in names
    assert not any(n.startswith("tests/") for n in names)


def test_the_checkout_is_not_imported(runtime_venv: Path) -> None:
    # The venv's own site-packages, never the repository, provides the packages.
    done = _run(runtime_venv, ["python", "-c", "import claims; print(claims.__file__)"], Path("/"))
    assert not done.stdout.startswith(str(REPO_ROOT)), done.stdout


def test_every_module_the_help_names_exists_in_an_install(
    runtime_venv: Path, tmp_path: Path
) -> None:
    helps = [_run(runtime_venv, ["claims", "--help"], tmp_path).stdout]
    commands = ("list", "run", "mutate", "frontiers", "identity", "evidence")
    helps += [_run(runtime_venv, ["claims", c, "--help"], tmp_path).stdout for c in commands]
    found_p = {m for text in helps for m in re.findall(r"-p (\S+)", text)}
    # `my_project` is the help's placeholder for the reader's own package.
    named = {m for m in found_p if not m.startswith(("no:", "MODULE", "my_project."))}
    assert "my_project.evidence" in found_p
    for module in sorted(named):
        found = _run(runtime_venv, ["python", "-c", f"import {module}"], tmp_path)
        assert found.returncode == 0, f"the help names {module}, absent from an install"
    version = _run(runtime_venv, ["claims", "--version"], tmp_path).stdout
    assert version.startswith("claims 0.1.0 (gunbc-claims, ") and str(runtime_venv) in version


def test_version_warns_of_a_top_level_name_another_distribution_installs(
    runtime_venv: Path, tmp_path: Path
) -> None:
    # A second distribution that also installs a top-level `fixtures` (as PyPI's does).
    info = tmp_path / "fixtures-4.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fixtures\nVersion: 4.1.0\n")
    (info / "RECORD").write_text("fixtures/__init__.py,,\nfixtures-4.1.0.dist-info/METADATA,,\n")
    clean = _run(runtime_venv, ["claims", "--version"], tmp_path)
    assert "warning" not in clean.stdout, clean.stdout
    env = {**venv_env(runtime_venv), "PYTHONPATH": str(tmp_path)}
    clash = subprocess.run(
        [str(runtime_venv / "bin" / "claims"), "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        "warning: top-level names shared with other installed distributions: "
        "fixtures (fixtures)" in clash.stdout
    ), clash.stdout


def test_a_survey_without_mutmut_says_how_to_install_it(
    runtime_venv: Path, built: tuple[Path, Path]
) -> None:
    # The runtime venv holds the required dependencies only: mutmut is the `mutation` extra.
    done = _run(runtime_venv, ["claims", "mutate", "--generated"], built[0])
    assert done.returncode == 2, done.stdout + done.stderr
    assert "which this Python" in done.stderr and "pip install 'gunbc-claims[mutation]'" in (
        done.stderr
    )
    assert "internal error" not in done.stderr
    assert not (built[0] / "mutants").exists()


@pytest.fixture(scope="module")
def adopter(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/postage copied outside the checkout, as an adopter's project would sit."""
    project = tmp_path_factory.mktemp("adopter") / "postage"
    shutil.copytree(
        built[0] / "examples" / "postage", project, ignore=shutil.ignore_patterns("__pycache__")
    )
    return project


def _adopter_runs(venv: Path, project: Path, argv: list[str]) -> str:
    done = _run(venv, argv, project)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(argv)}: exit {done.returncode}\n{output[-3000:]}"
    # Nothing of this repository's own project shows in an adopter's output.
    assert not re.search(r"planner|witnesses\.plugin|mutation\.plugin", output, re.I), output
    return output


def test_the_example_project_runs_every_command_with_only_its_own_evidence(
    test_venv: Path, adopter: Path
) -> None:
    listed = json.loads(_adopter_runs(test_venv, adopter, ["claims", "list", "--format", "json"]))
    assert [(w["name"], w["total"]) for w in listed["witnesses"]] == [("postage", 5)]
    loaded = _adopter_runs(test_venv, adopter, ["claims", "plugins"])
    assert "postage.evidence.plugin" in loaded and str(test_venv) in loaded
    ran = _adopter_runs(test_venv, adopter, ["claims", "run", "--all"])
    assert ran.rstrip().endswith("postage: 5/5 PASS"), ran
    declared = _adopter_runs(test_venv, adopter, ["claims", "mutate", "--all"])
    assert "postage: 4/4 mutants exact" in declared and "claims witnessed 5/5" in declared
    generated = _adopter_runs(test_venv, adopter, ["claims", "mutate", "--generated"])
    # The witness sits inside the surveyed package; the survey leaves it out, never mutates it.
    assert "mutants of witness and mutant modules (the evidence is not surveyed): " in generated
    assert "every file holds its floor" in generated, generated
    # mutmut's 25 mutants of rates.py and 3 statement deletions, all killed
    assert re.search(r"^postage/rates\.py\s+28\s", generated, re.M), generated
    assert not re.search(r"^postage/evidence/\S+\s+\d", generated, re.M), generated
    values = _adopter_runs(test_venv, adopter, ["claims", "mutate", "--values"])
    assert "1 boundaries (0 called by no claim)" in values, values
    assert "every file holds its floor" in values, values
    tested = _adopter_runs(test_venv, adopter, ["pytest", "-q", "postage/evidence"])
    assert "5 passed" in tested, tested
    commands = ("list", "plugins", "run", "mutate", "frontiers", "identity", "evidence")
    for argv in (["claims", "--help"], *(["claims", c, "--help"] for c in commands)):
        _adopter_runs(test_venv, adopter, argv)  # no word of this repository's project
