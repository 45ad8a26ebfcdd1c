"""The atomic writer (``filerules.write_atomically``: behind ``--out`` as
``planner.report.write_atomically``, behind ``--report`` and ``--junit-xml`` through
``claims.files.write_atomically``, which raises the kernel's error) at hostile targets: a
FIFO and a character device are written in place and stay what they are; a directory and
other non-files are refused and left alone; a symlink keeps pointing at the file it names;
new files honour the umask, replaced files keep their mode; errors name the user's path,
never a temp file; a SIGTERM mid-write leaves no temp file and still ends the process by
SIGTERM. The FIFO, the device, the directory and the symlink behind ``--out`` are
dry_run_cli's claims, so those tests here point the claims writer only."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from claims.files import WriteError, check_writable
from claims.files import write_atomically as write_bytes
from planner.report import write_atomically as write_text
from tests.hostile_support import planner_main

Writer = Callable[[Path, str], None]
WRITERS: dict[str, Writer] = {
    "planner": write_text,
    "claims": lambda path, text: write_bytes(path, text.encode()),
}
ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def umask(mask: int) -> Iterator[None]:
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_a_fifo_is_written_in_place_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    WRITERS["claims"](fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_directory_is_refused_and_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "a-dir"
    target.mkdir()
    (target / "inside").write_text("kept", encoding="utf-8")
    with pytest.raises(OSError) as raised:
        WRITERS["claims"](target, "x")
    assert raised.value.errno == errno.EISDIR
    assert raised.value.filename == str(target)
    assert str(target) in str(raised.value) and ".tmp" not in str(raised.value)
    assert (target / "inside").read_text(encoding="utf-8") == "kept"
    assert _temps(tmp_path) == []


def test_a_symlink_keeps_pointing_at_its_file(tmp_path: Path) -> None:
    real = tmp_path / "real" / "report.txt"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    WRITERS["claims"](link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8") == "new\n"
    assert _temps(tmp_path) == [] and _temps(real.parent) == []


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_honours_the_umask(tmp_path: Path, writer: str, mask: int, mode: int) -> None:
    target = tmp_path / "new.txt"
    with umask(mask):
        WRITERS[writer](target, "x")
    assert stat.S_IMODE(target.stat().st_mode) == mode


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_replaced_file_keeps_its_mode(tmp_path: Path, writer: str) -> None:
    target = tmp_path / "kept.txt"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o604)
    with umask(0o077):
        WRITERS[writer](target, "new")
    assert (stat.S_IMODE(target.stat().st_mode), target.read_text(encoding="utf-8")) == (
        0o604,
        "new",
    )


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_name_near_the_limit_still_gets_a_temp_file(tmp_path: Path, writer: str) -> None:
    target = tmp_path / ("r" * 250)
    WRITERS[writer](target, "long name\n")
    assert target.read_text(encoding="utf-8") == "long name\n"


def test_an_unwritable_place_names_the_users_path_never_a_temp(tmp_path: Path) -> None:
    """/proc/version is a regular file in a directory nobody can create files in."""
    ran = planner_main("dry-run", "v41_group_a", "--scenario", "supplied", "--out", "/proc/version")
    assert ran.code == 2 and ran.out == ""
    assert ran.err.startswith("planner: error: --out /proc/version: cannot write the report: ")
    assert ".tmp" not in ran.err and "/proc/." not in ran.err
    with pytest.raises(WriteError) as raised:
        write_bytes(Path("/proc/version"), b"x")
    assert raised.value.filename == "/proc/version" and ".tmp" not in str(raised.value)


_SIGTERM_MID_WRITE = """
import os, signal, sys
from pathlib import Path
real = os.replace
def replace(source, target):
    os.kill(os.getpid(), signal.SIGTERM)  # the signal lands between the write and the rename
    real(source, target)
os.replace = replace
{call}
print("survived the signal", flush=True)
"""

_CALLS = {
    "planner writer": "from planner.report import write_atomically\n"
    "write_atomically(Path(sys.argv[1]), 'new\\n')",
    "claims writer": "from claims.files import write_atomically\n"
    "write_atomically(Path(sys.argv[1]), b'new\\n')",
    "planner --out": "from planner.cli import main\n"
    "main(['dry-run', 'glm_group_b', '--scenario', 'supplied', '--out', sys.argv[1]])",
}


@pytest.mark.parametrize("call", sorted(_CALLS))
def test_sigterm_mid_write_leaves_no_temp_and_ends_the_process(tmp_path: Path, call: str) -> None:
    target = tmp_path / "report.txt"
    target.write_text("old\n", encoding="utf-8")
    script = _SIGTERM_MID_WRITE.format(call=_CALLS[call])
    done = subprocess.run(
        [sys.executable, "-c", script, str(target)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGTERM, (done.returncode, done.stderr)
    assert "survived" not in done.stdout and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]
    assert target.read_text(encoding="utf-8") == "old\n"


def _targets(tmp: Path) -> dict[str, Path]:
    (tmp / "a-dir").mkdir()
    (tmp / "a-file").write_text("kept\n")
    (tmp / "loop").symlink_to(tmp / "loop")
    os.mkfifo(tmp / "fifo")
    return {
        "directory": tmp / "a-dir",
        "under-a-file": tmp / "a-file" / "x.json",
        "loop": tmp / "loop",
        "too-long": tmp / ("n" * 300),
        "new-parents": tmp / "not" / "yet" / "x.json",
        "fifo": tmp / "fifo",
        "existing": tmp / "a-file",
        "nul": Path(f"{tmp}/a\0b"),
    }


def test_the_preflight_refuses_exactly_what_the_writer_refuses(tmp_path: Path) -> None:
    """``check_writable`` (read-only, before a long run) and ``write_atomically`` (at its end)
    agree on every hostile target, and the preflight writes nothing."""
    targets = _targets(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    verdicts = {}
    for kind, target in targets.items():
        try:
            check_writable(target)
            verdicts[kind] = "ok"
        except WriteError as error:
            assert str(target) in str(error) or repr(str(target))[1:-1] in str(error)
            verdicts[kind] = "refused"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing made
    for kind, target in targets.items():
        if kind == "fifo":
            continue  # writing a FIFO blocks until a reader opens it
        try:
            write_bytes(target, b"new\n")
            written = "ok"
        except WriteError:
            written = "refused"
        assert (kind, written) == (kind, verdicts[kind])
    assert verdicts == {
        "directory": "refused",
        "under-a-file": "refused",
        "loop": "refused",
        "too-long": "refused",
        "new-parents": "ok",
        "fifo": "ok",
        "existing": "ok",
        "nul": "refused",
    }
