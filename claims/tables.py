"""Tables that fit the terminal: every console table of ``claims`` and its built-in plugins.

The width is ``$COLUMNS`` when it is set (as ``ls``, ``git`` and pytest read it), else the
terminal's when the output is one. Output to a file or a pipe without ``$COLUMNS`` is left at
its natural width, so a CI log or a tool reading it sees every cell on one line. A table wider
than the width has its widest free-text column wrapped until it fits, never below
:data:`NARROWEST` characters; the other columns (ids, counts, verdicts) stay whole.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from tabulate import tabulate

NARROWEST = 24
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def terminal_width(stream: TextIO | None = None) -> int | None:
    """The width to fit (see the module docstring), or ``None`` for the natural width."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    out = stream if stream is not None else sys.stdout
    isatty = getattr(out, "isatty", None)
    if isatty is not None and isatty():
        return shutil.get_terminal_size().columns
    return None


def fitted(
    rows: Sequence[Sequence[Any]],
    headers: Sequence[str],
    wrap: int | Sequence[int],
    *,
    cap: int | None = None,
    width: int | None = None,
    stream: TextIO | None = None,
    **options: Any,
) -> str:
    """``tabulate(rows, headers, **options)`` that fits ``width`` (default:
    :func:`terminal_width` of ``stream``): of the free-text columns ``wrap``, the widest is
    wrapped first, then the next, each no narrower than :data:`NARROWEST`; still too wide,
    each header wider than its cells wraps between its words (a table of counts narrows no
    further than its numbers). ``cap`` wraps the first free column at that many characters
    whatever the width."""
    columns = [wrap] if isinstance(wrap, int) else list(wrap)
    widths: list[int | None] = [None] * len(headers)
    widths[columns[0]] = cap
    table = tabulate(rows, headers=headers, maxcolwidths=widths, **options)
    limit = width if width is not None else terminal_width(stream)
    for _ in columns:
        excess = widest(table) - limit if limit is not None else 0
        if excess <= 0:
            break
        current = {c: _column_width(rows, headers, c, widths[c]) for c in columns}
        column = max(columns, key=lambda c: current[c])
        narrower = max(NARROWEST, current[column] - excess)
        if narrower >= current[column]:
            break
        widths[column] = narrower
        table = tabulate(rows, headers=headers, maxcolwidths=widths, **options)
    if limit is not None and widest(table) > limit:
        # Last: headers wider than their cells wrap between words ("no coverage").
        heads = [_header_width(rows, headers, c) for c in range(len(headers))]
        table = tabulate(
            rows, headers=headers, maxcolwidths=widths, maxheadercolwidths=heads, **options
        )
    return table


def _header_width(rows: Sequence[Sequence[Any]], headers: Sequence[str], column: int) -> int:
    cells = [str(row[column]) for row in rows if column < len(row)]
    words = str(headers[column]).split() or [""]
    longest_cell = max((len(line) for c in cells for line in c.splitlines()), default=0)
    return max(longest_cell, *(len(w) for w in words), 1)


def widest(table: str) -> int:
    """The width of a rendered table's widest line, colour codes not counted."""
    return max((len(_ANSI.sub("", line)) for line in table.splitlines()), default=0)


def _column_width(
    rows: Sequence[Sequence[Any]], headers: Sequence[str], column: int, cap: int | None
) -> int:
    cells = [str(row[column]) for row in rows if column < len(row)] + [str(headers[column])]
    longest = max(len(line) for cell in cells for line in cell.splitlines() or [""])
    return min(longest, cap) if cap is not None else longest
