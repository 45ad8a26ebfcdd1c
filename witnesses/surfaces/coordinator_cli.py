"""Witness: ``planner apply`` on the command line — the dry run it prints, the scripts it
writes, and the usage errors and refusals that stop it before anything runs.

Every claim calls the real entry point, ``planner.cli.main(argv)``, in this process, with
stdout and stderr captured and every ``--scripts`` in a temporary directory, so a mutant of
:mod:`planner.coordinator` switched after import is what runs. Expected values come from the
plan (the planner's own stage scripts and order, through :mod:`fixtures.builders`), from ssh's
options as the coordinator's docstring and ``--help`` promise them, and from the exit codes
the help lists. Running the transaction over ssh is ``ssh_transport``'s (a real sshd).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import shlex
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

from claims import ClaimKind, Verdict, claim, difference, holds_unless
from fixtures.builders import Raising, Ran, captured, run_planner, v41_dry_run
from fixtures.live_log import SUPPLIED_INPUTS, append_event, write_live_log
from planner.cli import build_parser as cli_parser
from planner.cli import dry_run
from planner.coordinator import (
    REMOTE_SCRIPT,
    SshSettings,
    admission_gate,
    progress_of,
    wait_seconds,
)
from planner.transaction import parse_hosts, plan_transaction
from witnesses.arms.expected import stated_arms
from witnesses.support import PLAN_HOLDS, recording_client, refused_each_and_together

ARM = "v41_group_a"
NAMES = ("srv5", "srv6", "srv7", "srv8")
HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6:2222,srv7=ops@[fd00::7]:2200,srv8=root@srv8.lan"
DESTINATIONS = ("root@10.0.0.5", "root@10.0.0.6", "ops@fd00::7", "root@srv8.lan")
PORTS = ("22", "2222", "2200", "22")
FORWARD = ("preflight", "preserve", "apply", "readback", "front_door")
STAGES = (*FORWARD, "commit", "rollback", "cleanup")
CONTAINER = "gunbc-v41-tp4"
OPTIONS = (
    "--ssh", "/opt/ssh/bin/ssh", "--ssh-config", "/etc/gunbc/ssh_config",
    "--identity", "/keys/id", "--known-hosts", "/keys/known",
    "--connect-timeout", "7", "--stage-timeout", "60", "--commit-attempts", "2",
)  # fmt: skip
STRICT = (
    "-F", "/etc/gunbc/ssh_config", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
    "-o", "UserKnownHostsFile=/keys/known", "-i", "/keys/id", "-o", "IdentitiesOnly=yes",
    "-o", "ConnectTimeout=7", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
)  # fmt: skip
DEFAULT_STRICT = (
    "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=10",
    "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
)  # fmt: skip


def _apply(*extra: str | Path, hosts: str = HOSTS, scenario: str = "supplied") -> Ran:
    """``planner apply``; a dry run with ``-v``, which prints every ssh command in full."""
    verbose = ("-v",) if "--dry-run" in extra else ()
    return run_planner("apply", ARM, "--scenario", scenario, "--hosts", hosts, *extra, *verbose)


@contextmanager
def _scratch() -> Iterator[Path]:
    """A temporary directory that is also the working directory, under umask 022."""
    before, mask = Path.cwd(), os.umask(0o022)
    with tempfile.TemporaryDirectory(prefix="coordinator-cli-") as tmp:
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(before)
            os.umask(mask)


def _scripts() -> dict[tuple[str, int], str]:
    """The planner's own stage scripts, by (stage, rank)."""
    return {(s.stage.value, s.rank): s.script for s in v41_dry_run("supplied").apply_order}


def _session(
    strict: Sequence[str], rank: int, stage: str, script: str, timeouts: tuple[str, str]
) -> list[str]:
    digest = hashlib.sha256(script.encode()).hexdigest()
    remote = shlex.join(
        ("exec", "sh", "-c", REMOTE_SCRIPT, "gunbc-apply", stage, digest, *timeouts, CONTAINER)
    )
    return [
        *strict, "-p", PORTS[rank], "-o", "ControlMaster=no",
        "-o", f"ControlPath=CONTROL/{NAMES[rank]}", "--", DESTINATIONS[rank], remote,
    ]  # fmt: skip


def _control(rank: int) -> tuple[str, str]:
    return ("-o", f"ControlPath=CONTROL/{NAMES[rank]}")


def _expected_dry_run(scripts: Path) -> list[str]:
    """``planner apply --dry-run`` with :data:`OPTIONS`, line by line, from the contract."""
    plan = _scripts()

    def step(stage: str, rank: int) -> str:
        argv = ["/opt/ssh/bin/ssh", *_session(STRICT, rank, stage, plan[stage, rank], ("60", "5"))]
        where = shlex.quote(str(scripts / NAMES[rank] / f"{stage}.sh"))
        return f"{stage}@{NAMES[rank]}: {shlex.join(argv)} < {where}"

    def connection(rank: int, *middle: str) -> str:
        head = ["/opt/ssh/bin/ssh", *STRICT, "-p", PORTS[rank]]
        return shlex.join([*head, *middle, "--", DESTINATIONS[rank]])

    forward = [(s, r) for s in FORWARD for r in range(4)]
    return [
        f"# planner apply {ARM} --dry-run: the coordinator's plan; nothing ran",
        "# CONTROL is a private directory the run makes (mkdtemp) for its control sockets.",
        "# Each stage script goes on ssh's standard input; the host checks its sha256, takes",
        "# /run/lock/gunbc-apply.lock and runs it with bash under timeout 60 s.",
        "## connections: one per host, opened before its first step, closed at the end",
        *(
            connection(r, "-M", "-N", "-f", *_control(r), "-o", "ControlPersist=60")
            for r in range(4)
        ),
        *(connection(r, *_control(r), "-O", "exit") for r in range(4)),
        "## forward, in this order; the first failure stops the run",
        *(f"{n}. {step(s, r)}" for n, (s, r) in enumerate(forward, 1)),
        "## commit, once every step above succeeded (decided); each up to 2 attempts",
        *(f"{n}. {step('commit', r)}" for n, r in enumerate(range(4), 21)),
        "## after a failure: rollback on every touched host (preserve or apply started",
        "## there), the last changed first; then cleanup on each host rolled back",
        *(step("rollback", r) for r in reversed(range(4))),
        *(step("cleanup", r) for r in reversed(range(4))),
    ]


