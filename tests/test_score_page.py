"""``tools/score_page.py``: the surveys' per-file scores written as a page with the run's
commit, from the reports themselves; a report it cannot read writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.support import REPO

SCRIPT = REPO / "tools" / "score_page.py"


def _report(
    path: Path, statuses: dict[str, list[str]], config: dict[str, object] | None = None
) -> Path:
    files = {
        name: {"language": "python", "source": "", "mutants": [{"status": s} for s in found]}
        for name, found in statuses.items()
    }
    body = {"schemaVersion": "2", "files": files, **({"config": config} if config else {})}
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_each_report_is_a_table_with_its_floors_and_the_run_is_named(tmp_path: Path) -> None:
    generated = _report(
        tmp_path / "mutation-report.json",
        {
            "planner/fit.py": ["Killed", "Killed", "Survived", "Timeout"],
            "planner/a.py": ["Ignored"],
        },
        {"statementDeletion": False},
    )
    values = _report(tmp_path / "mutation-values.json", {"planner/fit.py": ["NoCoverage"]})
    floors = tmp_path / "floors.toml"
    floors.write_text('[generated]\n"planner/fit.py" = 70\n[values]\n"planner/fit.py" = 50\n')
    page = tmp_path / "score.md"
    done = _run("--page", str(page), "--floors", str(floors), str(generated), str(values))
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    assert "do not\nedit by hand" in text and "on commit `" in text
    heading = f"## The generated survey (`{generated.as_posix()}`)"
    assert f"{heading}\n\nThe whole survey, without statement deletion" in text
    assert f"## The values survey (`{values.as_posix()}`)" in text
    rows = [line.replace(" ", "") for line in text.splitlines()]
    assert "|planner/fit.py|3|1|0|0|0|75.0%|70.0%|" in rows  # a timeout counts as killed
    assert "|planner/a.py|0|0|0|1|0|—||" in rows
    assert "|planner/fit.py|0|0|1|0|0|—|50.0%|" in rows


def test_a_page_says_which_part_of_the_survey_a_report_speaks_for(tmp_path: Path) -> None:
    stopped = "interrupted by SIGINT: 4 of 40 mutants judged"
    config: dict[str, object] = {"shard": "2/10", "since": None, "stopped": stopped}
    config["files"] = ["planner/fit.py"]
    config["chosen"] = {"planner/a.py": 2, "planner/b.py": 30, "planner/fit.py": 1, "c.py": 7}
    part = _report(
        tmp_path / "mutation-report.json",
        {
            "planner/fit.py": ["Killed"],
            "planner/a.py": ["Killed", "Survived"],
            "planner/b.py": ["Killed"],
        },
        config,
    )
    page = tmp_path / "score.md"
    assert _run("--page", str(page), str(part)).returncode == 0
    text = page.read_text(encoding="utf-8")
    assert (
        f"Part of the survey: shard 2/10; only planner/fit.py; stopped early ({stopped})." in text
    )
    assert "Judged whole (2): planner/a.py, planner/fit.py.\n" in text
    assert "Judged in part (1): planner/b.py (1 of 30).\nNot reached (1): c.py.\n" in text


def test_a_report_it_cannot_read_writes_nothing(tmp_path: Path) -> None:
    good = _report(tmp_path / "mutation-report.json", {"planner/fit.py": ["Killed"]})
    bad = tmp_path / "broken.json"
    bad.write_text('{"files": ', encoding="utf-8")
    page = tmp_path / "score.md"
    done = _run("--page", str(page), str(good), str(bad))
    assert done.returncode == 2
    assert "broken.json" in done.stderr and "Traceback" not in done.stderr
    assert not page.exists()
    bad.write_text("[]", encoding="utf-8")
    assert "not a mutation report" in _run("--page", str(page), str(bad)).stderr


def test_each_section_scores_the_minimal_mutant_set_per_witness_and_file(tmp_path: Path) -> None:
    killed = [["w.a"], ["w.a", "w.b"], []]
    statuses = ["Killed", "Killed", "Survived"]
    mutants = [
        {"id": f"m{i}", "status": s, "killedBy": k, "coveredBy": ["w.a", "w.b"]}
        for i, (s, k) in enumerate(zip(statuses, killed, strict=True))
    ]
    files = {"planner/fit.py": {"language": "python", "source": "", "mutants": mutants}}
    report = tmp_path / "mutation-report.json"
    report.write_text(json.dumps({"files": files}), encoding="utf-8")
    page = tmp_path / "score.md"
    assert _run("--page", str(page), str(report)).returncode == 0
    rows = [line.replace(" ", "") for line in page.read_text(encoding="utf-8").splitlines()]
    # m0 {w.a} subsumes m1 {w.a, w.b}: the minimal set is m0 and the survivor m2, 1 of 2
    # killed; two killing sets; w.b kills nothing alone.
    assert "|w|3|66.7%|1/2|50.0%|2|1/2|" in rows
    assert "|planner/fit.py|3|66.7%|1/2|50.0%|2|1/2|" in rows


def test_a_page_says_where_the_surveys_time_went(tmp_path: Path) -> None:
    files = {
        name: {
            "language": "python",
            "source": "",
            "mutants": [{"status": "Killed", "duration": d} for d in found],
        }
        for name, found in {
            "planner/a.py": [1000, 500],
            "planner/b.py": [4500],
            "planner/c.py": [],
        }.items()
    }
    report = tmp_path / "mutation-report.json"
    report.write_text(json.dumps({"files": files}), encoding="utf-8")
    page = tmp_path / "score.md"
    assert _run("--page", str(page), str(report)).returncode == 0
    text = page.read_text(encoding="utf-8")
    rows = [line.replace(" ", "") for line in text.split("Where the time went")[1].splitlines()]
    assert rows[4:7] == [
        "|planner/b.py|1|4|4.50|75.0%|",
        "|planner/a.py|2|2|0.75|25.0%|",
        "|all|3|6||100.0%|",
    ]
