"""Functions for the purity guard's tests: what it admits, and what it refuses and why."""

from __future__ import annotations

import bisect
import datetime
import hashlib
import os
import time
from argparse import ArgumentTypeError
from pathlib import Path, PurePosixPath

LIMIT = 3
NAMES = ("a", "b")
SEEN: list[int] = []
COUNTER = 0


def pure(x: int) -> int:
    """Reads an immutable constant and calls a pure helper: admitted."""
    return _double(x) + LIMIT + len(NAMES)


def _double(x: int) -> int:
    return 2 * x


def reads_clock() -> float:
    return time.time()


def reads_clock_through_a_helper(x: float) -> float:
    return _stamp() + x


def _stamp() -> float:
    return time.monotonic()


def asks_datetime_for_now() -> datetime.datetime:
    return datetime.datetime.now()


def opens_a_file(path: str) -> str:
    with open(path, encoding="utf-8") as stream:
        return stream.read()


def reads_a_path(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def reads_a_mutable_global(x: int) -> bool:
    return x in SEEN


def reads_a_rebound_global() -> int:
    return COUNTER


def bump() -> None:
    global COUNTER
    COUNTER += 1


def reads_the_environment() -> str | None:
    return os.environ.get("HOME")


def prints(x: int) -> None:
    print(x)


def calls_what_it_is_given(f: object, x: int) -> object:
    return f(x)  # type: ignore[operator]


def imports_os_inside() -> list[str]:
    import os as system

    return system.listdir(".")


def opens(path: str) -> object:
    return open(path, encoding="utf-8")


def digests(text: str) -> str:
    """A pure module's function its C accelerator implements (``_hashlib``): admitted."""
    return hashlib.sha256(text.encode()).hexdigest()[: bisect.bisect_left([8, 16], 9)]


def names_a_pure_path(text: str) -> str:
    """A pure path is a name, never a file: admitted."""
    return PurePosixPath(text).name


def names_a_path(text: str) -> str:
    """A Path can reach the file system: refused, though ``name`` reads nothing."""
    return Path(text).name


def refuses_a_bad_number(text: str) -> int:
    """Another module's exception, made and raised: admitted (argparse is not pure)."""
    if not text.isdigit():
        raise ArgumentTypeError(f"{text!r} is not a number")
    return int(text)