def _written(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root``: its text and permission bits, by relative path."""
    return {
        str(p.relative_to(root)): (p.read_text(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@claim(ClaimKind.PLANNED_SHAPE)
def the_dry_run_prints_every_ssh_command_in_run_order_with_the_options_given() -> Verdict:
    """``planner apply --dry-run`` exits 0 and prints, in the order the coordinator runs them:
    each host's connection (``ssh -M -N -f`` on ``CONTROL/HOST``, ``ControlPersist=60``) and
    closing command (``-O exit``), the 20 forward steps numbered 1..20 (each stage on every
    host, head first), the 4 commits (21..24, with the attempts given), then rollback and
    cleanup last host first; every command runs the given ssh client with the given config
    (``-F``), ``BatchMode=yes``, ``StrictHostKeyChecking=yes``, the known hosts, the identity
    and only it, the connect timeout, keep-alives, the host's port, ``--`` and the host; each
    session runs the fixed remote script with the stage, the script's sha256, the stage
    timeout, the 5 s kill grace and the container, reading SCRIPTS/HOST/STAGE.sh."""
    with _scratch() as tmp:
        ran = _apply("--dry-run", "--scripts", tmp / "s", *OPTIONS)
        want = _expected_dry_run(tmp / "s")
    problems = difference("exit", 0, ran.code) + difference("stderr", "", ran.err)
    problems += difference("line count", len(want), len(ran.lines))
    for n, (w, g) in enumerate(zip(want, ran.lines, strict=False), 1):
        problems += difference(f"line {n}", w, g)
    return holds_unless(problems, f"{len(want)} lines: 8 connection commands and 32 steps exact")


@claim(ClaimKind.PLANNED_SHAPE)
def the_dry_run_writes_every_stage_script_byte_for_byte() -> Verdict:
    """``planner apply --dry-run`` writes each host's 8 stage scripts (preflight, preserve,
    apply, readback, front door, commit, rollback, cleanup) as SCRIPTS/HOST/STAGE.sh, each
    the planner's script byte for byte with the umask's mode (0644 under 022), and nothing
    else, making SCRIPTS and the directories above it that do not exist yet with the
    umask's mode too (0755, as mkdir would, so others may read the set); without
    ``--scripts`` they go to target/v41-group-a-apply under the working directory, and the
    default options are ssh's own config, a 10 s connect timeout, a 2100 s stage timeout
    and 3 commit attempts."""
    plan = _scripts()
    want = {f"{NAMES[r]}/{stage}.sh": (plan[stage, r], 0o644) for stage in STAGES for r in range(4)}
    made = ("new", "new/deeper", "new/deeper/s", *(f"new/deeper/s/{host}" for host in NAMES))
    problems = []
    with _scratch() as tmp:
        ran = _apply("--dry-run", "--scripts", tmp / "new" / "deeper" / "s")
        problems += difference("exit", 0, ran.code)
        problems += difference("scripts", want, _written(tmp / "new" / "deeper" / "s"))
        modes = {
            str(d.relative_to(tmp)): stat.S_IMODE(d.stat().st_mode)
            for d in (tmp / "new", *sorted((tmp / "new").rglob("*")))
            if d.is_dir()
        }
        problems += difference("directories", dict.fromkeys(made, 0o755), modes)
        default = _apply("--dry-run")
        problems += difference("default exit", 0, default.code)
        problems += difference("default scripts", want, _written(tmp / "target/v41-group-a-apply"))
        problems += difference("nothing else", ["new", "target"], sorted(os.listdir(tmp)))
    first = ["ssh", *DEFAULT_STRICT, "-p", "22", "-M", "-N", "-f", "-o", "ControlPath=CONTROL/srv5"]
    lines = default.lines
    problems += difference(
        "default connection", shlex.join(first), lines[5][: len(shlex.join(first))]
    )
    problems += difference("default timeout", True, lines[3].endswith("under timeout 2100 s."))
    problems += difference("default attempts", True, "each up to 3 attempts" in lines[34])
    tail = f" 2100 5 {CONTAINER}' < target/v41-group-a-apply/srv5/preflight.sh"
    problems += difference("default session", True, lines[14].endswith(tail))
    return holds_unless(problems, f"{len(want)} scripts, each the plan's, mode 0644; defaults")


def _usage(ran: Ran) -> str:
    """The last line of what a usage error printed on stderr."""
    lines = ran.err.splitlines()
    return lines[-1] if lines else ""


HOST_ERRORS = {
    "srv5=10.0.0.5": "srv5=10.0.0.5: name the ssh user: HOST=USER@ADDRESS",
    "srv5=root@[fd00::5]:": "srv5=root@[fd00::5]:: a ':' with no port after it",
    "srv5=root@[fd00::5]2222": "srv5=root@[fd00::5]2222: expected ':PORT' after ]: '2222'",
    "srv5=root@[10.0.0.5]": "srv5=root@[10.0.0.5]: '[10.0.0.5]' is not a bracketed IPv6 address",
    "srv5=root@[fd00::5]:70000": "srv5=root@[fd00::5]:70000: port 70000 is outside 1..65535",
    "srv5=root@10.0.0.5:": "srv5=root@10.0.0.5:: a ':' with no port after it",
    "srv5=root@10.0.0.5:２２": "srv5=root@10.0.0.5:２２: port '２２' is not a number",
    "srv5": "srv5: expected HOST=USER@ADDRESS[:PORT]",
    " , ": " , : give HOST=USER@ADDRESS[:PORT] items, comma-separated",
    "srv5=root@[fd00::5]]": "srv5=root@[fd00::5]]: expected ':PORT' after ]: ']'",
    "srv5=root@h:000022": "srv5=root@h:000022: port '000022' is not a number",
    "=root@h": "=root@h: expected HOST=USER@ADDRESS[:PORT]",
    "srv5=root@a@b": (
        "srv5=root@a@b: 'a@b' is not a host name or IPv4 address "
        "(letters, digits, '.' and '-'; no leading '-')"
    ),
    "srv5=r;m@h": "srv5=r;m@h: 'r;m' is not a user name",
    "srv5=root@-oProxyCommand=x": (
        "srv5=root@-oProxyCommand=x: '-oProxyCommand=x' is not a host name or IPv4 address "
        "(letters, digits, '.' and '-'; no leading '-')"
    ),
    "srv5=root@h:65536": "srv5=root@h:65536: port 65536 is outside 1..65535",
    "srv5=root@h:0": "srv5=root@h:0: port 0 is outside 1..65535",
    "srv5=root@h:2x": "srv5=root@h:2x: port '2x' is not a number",
    "srv5=root@[fd00::7": "srv5=root@[fd00::7: '[fd00::7' is not a bracketed IPv6 address",
    "srv5=root@[:]": "srv5=root@[:]: '[:]' is not a bracketed IPv6 address",
    "srv5=root@[]": "srv5=root@[]: '[]' is not a bracketed IPv6 address",
    "srv5=root@[::1": "srv5=root@[::1: '[::1' is not a bracketed IPv6 address",
    "srv5=root@[fe80::5%e;x]": (
        "srv5=root@[fe80::5%e;x]: '[fe80::5%e;x]' is not a bracketed IPv6 address"
    ),
    "srv5=root@fd00::5": (
        "srv5=root@fd00::5: 'fd00::5' holds more than one ':': an IPv6 address must be in "
        "brackets, as in root@[::1]:22"
    ),
    "srv5=root@::1": (
        "srv5=root@::1: '::1' holds more than one ':': an IPv6 address must be in brackets, "
        "as in root@[::1]:22"
    ),
    "srv5=root@10.0.0.256": "srv5=root@10.0.0.256: '10.0.0.256' is not an IPv4 address",
    "srv5=root@a,srv5=root@b": "srv5=root@b: host srv5 is named twice",
    "srv5=root@[fd00::7],srv6=ops@[fd00:0::7]:22": (
        "srv6=ops@[fd00:0::7]:22: srv6 and srv5 are one ssh destination (fd00::7 port 22): "
        "every planned host is its own machine"
    ),
    "srv5=root@H5:2222,srv6=root@h5:2222": (
        "srv6=root@h5:2222: srv6 and srv5 are one ssh destination (h5 port 2222): "
        "every planned host is its own machine"
    ),
    "srv5=root@[fd00::5]:2200,srv9=ops@b,srv10=ops@c": (
        "srv5=root@[fd00::5]:2200,srv9=ops@b:22,srv10=ops@c:22: no address for srv6, srv7, "
        "srv8; srv9, srv10 not in the plan (the plan's hosts: srv5, srv6, srv7, srv8)"
    ),
    "srv5=root@a,srv6=root@b,srv7=root@c": (
        "srv5=root@a:22,srv6=root@b:22,srv7=root@c:22: no address for srv8 "
        "(the plan's hosts: srv5, srv6, srv7, srv8)"
    ),
}


@claim(ClaimKind.REFUSAL)
def a_bad_hosts_list_exits_2_with_one_located_line_and_writes_nothing() -> Verdict:
    """A ``--hosts`` the coordinator cannot use — no user, a bad user or host name, a
    bracketed IPv6 address followed by anything but ':PORT' or by a ':' and no port, an
    unclosed bracket or one holding no IPv6 address (``[:]``, ``[]``, a bracketed IPv4
    address) or a zone of other than letters, digits and ``_.-``, an IPv6 address without
    its brackets, digits and dots that are no IPv4 address, a port out of 1..65535, longer than
    5 digits or not in ASCII digits, an item that is no HOST=USER@ADDRESS, an empty list, a
    host named twice, two hosts on one machine (the same address in any spelling and port,
    whichever user), or a list that leaves out a planned host or names hosts not in the plan
    — exits 2 with exactly one line on stderr, ``planner: error: --hosts: ITEM: what is
    wrong``, prints nothing and writes no script; ports 1 and 65535 and an omitted port (22,
    after a host name or a bracketed IPv6 address with its zone) are taken."""
    problems: list[str] = []
    with _scratch() as tmp:
        for hosts, message in HOST_ERRORS.items():
            ran = _apply("--dry-run", "--scripts", tmp / "s", hosts=hosts)
            got = (ran.code, ran.err, ran.lines, (tmp / "s").exists())
            want: tuple[object, ...] = (2, f"planner: error: --hosts: {message}\n", [], False)
            problems += difference(repr(hosts), want, got)
        edges = "srv5=root@h5:1,srv6=root@[fd00::6]:65535,srv7=ops@[fe80::7%eth0],srv8=root@h8"
        ran = _apply("--dry-run", "--scripts", tmp / "s", hosts=edges)
    words = [shlex.split(line) for line in ran.lines[5:9]]
    pairs = [(w[w.index("-p") + 1], w[-1]) for w in words if "-p" in w]
    want_ports = [
        ("1", "root@h5"),
        ("65535", "root@fd00::6"),
        ("22", "ops@fe80::7%eth0"),
        ("22", "root@h8"),
    ]
    problems += difference("ports 1 and 65535", (0, want_ports), (ran.code, pairs))
    return holds_unless(problems, f"{len(HOST_ERRORS)} bad --hosts refused, each located")


NUMBER_ERRORS = {
    "--connect-timeout": ("0", "-3", "1000000"),
    "--stage-timeout": ("1.5", "٣", ""),
    "--commit-attempts": ("0", "x"),
}


@claim(ClaimKind.REFUSAL)
def timeouts_and_attempts_are_whole_numbers_from_1_to_999999() -> Verdict:
    """``--connect-timeout``, ``--stage-timeout`` and ``--commit-attempts`` take a whole
    number from 1 to 999999 in ASCII digits; anything else (0, negative, too large, a
    fraction, another script's digits, empty) exits 2 naming the option and the value, and
    writes nothing; 1 and 999999 are taken as given. The coordinator waits for a step the
    stage timeout plus the kill grace plus the connect timeout plus 2 s."""
    problems = []
    with _scratch() as tmp:
        for option, values in NUMBER_ERRORS.items():
            for value in values:
                ran = _apply("--dry-run", "--scripts", tmp / "s", option, value)
                message = (
                    f"planner apply: error: argument {option}: expected a whole number from 1 "
                    f"to 999999, got {value!r}"
                )
                got = (ran.code, _usage(ran), ran.lines, (tmp / "s").exists())
                problems += difference(f"{option} {value!r}", (2, message, [], False), got)
        edges = ("--connect-timeout", "1", "--stage-timeout", "999999", "--commit-attempts", "1")
        ran = _apply("--dry-run", "--scripts", tmp / "s", *edges)
    problems += difference("edges: exit", 0, ran.code)
    problems += difference("edges: connect", True, "-o ConnectTimeout=1 " in ran.lines[5])
    problems += difference("edges: stage", True, ran.lines[3].endswith("under timeout 999999 s."))
    problems += difference("edges: attempts", True, "each up to 1 attempts" in ran.lines[34])
    waits = [
        wait_seconds(SshSettings()),
        wait_seconds(SshSettings(connect_timeout=7, stage_timeout=60, kill_after=3)),
    ]
    problems += difference("waits", [2100 + 5 + 10 + 2, 60 + 3 + 7 + 2], waits)
    count = sum(len(v) for v in NUMBER_ERRORS.values())
    return holds_unless(problems, f"{count} bad numbers refused; 1 and 999999 taken; waits add up")


@claim(ClaimKind.REFUSAL)
def a_plan_that_is_not_admitted_exits_1_and_runs_nothing() -> Verdict:
    """Under a scenario whose plan is refused (live; a real apply takes it only with
    ``--for-testing``), ``planner apply`` prints each refusal in order (each followed by
    its ``  hint:`` line when it has one), then ``apply ARM: REFUSED: the plan is not
    admitted; nothing ran``, and exits 1 without running the ssh client or writing a script
    — also with ``--dry-run``, and before it checks the hosts against the plan."""
    refusals = [line for r in v41_dry_run("live").refusals for line in r.lines()]
    want = [*refusals, f"apply {ARM}: REFUSED: the plan is not admitted; nothing ran"]
    problems = []
    with _scratch() as tmp, tempfile.TemporaryDirectory() as bin_dir:
        client = recording_client(Path(bin_dir))
        for extra in (("--for-testing",), ("--dry-run", "--scripts", str(tmp / "s"))):
            ran = _apply(*extra, "--ssh", client.path, scenario="live", hosts="srv5=root@a")
            label = "dry run" if "--dry-run" in extra else "run"
            problems += difference(f"{label}: exit", 1, ran.code)
            problems += difference(f"{label}: stdout", want, ran.lines)
            problems += difference(f"{label}: stderr", "", ran.err)
            problems += difference(f"{label}: written", [], os.listdir(tmp))
            problems += difference(f"{label}: ssh ran", False, client.ran)
    return holds_unless(problems, f"refused with {len(refusals)} refusals; nothing ran or written")


PATH_ERRORS = {
    ("--scripts", ""): "an empty path",
    ("--data", ""): "an empty path",
    ("--authority", "a\0b"): "a\\x00b holds a NUL byte",
    ("--inputs", ""): "an empty path",
    ("--plan", ""): "an empty path",
    ("--journal", "j\0"): "j\\x00 holds a NUL byte",
}


def _unwritable(tmp: Path) -> dict[Path, str]:
    """``--scripts`` values no set can be written to (made in ``tmp``, the working
    directory), and why each is refused."""
    (tmp / "file").write_text("")
    return {
        tmp / "file" / "under" / "s": f"Not a directory: {os.path.realpath(tmp / 'file')}",
        tmp / "file": "not a directory (nothing was written)",
        tmp: "it holds the working directory (nothing was written)",
    }


@claim(ClaimKind.REFUSAL)
def scripts_that_cannot_be_written_exit_2_and_print_no_command() -> Verdict:
    """When ``--scripts`` cannot be written (it is under a regular file, it is one, or it
    holds the working directory, which replacing it would pull away), ``planner apply
    --dry-run`` exits 2 with one line, ``planner: error: --scripts PATH: cannot write the
    stage scripts: WHY``, prints no command and leaves what is there as it was; an empty
    path, or one holding a NUL byte, given to ``--scripts``, ``--data``, ``--authority``,
    ``--inputs``, ``--plan``, ``--journal``, ``--resume`` or ``--rollback`` exits 2 naming
    the option, and nothing is written (not even into the working directory)."""
    problems = []
    with _scratch() as tmp:
        for (option, value), message in PATH_ERRORS.items():
            bad = _apply("--dry-run", option, value)
            want = f"planner apply: error: argument {option}: {message}"
            got = (bad.code, _usage(bad), bad.lines, os.listdir(tmp))
            problems += difference(f"{option} {value!r}", (2, want, [], []), got)
        for option in ("--resume", "--rollback"):
            bad = run_planner("apply", option, "")
            want = f"planner apply: error: argument {option}: an empty path"
            problems += difference(f"{option} ''", (2, want), (bad.code, _usage(bad)))
        for scripts, why in _unwritable(tmp).items():
            ran = _apply("--dry-run", "--scripts", scripts)
            line = f"planner: error: --scripts {scripts}: cannot write the stage scripts: {why}\n"
            got = (ran.code, ran.err, ran.lines, sorted(os.listdir(tmp)))
            problems += difference(str(scripts), (2, line, [], ["file"]), got)
        problems += difference("the file", "", (tmp / "file").read_text())
    return holds_unless(problems, "an unwritable --scripts is a located error; nothing printed")


HELP = (
    "usage: planner apply [-h] [--scenario SCENARIO]",
    "(--hosts HOSTS | --resume JOURNAL | --rollback JOURNAL) [--journal JOURNAL] [--dry-run]",
    "{" + ",".join(stated_arms()) + "} which arm to apply",
    "Plan the arm as `planner dry-run` does; unless it is admitted, refuse and run nothing. "
    "Then, from this machine, run each host's stage scripts over ssh: preflight, preserve, "
    "apply (head first), readback and front door on every host, then commit everywhere; on "
    "the first failure, roll back every touched host in reverse order and clean up. Prints "
    "what ran and what each host was left in.",
    "--scenario SCENARIO a named scenario from fixtures/scenarios/ (its log and inputs): "
    "--dry-run only, unless --for-testing",
    "--authority AUTHORITY authority log (JSON lines); a real apply reads it at the wall "
    "clock, before preflight and again just before commit",
    "--inputs INPUTS frontier inputs (JSON)",
    "--now NOW ISO-8601 time to read the authority log at (default: now): --dry-run only, "
    "unless --for-testing",
    "--data DATA data root (default: the fixtures directory)",
    "--for-testing for tests only: let a real apply read a --scenario's fixture log and "
    "inputs, or the log at --now, instead of --authority at the wall clock",
    "--hosts HOSTS every planned host's ssh address: HOST=USER@ADDRESS[:PORT],… (IPv6 in [])",
    "--resume JOURNAL finish the transaction JOURNAL records (its coordinator was lost): "
    "commit every host once it was decided, else roll back every touched host",
    "--rollback JOURNAL as --resume, but refuse (exit 2) once the commit point was passed",
    "--journal JOURNAL where a real apply journals each step, synced as it goes (default: "
    "target/ARM-apply.journal, the arm with dashes)",
    "--dry-run print the steps (one line each: stage, host, the sha256 of its script) and "
    "write the scripts; run nothing",
    "-v, --verbose with --dry-run: print every ssh command in full instead",
    "--format {text,json} with --dry-run: json prints one document (schema: planner schema "
    "apply-dry-run)",
    "--plan PLAN apply exactly the plan `planner dry-run --plan-out PLAN` saved: refused (exit "
    "2, naming it) if the planner, an input or the scripts changed, or it is not admitted now",
    "--check read every host over ssh and print what apply would change; change nothing (not "
    "with --dry-run)",
    "--scripts SCRIPTS where --dry-run writes the stage scripts "
    "(default: target/ARM-apply, the arm with dashes)",
    "--ssh SSH the ssh client to run (default: ssh); a real apply needs it executable",
    "--ssh-config SSH_CONFIG ssh -F FILE, or none (default: ssh's own config files); a real "
    "apply needs it",
    "--identity IDENTITY ssh -i FILE, and only that key (IdentitiesOnly); it must exist",
    "--known-hosts KNOWN_HOSTS ssh UserKnownHostsFile (default: ssh's); it must exist",
    "--connect-timeout CONNECT_TIMEOUT seconds to connect and authenticate (default: 10)",
    "--stage-timeout STAGE_TIMEOUT seconds a stage may run on its host (default: 2100)",
    "--commit-attempts COMMIT_ATTEMPTS runs of a failing commit before it is left pending "
    "(default: 3)",
    "-q, --quiet say nothing while a step waits (default: a line on stderr 10 s into a step, "
    "then every 30 s)",
    "inputs: a real apply (no --dry-run) reads --authority at the wall clock, once before "
    "preflight and once more just before the first commit; --inputs and --data are the "
    "operator's own files. --scenario and --now substitute a fixture or a chosen time for "
    "that live read: they are for --dry-run, or for tests that say so with --for-testing.",
    "exit codes: 0 committed on every host; 1 refused (not admitted; nothing ran); 2 usage "
    "or input error (nothing ran); 10 rolled back (a step failed, or admission no longer held "
    "just before commit: every touched host restored, or none was touched); 11 not "
    "restored (a touched host's rollback or cleanup failed; named); 12 committed, commit "
    "pending on a host (it runs the plan and keeps its backup). --resume and --rollback exit "
    "alike (0 also when the journal's transaction had already finished: nothing runs); 2 for "
    "a missing, corrupt or locked journal, or --rollback past the commit point.",
)


def _fresh_parser(*argv: str) -> Ran:
    """What the ``planner`` parser does with ``argv``: the CLI's own parser (built afresh
    for each parse, so a mutant switched later reaches it)."""

    def parsed() -> int:
        cli_parser().parse_args(list(argv))
        return 0

    return captured(parsed)


@claim(ClaimKind.PLANNED_SHAPE)
def the_help_says_what_each_option_does_and_what_each_exit_code_means() -> Verdict:
    """``planner apply --help`` (the CLI's parser) exits 0 and says what the command does,
    which arms it takes, what each option does with its default (one of ``--hosts``,
    ``--resume`` and ``--rollback`` required), and what each exit code (0, 1, 2, 10, 11, 12)
    means, also for a resume, which inputs a real apply takes (the log at the wall clock;
    ``--scenario``/``--now`` only with ``--for-testing``), with its examples laid out as
    written; ``planner --help`` lists it; all three left out is a usage error (exit 2)."""
    ran = _fresh_parser("apply", "--help")
    text = " ".join(" ".join(ran.lines).split())
    problems = difference("exit", 0, ran.code)
    problems += [f"the help does not say {phrase!r}" for phrase in HELP if phrase not in text]
    examples = [
        "  planner apply v41_group_a --scenario supplied --dry-run \\",
        "      --hosts srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8",
        "  planner apply --resume target/v41-group-a-apply.journal --identity ~/.ssh/id_ed25519",
    ]
    problems += [f"the help has no line {line!r}" for line in examples if line not in ran.lines]
    top = " ".join(" ".join(_fresh_parser("--help").lines).split())
    summary = "apply run the transaction on the hosts over ssh (or print it: --dry-run)"
    problems += difference("planner --help lists apply", True, summary in top)
    missing = _fresh_parser("apply", ARM, "--dry-run")
    problems += difference(
        "no --hosts",
        (2, "planner apply: error: one of the arguments --hosts --resume --rollback is required"),
        (missing.code, _usage(missing)),
    )
    return holds_unless(problems, f"{len(HELP)} phrases of the help; --hosts or --resume required")


@claim(ClaimKind.REFUSAL)
def a_real_apply_reads_the_live_log_and_never_a_chosen_time_or_a_fixture() -> Verdict:
    """A real apply (no ``--dry-run``) given ``--scenario`` (a fixture's log and inputs) or
    ``--now`` (a chosen time) exits 2 with one line, ``planner: error: arguments: OPTION: a
    real apply reads --authority at the wall clock; OPTION is for --dry-run (or for tests:
    --for-testing)``, before it plans or runs the ssh client, and writes nothing; the same
    options with ``--dry-run`` plan and print (exit 0)."""
    problems = []
    with _scratch() as tmp, tempfile.TemporaryDirectory() as bin_dir:
        client = recording_client(Path(bin_dir))
        log = write_live_log(Path(bin_dir) / "log.jsonl")
        live = ("--authority", log, "--inputs", SUPPLIED_INPUTS)
        for option, argv in (
            ("--scenario", ("apply", ARM, "--scenario", "supplied")),
            ("--now", ("apply", ARM, *live, "--now", "2026-11-29T12:00:00Z")),
        ):
            ran = run_planner(*argv, "--hosts", HOSTS, "--ssh", client.path)
            message = (
                f"planner: error: arguments: {option}: a real apply reads --authority at the "
                f"wall clock; {option} is for --dry-run (or for tests: --for-testing)\n"
            )
            problems += difference(option, (2, message, []), (ran.code, ran.err, ran.lines))
            dry = run_planner(*argv, "--hosts", HOSTS, "--dry-run", "--scripts", tmp / "s")
            problems += difference(f"{option} --dry-run: exit", 0, dry.code)
        problems += difference("ssh ran", False, client.ran)
        problems += difference("written", ["s"], os.listdir(tmp))
    return holds_unless(problems, "--scenario and --now refused for a real apply, taken dry")


def _ssh_errors(tmp: Path) -> dict[tuple[str, str], str]:
    """Bad ``--ssh``/``--identity``/``--known-hosts``/``--ssh-config`` values (files made in
    ``tmp``) and the located message each gets."""
    (tmp / "plain").write_text("not a program\n")
    missing, plain = str(tmp / "missing"), str(tmp / "plain")
    return {
        ("--ssh", missing): f"--ssh: {missing}: no executable file by that name",
        ("--ssh", plain): f"--ssh: {plain}: no executable file by that name",
        ("--ssh", "ssh\x1b[2J"): "--ssh: ssh\\x1b[2J: give a path with no control character",
        ("--ssh", ""): "--ssh: : give a path with no control character",
        ("--identity", missing): f"--identity: {missing}: no such file",
        ("--identity", "/k/%d"): "--identity: /k/%d: ssh would split it or expand it: no "
        "space, quote, % or \\",
        ("--known-hosts", str(tmp)): f"--known-hosts: {tmp}: not a regular file",
        ("--known-hosts", f"{plain} /x"): f"--known-hosts: {plain} /x: ssh would split it or "
        "expand it: no space, quote, % or \\",
        ("--known-hosts", "k\nnown"): "--known-hosts: k\\nnown: give a path with no control "
        "character",
        ("--ssh-config", missing): f"--ssh-config: {missing}: no such file",
    }


@claim(ClaimKind.REFUSAL)
def a_bad_ssh_client_or_ssh_file_exits_2_before_anything_runs() -> Verdict:
    """A real apply whose ``--ssh`` is no executable file (missing, not executable, empty,
    holding a control character), whose ``--identity``, ``--known-hosts`` or
    ``--ssh-config`` is no regular file, or whose identity or known hosts ssh would read as
    several paths or expand (a space, a quote, ``%``, ``\\``) exits 2 with one located line
    naming the option and the value (control characters escaped), before it plans or runs
    anything; ``--ssh-config none`` (ssh's "no config") is taken, and so is a config file
    whose path holds a space (``-F`` takes it as one argument)."""
    problems = []
    with _scratch() as tmp, tempfile.TemporaryDirectory() as bin_dir:
        client = recording_client(Path(bin_dir))
        testing = ("--for-testing", "--ssh", client.path)
        errors = _ssh_errors(Path(bin_dir))
        for (option, value), message in errors.items():
            ran = _apply(*testing, option, value)
            got = (ran.code, ran.err, ran.lines)
            problems += difference(
                f"{option} {value!r}", (2, f"planner: error: {message}\n", []), got
            )
        problems += difference("ssh ran", False, client.ran)
        problems += difference("written", [], os.listdir(tmp))
        spaced = Path(bin_dir) / "ssh config"
        spaced.write_text("")
        verdict = [f"apply {ARM}: REFUSED: the plan is not admitted; nothing ran"]
        for config in ("none", spaced):
            refused = _apply(*testing, "--ssh-config", config, scenario="live")
            said = (refused.err, refused.lines[-1:])
            problems += difference(f"--ssh-config {config}: taken, refused", ("", verdict), said)
    return holds_unless(problems, f"{len(errors)} bad ssh options refused, located")


@claim(ClaimKind.REFUSAL)
def a_journal_that_cannot_be_made_exits_2_before_anything_runs() -> Verdict:
    """A real apply whose ``--journal`` cannot be made (a parent is a regular file) exits 2
    with one line, ``planner: error: JOURNAL: create: Not a directory: FILE`` (naming the
    file where a directory goes), before it runs the ssh client: no step is sent that the
    journal would not record. Without ``--journal`` the journal is
    ``target/v41-group-a-apply.journal`` in the working directory, refused alike when
    ``target`` there is a file."""
    problems = []
    with _scratch() as tmp, tempfile.TemporaryDirectory() as bin_dir:
        client = recording_client(Path(bin_dir))
        (tmp / "file").write_text("")
        (tmp / "target").write_text("")
        journal = tmp / "file" / "apply.journal"
        for given, named in (
            (("--journal", journal), journal),
            ((), Path("target") / "v41-group-a-apply.journal"),
        ):
            ran = _apply("--for-testing", "--ssh", client.path, *given)
            line = f"planner: error: {named}: create: Not a directory: {named.parent}\n"
            got = (ran.code, ran.err, ran.lines, client.ran)
            problems += difference(f"refused: {named}", (2, line, [], False), got)
        problems += difference("left", ["file", "target"], sorted(os.listdir(tmp)))
    return holds_unless(problems, "an unmakeable journal refused before ssh ran, named or not")


JOURNAL_HOLDS = (
    *PLAN_HOLDS[:4],
    ("--now", ("--now", "2026-11-29T12:00:00Z")),
    *PLAN_HOLDS[4:],
    ("--dry-run", ("--dry-run",)),
    ("--scripts", ("--scripts", "s")),
    ("--journal", ("--journal", "j")),
    ("--for-testing", ("--for-testing",)),
    ("--plan", ("--plan", "plan.json")),
    ("--check", ("--check",)),
)
"""What ``--resume`` and ``--rollback`` take from the journal, never from the command line:
each named as the refusal names it, and how it is given."""


@claim(ClaimKind.REFUSAL)
def a_resume_takes_its_plan_from_the_journal_alone() -> Verdict:
    """``planner apply --resume JOURNAL`` (and ``--rollback``) exits 2 with one line and
    opens nothing when it is also given anything a plan is made from or a run is shaped by
    (an arm, ``--scenario``, ``--authority``, ``--inputs``, ``--now``, ``--data``,
    ``--recipe``, ``--group``, ``--name``, ``--dry-run``, ``--scripts``, ``--journal``,
    ``--for-testing``, ``--plan``, ``--check``): ``planner: error: --resume takes no planning
    inputs (the journal holds the plan): NAMES``, every one given named, in that order, the
    mode it was asked for named. A journal that is not there exits 2 naming it."""
    problems = []
    with _scratch() as tmp:
        missing = tmp / "gone.journal"
        for mode in ("--resume", "--rollback"):
            said = f"planner: error: {mode} takes no planning inputs (the journal holds the plan):"
            refused = refused_each_and_together(
                functools.partial(run_planner, "apply", mode, missing),
                JOURNAL_HOLDS,
                f"{said} {{}}\n".format,
            )
            problems += [f"{mode}: {problem}" for problem in refused]
            ran = run_planner("apply", mode, missing)
            said = f"planner: error: {missing}: open: No such file or directory\n"
            problems += difference(
                f"{mode}: no journal", (2, said, []), (ran.code, ran.err, ran.lines)
            )
        problems += difference("written", [], os.listdir(tmp))
    return holds_unless(
        problems, f"{len(JOURNAL_HOLDS)} planning inputs refused beside a journal, either mode"
    )


def _live_gate(directory: Path) -> tuple[Path, Callable[[], str | None]]:
    """A log admitting the plan at the wall clock, and the gate a real apply over it (and a
    copy of the supplied inputs, ``inputs.json`` in ``directory``) asks."""
    log = write_live_log(directory / "log.jsonl")
    inputs = shutil.copy(SUPPLIED_INPUTS, directory / "inputs.json")
    argv = ["apply", ARM, "--authority", str(log), "--inputs", str(inputs)]
    args = cli_parser().parse_args([*argv, "--hosts", HOSTS])
    applied = plan_transaction(dry_run(args), parse_hosts(HOSTS))
    return log, admission_gate(args, dry_run, applied)


@claim(ClaimKind.REFUSAL)
def admission_is_read_again_from_the_log_at_the_commit_point() -> Verdict:
    """The gate a real apply asks before its first commit plans again from the same options,
    reading the authority log again at the wall clock: it admits (None) while the log still
    admits the plan being applied, refuses once an input changed the plan (still admitted,
    but not the one applied), refuses with the refusal's line once a ``host_released`` event
    was appended after the plan was made (with each refusal's, joined by ``; ``, once two
    were), and refuses naming the file when the log can no longer be read."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        log, gate = _live_gate(Path(tmp))
        problems += difference("before", None, gate())
        inputs = Path(tmp) / "inputs.json"
        supplied = inputs.read_text()
        inputs.write_text(
            supplied.replace('"max_num_batched_tokens": 8192', '"max_num_batched_tokens": 4096')
        )
        changed = "the plan made again from the same options differs from the one applied"
        problems += difference("an input changed", changed, gate())
        inputs.write_text(supplied)
        append_event(log, {"event": "host_released", "host": "srv7"})
        refused = (
            "refused: admission.host_not_held at authority.holdings.srv7: srv7 is held by "
            "None, not 'group-a-serving'"
        )
        problems += difference("after a release", refused, gate())
        append_event(log, {"event": "host_released", "host": "srv8"})
        both = f"{refused}; {refused.replace('srv7', 'srv8')}"
        problems += difference("after two releases, each refusal", both, gate())
        log.unlink()
        gone = gate() or ""
        problems += difference("log gone", True, gone.startswith("its inputs could not be read"))
        problems += difference("names the log", True, str(log) in gone)
    return holds_unless(problems, "admitted; refused once changed, once released, once unread")


@claim(ClaimKind.REFUSAL)
def a_script_set_is_replaced_whole_or_left_as_it_was() -> Verdict:
    """``--dry-run`` replaces a previous script set at ``--scripts`` whole: afterwards it
    holds exactly the plan's 32 scripts (a stale host's and a changed script's old bytes
    gone) and nothing is left beside it. A ``--scripts`` holding anything but a script set
    (a regular file where a host's directory goes, a README, a ``.sh`` file where a host's
    directory goes, a host's file not named ``.sh``, a symbolic link or a directory named
    like a script) is refused with one line,
    ``planner: error: --scripts PATH: cannot write the stage scripts: it holds NAME, which
    is not a stage script of a previous set (nothing was written or replaced)``, exit 2,
    and left byte for byte as it was."""
    plan = _scripts()
    want = {f"{NAMES[r]}/{stage}.sh": plan[stage, r] for stage in STAGES for r in range(4)}
    problems = []
    with _scratch() as tmp:
        s = tmp / "s"
        _apply("--dry-run", "--scripts", s)
        (s / "srv5" / "preflight.sh").write_text("old\n")
        (s / "srv9").mkdir()
        (s / "srv9" / "preflight.sh").write_text("stale\n")
        ran = _apply("--dry-run", "--scripts", s)
        got = {name: text for name, (text, _) in _written(s).items()}
        problems += difference("replaced: exit", 0, ran.code)
        problems += difference("replaced: the set", want, got)
        problems += difference("replaced: beside it", ["s"], os.listdir(tmp))
        for name, make in FOREIGN.items():
            make(s)
            before = _written(s)
            ran = _apply("--dry-run", "--scripts", s)
            message = (
                f"planner: error: --scripts {s}: cannot write the stage scripts: it holds "
                f"{name}, which is not a stage script of a previous set (nothing was written "
                "or replaced)\n"
            )
            got_run = (ran.code, ran.err, ran.lines, _written(s), os.listdir(tmp))
            problems += difference(name, (2, message, [], before, ["s"]), got_run)
            shutil.rmtree(s)
            _apply("--dry-run", "--scripts", s)
    return holds_unless(problems, "a set replaced whole; a foreign --scripts refused untouched")


def _file_for_a_host(s: Path) -> None:
    shutil.rmtree(s / "srv7")
    (s / "srv7").write_text("a file where srv7's scripts go\n")


FOREIGN: dict[str, Callable[[Path], object]] = {
    "srv7": _file_for_a_host,
    "README": lambda s: (s / "README").write_text("notes\n"),
    "stray.sh": lambda s: (s / "stray.sh").write_text("echo stray\n"),
    "srv5/notes.txt": lambda s: (s / "srv5" / "notes.txt").write_text("notes\n"),
    "srv6/apply.sh": lambda s: _replaced_by(s / "srv6" / "apply.sh", "../srv5/apply.sh"),
    "srv8/old.sh": lambda s: (s / "srv8" / "old.sh").mkdir(),
}
"""What a previous script set must not hold, by the name the refusal gives, and how each
is put there."""


def _replaced_by(path: Path, link: str) -> None:
    path.unlink()
    path.symlink_to(link)


class _Interrupter:
    """An audit hook: while armed with a script set's path, it raises ``KeyboardInterrupt``
    at the first rename of a directory onto that path (the new set going in), as Python's
    SIGINT handler would at that call, and records every directory made beside the set. A
    hook stays for the life of the process, so one is added and armed per claim run."""

    def __init__(self) -> None:
        self.target: str | None = None
        self.made: list[str] = []

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        if self.target is None or event not in ("os.mkdir", "os.rename"):
            return
        path = os.fsdecode(args[1 if event == "os.rename" else 0])  # type: ignore[arg-type]
        if event == "os.mkdir" and os.path.dirname(path) == os.path.dirname(self.target):
            self.made.append(os.path.basename(path))
        if event == "os.rename" and path == self.target:
            self.target = None
            raise KeyboardInterrupt

    @contextmanager
    def armed(self, scripts: Path) -> Iterator[list[str]]:
        self.target, self.made = os.path.realpath(scripts), []
        try:
            yield self.made
        finally:
            self.target = None


@functools.cache
def _interrupter() -> _Interrupter:
    hook = _Interrupter()
    sys.addaudithook(hook)
    return hook


@claim(ClaimKind.REFUSAL)
def a_ctrl_c_as_the_new_set_goes_in_leaves_the_previous_one() -> Verdict:
    """A Ctrl-C as ``--dry-run`` renames its new script set into place (the interrupt at
    that call) ends the run with 130 and ``planner: interrupted``, prints no command, and
    leaves ``--scripts`` as it was: the previous set back byte for byte, or nothing when
    there was none; nothing is left beside it, and every directory the run made there on
    the way is hidden and named after the set (a run killed outright leaves only those)."""
    problems = []
    with _scratch() as tmp:
        s = tmp / "s"
        for previous in (False, True):
            if previous:
                _apply("--dry-run", "--scripts", s)
                (s / "srv5" / "preflight.sh").write_text("old\n")
            before = _written(s)
            with _interrupter().armed(s) as made:
                ran = _apply("--dry-run", "--scripts", s)
            case = "a previous set" if previous else "no previous set"
            got = (ran.code, ran.err, ran.lines, _written(s), sorted(os.listdir(tmp)))
            left: list[str] = ["s"] if previous else []
            problems += difference(case, (130, "planner: interrupted\n", [], before, left), got)
            problems += [f"{case}: made {n!r} beside it" for n in made if not n.startswith(".s.")]
            problems += difference(f"{case}: made", 2 if previous else 1, len(made))
    return holds_unless(problems, "interrupted: the previous set back, or none; nothing beside")


HEADINGS = {
    "forward": "the first failure stops the run",
    "commit": "each up to 2 attempts",
    "rollback": "the last changed first",
    "cleanup": "each host rolled back",
}
"""Each phase of the terse dry run and what its heading must say besides its name."""


def _steps() -> list[tuple[str, str, int | None, str, str]]:
    """Every step of the plan in run order: (phase, stage, number or None, host, sha256);
    the steps that run are numbered from 1, a rollback's and a cleanup's are not."""
    plan = _scripts()
    runs = [("forward", s) for s in FORWARD] + [("commit", "commit")]
    numbered = [(phase, stage, r) for phase, stage in runs for r in range(4)]
    order: list[tuple[str, str, int, int | None]] = [
        (phase, stage, r, n) for n, (phase, stage, r) in enumerate(numbered, 1)
    ]
    order += [(s, s, r, None) for s in ("rollback", "cleanup") for r in reversed(range(4))]
    return [
        (phase, stage, n, NAMES[r], hashlib.sha256(plan[stage, r].encode()).hexdigest())
        for phase, stage, r, n in order
    ]


@claim(ClaimKind.PLANNED_SHAPE)
def the_terse_dry_run_numbers_each_step_that_runs_under_a_heading_for_its_phase() -> Verdict:
    """Without ``-v``, ``planner apply --dry-run`` (``--format text``) prints the arm, each
    host as ``HOST=USER@ADDRESS:PORT`` and where the scripts are, then every step in run
    order, one line each in aligned columns: its number (the 24 steps that run, 1 to 24,
    right-aligned in four columns; a rollback's or cleanup's none), its stage (as wide as
    the longest), its host and the sha256 of the script it sends, each phase's steps under
    one ``## `` heading that names the phase and says how it runs (the first failure stops
    the forward steps; commit's attempts as given; rollback the last changed first)."""
    with _scratch() as tmp:
        ran = run_planner(
            "apply", ARM, "--scenario", "supplied", "--hosts", HOSTS, "--dry-run",
            "--format", "text", "--scripts", tmp / "s", "--commit-attempts", "2",
        )  # fmt: skip
    specs = zip(HOSTS.split(","), PORTS, strict=True)
    hosts = [f"# host {s}" if s.endswith(f":{port}") else f"# host {s}:{port}" for s, port in specs]
    head = [f"# planner apply {ARM} --dry-run", *hosts, f"# scripts: {tmp / 's'}/HOST/STAGE.sh"]
    lines = ran.lines
    problems = difference("exit", 0, ran.code)
    for n, (want, got) in enumerate(zip(head, lines, strict=False), 1):
        problems += difference(f"line {n}", True, got.startswith(want))
    body, phase = lines[len(head) :], ""
    for i, (step_phase, stage, number, host, digest) in enumerate(_steps()):
        if step_phase != phase:
            phase, heading = step_phase, body.pop(0) if body else ""
            says = heading.startswith("## ") and phase in heading and HEADINGS[phase] in heading
            problems += difference(f"{phase} heading {heading!r} names it", True, says)
        number_column = f"{number}." if number is not None else ""
        row = f"{number_column:>4} {stage:<10} {host:<8} sha256 {digest}"
        problems += difference(f"step {i + 1}", row, body.pop(0) if body else "")
    problems += difference("after the last step", [], body)
    return holds_unless(problems, f"{len(_steps())} steps, 4 headings, in run order")


@claim(ClaimKind.PLANNED_SHAPE)
def the_json_dry_run_says_what_the_text_one_says() -> Verdict:
    """``planner apply --dry-run --format json`` prints one document (and nothing after its
    last line) holding what the text dry run prints: each step's number (or null), phase,
    stage, host and sha256 as the terse lines give them, its ssh argv and script path as
    ``-v`` prints them, and each host's connection as ``-v`` prints it; ``--format`` takes
    only ``text`` or ``json``."""
    problems = []
    with _scratch() as tmp:
        argv = ("--dry-run", "--scripts", tmp / "s", *OPTIONS)
        printed = _apply(*argv, "--format", "json").out
        document = json.loads(printed or "{}")
        verbose = _apply(*argv).lines
        bad = _apply(*argv, "--format", "yaml")
    commands = document.get("commands", [])
    problems += difference("after the document", "}\n", printed[printed.rfind("}") :])
    said = [(c["phase"], c["stage"], c["n"], c["host"], c["script_sha256"]) for c in commands]
    problems += difference("steps", _steps(), said)
    runs = [line for line in verbose if " < " in line and not line.startswith("#")]
    shown = [line.split(": ", 1)[1].rsplit(" < ", 1) for line in runs]
    problems += difference(
        "argv and script as -v prints them",
        [(shlex.split(command), shlex.split(path)[0]) for command, path in shown],
        [(c["argv"], c["script_path"]) for c in commands],
    )
    masters = [shlex.split(line) for line in verbose if " -M " in line]
    problems += difference("connections", masters, document.get("connections"))
    usage = (
        "planner apply: error: argument --format: invalid choice: 'yaml' "
        "(choose from 'text', 'json')"
    )
    problems += difference("--format yaml", (2, usage), (bad.code, _usage(bad)))
    return holds_unless(problems, f"{len(commands)} steps, as the terse and -v lines say")


class _Flushed(io.StringIO):
    """A stderr that keeps, apart, what was flushed out of it."""

    flushed = ""

    def flush(self) -> None:
        self.flushed = self.getvalue()


@claim(ClaimKind.REFUSAL)
def a_waiting_line_goes_to_stderr_at_once_and_quiet_silences_it() -> Verdict:
    """Where ``planner apply`` says a step still waits: without ``-q``, each line goes to
    stderr and is flushed as it is said (stdout is the run's report), and a stderr that
    went away (a closed terminal) stops nothing; with ``-q`` (``--quiet``), nowhere."""
    line = "  waiting: front_door@srv5: 40 s elapsed, gives up after 2117 s"
    argv = ("apply", ARM, "--hosts", HOSTS)
    say = progress_of(cli_parser().parse_args(argv))
    err, out = _Flushed(), io.StringIO()
    problems = difference("a line said", True, say is not None)
    if say is not None:
        with redirect_stderr(err), redirect_stdout(out):
            say(line)
        try:
            with redirect_stderr(Raising(BrokenPipeError())):
                say(line)
        except OSError as exc:
            problems += [f"a stderr gone stopped the run: {exc!r}"]
    said = (err.getvalue(), err.flushed, out.getvalue())
    problems += difference("stderr, flushed, stdout", (f"{line}\n", f"{line}\n", ""), said)
    for quiet in ("-q", "--quiet"):
        problems += difference(quiet, None, progress_of(cli_parser().parse_args([*argv, quiet])))
    return holds_unless(problems, "a waiting line on stderr, flushed; -q: none")
