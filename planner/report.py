"""The dry-run report: every host's artifacts, then the verdict. Written atomically."""

from __future__ import annotations

import errno
import os
import shlex
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from planner.apply import FORWARD_STAGES
from planner.arm_launch import DryRun, RenderedHost
from planner.engram import MkdirStep, PlannedRemoteStep
from planner.provenance import InputRead
from planner.version import planner_version

RULE = "=" * 78
APPLY_ORDER = (
    " -> ".join(s.value for s in FORWARD_STAGES) + "; on any failure: rollback; then cleanup"
)


def _step_line(step: PlannedRemoteStep) -> str:
    if isinstance(step, MkdirStep):
        return "run " + shlex.join(step.argv)
    return step.describe()


def _host_section(host: RenderedHost) -> list[str]:
    real = host.realization
    lines = [
        RULE,
        f"host {real.host_name} — node rank {real.rank}{' (head)' if real.rank == 0 else ''}",
        RULE,
    ]
    if host.composed:
        lines.append("## composed model (run on the host before apply)")
        lines += [f"{i}. {shlex.join(argv)}" for i, argv in enumerate(host.composed, 1)]
        lines.append("")
    lines += [
        "## docker create",
        shlex.join(real.create_argv),
        "",
        f"## unit {real.unit_name}",
        real.unit_text.rstrip("\n"),
        "",
        "## engram staging",
    ]
    lines += [f"{i}. {_step_line(s)}" for i, s in enumerate(host.staging, 1)] or ["(none)"]
    for step in host.steps:
        lines += [
            "",
            f"## {step.stage.value} ({shlex.join(step.invocation)})",
            f"# front door: {shlex.join(step.front_door.check)}; log {step.front_door.log_path}",
            step.script.rstrip("\n"),
        ]
    return [*lines, ""]


def _verdict(run: DryRun) -> list[str]:
    read_at = (
        f"authority read at: {run.read_at.isoformat()}"
        if run.read_at is not None
        else "authority: no log given"
    )
    lines = [RULE, "verdict", RULE, f"candidate: {run.candidate.key}", read_at, *run.warnings]
    if run.fit is not None:
        lines.append(f"fit: {run.fit.summary()}")
    if run.launch is not None:
        lines.append(f"profile key: {run.launch.profile_key}")
        lines.append(f"apply order (each stage head first): {APPLY_ORDER}")
    if run.admission is None and run.read_at is None:
        lines.append("admission: not checked (no authority log; planner apply refuses it)")
    elif run.admission is None:
        lines.append("admission: not evaluated (the plan did not render)")
    elif run.admission.admitted:
        held = (
            "every checked conjunct holds" if run.admission.unchecked else "all four conjuncts hold"
        )
        lines.append(f"admission: admitted ({held})")
    if run.admission is not None:
        lines += [f"admission: not checked: {why}" for why in run.admission.unchecked]
    lines += [text for r in run.refusals for text in r.lines()]
    result = {"ADMITTED": "ADMITTED", "PLANNED": "PLANNED (admission not checked)"}
    lines.append(f"result: {result.get(run.verdict, f'REFUSED ({len(run.refusals)})')}")
    return lines


def summary(run: DryRun) -> str:
    """The verdict in one line, as the report's first lines and a saved plan give it:
    ``4 hosts, 32 steps, ADMITTED`` (steps: every stage script of every host)."""
    steps = sum(len(h.steps) for h in run.hosts)
    return f"{len(run.hosts)} hosts, {steps} steps, {run.verdict}"


def provenance_lines(inputs: tuple[InputRead, ...]) -> list[str]:
    """Which planner made the report and what it read: each input by role, sha256 and path
    (the authority log as the bytes read: events may follow them)."""
    lines = [f"planner: {planner_version()}"]
    for read in inputs:
        bound = "first " if read.prefix else ""
        lines.append(
            f"input: {read.role}: sha256 {read.sha256} ({bound}{read.size} bytes) {read.path}"
        )
    return lines


