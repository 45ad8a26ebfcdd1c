"""Files the framework reads and writes: read strictly, written whole, never half-written.

Reading: :func:`read_json` parses a JSON file strictly and locates what it refuses (a key
given twice, ``NaN``/``Infinity``, an integer beyond signed 64 bits, a lone surrogate,
nesting deeper than :data:`MAX_DEPTH`); :func:`read_toml` reads TOML, turning what Python's
reader cannot take (an integer of more than 4,300 digits, tables nested past the recursion
limit, bytes that are not UTF-8) into a located :class:`FileProblem`. (The planner keeps its
own copy of these rules: it imports nothing of the framework.)

Writing: :func:`write_atomically` replaces a regular file through a temp file and a rename,
writes a FIFO or character device in place, refuses a directory or any other non-file, and
cleans its temp file on a failure or a terminating signal; every error names the user's path.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import stat
import tempfile
import threading
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from claims.errors import ClaimsError

MAX_DEPTH = 64
INT_RANGE = range(-(2**63), 2**63)
_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


class FileProblem(ValueError):
    """A file the framework will not read: ``where`` is the key path, the line and column, or
    ``<file>``; ``message`` says why, quoting the value."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        self.syntax: json.JSONDecodeError | None = None
        """The parser's error when the text is not JSON at all."""
        super().__init__(f"{where}: {message}")


class WriteError(OSError, ClaimsError):
    """A file the framework could not write; its message names the user's path (exit 2)."""


# ----------------------------------------------------------------------------- reading


def shown(path: object) -> str:
    """A path (or any text) for one message line: control and line-breaking characters, and
    bytes that were not UTF-8, escaped."""
    text = str(path)
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode()
        for c in text
    )


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``; anything else is a :class:`FileProblem` at ``<file>``."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as error:  # ValueError: a NUL in the path
        raise FileProblem("<file>", f"cannot read the file: {error}") from error


def read_json(path: Path) -> Any:
    """``path`` parsed as strict JSON; every refusal is a located :class:`FileProblem`."""
    return parse_json(read_text(path))


class _Unlocated(Exception):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Unlocated
    return found


def _bounded_int(text: str) -> int:
    if len(text) > 20 or int(text) not in INT_RANGE:
        raise _Unlocated
    return int(text)


def _no_constant(text: str) -> object:
    raise _Unlocated


def parse_json(text: str) -> Any:
    """``text`` as strict JSON (see the module doc)."""
    try:
        value = json.loads(
            text, object_pairs_hook=_unique, parse_int=_bounded_int, parse_constant=_no_constant
        )
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        problem = FileProblem(where, f"not JSON: {error.msg}")
        problem.syntax = error
        raise problem from None
    except (_Unlocated, RecursionError):
        raise _locate(text) from None
    deep = text.count("[") + text.count("{") > MAX_DEPTH
    if deep or "\\" in text or not text.isascii():
        found = _walk(value, "", 0)
        if found is not None:
            raise _locate(text) if found.message == _TOO_DEEP else found
    return value


class _Pairs(list[tuple[str, Any]]):
    pass


class _Raw(str):
    pass


def _locate(text: str) -> FileProblem:
    depth, in_string, escaped, line, column = 0, False, False, 1, 0
    for char in text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return FileProblem(f"line {line}, column {column}", _TOO_DEEP)
        elif char in "]}":
            depth -= 1
    written = json.loads(text, object_pairs_hook=_Pairs, parse_int=_Raw, parse_constant=_Raw)
    problem = _walk(written, "", 0)
    assert problem is not None, "a parse hook refused what the walk accepts"
    return problem


