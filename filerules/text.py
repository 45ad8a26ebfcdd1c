"""Text for one message line: what a user gave, shown so it cannot break the line."""

from __future__ import annotations


def printable(text: object) -> str:
    """``str(text)`` with control, format and line-breaking characters, and bytes that were not
    UTF-8 (lone surrogates), escaped as Python writes them (``\\n``, ``\\x85``, ``\\u2028``,
    ``\\udcff``): a path or key holding a newline would otherwise start a line that reads as
    the tool's own."""
    shown = str(text)
    if shown.isprintable():
        return shown
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in shown)
