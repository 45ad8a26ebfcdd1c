"""Witness: the coordinator's ssh transport against a real sshd on this machine.

One fleet host (:mod:`fixtures.fleet`: a real ``/usr/sbin/sshd`` on a 127.0.0.0/8 address,
its own host key in a ``known_hosts``, one client key, its own root, and the gate that
records every session's remote command and injects a fault into a chosen session) is started
once per process, in ``setup()``, and kept for every claim. Each claim then runs
:class:`planner.coordinator.SshTransport` (or the whole ``planner apply``) in this process,
so a mutant switched after ``setup()`` is what connects, sends the script and waits. Stage
scripts here are the claims' own, a few lines each; the transaction's decisions over the
V4.1 plan are ``transaction_plan``'s and ``transaction_fleet``'s.

Expected values come from the coordinator's contract (its module docstring and ``--help``):
the exit codes 97 (script cut short), 124 (stage timeout), 127 (the ssh client could not be
started), 130 (interrupted), 255 (ssh could not connect), None (no answer within
:func:`planner.coordinator.wait_seconds`); the remote command is built here from the
documented pieces, not by the coordinator's own function.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import re
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from claims import ClaimKind, Verdict, claim, difference, holds_unless
from claims.memo import private_tmpdir
from fixtures import fleet
from fixtures.builders import run_planner
from fixtures.fleet import Fault, Fleet, Timing
from fixtures.sandbox import HostSeed
from planner.apply import Stage
from planner.coordinator import (
    REMOTE_SCRIPT,
    SshSettings,
    SshTransport,
    Ticks,
    caught,
    wait_seconds,
)
from planner.transaction import StepResult, TransactionPlan, TransactionStep

NAME = "srv5"
CONTAINER = "gunbc-test-c1"
_FLEET: list[Fleet] = []


def setup() -> None:
    """One fleet host for the whole process (root, sshd and the namespace tools needed)."""
    if _FLEET:
        return
    fleet.require()
    host = Fleet((NAME,), (HostSeed(),), ())
    atexit.register(host.close)
    host.start()
    _FLEET.append(host)


def _host() -> Fleet:
    if not _FLEET:
        raise AssertionError("the sshd host did not start: setup() did not complete")
    return _FLEET[0]


def _settings(connect: int = 3, stage: int = 3, kill_after: int = 1) -> SshSettings:
    """The transport's settings for the host; first takes back any fault a claim armed and
    no session took, and waits for a stage an earlier claim left running to let go of the
    host's apply lock (a mutant may stop before it connects, or leave a stage running)."""
    _disarm()
    _wait_for_the_lock()
    return _host().settings(Timing(connect=connect, stage=stage, kill_after=kill_after))


def _plan() -> TransactionPlan:
    host = _host()
    return TransactionPlan(
        arm="test",
        hosts=host.addresses,
        preserve_dirs=("/var/lib/gunbc/preserve/test",),
        forward=(),
        rollbacks=(),
        cleanups=(),
    )


def _step(script: str, stage: Stage = Stage.PREFLIGHT) -> TransactionStep:
    return TransactionStep(
        stage=stage, rank=0, host_name=NAME, container_name=CONTAINER, script=script
    )


def _gate() -> Path:
    return _host().host_root(0) / "gate"


def _sessions() -> int:
    """How many sessions the host has seen."""
    return int((_gate() / "count").read_text())


def _wait_for_the_lock(seconds: float = 40) -> None:
    lock = _host().host_root(0) / "lock" / "gunbc-apply.lock"
    if not lock.exists():
        return
    deadline = time.monotonic() + seconds
    with lock.open("rb") as held:
        while True:
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{lock} is still held after {seconds} s") from None
                time.sleep(0.05)
                continue
            fcntl.flock(held, fcntl.LOCK_UN)
            return


def _disarm() -> None:
    count = _sessions()
    for armed in _gate().glob("fault.*"):
        if int(armed.suffix[1:]) > count:
            armed.unlink()


def _arm_next(kind: str) -> None:
    """Inject ``kind`` into the host's next session (and into no later one)."""
    _disarm()
    _host().arm(Fault(kind, 0, _sessions() + 1))


