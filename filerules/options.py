"""Command-line pieces both commands share."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any


class VersionAction(argparse.Action):
    """``--version``: prints ``PROG VERSION`` and exits 0. ``version_text`` is called only
    when the option is given: a version that digests code or reads every installed
    distribution costs more than building the parser, which happens on every run."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        *,
        version_text: Callable[[], str],
        **kwargs: Any,
    ) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.version_text = version_text

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"{parser.prog} {self.version_text()}")
        parser.exit()