def render_report(run: DryRun, inputs: tuple[InputRead, ...] | None = None) -> str:
    """The report: a summary line first (as ``terraform plan`` ends with its count), with
    ``inputs`` the planner's version and every input read, then each host, then the verdict."""
    header = [
        f"dry run: {run.arm} — a modeled launch; nothing here has run on any host",
        f"summary: {summary(run)}",
    ]
    if run.recipe is not None:
        header.append(f"recipe: {run.recipe}")
    if inputs is not None:
        header += provenance_lines(inputs)
    header.append("")
    body = [line for host in run.hosts for line in _host_section(host)]
    if not run.hosts:
        body = ["(no host artifacts: the plan did not render; see the refusals below)", ""]
    return "\n".join([*header, *body, *_verdict(run)]) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the new one, never half.

    - A regular file (or none yet) is replaced through a temp file beside it and a rename.
      A symlink is followed: the file it points to is replaced and the link kept.
    - A FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal) is written in
      place: it is a stream, not a file to replace.
    - Anything else (a directory, a block device, a socket) is refused; nothing is touched.
    - A new file gets the mode the umask gives (``0666 & ~umask``); a replaced file keeps its
      mode (and, for root, its owner).
    - Every error is an ``OSError`` naming ``path``, never the temp file; a failed or
      interrupted write (``SIGTERM``, ``SIGHUP``, ``SIGINT``) removes the temp file first.
    """
    data = text.encode("utf-8")  # text the encoding cannot take fails before anything is done
    try:
        with _signals_end_the_write():
            _make_parents(path)
            found = _stat(path)
            if found is not None and not stat.S_ISREG(found.st_mode):
                _write_stream(path, found, data)
                return
            _replace(Path(os.path.realpath(path)), found, data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    except ValueError as exc:  # a NUL byte in the path
        raise OSError(errno.EINVAL, str(exc), str(path)) from None


def _make_parents(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OSError(errno.ENOTDIR, f"Not a directory: {path.parent}") from None


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _write_stream(path: Path, found: os.stat_result, data: bytes) -> None:
    """A FIFO or character device is written in place; any other non-file is refused."""
    if stat.S_ISDIR(found.st_mode):
        raise OSError(errno.EISDIR, "Is a directory (refused: nothing was written)")
    if not (stat.S_ISFIFO(found.st_mode) or stat.S_ISCHR(found.st_mode)):
        message = "not a regular file, FIFO or character device (refused: nothing was written)"
        raise OSError(errno.EINVAL, message)
    with os.fdopen(os.open(path, os.O_WRONLY), "wb") as handle:
        handle.write(data)


def _mode_for(found: os.stat_result | None) -> int:
    if found is not None:
        return stat.S_IMODE(found.st_mode)
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _replace(target: Path, found: os.stat_result | None, data: bytes) -> None:
    fd: int | None = None  # the temp file's descriptor until the file object owns it
    temp: str | None = None  # the temp file's name until it is renamed onto the target
    try:
        with _deferred_signals():
            # the prefix is cut so a name near the 255-byte limit still has room for a temp
            prefix = f".{target.name[:40]}."
            fd, temp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
        os.fchmod(fd, _mode_for(found))
        if found is not None and os.geteuid() == 0:
            os.fchown(fd, found.st_uid, found.st_gid)
        with os.fdopen(fd, "wb") as handle:
            fd = None
            handle.write(data)
        os.replace(temp, target)
        temp = None
    finally:
        if fd is not None:
            os.close(fd)
        if temp is not None:
            Path(temp).unlink(missing_ok=True)


_TERMINATING = (signal.SIGTERM, signal.SIGHUP)


class _Terminated(BaseException):
    """A terminating signal arrived mid-write; raised so the temp file is removed first."""

    @property
    def signum(self) -> int:
        signum: int = self.args[0]
        return signum


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(signum)


@contextmanager
def _signals_end_the_write() -> Iterator[None]:
    """While a write runs (main thread only), SIGTERM and SIGHUP raise :class:`_Terminated`
    so every ``finally`` removes what the write made; then the signal takes its usual course:
    the handler that was there runs, and the default one ends the process by the signal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, signal.Handlers | int | object] = {}
    for signum in _TERMINATING:
        if signal.getsignal(signum) not in (signal.SIG_IGN, None):
            previous[signum] = signal.signal(signum, _raise_terminated)
    try:
        yield
    except _Terminated as stop:
        _restore(previous)
        previous = {}
        signal.raise_signal(stop.signum)
        name = signal.Signals(stop.signum).name
        raise InterruptedError(errno.EINTR, f"interrupted by {name}") from None
    finally:
        _restore(previous)


def _restore(previous: dict[int, signal.Handlers | int | object]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)  # type: ignore[arg-type]


@contextmanager
def _deferred_signals() -> Iterator[None]:
    """Around creating the temp file: terminating signals (and SIGINT) wait until its name is
    known, and while the write runs SIGTERM/SIGHUP raise, so the cleanup runs, then take
    their usual course (the process still ends by the signal)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocked = {*_TERMINATING, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
