"""One atomic writer: a reader sees the old file or the new one, never half of either.

- A regular file (or none yet) is replaced through a temp file beside it and a rename. A
  symlink is followed: the file it points to is replaced and the link kept.
- A FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal) is written in
  place: it is a stream, not a file to replace.
- Anything else (a directory, a block device, a socket) is refused; nothing is touched.
- A new file gets the mode the umask gives (``0666 & ~umask``); a replaced file keeps its
  mode (and, for root, its owner).
- Every error is a :class:`WriteError` naming the user's path, never the temp file; a failed
  or interrupted write (``SIGTERM``, ``SIGHUP``, ``SIGINT``) removes the temp file first,
  then the signal takes its usual course.

:func:`check_writable` refuses, before a long run, what the writer would refuse at its end.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any


class WriteError(OSError):
    """A file that could not be written: ``filename`` is the user's path, never a temp file."""


def write_atomically(target: Path, data: bytes | str) -> None:
    """Write ``data`` to ``target`` as the module doc says. Text is encoded as UTF-8 first, so
    text the encoding cannot take (a lone surrogate) raises :class:`UnicodeEncodeError`
    before anything is touched."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with signals_unwind():
            make_parents(target)
            found = _stat(target)
            if found is not None and not stat.S_ISREG(found.st_mode):
                _write_stream(target, found, payload)
                return
            _replace(Path(os.path.realpath(target)), found, payload)
    except OSError as error:
        raise WriteError(error.errno, error.strerror or str(error), str(target)) from None
    except ValueError as error:  # a NUL byte in the path
        raise WriteError(errno.EINVAL, str(error), str(target)) from None


def check_writable(target: Path) -> None:
    """Refuse, before any work, a ``target`` that :func:`write_atomically` would refuse at the
    end: a NUL in it, a directory or other non-file there, a loop or a name too long, a
    non-directory or an unwritable one where its parents are. Reads only; raises
    :class:`WriteError` naming ``target``. A target that passes can still fail later (a full
    disk), but a long run no longer ends in a refusal it could have known at its start."""
    try:
        _check_writable(target)
    except OSError as error:
        raise WriteError(error.errno, error.strerror or str(error), str(target)) from None
    except ValueError as error:  # a NUL byte in the path
        raise WriteError(errno.EINVAL, str(error), str(target)) from None


def _check_writable(target: Path) -> None:
    found = _stat(target)
    if found is not None:
        if stat.S_ISDIR(found.st_mode):
            raise OSError(errno.EISDIR, "Is a directory")
        if stat.S_IFMT(found.st_mode) not in (stat.S_IFREG, stat.S_IFIFO, stat.S_IFCHR):
            raise OSError(errno.EINVAL, "not a regular file, FIFO or character device")
        target = Path(os.path.realpath(target))
    parent = _nearest_directory(target)
    missing = target.relative_to(parent).parts if found is None else ()
    longest = os.pathconf(parent, "PC_NAME_MAX")
    if any(len(os.fsencode(name)) > longest for name in missing):
        raise OSError(errno.ENAMETOOLONG, "File name too long")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, f"Permission denied: {parent}")


def make_parents(target: Path) -> None:
    """Make the directories ``target`` goes in. Where a non-directory stands in the way,
    raise ENOTDIR naming it (mkdir would say EEXIST, naming nothing)."""
    _nearest_directory(target)
    target.parent.mkdir(parents=True, exist_ok=True)


def _nearest_directory(target: Path) -> Path:
    """The nearest existing parent of ``target``; ENOTDIR naming it when it is not a
    directory."""
    parent = target.parent
    while (where := _stat(parent)) is None:
        parent = parent.parent
    if not stat.S_ISDIR(where.st_mode):
        raise OSError(errno.ENOTDIR, f"Not a directory: {parent}")
    return parent


def _stat(target: Path) -> os.stat_result | None:
    """``target``'s status, or None when nothing is there (a parent missing or not a
    directory)."""
    try:
        return os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _write_stream(target: Path, found: os.stat_result, data: bytes) -> None:
    """A FIFO or character device is written in place; any other non-file is refused."""
    if stat.S_ISDIR(found.st_mode):
        raise OSError(errno.EISDIR, "Is a directory (refused: nothing was written)")
    if not (stat.S_ISFIFO(found.st_mode) or stat.S_ISCHR(found.st_mode)):
        message = "not a regular file, FIFO or character device (refused: nothing was written)"
        raise OSError(errno.EINVAL, message)
    with os.fdopen(os.open(target, os.O_WRONLY), "wb") as handle:
        handle.write(data)


def _mode_for(found: os.stat_result | None) -> int:
    if found is not None:
        return stat.S_IMODE(found.st_mode)
    return 0o666 & ~umask()


def umask() -> int:
    """The process umask, read without changing it where Linux tells it (``/proc``): setting
    it to read it back would race another thread creating a file."""
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
    """A terminating signal arrived inside :func:`signals_unwind`; raised so every
    ``finally`` runs first."""

    @property
    def signum(self) -> int:
        signum: int = self.args[0]
        return signum


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(signum)


@contextmanager
def signals_unwind() -> Iterator[None]:
    """SIGTERM and SIGHUP raise while the block runs (main thread only), so every
    ``finally`` inside it runs (a temp file or a worktree is removed); then the signal is
    raised again under the handler that was there, and the process ends as it says. A
    handler that returns leaves an :class:`InterruptedError` (``EINTR``) naming the signal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
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


def _restore(previous: dict[int, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


@contextmanager
def _deferred_signals() -> Iterator[None]:
    """Around creating the temp file: terminating signals (and SIGINT) wait until its name is
    known, so the cleanup that follows can always remove it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocked = {*_TERMINATING, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