def _remote(step: TransactionStep, settings: SshSettings) -> str:
    digest = hashlib.sha256(step.script.encode()).hexdigest()
    timeouts = (str(settings.stage_timeout), str(settings.kill_after))
    pieces = ("gunbc-apply", step.stage.value, digest, *timeouts, step.container_name)
    return shlex.join(("exec", "sh", "-c", REMOTE_SCRIPT, *pieces))


def _masters(control: str) -> list[int]:
    """The ssh processes still holding a connection in ``control``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(w.startswith(f"ControlPath={control}/".encode()) for w in words):
            found.append(int(entry.name))
    return found


def _masters_left(control: str, seconds: float = 2.0) -> list[int]:
    """The ssh processes still holding a connection in ``control`` once the transport has
    closed: ``ssh -O exit`` returns before its master has exited, so look again for up to
    ``seconds`` (a master nobody told to exit stays for ControlPersist, a minute)."""
    deadline = time.monotonic() + seconds
    found = _masters(control)
    while found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = _masters(control)
    return found


def _result(result: StepResult) -> tuple[int | None, str, str]:
    return (result.exit_code, result.stdout, result.stderr)


@claim(ClaimKind.PLANNED_SHAPE)
def a_step_runs_on_its_host_over_one_connection_and_returns_what_it_printed() -> Verdict:
    """Each step runs its script with bash on its host, with the container name as ``$1``,
    and returns its exit status, stdout and stderr (a byte that is not UTF-8 read as U+FFFD,
    never an error); the host receives the fixed remote script with the stage, the script's
    sha256, the stage timeout, the kill grace and the container; two steps share one
    connection (one control socket, named after the host), and leaving the transport closes
    it (``ssh -O exit``: no ssh process is left) and removes its private control directory."""
    settings = _settings()
    first = _step('echo "ran $1 as $(id -un)"; echo warn >&2; exit 3')
    second = _step("printf 'ok \\377'; printf '\\376' >&2", Stage.PRESERVE)
    before = _sessions()
    problems = []
    with SshTransport(_plan(), settings) as transport:
        control = transport.control
        got = [_result(transport(first)), _result(transport(second))]
        sockets = sorted(p.name for p in Path(control).iterdir() if p.is_socket())
        alive = bool(_masters(control))
    want = [(3, f"ran {CONTAINER} as root\n", "warn\n"), (0, "ok \ufffd", "\ufffd")]
    problems += difference("results", want, got)
    problems += difference("control sockets during the run", [NAME], sockets)
    problems += difference("connection open during the run", True, alive)
    sent = [(_gate() / f"cmd.{n}").read_text() for n in range(before + 1, _sessions() + 1)]
    problems += difference(
        "remote commands", [_remote(first, settings), _remote(second, settings)], sent
    )
    problems += difference("control directory after", False, Path(control).exists())
    problems += difference("ssh processes left", [], _masters_left(control))
    return holds_unless(problems, "2 steps over one connection; closed and removed after")


@claim(ClaimKind.REFUSAL)
def a_script_cut_short_in_transit_exits_97_and_never_runs() -> Verdict:
    """A stage script of which only part reaches the host fails its sha256 check: the step
    exits 97 with ``gunbc-apply: the STAGE script arrived incomplete (its sha256 differs):
    it did not run`` and none of it runs; the same script sent whole runs."""
    marker = _host().host_root(0) / "tmp" / "cut-short-ran"
    marker.unlink(missing_ok=True)
    script = "touch /tmp/cut-short-ran\n" + "# padding the script past its first half\n" * 20
    problems = []
    with SshTransport(_plan(), _settings()) as transport:
        _arm_next("truncate")
        cut = _result(transport(_step(script, Stage.APPLY)))
        ran_cut = marker.exists()
        whole = _result(transport(_step(script, Stage.APPLY)))
    message = (
        "gunbc-apply: the apply script arrived incomplete (its sha256 differs): it did not run\n"
    )
    problems += difference("cut short", (97, "", message), cut)
    problems += difference("cut short ran", False, ran_cut)
    problems += difference("whole", (0, "", ""), whole)
    problems += difference("whole ran", True, marker.exists())
    marker.unlink(missing_ok=True)
    return holds_unless(problems, "a truncated script exits 97 and runs nothing")


@claim(ClaimKind.REFUSAL)
def a_stage_that_outlives_its_timeout_is_killed_with_124() -> Verdict:
    """A stage still running when its stage timeout passes is stopped on its host (exit 124)
    and the step returns then, before the coordinator's own wait (stage timeout + kill grace
    + connect timeout + 2 s) would have run out; the next step runs."""
    settings = _settings(stage=1, kill_after=1)
    # the contract's wait, not the coordinator's function: a bound no load on CI reaches
    wait = settings.stage_timeout + settings.kill_after + settings.connect_timeout + 2
    with SshTransport(_plan(), settings) as transport:
        start = time.monotonic()
        slow = transport(_step("echo started; /bin/sleep 4; echo never"))
        took = time.monotonic() - start
        after = _result(transport(_step("echo next")))
    problems = difference("timed out", (124, "started\n"), (slow.exit_code, slow.stdout))
    problems += difference(f"returned within the {wait} s wait", True, took < wait)
    problems += difference("next step", (0, "next\n", ""), after)
    return holds_unless(problems, f"killed after {took:.1f} s with 124; the next step ran")


@claim(ClaimKind.REFUSAL)
def a_step_that_never_answers_is_abandoned_after_the_wait() -> Verdict:
    """A session the host accepts and never answers is given up once the coordinator's wait
    (stage timeout + kill grace + connect timeout + 2 s) has passed, no sooner (nor 10 s
    later: a bound far from any load's): the step has no exit status (its effect is unknown)
    and says ``coordinator: no answer from USER@HOST within N s``; its connection is closed,
    and the host's next step opens a new one and runs."""
    settings = _settings(connect=1, stage=1, kill_after=0)
    destination = _host().addresses[0].destination
    with SshTransport(_plan(), settings) as transport:
        _arm_next("hang")
        start = time.monotonic()
        silent = transport(_step("echo never"))
        took = time.monotonic() - start
        after = _result(transport(_step("echo next")))
    note = f"\ncoordinator: no answer from {destination} within 4 s\n"
    problems = difference("no answer", (None, "", note), _result(silent))
    problems += difference("waited 4 s to 14 s", True, 4 <= took < 14)
    problems += difference("next step", (0, "next\n", ""), after)
    return holds_unless(problems, f"abandoned after {took:.1f} s; the next step ran")


@contextmanager
def _signal_once(started: Path, number: signal.Signals) -> Iterator[None]:
    """``number`` sent to this process as soon as ``started`` exists, unless the block ended
    first (or 10 s passed). The sender is done before the block is left, so a block cut short
    (a mutant that raises) is never signalled after it, when no handler of its is there."""
    done = threading.Event()

    def send() -> None:
        deadline = time.monotonic() + 10
        while not done.is_set() and time.monotonic() < deadline:
            if started.exists():
                os.kill(os.getpid(), number)
                return
            time.sleep(0.01)

    sender = threading.Thread(target=send)
    sender.start()
    try:
        yield
    finally:
        done.set()
        sender.join()


@contextmanager
def _ctrl_c_once(started: Path) -> Iterator[None]:
    """A Ctrl-C (SIGINT, read as Python reads it: KeyboardInterrupt) as soon as ``started``
    exists, unless the block ended first; the process's own SIGINT handling is put back."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with _signal_once(started, signal.SIGINT):
            yield
    finally:
        signal.signal(signal.SIGINT, before)


@claim(ClaimKind.REFUSAL)
def an_interrupted_step_fails_with_130_and_the_next_one_runs() -> Verdict:
    """A Ctrl-C while a step runs stops waiting for it: the step fails with exit 130, keeps
    what the stage printed so far and says ``coordinator: interrupted by the operator``; the
    host's connection is closed, and its next step opens a new one and runs once the stage
    left running there lets go of the host's apply lock."""
    problems = []
    tmp = _host().host_root(0) / "tmp"
    started, let_go = tmp / "interrupted-stage", tmp / "interrupted-let-go"
    started.unlink(missing_ok=True)
    let_go.unlink(missing_ok=True)
    # The interrupt comes half a second after the stage printed: "begun" must have reached
    # this process, or it is lost with the killed client (under load it once was not). The
    # stage left running holds the lock until this claim lets it go, and prints nothing
    # after the interrupt: how long an orphan lives must not depend on how soon its host sees
    # the connection gone (under CI's load one that wrote to it outlived the next step's
    # flock --wait; the stage timeout, not the orphan, then decided the claim).
    script = (
        "echo begun; /bin/sleep 0.5; touch /tmp/interrupted-stage; "
        "while [ ! -e /tmp/interrupted-let-go ]; do /bin/sleep 0.05; done"
    )
    # Budgets far past what the claim needs: the next step may authenticate afresh and wait
    # for the orphaned stage's lock, and on a loaded machine that outlasted 3 s (CI, under
    # the mutant that never reopens a connection). The interrupt, not a budget, ends the step.
    with SshTransport(_plan(), _settings(connect=15, stage=15)) as transport:
        try:
            with _ctrl_c_once(started):
                stopped = _result(transport(_step(script)))
        except KeyboardInterrupt:
            stopped = (None, "", "the interrupt escaped the transport")
        let_go.touch()
        after = _result(transport(_step("echo next")))
    note = "\ncoordinator: interrupted by the operator\n"
    problems += difference("interrupted", (130, "begun\n", note), stopped)
    problems += difference("next step", (0, "next\n", ""), after)
    return holds_unless(problems, "a Ctrl-C fails the step with 130; the next step ran")


def _close_out_of_band(settings: SshSettings, control: str) -> int:
    address = _host().addresses[0]
    argv = [
        settings.ssh, "-F", "none", "-o", f"ControlPath={control}/{NAME}", "-O", "exit",
        "-p", str(address.port), "--", address.destination,
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, check=False).returncode


def _gone(socket_path: Path, seconds: float = 5) -> bool:
    """Whether the master's socket is gone within ``seconds`` (``ssh -O exit`` returns once
    the master has the request, a moment before the master removes its socket)."""
    deadline = time.monotonic() + seconds
    while socket_path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@claim(ClaimKind.PLANNED_SHAPE)
def a_connection_that_went_away_is_opened_again() -> Verdict:
    """When a host's connection has gone away between two steps (its master exited), the
    next step opens a new one and runs."""
    settings = _settings()
    with SshTransport(_plan(), settings) as transport:
        first = _result(transport(_step("echo one")))
        closed = _close_out_of_band(settings, transport.control)
        gone = _gone(Path(transport.control) / NAME)
        second = _result(transport(_step("echo two")))
        again = (Path(transport.control) / NAME).is_socket()
    problems = difference("first", (0, "one\n", ""), first)
    problems += difference("closed between", (0, True), (closed, gone))
    problems += difference("second", (0, "two\n", ""), second)
    problems += difference("reopened", True, again)
    return holds_unless(problems, "a connection that went away is reopened for the next step")


@claim(ClaimKind.REFUSAL)
def an_unknown_host_key_or_a_closed_port_fails_the_step_with_255() -> Verdict:
    """A host whose key is not in the known hosts is never accepted: the step fails with
    ssh's 255 and its ``Host key verification failed.``, and no session reaches the host;
    a host whose port refuses the connection fails its step with 255 too."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="ssh-transport-") as tmp:
        empty = Path(tmp) / "known_hosts"
        empty.write_text("")
        unknown = _settings().model_copy(update={"known_hosts": str(empty)})
        before = _sessions()
        with SshTransport(_plan(), unknown) as transport:
            refused = transport(_step("echo never"))
        problems += difference("unknown key: exit", 255, refused.exit_code)
        problems += difference(
            "unknown key: said", True, "Host key verification failed." in refused.stderr
        )
        problems += difference("unknown key: sessions", before, _sessions())
    address = _host().addresses[0]
    closed = _plan().model_copy(
        update={"hosts": (address.model_copy(update={"port": fleet.free_port(address.address)}),)}
    )
    with SshTransport(closed, _settings()) as transport:
        nobody = transport(_step("echo never"))
    problems += difference("closed port: exit", 255, nobody.exit_code)
    problems += difference("closed port: said", True, "Connection refused" in nobody.stderr)
    return holds_unless(problems, "an unknown key and a closed port each fail with 255")


@claim(ClaimKind.REFUSAL)
def an_ssh_client_that_cannot_be_started_fails_the_step_with_127_unstarted() -> Verdict:
    """An ssh client the coordinator cannot start (a file that is not executable, one that
    is gone) fails the step with 127, saying which client and why, as a step that never
    started (it touched no host); no session reaches the host."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="ssh-transport-") as tmp:
        plain = Path(tmp) / "ssh"
        plain.write_text("#!/bin/sh\n")
        for what, client in (("not executable", plain), ("gone", Path(tmp) / "gone")):
            settings = _settings().model_copy(update={"ssh": str(client)})
            before = _sessions()
            with SshTransport(_plan(), settings) as transport:
                got = transport(_step("echo never"))
            said = f"coordinator: cannot run {client}: "
            problems += difference(
                f"{what}: exit, started", (127, False), (got.exit_code, got.started)
            )
            problems += difference(
                f"{what}: said (its start, its end)",
                (said, "\n"),
                (got.stderr[: len(said)], got.stderr[-1:]),
            )
            problems += difference(f"{what}: sessions", before, _sessions())
    return holds_unless(problems, "2 clients that cannot start: 127, never started, no session")


@contextmanager
def _descriptors_to(sink: Path) -> Iterator[None]:
    """Point file descriptors 1 and 2 at ``sink`` for the block. ``redirect_stdout`` only
    catches what Python prints; a process the coordinator starts inherits the descriptors
    and writes to them, so what it writes lands here, not on the operator's terminal."""
    saved = (os.dup(1), os.dup(2))
    try:
        with sink.open("wb") as written:
            os.dup2(written.fileno(), 1)
            os.dup2(written.fileno(), 2)
            yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


@claim(ClaimKind.PLANNED_SHAPE)
def planner_apply_runs_each_step_over_ssh_and_reports_what_it_left() -> Verdict:
    """``planner apply`` (no ``--dry-run``) connects to each host with the given ssh config,
    identity, known hosts and timeouts, prints ``apply ARM: 4 hosts (…)``, then each step as
    it returns; when the first preflight is refused it stops there, reports no host touched
    (srv5 ran preflight, the others nothing) and exits 10, leaving no control directory.
    The report is all the operator sees: none of the ssh processes it starts writes to the
    terminal (``ssh -O exit`` would say ``Exit request sent.`` for every host it closes)."""
    host = _host()
    keys = host.base / "keys"
    address = host.addresses[0]
    # srv5 is the warm host; the run stops there, so the others are never reached: each is
    # its own machine (two hosts on one address and port are refused), at TEST-NET-1
    others = [f"srv{n}=root@192.0.2.{n}" for n in (6, 7, 8)]
    hosts = ",".join([f"srv5=root@{address.address}:{address.port}", *others])
    argv = [
        "apply", "v41_group_a", "--scenario", "supplied", "--for-testing", "--hosts", hosts,
        "--ssh-config", "none", "--identity", str(keys / "client"),
        "--known-hosts", str(keys / "known_hosts"), "--connect-timeout", "3",
        "--stage-timeout", "3",
    ]  # fmt: skip
    _arm_next("refuse")
    session = _sessions() + 1
    # its journal in a directory of its own: runs side by side never share one (a journal
    # is locked while its coordinator runs)
    journals = tempfile.TemporaryDirectory(prefix="ssh-transport-journal-")
    argv += ["--journal", str(Path(journals.name) / "apply.journal")]
    with journals, private_tmpdir() as tmp:  # the coordinator's mkdtemp lands in it
        terminal = Path(tmp) / "terminal"
        with _descriptors_to(terminal):
            ran = run_planner(*argv)
        children_wrote = terminal.read_text(errors="replace")
        terminal.unlink()
        left = sorted(os.listdir(tmp))
    said = f"fleet: session {session} on host 0 refused before it ran (injected)"
    untouched = "untouched: no stage that changes it was started there"
    want = [
        "apply v41_group_a: 4 hosts (srv5, srv6, srv7, srv8)",
        f"  1 preflight  srv5: exit 1: {said}",
        "rollback, last changed first: (no host was touched)",
        "hosts:",
        f"  srv5 (rank 0): {untouched}; ran: preflight",
        *(f"  srv{n} (rank {n - 5}): {untouched}; ran: nothing" for n in (6, 7, 8)),
        f"apply v41_group_a: STOPPED: preflight@srv5 failed (exit 1: {said}); no host was changed",
    ]
    problems = difference("exit", 10, ran.code) + difference("stderr", "", ran.err)
    problems += difference("stdout", want, ran.lines)
    problems += difference("what its ssh processes wrote to the terminal", "", children_wrote)
    problems += difference("sessions", session, _sessions())
    problems += difference("left behind", [], left)
    return holds_unless(problems, "stopped at the refused preflight, exit 10, nothing left")


@claim(ClaimKind.REFUSAL)
def a_hung_exit_request_is_killed_and_the_step_fails_with_no_answer() -> Verdict:
    """When abandoning a step that never answered, an ``ssh -O exit`` that hangs is killed
    after the connect timeout + the command grace and never escapes: the step fails with no
    exit status, the host's next step opens a new connection and runs, and leaving the
    transport (whose exit requests hang too) still returns and removes the control
    directory."""
    host = _host()
    settings = _settings(connect=1, stage=1, kill_after=0)
    # a grace of 1 s: every exit request here hangs, and each would hold the claim 5 s
    hung = settings.model_copy(update={"ssh": str(host.base / "ssh"), "command_grace": 1})
    flag = host.base / "sshctl" / "hang-exit"
    flag.write_text("")
    problems: list[str] = []
    start = time.monotonic()
    try:
        with SshTransport(_plan(), hung) as transport:
            control = transport.control
            _arm_next("hang")
            try:
                silent = _result(transport(_step("echo never")))
                after = _result(transport(_step("echo next")))
            except Exception as error:  # the defect: a hung exit request escaping
                silent = after = (None, "", f"escaped: {type(error).__name__}: {error}")
    finally:
        flag.unlink()
    took = time.monotonic() - start
    destination = host.addresses[0].destination
    note = f"\ncoordinator: no answer from {destination} within 4 s\n"
    problems += difference("no answer", (None, "", note), silent)
    problems += difference("next step", (0, "next\n", ""), after)
    problems += difference("control directory after", False, Path(control).exists())
    return holds_unless(problems, f"hung exit requests killed; all done in {took:.1f} s")


@claim(ClaimKind.PLANNED_SHAPE)
def a_step_keeps_the_first_and_last_64_kib_of_each_stream() -> Verdict:
    """Of what a step prints, the coordinator keeps the first and the last 64 KiB of each
    stream with ``[… N bytes elided …]`` between them (N the bytes it dropped); output that
    fits is kept whole."""
    script = (
        "head -c 1000000 /dev/zero | tr '\\0' a; echo; echo end-of-stdout\n"
        "head -c 200000 /dev/zero | tr '\\0' b >&2; echo end >&2\n"
    )
    with SshTransport(_plan(), _settings()) as transport:
        flood = transport(_step(script))
        small = _result(transport(_step("echo small")))
    kept = 64 * 1024
    out = "a" * 1000000 + "\nend-of-stdout\n"
    err = "b" * 200000 + "end\n"

    def bounded(text: str) -> str:
        elided = len(text) - 2 * kept
        return f"{text[:kept]}\n[… {elided} bytes elided …]\n{text[-kept:]}"

    problems = difference("stdout", bounded(out), flood.stdout)
    problems += difference("stderr", bounded(err), flood.stderr)
    problems += difference("exit", 0, flood.exit_code)
    problems += difference("small output kept whole", (0, "small\n", ""), small)
    return holds_unless(problems, "1 MB and 200 kB kept to 64 KiB either end; small ones whole")


@claim(ClaimKind.REFUSAL)
def a_signal_abandons_a_forward_step_and_lets_a_rollback_run() -> Verdict:
    """With the coordinator's signal handling (:func:`planner.coordinator.caught`), a
    SIGTERM while a forward step runs stops waiting for it (before the stage's end): the
    step fails with 130, keeps what it printed and says ``coordinator: interrupted by
    SIGTERM``; the next forward step is not started (130,
    ``not started``, nothing reaches the host); a rollback still runs to its end."""
    tmp = _host().host_root(0) / "tmp"
    started, let_go = tmp / "signalled-stage", tmp / "signalled-let-go"
    started.unlink(missing_ok=True)
    let_go.unlink(missing_ok=True)
    # the signal comes half a second after "begun"; the abandoned stage holds the lock until
    # the claim lets it go, printing nothing more (see an_interrupted_step_fails_with_130_…)
    script = (
        "echo begun; /bin/sleep 0.5; touch /tmp/signalled-stage; "
        "while [ ! -e /tmp/signalled-let-go ]; do /bin/sleep 0.05; done"
    )
    told: list[str] = []
    problems: list[str] = []
    # should caught() not take SIGTERM over (a defect), it must not end this process
    with _signal_ignored(signal.SIGTERM), caught() as interruptions:
        # a stage timeout with room for the rollback to wait for the abandoned stage's lock
        settings = _settings(stage=10)
        with SshTransport(_plan(), settings, interruptions, told.append) as transport:
            begin = time.monotonic()
            with _signal_once(started, signal.SIGTERM):
                stopped = _result(transport(_step(script, Stage.APPLY)))
            took = time.monotonic() - begin
            sessions = _sessions()
            skipped = transport(_step("echo never", Stage.READBACK))
            skipped_sessions = _sessions() - sessions
            let_go.touch()
            undone = _result(transport(_step("echo undone", Stage.ROLLBACK)))
    problems += difference(
        "abandoned", (130, "begun\n", "\ncoordinator: interrupted by SIGTERM\n"), stopped
    )
    problems += difference(
        "next forward step",
        (130, "", "coordinator: interrupted by SIGTERM: not started\n", False, 0),
        (*_result(skipped), skipped.started, skipped_sessions),
    )
    problems += difference("rollback", (0, "undone\n", ""), undone)
    problems += difference("told once", 1, len(told))
    _wait_for_the_lock()
    return holds_unless(problems, f"abandoned after {took:.1f} s; rollback ran")


@contextmanager
def _signal_ignored(number: signal.Signals) -> Iterator[None]:
    before = signal.signal(number, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(number, before)


def _next_tick(ticks: Ticks, elapsed: float) -> float:
    """The first tick later than ``elapsed``, the slow obvious way: count them out."""
    tick = ticks.first
    while tick <= elapsed:
        tick += ticks.every
    return tick


@claim(ClaimKind.PLANNED_SHAPE)
def a_waiting_step_says_so_first_at_the_first_tick_then_at_every_interval() -> Verdict:
    """The transport's next word on a step still running falls at the first tick later than
    the time elapsed: ``first`` seconds in, then every ``every`` seconds (10 and 30 unless
    given), never at the moment already reached, wherever that falls (before the first
    tick, on a tick, between two, hours in)."""
    problems, judged = [], 0
    for ticks in (Ticks(), Ticks(first=3, every=7), Ticks(first=5, every=1)):
        first, every = ticks.first, ticks.every
        moments = (0, 0.5, first - 0.5, first, first + 0.5, first + every, first + 3.5 * every)
        for elapsed in (*moments, 36_000):
            want = _next_tick(ticks, elapsed)
            problems += difference(f"{ticks} at {elapsed} s", want, ticks.after(elapsed))
            judged += 1
    return holds_unless(problems, f"ticks at first, then every interval, at {judged} moments")


@claim(ClaimKind.PLANNED_SHAPE)
def a_step_still_running_says_so_at_each_tick() -> Verdict:
    """While a step runs past a tick, the transport says so through ``progress``: the step's
    label, the whole seconds elapsed and the wait it gives up after
    (:func:`planner.coordinator.wait_seconds`, not the stage timeout alone), as in
    ``  waiting: preflight@srv5: 0 s elapsed, gives up after 11 s``. The step here ends only
    once a line was said, so the line, not a clock, decides the claim."""
    let_go = _host().host_root(0) / "tmp" / "progress-let-go"
    let_go.unlink(missing_ok=True)
    said: list[str] = []

    def say(line: str) -> None:
        said.append(line)
        let_go.touch()

    script = "echo begun; while [ ! -e /tmp/progress-let-go ]; do /bin/sleep 0.05; done; echo ended"
    settings = _settings(stage=10)
    ticks = Ticks(first=0.01, every=0.01)
    with SshTransport(_plan(), settings, progress=say, ticks=ticks) as transport:
        got = _result(transport(_step(script)))
    line = rf"  waiting: preflight@{NAME}: \d+ s elapsed, gives up after {wait_seconds(settings)} s"
    problems = difference("step", (0, "begun\nended\n", ""), got)
    problems += difference("lines said", True, bool(said))
    problems += [f"not a progress line: {s!r}" for s in said if not re.fullmatch(line, s)]
    return holds_unless(problems, f"{len(said)} progress line(s) while the step ran")
