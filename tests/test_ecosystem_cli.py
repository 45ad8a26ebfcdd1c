"""The command line as a person meets it: --version, colour on a terminal (and NO_COLOR),
markdown that renders what the statement says, -p no:NAME, a broken report plugin."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from tests.ecosystem import REPO_ROOT

FAKES = ("-p", "tests.fakes.plugin")
MARKUP = ("-p", "tests.fakes.markup_plugin")


def claims(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(REPO_ROOT)}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        full.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "claims.cli", *args],
        cwd=REPO_ROOT,
        env={**full, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def on_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """What `claims ARGS` prints to a real pseudo-terminal."""
    full = {**os.environ, "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(REPO_ROOT)}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        full.pop(name, None)
    full["TERM"] = "xterm"
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "claims.cli", *args],
        cwd=REPO_ROOT,
        env={**full, **(env or {})},
        stdout=child,
        stderr=child,
        stdin=subprocess.DEVNULL,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=300)
    os.close(main)
    return b"".join(chunks).decode()


def test_version_names_the_distribution() -> None:
    done = claims("--version")
    assert done.returncode == 0
    assert re.match(r"^claims \d+\.\d+\.\d+ \(gunbc-claims, /", done.stdout), done.stdout


def test_verdicts_are_coloured_on_a_terminal_only() -> None:
    shown = on_a_terminal(*FAKES, "run", "fake_green", "fake_red")
    assert "\033[32mfake_green: 4/4 PASS\033[0m" in shown
    assert "\033[31mfake_red: 1/7 FAIL\033[0m" in shown
    assert "\033[31mFAIL\033[0m" in shown
    piped = claims(*FAKES, "run", "fake_green", "fake_red").stdout
    assert "\033[" not in piped and "fake_green: 4/4 PASS" in piped


def test_no_color_turns_colour_off_on_a_terminal() -> None:
    shown = on_a_terminal(*FAKES, "run", "fake_green", env={"NO_COLOR": "1"})
    assert "fake_green: 4/4 PASS" in shown and "\033[" not in shown


def test_markdown_shows_a_statement_as_written() -> None:
    done = claims(*MARKUP, "run", "fake_markup", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    bullet = next(ln for ln in done.stdout.splitlines() if ln.startswith("- "))
    assert bullet.startswith(
        r"- rank\_0 \*serves\* &lt;script>x&lt;/script> \| \[#12353\](http://x) \`tick\` "
        r"\~\~gone\~\~ &amp; more."
    ), bullet


def test_a_report_plugin_that_raises_is_named_without_a_traceback() -> None:
    done = claims(*MARKUP, "run", "fake_markup", "--format", "boom")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert (
        "plugin tests.fakes.markup_plugin failed in hook claims_report: "
        "RuntimeError: the boom writer broke" in done.stderr
    )
    assert "-p no:tests.fakes.markup_plugin" in done.stderr


def test_p_no_leaves_one_plugin_out(tmp_path: Path) -> None:
    xml = tmp_path / "claims.xml"
    with_junit = claims(*FAKES, "run", "fake_green", "--junit-xml", str(xml))
    assert with_junit.returncode == 0 and xml.is_file()
    without = claims(*FAKES, "-p", "no:junit", "run", "fake_green", "--junit-xml", str(xml))
    assert without.returncode == 2 and "unrecognized arguments: --junit-xml" in without.stderr
    left_out = claims(*FAKES, *MARKUP, "-p", "no:tests.fakes.markup_plugin", "list")
    assert "fake_markup" not in left_out.stdout and "fake_green" in left_out.stdout


def test_p_no_refuses_the_runner_and_names_that_name_nothing() -> None:
    runner = claims("-p", "no:claims.runner", "list")
    assert runner.returncode == 2 and "the kernel's runner" in runner.stderr
    unknown = claims("-p", "no:nothing_here", "list")
    assert unknown.returncode == 2
    assert "-p no:nothing_here: no plugin of that name" in unknown.stderr
    assert "plugins.junit" in unknown.stderr and "Traceback" not in unknown.stderr
