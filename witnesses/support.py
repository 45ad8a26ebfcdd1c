"""What several witnesses do alike, written once: reading a data file as JSON, a flag's value
in an argv, the paths under a directory, the C locale, and a command's output captured.

Not a witness: the witnesses are the modules of the rooms (:mod:`witnesses.plugin`)."""

from __future__ import annotations

import io
import json
import locale
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any


def read_json(path: Path) -> Any:
    """``path`` read as UTF-8 JSON: a fixture the witness states values of."""
    return json.loads(path.read_text(encoding="utf-8"))


def value_after(argv: tuple[str, ...], flag: str) -> str | None:
    """The word after ``flag``'s first occurrence in ``argv``, or None when it is absent."""
    return argv[argv.index(flag) + 1] if flag in argv else None


def tree(root: Path) -> list[str]:
    """Every path under ``root``, relative, sorted (dot files included)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@contextmanager
def c_locale() -> Iterator[None]:
    """The C locale for text, whose encoding is ASCII (unless Python runs in UTF-8 mode)."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def captured(command: Callable[[], int | str | None]) -> tuple[int | str | None, str, str]:
    """``command()`` with stdout and stderr captured: its exit code (an argparse usage error's
    ``SystemExit`` code too), stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = command()
    except SystemExit as exc:
        code = exc.code
    return code, out.getvalue(), err.getvalue()
