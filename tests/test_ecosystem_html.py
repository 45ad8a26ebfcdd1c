"""The HTML mutation report, written by a real survey of the fake gate project and opened by
headless Chromium with no network; and merging shard reports, which needs every shard."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugins.mutate.html_report import kill_matrix, strength
from tests.fakes_mutation.support import CLAIMS_EXE, REPO, copy_project, run_mutate


def run_generated(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``claims mutate --generated`` inside the fake gate project, this checkout's code."""
    env = {
        **os.environ,
        "PYTHONPATH": f"{project}{os.pathsep}{REPO}",
        "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    argv = [str(CLAIMS_EXE), "-p", "mutation.plugin", "-p", "gate_plugin", "mutate"]
    return subprocess.run(
        [*argv, "--generated", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    """(project, the JSON report, the HTML page) of one whole survey."""
    project = copy_project(tmp_path_factory.mktemp("html"))
    report, page = project / "report.json", project / "target" / "mutation.html"
    done = run_generated(project, "--report", str(report), "--html", str(page))
    # one gate mutant kills its worker: the survey exits 6, and writes its report and page
    assert done.returncode == 6, done.stdout + done.stderr
    assert f"html: {page}" in done.stdout
    return project, json.loads(report.read_text()), page.read_text()


def test_the_page_needs_nothing_from_anywhere(survey: tuple[Path, dict[str, Any], str]) -> None:
    page = survey[2]
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|link|img|iframe)\b", page)
    assert not re.search(r"(src|href)=\"(?!#)", page)
    assert "url(" not in page and "@import" not in page


def test_the_page_shows_files_scores_source_and_the_claims(
    survey: tuple[Path, dict[str, Any], str],
) -> None:
    _, report, page = survey
    for path, entry in report["files"].items():
        assert f">{path}</a>" in page
        counts: dict[str, int] = {}
        for m in entry["mutants"]:
            counts[m["status"]] = counts.get(m["status"], 0) + 1
            # Every mutant is on the page, folded under its line.
            assert f"</span> {m['id']} (" in page
        ratio = strength(counts)
        if ratio is not None:
            assert f"{ratio:.1f}%" in page
    # The source, line by line, with the mutated lines marked by their worst status.
    assert 'class="line Survived"' in page and 'class="line Killed"' in page
    assert "def admits(" in page
    # The witnesses surveyed are named as a reader writes them, not as a Python list.
    scope = report["config"]["scope"]
    assert f"; scope {', '.join(scope)}; shard" in page
    matrix = kill_matrix(report)
    assert matrix and all(covered >= killed for _, covered, killed, _ in matrix)
    for claim_id, _, _, _ in matrix:
        assert f"<td>{claim_id}</td>" in page


def test_headless_chromium_renders_the_page_offline(
    survey: tuple[Path, dict[str, Any], str], tmp_path: Path
) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is missing: tools/install-ci-deps installs Debian's package"
    page = survey[0] / "target" / "mutation.html"
    offline = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ]
    dom = subprocess.run(
        [*offline, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    # Chromium parsed and laid out the page: the tables and folded mutants are in its DOM.
    assert "Kill matrix per claim" in dom and "<details" in dom and "gate/rules.py" in dom
    shot = tmp_path / "page.png"
    subprocess.run(
        [*offline, "--window-size=1200,900", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _shard(tmp: Path, k: int, n: int) -> Path:
    report = {
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "files": {},
        "testFiles": {},
        "config": {"shard": f"{k}/{n}", "scope": ["w"]},
    }
    path = tmp / f"shard-{k}-of-{n}.json"
    path.write_text(json.dumps(report))
    return path


def test_merging_three_of_four_shards_fails_naming_the_missing_one(tmp_path: Path) -> None:
    shards = [str(_shard(tmp_path, k, 4)) for k in (1, 2, 4)]
    out = tmp_path / "merged.json"
    done = run_mutate("--merge-reports", *shards, "--report", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "merging 3 of 4 shards: missing 3/4" in done.stderr
    assert not out.exists()


def test_a_shard_twice_or_of_another_split_is_refused(tmp_path: Path) -> None:
    twice = run_mutate("--merge-reports", str(_shard(tmp_path, 1, 2)), str(_shard(tmp_path, 1, 2)))
    assert twice.returncode == 2 and "shard 1/2 given twice" in twice.stderr
    mixed = run_mutate("--merge-reports", str(_shard(tmp_path, 1, 2)), str(_shard(tmp_path, 2, 3)))
    assert mixed.returncode == 2 and "shards of different splits: /2, /3" in mixed.stderr


def test_the_merged_report_speaks_for_the_whole_survey(tmp_path: Path) -> None:
    out = tmp_path / "merged.json"
    shards = [str(_shard(tmp_path, k, 2)) for k in (2, 1)]
    floors = tmp_path / "floors.toml"  # no floor to hold: the merge itself is what is tested
    floors.write_text("[generated]\nall = 0\n", encoding="utf-8")
    done = run_mutate("--merge-reports", *shards, "--report", str(out), "--floors", str(floors))
    assert "merged 2 reports" in done.stdout, done.stdout + done.stderr
    config = json.loads(out.read_text())["config"]
    assert config["shard"] == "1/1" and config["mergedShards"] == 2


def test_the_page_shows_the_survivors_alone_and_the_minimal_set_scores(
    survey: tuple[Path, dict[str, Any], str],
) -> None:
    _, report, page = survey
    survivors = page.split('<h2 id="survivors">')[1].split("<h2")[0]
    statuses = {m["id"]: m["status"] for f in report["files"].values() for m in f["mutants"]}
    assert "Survived" in statuses.values()
    for mutant_id, status in statuses.items():
        assert (f"</a> {mutant_id} (" in survivors) == (status == "Survived"), mutant_id
    assert f'<a href="#survivors">Survivors ({list(statuses.values()).count("Survived")})' in page
    files = page.split('<h2 id="files">')[1].split("<h2")[0]
    for entry in report["files"].values():
        shown = entry["matrixScore"]["dominatorStrength"]  # the report's, computed alike
        assert shown is None or f"{shown:.1f}%</span></td><td>" in files
    assert '<h2 id="witnesses">' in page and "<td>gate</td>" in page
