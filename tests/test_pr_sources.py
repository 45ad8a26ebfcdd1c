"""Tests of plugins.pr_sources: recorded gh shapes, real git histories, precedence."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from claims.frontiers import PrRecord, PrState
from plugins.pr_sources import (
    PrSourceError,
    combine_sources,
    read_gh_pr_list,
    read_gh_pr_lists,
    read_git_history,
)

PRS = Path(__file__).resolve().parents[1] / "fixtures" / "prs"
NUMBERS = {12351, 12353, 12359, 12370, 12371}


# ----------------------------------------------------------------------------- gh records


def test_all_open_fixture() -> None:
    records = read_gh_pr_list(PRS / "all_open.json")
    assert set(records) == NUMBERS
    assert {r.state for r in records.values()} == {PrState.OPEN}
    assert records[12359].title == "v41_engram_store_manifest: Design-B Engram cutover"
    assert records[12371].source == f"gh:{PRS / 'all_open.json'}[0]"


def test_occupancy_merged_fixture() -> None:
    records = read_gh_pr_list(PRS / "occupancy_merged.json")
    assert records[12351].state is PrState.MERGED
    assert records[12351].merged_at == "2026-03-14T09:21:37Z"
    assert {records[n].state for n in NUMBERS - {12351}} == {PrState.OPEN}


def test_closed_without_merge_time_is_closed_unmerged() -> None:
    records = read_gh_pr_list(PRS / "one_closed.json")
    assert records[12370].state is PrState.CLOSED_UNMERGED
    assert records[12370].merged_at is None


def test_single_gh_pr_view_object() -> None:
    records = read_gh_pr_list(PRS / "occupancy_view_merged.json")
    assert list(records) == [12351]
    assert records[12351].state is PrState.MERGED


def test_fixtures_are_in_gh_compact_sorted_shape() -> None:
    for path in sorted(PRS.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        compact = json.dumps(json.loads(text), separators=(",", ":"), sort_keys=True)
        assert text == compact + "\n", path.name


def test_a_later_file_replaces_an_earlier_record() -> None:
    records = read_gh_pr_lists([PRS / "all_open.json", PRS / "occupancy_merged.json"])
    assert records[12351].state is PrState.MERGED


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "prs.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def row(**over: object) -> dict[str, object]:
    return {"mergedAt": None, "number": 12351, "state": "OPEN", "title": "t", **over}


@pytest.mark.parametrize(
    ("data", "located"),
    [
        (
            [row(), row(number=12353, state="DRAFT")],
            '[1].state: expected OPEN/CLOSED/MERGED, got "DRAFT"',
        ),
        ([row(number="12351")], '[0].number: expected a positive integer, got "12351"'),
        ([row(number=True)], "[0].number: expected a positive integer, got true"),
        ([{"number": 1, "state": "OPEN", "title": "t"}], "[0].mergedAt: missing"),
        ([row(state="MERGED")], "[0].mergedAt: a MERGED PR needs its merge time"),
        ([row(mergedAt="2026-03-14T09:21:37Z")], "[0].mergedAt: a OPEN PR was never merged"),
        ([row(state="MERGED", mergedAt="yesterday")], "[0].mergedAt: expected null or a time"),
        ([row(title=None)], "[0].title: expected a string, got null"),
        ([row(), row()], "[1].number: PR 12351 is listed again (first at [0])"),
        ([row(), 7], "[1]: expected a PR object, got 7"),
        ([row(mergeCommit="abc")], "[0].mergeCommit: expected null or {oid}"),
        ("OPEN", "expected a JSON array of PR objects, got str"),
    ],
)
def test_malformed_records_name_file_index_and_field(
    tmp_path: Path, data: object, located: str
) -> None:
    path = write(tmp_path, data)
    with pytest.raises(PrSourceError) as raised:
        read_gh_pr_list(path)
    assert str(raised.value).startswith(f"{path}: cannot read PR states")
    assert located in str(raised.value)


def test_every_problem_is_reported_and_nothing_is_returned(tmp_path: Path) -> None:
    path = write(tmp_path, [row(), row(number=-1, state="DRAFT"), row(number=5, title=3)])
    with pytest.raises(PrSourceError) as raised:
        read_gh_pr_list(path)
    assert [p.split(":")[0] for p in raised.value.problems] == [
        "[1].number",
        "[1].state",
        "[2].title",
    ]


def test_not_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "prs.json"
    path.write_text('[{"number": 1,\n "state": }]', encoding="utf-8")
    with pytest.raises(PrSourceError, match="not JSON at line 2 column 11"):
        read_gh_pr_list(path)


def test_missing_file_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(PrSourceError, match=r"missing\.json: cannot read PR states"):
        read_gh_pr_list(tmp_path / "missing.json")


# ----------------------------------------------------------------------------- git history


class Repo:
    """A real git repository whose commits get increasing committer dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tick = 0
        path.mkdir()
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "t")
        self.git("config", "user.email", "t@example.com")
        self.commit("Initial skeleton")

    def git(self, *args: str) -> str:
        self.tick += 1
        stamp = f"2026-03-01T10:{self.tick // 60:02d}:{self.tick % 60:02d}Z"
        env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_COMMITTER_DATE": stamp,
            "GIT_AUTHOR_DATE": stamp,
        }
        done = subprocess.run(
            ["git", "-C", str(self.path), *args],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        return done.stdout

    def commit(self, subject: str, body: str = "") -> None:
        message = ["-m", subject, "-m", body] if body else ["-m", subject]
        self.git("commit", "-q", "--allow-empty", *message)

    def merge_pr(self, number: int, title: str) -> None:
        branch = f"pr-{number}"
        self.git("checkout", "-q", "-b", branch)
        self.commit(f"Work for {title}")
        self.git("checkout", "-q", "main")
        message = f"Merge pull request #{number} from x/{branch}\n\n{title}"
        self.git("merge", "-q", "--no-ff", "-m", message, branch)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


def states(repo: Repo, rev: str = "HEAD") -> dict[int, PrState]:
    return {n: r.state for n, r in read_git_history(repo.path, rev).items()}


def test_merge_commit_marks_merged_with_title_from_body(repo: Repo) -> None:
    repo.merge_pr(12351, "admit_spark_host_unoccupied")
    record = read_git_history(repo.path)[12351]
    assert (record.state, record.title) == (PrState.MERGED, "admit_spark_host_unoccupied")
    assert record.merged_at is not None and record.merged_at.startswith("2026-03-01T10:")
    assert record.source.startswith(f"git:{repo.path}@HEAD ")


def test_squash_subject_marks_merged(repo: Repo) -> None:
    repo.commit("build lane: produced V4.1 image (#12353)", "* squashed work\n* more")
    record = read_git_history(repo.path)[12353]
    assert (record.state, record.title) == (PrState.MERGED, "build lane: produced V4.1 image")


def test_revert_then_reland_in_chronological_order(repo: Repo) -> None:
    repo.commit("Add thing (#12353)")
    repo.commit('Revert "Add thing (#12353)"')
    assert states(repo) == {12353: PrState.REVERTED}
    repo.commit("Add thing (#12353)")
    assert states(repo) == {12353: PrState.MERGED}


def test_revert_pr_squash_reverts_the_nested_pr(repo: Repo) -> None:
    repo.commit("Add thing (#12353)")
    repo.commit('Revert "Add thing (#12353)" (#12400)')
    assert states(repo) == {12353: PrState.REVERTED, 12400: PrState.MERGED}


def test_revert_of_a_merge_commit_and_its_reapply(repo: Repo) -> None:
    repo.merge_pr(12351, "admit_spark_host_unoccupied")
    repo.commit('Revert "Merge pull request #12351 from x/pr-12351"')
    assert states(repo)[12351] is PrState.REVERTED
    repo.commit('Reapply "Merge pull request #12351 from x/pr-12351"')
    assert states(repo)[12351] is PrState.MERGED
    repo.commit('Revert "Revert "Revert "Merge pull request #12351 from x/pr-12351"""')
    assert states(repo)[12351] is PrState.REVERTED


def test_reverts_in_a_squash_body_say_nothing_about_the_pr(repo: Repo) -> None:
    repo.commit("Add thing (#12353)", 'Revert "Add thing (#12353)"')
    assert states(repo) == {12353: PrState.MERGED}


def test_rebase_merges_and_other_commits_are_not_seen(repo: Repo) -> None:
    repo.commit("Rebased change without a number")
    repo.commit("Mentions #12359 in passing")
    assert states(repo) == {}


def test_history_is_read_at_the_given_revision(repo: Repo) -> None:
    repo.commit("Add thing (#12353)")
    repo.git("tag", "before")
    repo.commit('Revert "Add thing (#12353)"')
    assert states(repo, "before") == {12353: PrState.MERGED}


def test_an_unknown_revision_is_a_located_error(repo: Repo) -> None:
    with pytest.raises(PrSourceError, match=r"git log of .* at 'nope'"):
        read_git_history(repo.path, "nope")


# ----------------------------------------------------------------------------- precedence


def record(number: int, state: PrState, source: str) -> PrRecord:
    merged_at = "2026-03-14T09:21:37Z" if state is PrState.MERGED else None
    return PrRecord(number=number, state=state, merged_at=merged_at, source=source)


def test_gh_wins_git_fills_and_a_git_revert_beats_gh_merged() -> None:
    gh = {
        1: record(1, PrState.OPEN, "gh"),
        2: record(2, PrState.MERGED, "gh"),
        3: record(3, PrState.CLOSED_UNMERGED, "gh"),
    }
    git = {
        1: record(1, PrState.MERGED, "git"),
        2: record(2, PrState.REVERTED, "git"),
        3: record(3, PrState.MERGED, "git"),
        4: record(4, PrState.MERGED, "git"),
    }
    combined = combine_sources(gh, git)
    assert {n: r.state for n, r in combined.items()} == {
        1: PrState.OPEN,
        2: PrState.REVERTED,
        3: PrState.CLOSED_UNMERGED,
        4: PrState.MERGED,
    }
    assert combined[2].source == "gh; reverted per git"
    assert combined[2].merged_at is None
