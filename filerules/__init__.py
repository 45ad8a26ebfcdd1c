"""File rules both the planner and the claims kernel keep: one atomic writer, one strict JSON
reader, one way to show text on a message line, one ``--version``.

A leaf: it imports nothing of the project (a test holds it to that), so either side imports
it without importing the other.
"""

from filerules.options import VersionAction
from filerules.reading import INT_RANGE, MAX_DEPTH, JsonProblem, strict_json
from filerules.text import printable
from filerules.writing import (
    WriteError,
    check_writable,
    make_parents,
    signals_unwind,
    umask,
    write_atomically,
)

__all__ = [
    "INT_RANGE",
    "MAX_DEPTH",
    "JsonProblem",
    "VersionAction",
    "WriteError",
    "check_writable",
    "make_parents",
    "printable",
    "signals_unwind",
    "strict_json",
    "umask",
    "write_atomically",
]
