"""The command lines' own contracts under hostile conditions: a claims bug exits 70 with
one located line (the traceback only with ``--debug``), a claims interrupt exits 130, an
empty ``--now`` beside ``--authority`` is an error, not the wall clock; and the authority
log folds as a stream, to the same state, in memory that does not grow with the log."""

from __future__ import annotations

import json
import re
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claims.commands
from fixtures.builders import DATA_ROOT
from planner.authority import fold, parse_log, read_log, read_state
from tests.hostile_support import HOSTILE, claims_main, located_error, no_crash, planner_main

SUPPLIED = DATA_ROOT / "scenarios" / "supplied"
_BUG = re.compile(
    r"claims: internal error: RuntimeError: a planted bug at \S+:\d+ in \w+ "
    r"\(a bug, not a problem with the input; --debug prints the traceback\)"
)


def _bug(*args: object, **kwargs: object) -> object:
    raise RuntimeError("a planted bug")


def test_a_claims_bug_exits_70_with_one_located_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims.commands, "list_witnesses", _bug)
    for debug in ([], ["--debug"]):
        ran = claims_main(*debug, "list")
        assert (ran.code, ran.out) == (70, "")
        *traceback, last = ran.err_lines
        assert _BUG.fullmatch(last), last
        assert bool(traceback) == bool(debug)


def test_an_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(claims.commands, "list_witnesses", interrupted)
    ran = claims_main("list")
    assert (ran.code, ran.err) == (130, "claims: interrupted\n")


def test_help_documents_70_and_debug() -> None:
    # planner states its exit codes in a sentence; claims lists claims.Exit one per line
    for run, seventy in ((planner_main, "70 internal error"), (claims_main, "70  INTERNAL: ")):
        ran = run("--help")
        assert ran.code == 0
        assert seventy in ran.out and "--debug" in ran.out


def test_an_empty_now_is_an_error_not_the_wall_clock(tmp_path: Path) -> None:
    log = SUPPLIED / "authority.jsonl"
    ran = planner_main(
        "dry-run", "v41_group_a", "--authority", log, "--now", "", "--out", tmp_path / "r"
    )
    assert located_error(ran, "planner", "--now", "") == "not an ISO-8601 time"
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- the stream


def _event(seq: int, at: datetime, kind: int) -> dict[str, object]:
    base: dict[str, object] = {"seq": seq, "at": at.isoformat().replace("+00:00", "Z")}
    host = f"srv{1 + seq % 8}"
    if kind == 0:
        return {**base, "event": "host_held", "host": host, "subject": f"s{seq % 3}"}
    if kind == 1:
        return {**base, "event": "host_released", "host": host}
    if kind == 2:
        digest = f"sha256:{seq % 5:064x}"
        return {
            **base,
            "event": "image_admitted",
            "runtime_key": f"k{seq % 2}",
            "config_digest": digest,
        }
    if kind == 3:
        return {**base, "event": "group_active", "group": "group_a", "incumbent": f"i{seq}"}
    lease = (at + timedelta(hours=seq % 3)).isoformat()
    return {
        **base,
        "event": "group_suspended",
        "group": f"group_{'ab'[seq % 2]}",
        "successor": f"c{seq}",
        "lease_expires_at": lease,
    }


def _log(kinds: list[int], gaps: list[int]) -> str:
    at = datetime(2026, 11, 29, tzinfo=UTC)
    lines = []
    for seq, (kind, gap) in enumerate(zip(kinds, gaps, strict=False), start=1):
        at += timedelta(minutes=gap)
        lines.append(json.dumps(_event(seq, at, kind)))
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None, database=None)
@given(
    kinds=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=40),
    gaps=st.lists(st.integers(min_value=0, max_value=90), min_size=40, max_size=40),
    minutes=st.integers(min_value=-10, max_value=40 * 90 + 10),
)
def test_the_stream_folds_to_the_state_of_the_whole_read(
    kinds: list[int], gaps: list[int], minutes: int
) -> None:
    text = _log(kinds, gaps)
    now = datetime(2026, 11, 29, tzinfo=UTC) + timedelta(minutes=minutes)
    path = Path(f"/tmp/hostile-stream-{id(text)}.jsonl")
    try:
        path.write_text(text, encoding="utf-8")
        assert read_state(path, now) == fold(read_log(path), now) == fold(parse_log(text, "t"), now)
    finally:
        path.unlink(missing_ok=True)


def test_the_stream_holds_the_state_not_the_log(tmp_path: Path) -> None:
    """Folding 12,000 events (about 1.5 MB) peaks at a tenth of the file: no copy of the
    text and no list of events is held."""
    path = tmp_path / "big.jsonl"
    count = 12_000
    path.write_text(_log([i % 5 for i in range(count)], [1] * count), encoding="utf-8")
    size = path.stat().st_size
    now = datetime(2027, 1, 1, tzinfo=UTC)
    tracemalloc.start()
    try:
        state = read_state(path, now)
        _, streamed = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        whole = fold(read_log(path), now)
        _, held = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert state == whole
    assert streamed < size / 10, (streamed, size)
    assert held > size, (held, size)  # the whole read does hold every event


@pytest.mark.parametrize("survey", ["--generated", "--values"])
@pytest.mark.parametrize("shard", ["9" * 5000 + "/1", "1/" + "9" * 30, "1/0", "x/4", ""])
def test_a_shard_no_survey_can_have_is_a_usage_error(survey: str, shard: str) -> None:
    ran = claims_main(
        "-p", "witnesses.plugin", "-p", "mutation.plugin", "mutate", survey, "--shard", shard,
        "dry_run_cli",
    )  # fmt: skip
    assert (ran.code, ran.out) == (2, ""), ran.err
    assert ran.err.startswith("claims: error: --shard ") and "write K/N" in ran.err, ran.err
    assert len(ran.err_lines) == 1


_TERMINAL = st.sampled_from(
    ["\x1b[2J", "\x1b]0;pwned\x07", "\u202e", "\u2066", "\x9b", "\x7f", "\r", "\x0c", "\x08"]
)


@HOSTILE
@given(
    name=st.lists(st.one_of(_TERMINAL, st.characters()), min_size=1, max_size=8)
    .map("".join)
    .filter(lambda text: "=" not in text and "," not in text and text.strip() != ""),
    where=st.sampled_from(["--hosts", "--ssh"]),
)
def test_what_apply_says_about_a_hostile_value_reaches_the_terminal_escaped(
    name: str, where: str
) -> None:
    """A ``--hosts`` host name or an ``--ssh`` client with terminal controls in it: exit 2
    with one line on stderr holding no character a terminal would obey, nothing on stdout."""
    hosts = f"{name}=root@a" if where == "--hosts" else "srv5=root@a"
    ssh = (f"--ssh=ssh{name}",) if where == "--ssh" else ()
    # --hosts=VALUE: a value that starts with "-" is still the value, not an option.
    ran = planner_main(
        "apply", "v41_group_a", "--scenario", "supplied", "--dry-run", f"--hosts={hosts}", *ssh,
        "--scripts", "/nonexistent-parent-for-hostile-apply/s",
    )  # fmt: skip
    no_crash(ran)
    assert (ran.code, ran.out) == (2, ""), (ran.code, ran.out, ran.err)
    (line,) = ran.err_lines
    assert line.isprintable(), line
