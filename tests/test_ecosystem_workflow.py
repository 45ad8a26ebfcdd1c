"""The GitHub workflow and what it relies on: actionlint finds nothing in it, and the vLLM
parser venv takes the CPU build of torch or stops, never the CUDA build on its own."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.ecosystem import REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "ci.yml"
TORCH_WHEEL = "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"


def actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REPO_ROOT / "tools" / "actionlint"), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_actionlint_finds_nothing_in_the_workflow() -> None:
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 file(s), 0 finding(s)" in done.stdout


def test_actionlint_is_live_on_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = WORKFLOW.read_text().replace("${{ env.PYTHON_VERSION }}", "${{ env.PYTHON_VERSION }", 1)
    broken.write_text(text.replace("timeout-minutes: 60", "timeout-minutes: sixty"))
    done = actionlint(broken)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{broken}:" in done.stdout and "2 finding(s)" in done.stdout


def test_the_workflow_uses_the_projects_own_outputs() -> None:
    text = WORKFLOW.read_text()
    assert "concurrency:" in text and "cancel-in-progress: true" in text
    assert "make test CLAIMS_FORMAT=github" in text  # annotations on the claims' lines
    assert "path: target/*.xml" in text  # the JUnit files the Makefile writes
    assert 'claims evidence --base "origin/$BASE_REF"' in text
    assert '"$GITHUB_STEP_SUMMARY"' in text
    assert "--merge-reports target/shards/*.json" in text and "--html target/mutation.html" in text
    assert "key: torch-2.13.0-cpu-cp311" in text and "path: .venv-vllm" in text
    # the PR's survivors on its changed lines, annotated from the report its survey wrote
    assert '--annotate "origin/$BASE_REF"\n          --report target/mutation-diff.json' in text


def _make_vllm_venv(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "VLLM_VENV": str(tmp_path / "venv"), **env}
    return subprocess.run(
        [str(REPO_ROOT / "tools" / "make-vllm-venv")],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_the_cpu_wheel_the_parser_venv_stops_and_says_why(tmp_path: Path) -> None:
    done = _make_vllm_venv(tmp_path, TORCH_WHEELS=str(tmp_path / "none"))
    assert done.returncode == 3
    assert f"no CPU build of torch at {tmp_path / 'none'}/{TORCH_WHEEL}" in done.stderr
    assert "VLLM_PARSER_TORCH=pypi" in done.stderr
    assert not (tmp_path / "venv").exists()


def test_a_wheel_with_other_bytes_is_refused(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / TORCH_WHEEL).write_bytes(b"not the CPU build")
    done = _make_vllm_venv(tmp_path, TORCH_WHEELS=str(wheels))
    assert done.returncode == 3
    assert "expected 6746dbcbeb526eb6" in done.stderr
    assert not (tmp_path / "venv").exists()
