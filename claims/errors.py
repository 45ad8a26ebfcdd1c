"""Errors of the claims kernel: one root, each message saying what, why and how to fix.

Exceptions are for misuse (a bad plugin, a witness that breaks the floor, a bad command
line). A claim that fails is not an exception: it is a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from claims.exits import Exit


class ClaimsError(Exception):
    """Root of every error the kernel raises; the CLI prints it and exits ``exit_code``."""

    exit_code: int = Exit.USAGE


class UsageError(ClaimsError):
    """The command line asked for something that does not exist (a witness, a format)."""


class PluginLoadError(ClaimsError):
    """A plugin could not be imported or does not fit the hook contract."""

    def __init__(self, plugin: str, origin: str, error: BaseException) -> None:
        self.plugin = plugin
        self.origin = origin
        self.error = error
        super().__init__(
            f"could not load claims plugin {plugin!r} ({origin}): "
            f"{type(error).__name__}: {error}\n"
            "Fix the plugin, or leave it out: remove the -p option, or uninstall the "
            "distribution that declares it (set CLAIMS_DISABLE_PLUGIN_AUTOLOAD=1 to skip "
            "every entry-point plugin)."
        )


class Violation(BaseModel):
    """One floor rule broken by one subject (a claim id, a witness name, a function)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: str
    rule: str
    message: str

    def line(self) -> str:
        return f"{self.subject} [{self.rule}]: {self.message}"


class FloorViolation(ClaimsError):
    """A witness breaks the floor every claim batch must keep; every violation is listed."""

    def __init__(self, violations: Iterable[Violation]) -> None:
        self.violations = tuple(violations)
        count = len(self.violations)
        lines = "\n".join(f"  {v.line()}" for v in self.violations)
        super().__init__(
            f"{count} floor violation{'s' if count != 1 else ''}; nothing was run:\n{lines}"
        )


def describe(error: BaseException) -> str:
    """``Type: message`` for an exception, the form every report uses."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class PassThrough(BaseException):
    """Ends a claim's run without a verdict: the runner lets it through to whoever raised it
    for its own reasons (a mutation survey's per-claim budget). Any other exception a claim
    lets escape, ``BaseException`` or not, is the claim's red verdict; only
    ``KeyboardInterrupt`` (the user's Ctrl-C) also goes through."""
