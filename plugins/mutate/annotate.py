"""``claims mutate --annotate REV``: a report's survivors on the lines changed since REV, as
GitHub workflow annotations a pull request shows on its diff.

1. Read the report (``--report``; default the generated survey's) and resolve REV to a commit
   (anything else is a usage error; nothing is printed).
2. Ask git which lines of the report's files changed since that commit (``git diff
   --unified=0``, the working tree included: the lines the survey mutated; a file git does not
   track yet changed whole).
3. Keep the survivors whose first line is a changed line, and on each line at most one: the
   one whose operator the rest of the report kills most often (its other mutants' killed ÷
   judged), so the annotation shows the most surprising survivor there: a kind of change the
   claims usually notice and here did not. Ties go to the survivor more claims covered, then
   to the least id. An operator with no other judged mutant has no history and ranks last.
4. Print one ``::warning file=…,line=…,title=…::…`` a survivor, carrying its id, how many
   claims covered it, its operator's history and its diff (at most :data:`DIFF_LINES` lines;
   ``claims mutate --explain ID`` prints the rest), then one plain line of counts.

Every value from the report is untrusted: each line is escaped for a terminal first
(control characters as ``\\x..``), then for the workflow command (``%``, CR and LF in the
message, and ``:`` and ``,`` too in a property), so no report can end the annotation, start
another workflow command or reach the terminal raw. Survivors never fail the command: a PR's
survey is partial, and the floors belong to the whole one (exit 0; a bad report or REV: 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from claims.errors import UsageError
from claims.files import shown
from claims.revisions import RevisionError, commit_of
from plugins.mutate.generated.selection import WHOLE_FILE, changed_lines
from plugins.mutate.stryker import read_report
from plugins.reporters import escape_data, escape_property

DEFAULT_REPORT = Path("target/mutation-report.json")
DIFF_LINES = 30
DETECTED = frozenset({"Killed", "Timeout"})


@dataclass(frozen=True)
class Survivor:
    """A surviving mutant of the report and where it starts."""

    path: str
    line: int
    mutant: Mapping[str, Any]

    @property
    def operator(self) -> str:
        return str(self.mutant.get("mutatorName", "?"))


def _mutants(report: Mapping[str, Any]) -> Iterable[tuple[str, Mapping[str, Any]]]:
    for path, entry in report["files"].items():
        for mutant in entry["mutants"]:
            yield str(path), mutant


def survivors(report: Mapping[str, Any]) -> list[Survivor]:
    """Every survivor of ``report`` with its file and first line."""
    return [
        Survivor(path, int(m["location"]["start"]["line"]), m)
        for path, m in _mutants(report)
        if m["status"] == "Survived"
    ]


def operator_history(report: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """Per operator, its judged mutants' (killed, judged) over the whole report."""
    history: dict[str, tuple[int, int]] = {}
    for _, m in _mutants(report):
        status = m["status"]
        if status in DETECTED or status == "Survived":
            killed, judged = history.get(str(m.get("mutatorName", "?")), (0, 0))
            history[str(m.get("mutatorName", "?"))] = (killed + (status in DETECTED), judged + 1)
    return history


def elsewhere(history: Mapping[str, tuple[int, int]], survivor: Survivor) -> tuple[int, int]:
    """The operator's (killed, judged) among the report's *other* mutants."""
    killed, judged = history.get(survivor.operator, (0, 0))
    return killed, max(0, judged - 1)


def _rank(history: Mapping[str, tuple[int, int]], s: Survivor) -> tuple[float, int, str]:
    killed, judged = elsewhere(history, s)
    rate = killed / judged if judged else -1.0
    return (-rate, -len(s.mutant.get("coveredBy", [])), str(s.mutant["id"]))


def choose(found: Sequence[Survivor], history: Mapping[str, tuple[int, int]]) -> list[Survivor]:
    """At most one survivor a line, the most surprising (see the module docstring)."""
    by_line: dict[tuple[str, int], list[Survivor]] = {}
    for s in found:
        by_line.setdefault((s.path, s.line), []).append(s)
    return [min(group, key=lambda s: _rank(history, s)) for _, group in sorted(by_line.items())]


def on_changed_lines(
    found: Sequence[Survivor], changed: Mapping[str, frozenset[int]]
) -> list[Survivor]:
    """The survivors whose first line changed (a file git does not track changed whole)."""
    return [
        s
        for s in found
        if s.path in changed and (changed[s.path] == WHOLE_FILE or s.line in changed[s.path])
    ]


def diff_lines(mutant: Mapping[str, Any]) -> list[str]:
    """The survivor's diff as the report keeps it (``statusReason``), else its change."""
    text = str(mutant.get("statusReason") or mutant.get("description") or "")
    lines = text.splitlines()
    if len(lines) <= DIFF_LINES:
        return lines
    more = len(lines) - DIFF_LINES
    return [*lines[:DIFF_LINES], f"… {more} more lines: claims mutate --explain {mutant['id']}"]


def message(s: Survivor, history: Mapping[str, tuple[int, int]]) -> list[str]:
    """The annotation's lines, before any escaping."""
    killed, judged = elsewhere(history, s)
    covered = len(s.mutant.get("coveredBy", []))
    record = (
        f"{s.operator} mutants are killed {killed} of {judged} times elsewhere in this report"
        if judged
        else f"no other {s.operator} mutant was judged in this report"
    )
    head = f"{s.mutant['id']} survived: {covered} claims cover it, none turned red; {record}"
    return [head, *diff_lines(s.mutant)]


def annotation(s: Survivor, history: Mapping[str, tuple[int, int]]) -> str:
    """One ``::warning`` line; every value escaped for the terminal, then for GitHub."""
    text = "\n".join(shown(line) for line in message(s, history))
    where = f"file={escape_property(shown(s.path))},line={s.line}"
    title = escape_property(shown(f"mutant survived: {s.operator}"))
    return f"::warning {where},title={title}::{escape_data(text)}"


def _plain(path: str) -> bool:
    """A report path git may be asked about: relative, inside the tree, no pathspec magic."""
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith(("/", ":", "-")) and ".." not in parts


def changed_since(root: Path, rev: str, paths: Iterable[str]) -> dict[str, frozenset[int]]:
    """The changed lines of ``paths`` since ``rev`` (a commit of the repository at ``root``)."""
    if rev.startswith("-"):
        raise UsageError(f"--annotate {shown(rev)}: a revision, not an option")
    try:
        commit = commit_of(root, rev)
    except RevisionError as error:
        raise UsageError(f"--annotate: {error}") from error
    asked = sorted({p for p in paths if _plain(p)})
    return changed_lines(root, commit, [Path(p) for p in asked]) if asked else {}


def annotate_command(rev: str, report_path: Path | None, root: Path | None = None) -> int:
    """Print the annotations of the report's survivors on lines changed since ``rev``."""
    path = report_path or DEFAULT_REPORT
    report = read_report(path)
    everyone = survivors(report)
    changed = changed_since(root or Path.cwd(), rev, {s.path for s in everyone})
    history = operator_history(report)
    touched = on_changed_lines(everyone, changed)
    chosen = choose(touched, history)
    for s in chosen:
        print(annotation(s, history))
    print(
        f"annotated {len(chosen)} survivors on changed lines since {shown(rev)} "
        f"({len(touched)} on changed lines, {len(everyone)} in {shown(path)}; one a line)"
    )
    return 0
