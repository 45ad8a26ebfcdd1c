"""Byte measures. Every byte → GiB rounding in the planner goes through here."""

from __future__ import annotations

GIB = 1024**3


def gibibyte_ceiling(n_bytes: int) -> int:
    """Whole GiB needed to hold ``n_bytes`` (rounded up), so one byte count rounds one way."""
    if n_bytes < 0:
        raise ValueError(f"byte count must be non-negative, got {n_bytes}")
    return -(-n_bytes // GIB)


def ceil_div(numerator: int, denominator: int) -> int:
    """Integer ceiling division for non-negative operands, without float drift."""
    return -(-numerator // denominator)
