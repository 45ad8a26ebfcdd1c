"""The deterministic hypothesis profile: loaded around claims, then put back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

from claims.profile import PROFILE, deterministic_hypothesis
from tests.fakes.support import fake_session

ROOT = Path(__file__).resolve().parents[1]


def test_the_profile_is_deterministic_while_claims_run() -> None:
    with deterministic_hypothesis():
        current = settings.default
        assert settings.get_current_profile_name() == PROFILE
        assert current is not None
        assert current.derandomize is True
        assert current.database is None
        assert current.deadline is None
        assert current.print_blob is False


def test_the_previous_profile_is_restored() -> None:
    before = settings.get_current_profile_name()
    with deterministic_hypothesis():
        pass
    assert settings.get_current_profile_name() == before


def test_a_failing_property_fails_the_same_way_every_run() -> None:
    reasons = {
        fake_session().run(["fake_red"]).results[4].verdict.reason,
        fake_session().run(["fake_red"]).results[4].verdict.reason,
    }
    assert len(reasons) == 1


def _fresh_python(
    code: str, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.strip()


def test_a_block_that_never_imports_hypothesis_leaves_it_unimported() -> None:
    code = (
        "import sys\n"
        "from claims.profile import deterministic_hypothesis\n"
        "with deterministic_hypothesis():\n"
        "    import json\n"
        "print('hypothesis' in sys.modules)\n"
    )
    assert _fresh_python(code) == "False"


def test_hypothesis_imported_inside_the_block_gets_the_profile_before_anything_decorates() -> None:
    code = (
        "from claims.profile import deterministic_hypothesis\n"
        "with deterministic_hypothesis():\n"
        "    from hypothesis import settings\n"
        "    inside = (settings.get_current_profile_name(), settings.default.derandomize)\n"
        "print(inside, settings.get_current_profile_name())\n"
    )
    # Hypothesis picks its own starting profile ("ci" when $CI is set); the
    # block must put back exactly that one.
    own = _fresh_python(
        "from hypothesis import settings\nprint(settings.get_current_profile_name())\n"
    )
    assert _fresh_python(code) == f"('{PROFILE}', True) {own}"


PROBE = """
import hashlib, sys
if sys.argv[1] == "loaded":
    import literals  # a local module: hypothesis would mine its literal
from claims.profile import deterministic_hypothesis
with deterministic_hypothesis():
    from hypothesis import given, settings, strategies as st
    seen = []
    @settings(max_examples=2000)
    @given(st.integers())
    def prop(n):
        seen.append(n)
    prop()
print(int("7315" + "0426") in seen, hashlib.sha256(repr(seen).encode()).hexdigest())
"""


def test_the_examples_do_not_depend_on_the_local_modules_loaded(tmp_path: Path) -> None:
    """Hypothesis mixes the literals of loaded local modules into its examples; under the
    profile a property draws the same examples whether such a module is loaded or not (the
    literal is built at run time, so the probe itself does not hold it)."""
    (tmp_path / "literals.py").write_text("MAGIC = 73150426\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}

    def run(mode: str) -> str:
        return _fresh_python(PROBE, mode, cwd=tmp_path, env=env)

    assert run("loaded") == run("bare")
    assert run("loaded").startswith("False ")
    assert not (tmp_path / ".hypothesis").exists()  # no constants cache written either
