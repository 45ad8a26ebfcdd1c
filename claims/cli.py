"""The ``claims`` command: load plugins, build the parser they extend, run one handler.

Its exit codes are :class:`claims.Exit`; ``claims --help`` lists them from the enum's own
docstrings (:func:`claims.exits.help_lines`). An internal error (exit 70) is one line naming
where it was raised; ``--debug`` adds the traceback.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from claims.commands import add_builtin_commands
from claims.errors import ClaimsError
from claims.exits import Exit, help_lines
from claims.runner import DEBUG_ENV
from claims.session import Session
from filerules import VersionAction, printable

DISTRIBUTION = "gunbc-claims"
DESCRIPTION = "Run claim batches (witnesses) and report their verdicts; check them with mutants."

EPILOG_EXAMPLES = """\
examples:
  claims list
  claims plugins
  claims run my_witness
  claims run --all --format markdown --junit-xml target/claims.xml
  claims evidence --base origin/main
  claims -p my_project.evidence run --all
  claims -p no:junit list

Plugins load built in, then from the `claims` entry-point group, then those the project's
[tool.claims] plugins names (the nearest pyproject.toml from the working directory up),
then -p MODULE; -p no:NAME leaves one out. `claims plugins` shows what loaded from where.
`claims COMMAND --help` explains each command.
"""


def epilog() -> str:
    """The examples, then the exit codes as :class:`claims.Exit` states them (generated, so
    the help cannot drift from the codes the commands return)."""
    return (
        EPILOG_EXAMPLES
        + "\nexit codes (claims.Exit; `claims mutate --help` says which of 3-8 wins when "
        "several apply;\n--debug adds the traceback to an internal error's one line):\n"
        + "\n".join(help_lines())
        + "\n"
    )


def _add_plugin_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        dest="plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="load MODULE as a claims plugin after the built-in, entry-point and configured "
        "plugins (repeatable, loaded in order); -p no:NAME leaves plugin NAME out",
    )


def _plugin_modules(argv: Sequence[str]) -> list[str]:
    # The plugins must be loaded before the full parser exists: they add its commands.
    early = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    _add_plugin_option(early)
    known, _ = early.parse_known_args(argv)
    return list(known.plugins)


def version() -> str:
    """The installed distribution's version, where the kernel is imported from, and any
    top-level import name this distribution shares with another installed one (docs/installing.md:
    "Top-level names")."""
    try:
        found = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        found = "(not installed)"
    text = f"{found} ({DISTRIBUTION}, {Path(__file__).resolve().parent.parent})"
    shared = shared_top_level_names()
    if shared:
        text += "\nwarning: top-level names shared with other installed distributions: " + (
            "; ".join(f"{name} ({', '.join(others)})" for name, others in shared.items())
        )
    return text


def shared_top_level_names() -> dict[str, list[str]]:
    """Each top-level package of this distribution that another distribution installs too
    (pip lets the later install overwrite the earlier's files), with those distributions."""
    owners = importlib.metadata.packages_distributions()
    ours = {name for name, dists in owners.items() if DISTRIBUTION in dists}
    return {
        name: sorted(d for d in owners[name] if d != DISTRIBUTION)
        for name in sorted(ours)
        if len(set(owners[name]) - {DISTRIBUTION}) > 0
    }


def build_parser(session: Session) -> argparse.ArgumentParser:
    """The full parser: the kernel's commands, then every plugin's, in load order."""
    parser = argparse.ArgumentParser(
        prog="claims",
        description=DESCRIPTION,
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_plugin_option(parser)
    parser.add_argument(
        "--version",
        action=VersionAction,
        version_text=version,
        help="show the version and where it runs from; exit",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an internal error (exit 70), also print the traceback; a claim that "
        "raised carries its traceback in its reason",
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    run = add_builtin_commands(subparsers, session.formats)
    for plugin in session.pm.plugins_with("claims_add_run_options"):
        session.pm.call_plugin(plugin, "claims_add_run_options", parser=run)
    for plugin in session.pm.plugins_with("claims_add_commands"):
        session.pm.call_plugin(plugin, "claims_add_commands", subparsers=subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``claims`` console script; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    options = arguments[: arguments.index("--")] if "--" in arguments else arguments
    debug = "--debug" in options
    previous = os.environ.get(DEBUG_ENV)
    if debug:  # a raising claim's reason carries its traceback, in the processes started too
        os.environ[DEBUG_ENV] = "1"
    try:
        return _main(arguments, debug)
    finally:  # called in-process (a test, a plugin), it leaves the environment as it was
        if previous is None:
            os.environ.pop(DEBUG_ENV, None)
        else:
            os.environ[DEBUG_ENV] = previous


def _main(arguments: list[str], debug: bool) -> int:
    try:
        session = Session.start(_plugin_modules(arguments))
        parser = build_parser(session)
        args = parser.parse_args(arguments)
        if getattr(args, "handler", None) is None:
            parser.print_help(sys.stderr)
            return Exit.USAGE
        return int(args.handler(args, session))
    except ClaimsError as error:
        print(f"claims: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("claims: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
    except BrokenPipeError:
        # Nothing more can be said to a reader that left; the interpreter's own flush at
        # exit must not fail on the same pipe again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return Exit.CLOSED_OUTPUT
    except Exception as error:
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(internal_error_line(error), file=sys.stderr)
        return Exit.INTERNAL


def internal_error_line(error: BaseException, prog: str = "claims") -> str:
    """One line for a bug: what was raised and the innermost place it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    what = printable(f"{type(error).__name__}: {error}")
    return (
        f"{prog}: internal error: {what}{where} (a bug, not a problem with the input; "
        "--debug prints the traceback)"
    )


if __name__ == "__main__":
    sys.exit(main())
