"""``[tool.claims]``: found from the working directory upward, validated, and obeyed by the
real ``claims`` command in a project of its own (a temp directory outside this checkout)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from claims import UsageError
from claims.config import NO_CONFIG, find_config
from tests.fakes.support import CLAIMS_EXE

WITNESS = '''\
from claims import ClaimKind, Verdict, claim, expect_equal


@claim(ClaimKind.PLANNED_SHAPE)
def two_and_two_make_four() -> Verdict:
    """Two and two make four."""
    return expect_equal(4, 2 + 2, "sum")
'''

PLUGIN = """\
from claims import hookimpl


@hookimpl
def claims_register_witnesses(register):
    register("arithmetic", "arithmetic_witness")
"""


def _project(root: Path, table: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'p'\n\n{table}", encoding="utf-8")
    (root / "arithmetic_witness.py").write_text(WITNESS, encoding="utf-8")
    (root / "arithmetic_plugin.py").write_text(PLUGIN, encoding="utf-8")
    return root


CONFIGURED = '[tool.claims]\nplugins = ["arithmetic_plugin"]\npythonpath = ["."]\n'


def _claims(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH"}}
    env.pop("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", None)
    return subprocess.run(
        [str(CLAIMS_EXE), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_nearest_pyproject_with_the_table_is_found_from_a_subdirectory(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", CONFIGURED)
    inner = project / "pkg" / "deeper"
    inner.mkdir(parents=True)
    (project / "pkg" / "pyproject.toml").write_text("[tool.other]\nx = 1\n", encoding="utf-8")
    found = find_config(inner)
    assert found.path == (project / "pyproject.toml").resolve()
    assert found.plugins == ("arithmetic_plugin",)
    assert found.pythonpath == (project.resolve(),)
    assert find_config(tmp_path) is NO_CONFIG


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("plugin = ['x']", "tool.claims.plugin: not a key of [tool.claims]; its keys: plugins,"),
        ("plugins = 'x'", "tool.claims.plugins: must be an array of text, not text"),
        ("plugins = ['x', '']", "tool.claims.plugins[1]: must be non-empty printable text"),
        ("jobs = 0", "tool.claims.jobs: must be a whole number ≥ 1 (0)"),
        ("jobs = true", "tool.claims.jobs: must be a whole number ≥ 1 (True)"),
        ("timeout = -1", "tool.claims.timeout: must be a number of seconds, > 0"),
        ("timeout = nan", "tool.claims.timeout: must be a number of seconds, > 0"),
        ("debt = 'nowhere.toml'", "tool.claims.debt: {root}/nowhere.toml: no such file"),
        ("floors = ''", "tool.claims.floors: must be a non-empty path ('')"),
    ],
)
def test_a_bad_value_is_an_error_naming_the_file_and_the_key(
    tmp_path: Path, table: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.claims]\n{table}\n", encoding="utf-8")
    with pytest.raises(UsageError) as raised:
        find_config(tmp_path)
    root = tmp_path.resolve()
    assert str(raised.value).startswith(f"{root}/pyproject.toml: ")
    assert message.format(root=root) in str(raised.value)


def test_a_table_that_is_not_a_table_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool]\nclaims = "all"\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"tool\.claims: must be a table, not text"):
        find_config(tmp_path)


def test_a_project_loads_only_what_its_table_names(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", CONFIGURED + 'disable = ["junit"]\n')
    listed = _claims(project, "list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    names = [w["name"] for w in json.loads(listed.stdout)["witnesses"]]
    assert names == ["arithmetic"]
    assert _claims(project, "run", "--all").stdout.strip().endswith("arithmetic: 1/1 PASS")
    plugins = json.loads(_claims(project, "plugins", "--format", "json").stdout)
    assert plugins["config"] == str((project / "pyproject.toml").resolve())
    by_name = {p["name"]: p for p in plugins["plugins"]}
    assert "plugins.junit" not in by_name
    assert by_name["arithmetic_plugin"]["origin"].endswith("pyproject.toml [tool.claims] plugins")
    assert by_name["arithmetic_plugin"]["file"] == str((project / "arithmetic_plugin.py").resolve())


def test_the_command_line_overrides_the_table(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", CONFIGURED)
    left_out = _claims(project, "-p", "no:arithmetic_plugin", "list")
    assert (left_out.returncode, left_out.stdout.strip()) == (0, "no witnesses registered")


def test_without_a_table_only_the_built_ins_load(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", "")
    shown = _claims(project, "plugins")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith("configuration: no [tool.claims] in a ")
    assert "arithmetic_plugin" not in shown.stdout
    ran = _claims(project, "run", "--all")
    assert ran.returncode == 2
    assert "[tool.claims] plugins" in ran.stderr


def test_a_bad_table_stops_every_command_with_exit_2(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", "[tool.claims]\nplugins = [1]\n")
    done = _claims(project, "list")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"claims: error: {(project / 'pyproject.toml').resolve()}: tool.claims.plugins[0]: "
        "must be non-empty printable text (1)"
    )


KIND_PLUGIN = """\
from claims import hookimpl