def _step(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _walk(value: Any, path: str, depth: int) -> FileProblem | None:
    where = path or "<root>"
    if depth >= MAX_DEPTH and isinstance(value, (dict, list)):  # the 65th level opens here
        return FileProblem(where, _TOO_DEEP)
    if isinstance(value, _Raw):
        if value in ("NaN", "Infinity", "-Infinity"):
            return FileProblem(where, f"{value} is not a JSON number")
        digits = len(value.lstrip("-"))
        if digits > 20 or int(value) not in INT_RANGE:
            shown = value if digits <= 40 else f"{value[:30]}… ({digits:,} digits)"
            message = f"an integer of {digits:,} digits is out of range (signed 64-bit at most)"
            return FileProblem(where, f"{message}: {shown}")
        return None
    if isinstance(value, str):
        return _surrogate(value, where)
    items: list[tuple[str | int, Any]]
    if isinstance(value, _Pairs):
        seen: dict[str, Any] = {}
        for name, item in value:
            if name in seen:
                return FileProblem(
                    _step(path, name),
                    f"key {name!r} is given twice: a file that says two things is corrupt",
                )
            seen[name] = item
        items = list(value)
    elif isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return None
    for key, item in items:
        problem = (_surrogate(key, where) if isinstance(key, str) else None) or _walk(
            item, _step(path, key), depth + 1
        )
        if problem is not None:
            return problem
    return None


def _surrogate(text: str, where: str) -> FileProblem | None:
    for char in text:
        if "\ud800" <= char <= "\udfff":
            return FileProblem(where, f"a lone surrogate \\u{ord(char):04x} is not a character")
    return None


def read_toml(path: Path) -> dict[str, Any]:
    """``path`` as TOML; whatever Python's reader cannot take is a located :class:`FileProblem`."""
    text = read_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        where = f"line {at.group(1)}, column {at.group(2)}" if at else "end of file"
        raise FileProblem(where, f"not TOML: {error}") from None
    except ValueError as error:  # an integer of more than 4,300 digits
        long = re.search(r"[0-9][0-9_]{4299,}", text)
        where = "<file>"
        if long is not None:
            line = text.count("\n", 0, long.start()) + 1
            where = f"line {line}, column {long.start() - text.rfind(chr(10), 0, long.start())}"
        raise FileProblem(where, f"an integer Python cannot read: {error}") from None
    except RecursionError:
        raise FileProblem("<file>", "arrays or tables nested too deeply to read") from None


# ----------------------------------------------------------------------------- writing


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so a reader sees the old file or the new one, never half.

    A regular file (or none yet) is replaced by a temp file in its directory and a rename (a
    symlink is followed: the file it points to is replaced); a FIFO or character device
    (``/dev/stdout``) is written in place; a directory or any other non-file is refused. A
    new file gets ``0666 & ~umask``, a replaced one keeps its mode. On any failure, and on
    SIGTERM/SIGHUP/SIGINT mid-write, the temp file is removed; the signal then takes its
    course. Errors are :class:`WriteError` naming ``target``, never the temp file.
    """
    try:
        with signals_unwind():
            _make_parents(target)
            found = _stat(target)
            if found is not None and not stat.S_ISREG(found.st_mode):
                _write_stream(target, found, data)
                return
            _replace(Path(os.path.realpath(target)), found, data)
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
        if not (stat.S_ISREG(found.st_mode) or stat.S_ISFIFO(found.st_mode)):
            if not stat.S_ISCHR(found.st_mode):
                raise OSError(errno.EINVAL, "not a regular file, FIFO or character device")
        target = Path(os.path.realpath(target))
    missing = [target.name] if found is None else []
    parent = target.parent
    while (where := _stat(parent)) is None:
        missing.append(parent.name)
        parent = parent.parent
    if not stat.S_ISDIR(where.st_mode):
        raise OSError(errno.ENOTDIR, f"Not a directory: {parent}")
    longest = os.pathconf(parent, "PC_NAME_MAX")
    if any(len(os.fsencode(name)) > longest for name in missing):
        raise OSError(errno.ENAMETOOLONG, "File name too long")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, f"Permission denied: {parent}")


def _make_parents(target: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OSError(errno.ENOTDIR, f"Not a directory: {target.parent}") from None


def _stat(target: Path) -> os.stat_result | None:
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None


def _write_stream(target: Path, found: os.stat_result, data: bytes) -> None:
    if stat.S_ISDIR(found.st_mode):
        raise OSError(errno.EISDIR, "Is a directory (refused: nothing was written)")
    if not (stat.S_ISFIFO(found.st_mode) or stat.S_ISCHR(found.st_mode)):
        message = "not a regular file, FIFO or character device (refused: nothing was written)"
        raise OSError(errno.EINVAL, message)
    with os.fdopen(os.open(target, os.O_WRONLY), "wb") as handle:
        handle.write(data)


def _umask() -> int:
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
    fd, temp = -1, ""
    try:
        blocked = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
        main = threading.current_thread() is threading.main_thread()
        if main:  # the temp file's name is known before a signal can end the write
            signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            # the prefix is cut so a name near the 255-byte limit still has room for a temp
            prefix = f".{target.name[:40]}."
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=".tmp")
        finally:
            if main:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
        os.fchmod(fd, stat.S_IMODE(found.st_mode) if found else 0o666 & ~_umask())
        if found is not None and os.geteuid() == 0:
            os.fchown(fd, found.st_uid, found.st_gid)
        with os.fdopen(fd, "wb") as handle:
            fd = -1
            handle.write(data)
        os.replace(temp, target)
        temp = ""
    finally:
        if fd >= 0:
            os.close(fd)
        if temp:
            Path(temp).unlink(missing_ok=True)


class _Terminated(BaseException):
    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signum)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(signum)


@contextmanager
def signals_unwind() -> Iterator[None]:
    """SIGTERM and SIGHUP raise while the block runs (main thread only), so every
    ``finally`` inside it runs (a temp file or a worktree is removed); then the signal is
    raised again under the handler that was there, and the process ends as it says."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
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
