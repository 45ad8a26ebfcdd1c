"""The pytest bridge, run in an inner pytest: claims as items, markers, failure text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest

from tests.fakes.support import FAKES, REPO

pytest_plugins = ["pytester"]

# Imported once here, hypothesis stays imported across the in-process runs below instead of
# being assertion-rewritten again by each of them.
assert hypothesis.__version__

# In-process runs see the kernel already imported, so pytest cannot rewrite its asserts.
QUIET = ("-W", "ignore::pytest.PytestAssertRewriteWarning")
P = (*QUIET, "-p", "tests.fakes.plugin")
GREEN = str(FAKES / "witness_green.py")
RED = str(FAKES / "witness_red.py")


@pytest.fixture(autouse=True)
def _no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the fakes: witnesses other people register must not change these counts.
    monkeypatch.setenv("CLAIMS_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_every_claim_is_an_item_named_after_its_function(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, GREEN, "--collect-only", "-q")
    assert result.ret == 0
    green = "tests/fakes/witness_green.py"
    assert result.outlines[:4] == [
        f"{green}::rank_zero_serves_on_the_route_port",
        f"{green}::half_utilization_is_refused",
        f"{green}::the_right_image_is_admitted",
        f"{green}::ceiling_never_rounds_down",
    ]


def test_claims_pass_and_fail_as_tests(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, GREEN, RED)
    result.assert_outcomes(passed=5, failed=6)


def test_kind_markers_select_claims_under_strict_markers(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, GREEN, RED, "--strict-markers", "-m", "refusal", "-v")
    result.assert_outcomes(passed=1, failed=1, deselected=9)
    result.stdout.fnmatch_lines(["*::half_utilization_is_refused PASSED*"])


def test_the_kind_markers_are_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    for kind in ("planned_shape", "refusal", "positive_control", "pairing_obligation"):
        result.stdout.fnmatch_lines([f"@pytest.mark.{kind}: a claim of kind {kind}: *"])


def test_failure_text_shows_the_claim_not_pytest_internals(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, RED, "-k", "fails_by_verdict")
    result.assert_outcomes(failed=1, deselected=6)
    result.stdout.fnmatch_lines(
        [
            "claim fake_red.fails_by_verdict [planned_shape]: FAIL",
            "  statement: Two plus two is five.",
            "             A longer explanation that only the full statement shows.",
            "  reason: sum: expected 5, got 4",
            "  evidence: 4",
        ]
    )
    assert "_pytest" not in result.stdout.str()
    assert "def runtest" not in result.stdout.str()


def test_failure_text_shows_the_falsifying_example(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, RED, "-k", "every_rank_is_below_ten")
    result.assert_outcomes(failed=1, deselected=6)
    # A claim that raised fails as a test that raised: its own traceback, then hypothesis's
    # falsifying example.
    result.stdout.fnmatch_lines(
        [
            "    def every_rank_is_below_ten(rank: int) -> None:",
            '>       assert rank < 10, f"rank {rank} is not below ten"',
            "E       AssertionError: rank 10 is not below ten",
            "*every_rank_is_below_ten(*",
            "*rank=10*",
        ]
    )
    assert "def runtest" not in result.stdout.str()


def test_an_unresolved_witness_is_a_collection_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, str(FAKES / "witness_setup_error.py"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "witness fake_setup_error unresolved: setup() failed: RuntimeError: "
            "authority log fixture is empty"
        ]
    )


def test_a_directory_collects_each_witness_file_once(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, str(FAKES), "--continue-on-collection-errors")
    result.assert_outcomes(passed=5, failed=6, errors=2)
    result.stdout.fnmatch_lines(["*witness fake_import_error unresolved: import of*"])


def test_a_floor_violation_is_a_collection_error(pytester: pytest.Pytester) -> None:
    floor = str(FAKES / "floor_no_kind.py")
    result = pytester.runpytest(*QUIET, "-p", "tests.fakes.floor_plugin", floor)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fake_no_kind.render_argv [[]no-kind]*"])


def test_the_claims_plugin_option_loads_plugins(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*QUIET, "--claims-plugin", "tests.fakes.plugin", GREEN)
    result.assert_outcomes(passed=4)


def test_the_header_names_witnesses_without_a_file(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*P, GREEN)
    result.stdout.fnmatch_lines(
        ["claims: 5 witnesses registered, imported from *; no source file for fake_missing (*)"]
    )


def test_harmless_without_witnesses(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=1)
    assert "claims:" not in result.stdout.str()


def test_a_broken_claims_plugin_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*QUIET, "--claims-plugin", "tests.fakes.broken_plugin")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*could not load claims plugin 'tests.fakes.broken_plugin'*"])


PROJECT_WITNESS = """\
from claims import ClaimKind, Verdict, claim, holds


def _lookup(key: str) -> int:
    return {"a": 1}[key]


@claim(ClaimKind.PLANNED_SHAPE)
def a_lookup_that_raises() -> Verdict:
    \"\"\"A lookup of a key the table lacks.\"\"\"
    return holds(str(_lookup("boom")))


@claim(ClaimKind.PLANNED_SHAPE)
def a_bare_assert() -> Verdict:
    \"\"\"Two and three make four (they do not).\"\"\"
    total = 2 + 3
    assert total == 4
    return holds("four")
"""


def _project(root: Path) -> Path:
    (root / "pyproject.toml").write_text(
        '[tool.claims]\nplugins = ["bridge_plugin"]\npythonpath = ["."]\n', encoding="utf-8"
    )
    (root / "bridge_plugin.py").write_text(
        "from claims import hookimpl\n\n\n@hookimpl\ndef claims_register_witnesses(register):\n"
        '    register("bridged", "bridge_witness")\n',
        encoding="utf-8",
    )
    (root / "bridge_witness.py").write_text(PROJECT_WITNESS, encoding="utf-8")
    return root


def _pytest(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_DISABLE_PLUGIN_AUTOLOAD"}
    env["PYTHONPATH"] = str(REPO)  # the kernel; the project's modules come from its table
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "bridge_witness.py", *args],
        cwd=root,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_raising_claim_shows_its_traceback_and_an_assert_its_values(tmp_path: Path) -> None:
    done = _pytest(_project(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    # From the claim's frame down to the line that raised; none of the bridge's or pytest's.
    raised = lines.index('>       return holds(str(_lookup("boom")))')
    assert lines[lines.index('>       return {"a": 1}[key]', raised) + 2] == (
        "E       KeyError: 'boom'"
    )
    # The witness module is rewritten: a bare assert shows the values it compared.
    assert lines[lines.index(">       assert total == 4") + 1] == "E       assert 5 == 4"
    assert "_pytest" not in done.stdout and "def runtest" not in done.stdout


def test_pdb_stops_in_the_claims_frame(tmp_path: Path) -> None:
    done = _pytest(_project(tmp_path), "-k", "a_bare_assert", "--pdb", stdin="p total\nq\n")
    text = done.stdout
    assert f"> {tmp_path / 'bridge_witness.py'}(18)a_bare_assert()" in text, text
    assert "-> assert total == 4\n(Pdb) 5\n" in text, text
