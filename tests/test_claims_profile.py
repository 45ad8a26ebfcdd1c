"""The deterministic hypothesis profile: loaded around claims, then put back."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import settings

from claims.profile import PROFILE, deterministic_hypothesis
from tests.fakes.support import fake_session


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


def _fresh_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
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