@hookimpl
def claims_register_kinds(register):
    register("latency_budget", "a path that must finish within its budget")


@hookimpl
def claims_register_witnesses(register):
    register("timed", "timed_witness")
"""

KIND_WITNESS = '''\
from claims import ClaimKind, Verdict, claim, holds


@claim("latency_budget")
def a_lookup_is_one_step() -> Verdict:
    """A lookup takes one step."""
    return holds("1 step")


@claim(ClaimKind.REFUSAL)
def a_bad_key_is_refused() -> Verdict:
    """A bad key is refused."""
    return holds("refused")
'''


def _kind_project(root: Path, plugin: str = KIND_PLUGIN, witness: str = KIND_WITNESS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[tool.claims]\nplugins = ["kind_plugin"]\npythonpath = ["."]\n', encoding="utf-8"
    )
    (root / "kind_plugin.py").write_text(plugin, encoding="utf-8")
    (root / "timed_witness.py").write_text(witness, encoding="utf-8")
    return root


def test_a_plugin_registers_a_claim_kind_that_list_run_and_pytest_know(tmp_path: Path) -> None:
    project = _kind_project(tmp_path / "p")
    listed = json.loads(_claims(project, "list", "--format", "json").stdout)["witnesses"][0]
    assert listed["claims"]["latency_budget"] == 1 and listed["claims"]["refusal"] == 1
    kinds = json.loads(_claims(project, "kinds", "--format", "json").stdout)["kinds"]
    assert kinds[-1] == {
        "kind": "latency_budget",
        "states": "a path that must finish within its budget",
        "built_in": False,
    }
    ran = _claims(project, "run", "--all", "--kind", "latency_budget", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    claims = json.loads(ran.stdout)["witnesses"]["timed"]["claims"]
    assert [(c["id"], c["kind"]) for c in claims] == [
        ("timed.a_lookup_is_one_step", "latency_budget")
    ]
    marked = subprocess.run(
        [str(CLAIMS_EXE.with_name("pytest")), "-q", "-m", "latency_budget", "timed_witness.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "1 passed, 1 deselected" in marked.stdout, marked.stdout + marked.stderr


def test_an_unknown_kind_lists_the_registered_ones_and_a_bad_kind_names_its_plugin(
    tmp_path: Path,
) -> None:
    typo = _kind_project(
        tmp_path / "typo",
        witness=KIND_WITNESS.replace('@claim("latency_budget")', '@claim("latency")'),
    )
    listed = _claims(typo, "list")
    assert listed.returncode == 1
    assert "unknown claim kind 'latency'; the kinds are: planned_shape, refusal," in listed.stdout
    assert "identity, latency_budget" in listed.stdout
    bad = _kind_project(
        tmp_path / "bad", plugin=KIND_PLUGIN.replace('"latency_budget"', '"refusal"')
    )
    done = _claims(bad, "list")
    assert done.returncode == 2
    assert "kind_plugin" in done.stderr and "claim kind 'refusal' is built in" in done.stderr
