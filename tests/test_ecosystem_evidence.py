"""``claims evidence --base REV`` in a real git repository: a copy of this checkout with two
commits on top, run through the real CLI with the fake door and its declared mutants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ecosystem import copy_checkout

DOOR = "tests/fakes_mutation/door.py"
PLUGINS = ("-p", "mutation.plugin", "-p", "tests.fakes_mutation.plugin")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
        check=True,
        capture_output=True,
    )


def _commit(repo: Path, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def evidence(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(repo),
        "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1",
        "FAKE_MUTANTS": "exact",
        "FAKE_RED_BASELINE": "1",  # fake_broken: red at every revision, so pre-existing
    }
    return subprocess.run(
        [sys.executable, "-m", "claims.cli", *PLUGINS, "evidence", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_checkout(tmp_path_factory.mktemp("evidence") / "repo")
    _git(root, "init", "-q")
    _commit(root, "base")
    door = root / DOOR
    door.write_text(door.read_text().replace('"""The key fits', '"""The key fits (refactored)'))
    _commit(root, "a change the claims reach")
    return root


def test_the_evidence_block_in_the_seeds_order(repo: Path) -> None:
    done = evidence(repo, "--base", "HEAD~1")
    out = done.stdout
    # Every failure is pre-existing (fake_broken fails at the base too): the evidence holds.
    assert done.returncode == 0, out + done.stderr
    assert "- `fake_door: 6/6 PASS`" in out
    assert "- `fake_broken: 0/1 FAIL`" in out
    assert (
        "- `fake_door: 6/6 mutants exact, combined exact, positive controls green, "
        "claims witnessed 6/6`" in out
    )
    assert "- `fake_door.key_check_removed` (Killed, exact)" in out
    assert "→ red: fake_door.a_wrong_key_is_refused" in out
    assert f"(`{DOOR}`)" in out
    assert "- `fake_door`: 6/6 PASS" in out
    assert (
        "- `fake_broken.this_never_holds`: **pre-existing** (fails identically at the base)" in out
    )
    sections = [
        "**Witnesses**",
        "**Byte identity**",
        "**Mutation control**",
        "**Existing witnesses over the touched modules**",
        "**Failing claims**",
    ]
    assert [out.index(s) for s in sections] == sorted(out.index(s) for s in sections)


def test_a_claim_the_change_breaks_is_new_and_fails_the_evidence(
    repo: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    _git(repo, "worktree", "add", "-q", "--detach", str(broken), "HEAD")
    door = broken / DOOR
    door.write_text(door.read_text().replace("return key == lock", "return True"))
    _commit(broken, "closes an hour early")
    done = evidence(broken, "--base", "HEAD~1", "--no-mutation", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    body = json.loads(done.stdout)
    labels = dict(body["labels"])
    assert labels.pop("fake_broken.this_never_holds") == "pre-existing"
    assert labels and set(labels.values()) == {"new"}, labels
    assert all(claim.startswith("fake_door.") for claim in labels)
    assert body["touched"] and body["mutation_ran"] is False and body["ok"] is False
    # The verdict says which part failed, naming the claims.
    new = sorted(c for c, label in labels.items() if label == "new")
    assert body["failed"] == [f"failing claims new since the base: {', '.join(new)}"]
    page = evidence(broken, "--base", "HEAD~1", "--no-mutation").stdout
    verdict = "**Verdict:** the evidence does NOT hold:\n\n- failing claims new since the base: "
    assert verdict in page, page


def test_an_unknown_base_is_a_usage_error(repo: Path) -> None:
    done = evidence(repo, "--base", "no-such-rev", "--no-mutation")
    assert done.returncode == 2
    assert "--base no-such-rev" in done.stderr and "Traceback" not in done.stderr
