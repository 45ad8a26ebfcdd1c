"""``planner apply``: the transaction's coordinator, over OpenSSH.

The coordinator plans the arm exactly as ``planner dry-run`` does, refuses (exit 1, nothing
run) unless the plan is admitted, then runs :func:`planner.transaction.coordinate` with the
ssh transport below. ``--dry-run`` prints the exact commands instead (and writes the stage
scripts they read, all or nothing), running nothing.

**The live read.** A real apply admits on ``--authority`` read at the wall clock:
``--scenario`` and ``--now`` are for ``--dry-run`` (or ``--for-testing``), and admission is
asked again at the commit point (:func:`admission_gate`), so a lease that lapsed during the
transaction rolls it back rather than commits.

**Transport.** Only the real ``ssh`` client, with the operator's own keys and known hosts:
``BatchMode=yes`` (never a prompt) and ``StrictHostKeyChecking=yes`` (an unknown or changed
host key is a failed step, never accepted). One multiplexed connection per host (``ssh -M -N
-f`` with a ``ControlPath`` in a private directory made for the run) is opened before the
host's first step, reopened when it dropped, and closed with ``ssh -O exit`` at the end; it
exits by itself after ``CONTROL_PERSIST_SECONDS`` idle should the coordinator die. Each step
is one session on it: the stage script goes on standard input, and the remote command (one
POSIX ``sh -c``, whatever the login shell) stores it in a private temp file, checks its
sha256 (a script cut short in transit never runs: exit 97), and runs ``bash SCRIPT
CONTAINER`` under ``timeout`` (``--stage-timeout``, then KILL 5 s later: exit 124 or 137) and
``flock`` on the host's apply lock ``/run/lock/gunbc-apply.lock`` (one stage at a time per
host; a stage still running after its connection dropped keeps the lock, so the rollback that
follows waits for it). The coordinator gives up on a step when it has not answered within
the stage timeout plus the kill grace and the connect timeout (:func:`wait_seconds`): the
step's effect is then unknown, as with a dropped connection (ssh's exit 255).

Exit codes: 0 committed on every host; 1 refused (the plan is not admitted; nothing ran);
2 usage or input error (nothing ran); 10 rolled back (a step failed, or admission no longer
held at the commit point: every touched host restored, or none was touched);
11 not restored (a touched host's rollback or cleanup failed: the report names it and where
its backup is); 12 committed, commit pending on a host (it runs the planned arm and keeps its
backup).

**Signals.** SIGINT, SIGTERM and SIGHUP (Ctrl-C, a cancelled CI job or ``timeout``, the
operator's ssh session dropped) never end the coordinator by themselves. Before the decision
the first one stops the forward run: the step it waits on is abandoned (its client killed,
its connection closed; the step fails with exit 130 and an unknown effect, so a preserve or
apply counts as a change), no other forward step is started (one not started changes
nothing), and every touched host is rolled back as after any failure. During rollback,
cleanup and commit, signals are recorded and wait until every host is done: only SIGKILL
stops the coordinator then (the journal covers that). The exit code is the report's own
(0, 10, 11, 12), and a line before the verdict names every signal received. Whatever ends
the run, the control directory is removed, and every ``ssh -O exit`` is bounded: one that
does not return within the connect timeout + 5 s (:data:`COMMAND_GRACE_SECONDS`) is
killed (the next step on its host opens a new connection). Of what a step prints, the first
and last :data:`OUTPUT_KEPT` bytes of each stream are kept, with a ``[… N bytes elided …]``
line between.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, Literal, NamedTuple

from filerules import make_parents, umask, write_atomically
from planner.apply import FORWARD_STAGES, Stage, script_sha256
from planner.arm_launch import DryRun
from planner.formats import ApplyDryRun, CommandEntry, HostEntry, document_json
from planner.journal import (
    Journal,
    JournalError,
    JournalState,
    create,
    history,
    resume,
    take_up,
    verdict,
)
from planner.refusal import PlannerInputError
from planner.saved_plan import bind, load_plan, request_args
from planner.transaction import (
    COMMIT_ATTEMPTS,
    EXIT_COMMIT_PENDING,
    EXIT_COMMITTED,
    EXIT_NOT_RESTORED,
    EXIT_ROLLED_BACK,
    Gate,
    HostAddress,
    StepRecord,
    StepResult,
    TransactionPlan,
    TransactionReport,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
    step_line,
)
from planner.values import Frozen, path_argument, printable
from planner.version import planner_version

EXIT_REFUSED, EXIT_USAGE = 1, 2
EXIT_WOULD_CHANGE, EXIT_UNCHECKED = 3, 4
"""``--check``: apply would change a host; a host could not be checked (planner/check.py)."""
EXIT_SCRIPT_INCOMPLETE = 97
EXIT_INTERRUPTED = 130
EXIT_CANNOT_RUN = 127
"""A step's status when the ssh client itself could not be started."""
OUTPUT_KEPT = 64 * 1024
"""Bytes kept of the start and of the end of each stream a step prints."""
CHUNK = 64 * 1024
INTERRUPTING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
LOCK_PATH = "/run/lock/gunbc-apply.lock"
KILL_AFTER_SECONDS = 5
CONTROL_PERSIST_SECONDS = 60
DEFAULT_CONNECT_TIMEOUT = 10
COMMAND_GRACE_SECONDS = 5
DEFAULT_STAGE_TIMEOUT = 2100
"""Above the longest wait a stage script makes itself (the front door's 1800 s)."""
CONTROL = "CONTROL"
"""How ``--dry-run`` names the private directory a run makes for its control sockets."""

REMOTE_SCRIPT = "; ".join(
    (
        "stage=$1 sum=$2 limit=$3 grace=$4 name=$5",
        "umask 077",
        'f=$(mktemp "${TMPDIR:-/tmp}/gunbc-apply-$stage.XXXXXX")'
        f" || exit {EXIT_SCRIPT_INCOMPLETE}",
        'trap "rm -f $f" EXIT',
        'cat >"$f"',
        'if ! echo "$sum  $f" | sha256sum --check --status',
        'then echo "gunbc-apply: the $stage script arrived incomplete (its sha256 differs):'
        ' it did not run" >&2',
        f"exit {EXIT_SCRIPT_INCOMPLETE}",
        "fi",
        'timeout --kill-after="$grace" "$limit" flock --wait "$limit"'
        f" --conflict-exit-code {EXIT_SCRIPT_INCOMPLETE} {LOCK_PATH}"
        ' bash "$f" "$name" </dev/null',
    )
)
"""What each session runs on the host, under ``sh -c``: $1 stage, $2 the script's sha256,
$3 the stage timeout and $4 the grace before KILL (seconds), $5 the container name; the
script arrives on stdin."""


class SshSettings(Frozen):
    """How the coordinator runs ssh: the client, its config, identity and known hosts, and
    the connect and per-stage timeouts (seconds)."""

    ssh: str = "ssh"
    config: str | None = None
    identity: str | None = None
    known_hosts: str | None = None
    connect_timeout: int = DEFAULT_CONNECT_TIMEOUT
    stage_timeout: int = DEFAULT_STAGE_TIMEOUT
    kill_after: int = KILL_AFTER_SECONDS
    command_grace: int = COMMAND_GRACE_SECONDS
    """Seconds past the connect timeout an ssh command that only talks to the connection
    (opening it, ``-O exit``, a session's end) is given before it is killed."""


def command_seconds(settings: SshSettings) -> int:
    """How long an ssh command that only talks to the connection may take."""
    return settings.connect_timeout + settings.command_grace


def wait_seconds(settings: SshSettings) -> int:
    """How long the coordinator waits for one step before it stops waiting."""
    return settings.stage_timeout + settings.kill_after + settings.connect_timeout + 2


def common_options(settings: SshSettings, host: HostAddress) -> list[str]:
    """The ssh options every command to ``host`` carries."""
    options = [] if settings.config is None else ["-F", settings.config]
    options += ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"]
    if settings.known_hosts is not None:
        options += ["-o", f"UserKnownHostsFile={settings.known_hosts}"]
    if settings.identity is not None:
        options += ["-i", settings.identity, "-o", "IdentitiesOnly=yes"]
    options += [
        "-o",
        f"ConnectTimeout={settings.connect_timeout}",
        "-o",
        "ServerAliveInterval=10",
        "-o",
        "ServerAliveCountMax=3",
        "-p",
        str(host.port),
    ]
    return options


def control_path(control: str, host: HostAddress) -> str:
    return f"{control}/{host.host_name}"


def master_argv(settings: SshSettings, host: HostAddress, control: str) -> tuple[str, ...]:
    """Open the host's multiplexed connection; returns once it is authenticated."""
    return (
        settings.ssh,
        *common_options(settings, host),
        "-M",
        "-N",
        "-f",
        "-o",
        f"ControlPath={control_path(control, host)}",
        "-o",
        f"ControlPersist={CONTROL_PERSIST_SECONDS}",
        "--",
        host.destination,
    )


def exit_argv(settings: SshSettings, host: HostAddress, control: str) -> tuple[str, ...]:
    """Close the host's multiplexed connection."""
    return (
        settings.ssh,
        *common_options(settings, host),
        "-o",
        f"ControlPath={control_path(control, host)}",
        "-O",
        "exit",
        "--",
        host.destination,
    )


def remote_command(step: TransactionStep, settings: SshSettings) -> str:
    """The command line the host's login shell runs for ``step``."""
    digest = script_sha256(step)
    timeouts = (str(settings.stage_timeout), str(settings.kill_after))
    args = ("gunbc-apply", step.stage.value, digest, *timeouts)
    return shlex.join(("exec", "sh", "-c", REMOTE_SCRIPT, *args, step.container_name))


def session_argv(
    settings: SshSettings, host: HostAddress, control: str, step: TransactionStep
) -> tuple[str, ...]:
    """Run ``step`` on ``host`` over its multiplexed connection (the script on stdin)."""
    return (
        settings.ssh,
        *common_options(settings, host),
        "-o",
        "ControlMaster=no",
        "-o",
        f"ControlPath={control_path(control, host)}",
        "--",
        host.destination,
        remote_command(step, settings),
    )


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


class Kept:
    """What the coordinator keeps of one stream a host prints: its first and its last
    ``limit`` bytes, and how many it dropped between them, so a host printing without end
    costs bounded memory."""

    def __init__(self, limit: int = OUTPUT_KEPT) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.limit:
                del self.tail[: len(self.tail) - self.limit]

    def text(self) -> str:
        elided = self.total - len(self.head) - len(self.tail)
        if elided <= 0:
            return _text(bytes(self.head + self.tail))
        marker = f"\n[… {elided} bytes elided …]\n"
        return _text(bytes(self.head)) + marker + _text(bytes(self.tail))


class Interruptions:
    """The signals a run received, in order. Installed by :func:`caught`: a signal only
    records itself and wakes the transport's wait (a byte on :attr:`wake`), so nothing is
    cut short at an arbitrary point; the transport abandons the forward step it waits on
    and starts no other, and lets rollback, cleanup and commit run to their end."""

    def __init__(self) -> None:
        self.received: list[str] = []
        self.heard = 0
        self.wake, self._poke = os.pipe()
        for fd in (self.wake, self._poke):
            os.set_blocking(fd, False)

    def notice(self, number: int, frame: object) -> None:
        self.received.append(signal.Signals(number).name)
        try:
            os.write(self._poke, b"!")
        except OSError:  # the pipe is full: it is awake already
            pass

    def unheard(self) -> list[str]:
        """The signals received since the last call (each one told once)."""
        try:
            while os.read(self.wake, 512):
                pass
        except OSError:  # drained
            pass
        new, self.heard = self.received[self.heard :], len(self.received)
        return new

    def close(self) -> None:
        for fd in (self.wake, self._poke):
            os.close(fd)


@contextmanager
def caught(signals: tuple[signal.Signals, ...] = INTERRUPTING) -> Iterator[Interruptions]:
    """``signals`` recorded by an :class:`Interruptions` for the block; the handlers the
    process had before are put back after it."""
    seen = Interruptions()
    before = {number: signal.signal(number, seen.notice) for number in signals}
    try:
        yield seen
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        seen.close()


def _quiet(argv: tuple[str, ...]) -> subprocess.Popen[bytes] | None:
    """``argv`` started with nothing to read and nowhere to write (None: it cannot run)."""
    try:
        return subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError:
        return None


def finished_within(processes: list[subprocess.Popen[bytes] | None], seconds: float) -> list[bool]:
    """Wait for ``processes`` together for up to ``seconds``; one still running then is
    killed (a hung ``ssh -O exit`` never holds the coordinator). Whether each exited 0."""
    deadline = time.monotonic() + seconds
    done = []
    for process in processes:
        if process is None:
            done.append(False)
            continue
        try:
            done.append(process.wait(max(0.0, deadline - time.monotonic())) == 0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            done.append(False)
    return done


PROGRESS_FIRST = 10
"""Seconds into a step before the coordinator first says it still waits."""
PROGRESS_EVERY = 30
"""Seconds between the lines that say a step still waits, after the first."""
DRAIN_SECONDS = 2
"""How long an abandoned session's streams are read for what was on its way."""


def _drain(streams: dict[IO[bytes] | None, Kept], seconds: float) -> None:
    """Keep what an abandoned session had printed and was still on its way (its pipes end
    once its connection is closed), for up to ``seconds``."""
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as waiting:
        for pipe in streams:
            if pipe is not None and not pipe.closed:
                waiting.register(pipe, selectors.EVENT_READ)
        while waiting.get_map() and (left := deadline - time.monotonic()) > 0:
            for key, _ in waiting.select(left):
                data = os.read(key.fd, CHUNK)
                if data:
                    streams[key.fileobj].add(data)  # type: ignore[index]
                else:
                    waiting.unregister(key.fileobj)


def _silent(text: str) -> None:
    """Told nothing (a transport without a report to print)."""


class Ticks(NamedTuple):
    """When a step that still runs says so: ``first`` seconds in, then every ``every``
    seconds (the front door's health wait alone may take 30 minutes; a silent terminal
    that long reads as a hang)."""

    first: float = PROGRESS_FIRST
    every: float = PROGRESS_EVERY

    def after(self, elapsed: float) -> float:
        """The first tick later than ``elapsed`` seconds into the step."""
        if elapsed < self.first:
            return self.first
        return self.first + ((elapsed - self.first) // self.every + 1) * self.every


TICKS = Ticks()


def progress_line(step: TransactionStep, elapsed: float, limit: float) -> str:
    """``  waiting: front_door@srv5: 40 s elapsed, gives up after 2117 s``."""
    return f"  waiting: {step.label}: {int(elapsed)} s elapsed, gives up after {int(limit)} s"


def to_stderr(text: str) -> None:
    """A progress line, on stderr: stdout is the run's report, and the journal records
    steps, not waits. A terminal that went away never stops the transaction."""
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


SIGNAL_STOPS = frozenset(FORWARD_STAGES) - {Stage.COMMIT}
"""The stages a signal abandons (and never starts): before the decision. Rollback, cleanup
and commit run to their end whatever arrives."""


class SshTransport:
    """Runs steps of ``plan`` over ssh; a context manager that owns the control directory
    and closes every connection it opened. With ``interruptions`` (:func:`caught`), a signal
    abandons the forward step it waits on and starts no other; ``note`` is told, once per
    signal, what the coordinator does about it. ``progress`` (None: nothing) is told, at
    each of ``ticks`` while a step runs, that it still waits (:func:`progress_line`)."""

    def __init__(
        self,
        plan: TransactionPlan,
        settings: SshSettings,
        interruptions: Interruptions | None = None,
        note: Callable[[str], None] | None = None,
        progress: Callable[[str], None] | None = None,
        ticks: Ticks = TICKS,
    ) -> None:
        self.plan = plan
        self.settings = settings
        self.interruptions = interruptions
        self.note = note or _silent
        self.progress = progress
        self.ticks = ticks
        self.control = ""
        self.opened: set[int] = set()

    def __enter__(self) -> SshTransport:
        self.control = tempfile.mkdtemp(prefix="gunbc-apply-")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        hosts = [self.plan.host(rank) for rank in sorted(self.opened)]
        hosts = [h for h in hosts if Path(control_path(self.control, h)).exists()]
        # every host's exit request at once, each bounded: a hung one is killed
        requests = [_quiet(exit_argv(self.settings, h, self.control)) for h in hosts]
        finished_within(requests, command_seconds(self.settings))
        self.opened.clear()
        if self.control:
            shutil.rmtree(self.control, ignore_errors=True)

    def _connect(self, host: HostAddress) -> StepResult | None:
        """Open the host's connection unless it is open; the failure, or None."""
        if Path(control_path(self.control, host)).exists():
            return None
        log = Path(self.control) / f"{host.host_name}.master.log"
        with log.open("wb") as errors:
            # stdout and stderr are files: the master that -f puts in the background keeps
            # them open, and a pipe would never reach its end
            try:
                done = subprocess.run(
                    master_argv(self.settings, host, self.control),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    timeout=command_seconds(self.settings),
                    check=False,
                )
            except subprocess.TimeoutExpired:
                return StepResult(exit_code=None, stderr=f"{host.destination}: no answer")
            except KeyboardInterrupt:
                note = "coordinator: interrupted by the operator while connecting\n"
                return StepResult(exit_code=EXIT_INTERRUPTED, stderr=note, started=False)
            except OSError as error:
                said = f"coordinator: cannot run {printable(self.settings.ssh)}: {error}\n"
                return StepResult(exit_code=EXIT_CANNOT_RUN, stderr=said, started=False)
        if done.returncode != 0:
            return StepResult(exit_code=done.returncode, stderr=log.read_text(errors="replace"))
        return None

    def _stops(self, step: TransactionStep) -> str | None:
        """The signal that stops ``step`` (told once), or None: it runs on."""
        if self.interruptions is None:
            return None
        for name in self.interruptions.unheard():
            if step.stage in SIGNAL_STOPS:
                self.note(
                    f"coordinator: {name} received: {step.label} abandoned; every touched "
                    "host will be rolled back"
                )
            else:
                self.note(
                    f"coordinator: {name} received during {step.label}: recorded; "
                    "rollback, cleanup and commit go on until every host is done "
                    "(only SIGKILL stops them)"
                )
        received = self.interruptions.received
        return received[0] if received and step.stage in SIGNAL_STOPS else None

    def __call__(self, step: TransactionStep) -> StepResult:
        host = self.plan.host(step.rank)
        stopped = self._stops(step)
        if stopped is None:
            self.opened.add(step.rank)
            failed = self._connect(host)
            if failed is not None:
                return failed
            stopped = self._stops(step)  # a signal while the connection opened
        if stopped is not None:
            note = f"coordinator: interrupted by {stopped}: not started\n"
            return StepResult(exit_code=EXIT_INTERRUPTED, stderr=note, started=False)
        try:
            process = subprocess.Popen(
                session_argv(self.settings, host, self.control, step),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as error:
            said = f"coordinator: cannot run {printable(self.settings.ssh)}: {error}\n"
            return StepResult(exit_code=EXIT_CANNOT_RUN, stderr=said, started=False)
        return self._session(process, step, host)

    def _session(
        self, process: subprocess.Popen[bytes], step: TransactionStep, host: HostAddress
    ) -> StepResult:
        """Send the script, keep what the session prints (bounded), until it ends, the wait
        runs out or a signal stops the step."""
        out, err = Kept(), Kept()
        limit = wait_seconds(self.settings)
        try:
            why = self._exchange(process, step, {process.stdout: out, process.stderr: err}, limit)
        except KeyboardInterrupt:
            why = "\ncoordinator: interrupted by the operator\n"
        if why is None:
            try:
                code = process.wait(command_seconds(self.settings))
                return StepResult(exit_code=code, stdout=out.text(), stderr=err.text())
            except subprocess.TimeoutExpired:
                why = ""  # its streams ended, the client never did
        self._abandon(process, host, {process.stdout: out, process.stderr: err})
        if why == "":
            why = f"\ncoordinator: no answer from {host.destination} within {limit} s\n"
            return StepResult(exit_code=None, stdout=out.text(), stderr=err.text() + why)
        return StepResult(exit_code=EXIT_INTERRUPTED, stdout=out.text(), stderr=err.text() + why)

    def _exchange(
        self,
        process: subprocess.Popen[bytes],
        step: TransactionStep,
        streams: dict[IO[bytes] | None, Kept],
        limit: float,
    ) -> str | None:
        """Feed the script and read both streams as they come. None: the session ended;
        ``""``: no answer within ``limit``; else the note of the signal that stopped it."""
        start = time.monotonic()
        deadline, tick = start + limit, self.ticks.first
        script = memoryview(step.script.encode())
        with selectors.DefaultSelector() as waiting:
            for pipe in (process.stdin, *streams):
                assert pipe is not None
                os.set_blocking(pipe.fileno(), False)
                waiting.register(
                    pipe, selectors.EVENT_WRITE if pipe is process.stdin else selectors.EVENT_READ
                )
            if self.interruptions is not None:
                waiting.register(self.interruptions.wake, selectors.EVENT_READ)
            while len(waiting.get_map()) > (self.interruptions is not None):
                stopped = self._stops(step)
                if stopped is not None:
                    return f"\ncoordinator: interrupted by {stopped}\n"
                now = time.monotonic()
                if now >= deadline:
                    return ""
                tick = self._waiting(step, now - start, tick, limit)
                for key, _ in waiting.select(min(deadline, start + tick) - now):
                    if key.fileobj is process.stdin:
                        script = self._feed(process.stdin, script, waiting)
                    elif key.fileobj in streams:
                        pipe = key.fileobj
                        data = os.read(key.fd, CHUNK)
                        if data:
                            streams[pipe].add(data)
                        else:
                            waiting.unregister(pipe)
        return None

    def _waiting(self, step: TransactionStep, elapsed: float, tick: float, limit: float) -> float:
        """Say ``step`` still waits once its ``tick`` has come; the next tick (never, with
        no ``progress`` to tell)."""
        if self.progress is None:
            return math.inf
        if elapsed < tick:
            return tick
        self.progress(progress_line(step, elapsed, limit))
        return self.ticks.after(elapsed)

    @staticmethod
    def _feed(stdin: IO[bytes], script: memoryview, waiting: selectors.BaseSelector) -> memoryview:
        """Write what the pipe takes of the script; closed once it is all sent (or the
        session stopped reading: what it did with part of it its sha256 check decides)."""
        try:
            sent = os.write(stdin.fileno(), script[:CHUNK])
        except BlockingIOError:
            return script
        except BrokenPipeError:
            sent = len(script)
        script = script[sent:]
        if not script:
            waiting.unregister(stdin)
            stdin.close()
        return script

    def _abandon(
        self,
        process: subprocess.Popen[bytes],
        host: HostAddress,
        streams: dict[IO[bytes] | None, Kept],
    ) -> None:
        """Stop a session: kill its client and close the host's connection (the master holds
        the session's pipes, and only closing the connection ends the session); the next
        step on the host opens a new one. An exit request that does not succeed within its
        timeout is killed; the control socket is then gone (removed if the master did not
        remove it), so the next step never reuses a master that is closing or may not answer
        (one left running ends with its host's connection)."""
        process.kill()
        request = _quiet(exit_argv(self.settings, host, self.control))
        closed = finished_within([request], command_seconds(self.settings))[0]
        # the master removes its socket a moment after it took the request: until then the
        # next step would take the closing master for an open one
        socket_path = Path(control_path(self.control, host))
        deadline = time.monotonic() + (DRAIN_SECONDS if closed else 0)
        while socket_path.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        socket_path.unlink(missing_ok=True)
        _drain(streams, DRAIN_SECONDS)
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        process.wait()


def render_dry_run(
    plan: TransactionPlan, settings: SshSettings, scripts: Path, attempts: int
) -> list[str]:
    """Every command the coordinator would run, in order, each stage script read from
    ``scripts/HOST/STAGE.sh``."""

    def line(step: TransactionStep) -> str:
        host = plan.host(step.rank)
        command = shlex.join(session_argv(settings, host, CONTROL, step))
        script = scripts / step.host_name / f"{step.stage.value}.sh"
        return f"{step.label}: {command} < {shlex.quote(str(script))}"

    forward = [s for s in plan.forward if s.stage is not Stage.COMMIT]
    commits = [s for s in plan.forward if s.stage is Stage.COMMIT]
    lines = [
        f"# planner apply {plan.arm} --dry-run: the coordinator's plan; nothing ran",
        f"# {CONTROL} is a private directory the run makes (mkdtemp) for its control sockets.",
        "# Each stage script goes on ssh's standard input; the host checks its sha256, takes",
        f"# {LOCK_PATH} and runs it with bash under timeout {settings.stage_timeout} s.",
        "## connections: one per host, opened before its first step, closed at the end",
        *(shlex.join(master_argv(settings, h, CONTROL)) for h in plan.hosts),
        *(shlex.join(exit_argv(settings, h, CONTROL)) for h in plan.hosts),
        "## forward, in this order; the first failure stops the run",
        *(f"{n}. {line(s)}" for n, s in enumerate(forward, 1)),
        f"## commit, once every step above succeeded (decided); each up to {attempts} attempts",
        *(f"{n}. {line(s)}" for n, s in enumerate(commits, len(forward) + 1)),
        "## after a failure: rollback on every touched host (preserve or apply started",
        "## there), the last changed first; then cleanup on each host rolled back",
        *(line(s) for s in reversed(plan.rollbacks)),
        *(line(s) for s in reversed(plan.cleanups)),
    ]
    return lines


def _phases(plan: TransactionPlan) -> list[tuple[int | None, str, TransactionStep]]:
    """Every step with its number (None: only after a failure) and phase, in print order."""
    forward = [s for s in plan.forward if s.stage is not Stage.COMMIT]
    commits = [s for s in plan.forward if s.stage is Stage.COMMIT]
    numbered = [*((s, "forward") for s in forward), *((s, "commit") for s in commits)]
    return [
        *((n, phase, s) for n, (s, phase) in enumerate(numbered, 1)),
        *((None, "rollback", s) for s in reversed(plan.rollbacks)),
        *((None, "cleanup", s) for s in reversed(plan.cleanups)),
    ]


def render_terse(plan: TransactionPlan, scripts: Path, attempts: int) -> list[str]:
    """The dry run in one line a step: number, stage, host and the sha256 of the script it
    sends (each line under 100 columns; ``-v`` prints every ssh argv instead)."""
    width = max(len(s.value) for s in Stage)
    lines = [
        f"# planner apply {plan.arm} --dry-run: the coordinator's plan; nothing ran",
        *(f"# host {h.spec()}" for h in plan.hosts),
        f"# scripts: {scripts}/HOST/STAGE.sh (each step sends one; -v prints each ssh command)",
    ]
    heads = {
        "forward": "## forward, in this order; the first failure stops the run",
        "commit": f"## commit, once every step above succeeded; each up to {attempts} attempts",
        "rollback": "## after a failure: rollback on every touched host, the last changed first",
        "cleanup": "## then cleanup on each host rolled back",
    }
    for n, phase, step in _phases(plan):
        if phase in heads:
            lines.append(heads.pop(phase))
        number = f"{n:>3}." if n is not None else "    "
        digest = script_sha256(step)
        lines.append(f"{number} {step.stage.value:<{width}} {step.host_name:<8} sha256 {digest}")
    return lines


def dry_run_document(
    plan: TransactionPlan, settings: SshSettings, scripts: Path, attempts: int
) -> ApplyDryRun:
    """The dry run as JSON (``--format json``; schema ``planner schema apply-dry-run``)."""
    commands = [
        CommandEntry(
            n=n,
            phase=phase,
            stage=step.stage,
            host=step.host_name,
            rank=step.rank,
            script_sha256=script_sha256(step),
            script_path=str(scripts / step.host_name / f"{step.stage.value}.sh"),
            argv=session_argv(settings, plan.host(step.rank), CONTROL, step),
        )
        for n, phase, step in _phases(plan)
    ]
    return ApplyDryRun(
        schema="gunbc-planner-apply-dry-run/1",
        planner_version=planner_version(),
        arm=plan.arm,
        hosts=tuple(
            HostEntry(host=h.host_name, rank=r, destination=h.destination, port=h.port)
            for r, h in enumerate(plan.hosts)
        ),
        connections=tuple(master_argv(settings, h, CONTROL) for h in plan.hosts),
        commands=tuple(commands),
        stage_timeout=settings.stage_timeout,
        commit_attempts=attempts,
    )


class ScriptsRefused(OSError):
    """``--scripts`` is no place to write a script set: why, in words (nothing was written;
    no errno, since the refusal is the planner's, not the system's)."""


def write_scripts(plan: TransactionPlan, scripts: Path) -> None:
    """Every stage script of ``plan`` as ``scripts/HOST/STAGE.sh``, all or nothing: the set
    is written into a temp directory beside ``scripts`` and synced, then renamed into place
    (a previous set is renamed aside first, and removed once the new one is in). On any
    failure the temp directory goes and whatever was at ``scripts`` stays as it was. An
    existing ``scripts`` that holds anything but a script set is refused, never replaced."""
    target = Path(os.path.realpath(scripts))
    _replaceable(target)
    make_parents(target)
    temp = Path(tempfile.mkdtemp(prefix=f".{target.name[:40]}.", dir=target.parent))
    try:
        for step in (*plan.forward, *plan.rollbacks, *plan.cleanups):
            write_atomically(temp / step.host_name / f"{step.stage.value}.sh", step.script)
        _synced(temp)
        os.chmod(temp, 0o777 & ~umask())  # mkdtemp's 0700 would hide the set from others
        _swap_in(temp, target)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _replaceable(target: Path) -> None:
    """Refuse a ``--scripts`` that is not a directory, holds anything but ``HOST/*.sh`` files
    (a replaced set is removed whole), or holds the working directory."""
    if not target.exists() and not target.is_symlink():
        return
    if not target.is_dir():
        raise ScriptsRefused("not a directory (nothing was written)")
    if _holds_working_directory(target):
        raise ScriptsRefused("it holds the working directory (nothing was written)")
    for host in target.iterdir():
        inside = list(host.iterdir()) if host.is_dir() and not host.is_symlink() else [host]
        for entry in inside:
            if entry == host or entry.suffix != ".sh" or not entry.is_file() or entry.is_symlink():
                raise ScriptsRefused(
                    f"it holds {printable(str(entry.relative_to(target)))}, which is not a "
                    "stage script of a previous set (nothing was written or replaced)",
                )


def _holds_working_directory(target: Path) -> bool:
    """Whether replacing ``target`` would remove the directory the operator stands in."""
    return Path.cwd().resolve().is_relative_to(target)


def _synced(root: Path) -> None:
    """fsync every file and directory under ``root`` (and it), so a set renamed into place
    is on disk whole."""
    for path in [*sorted(root.rglob("*"), reverse=True), root]:
        _fsync(path)


def _swap_in(temp: Path, target: Path) -> None:
    """Rename ``temp`` to ``target``; a previous set there is renamed aside first and removed
    after, or renamed back should the new one fail to go in."""
    aside: Path | None = None
    if target.exists():
        aside = Path(tempfile.mkdtemp(prefix=f".{target.name[:40]}.old.", dir=target.parent))
        os.rename(target, aside / "set")
    try:
        os.rename(temp, target)
    except BaseException:  # a Ctrl-C here too: the previous set goes back
        if aside is not None:
            os.rename(aside / "set", target)
            aside.rmdir()
        raise
    _fsync(target.parent)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def positive_count(text: str) -> int:
    """An option's whole number from 1 to 999999, spelled in ASCII digits (argparse's type)."""
    if not text.isascii() or not text.isdigit() or len(text) > 6 or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 999999, got {text!r}")
    return int(text)


EPILOG = f"""\
examples:
  planner apply v41_group_a --scenario supplied --dry-run \\
      --hosts srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8
  planner apply v41_group_a --authority log.jsonl --inputs inputs.json --hosts ... \\
      --identity ~/.ssh/id_ed25519
  planner apply v41_group_a --authority log.jsonl --inputs inputs.json --hosts ... --check
  planner apply --resume target/v41-group-a-apply.journal --identity ~/.ssh/id_ed25519

inputs: a real apply (no --dry-run) reads --authority at the wall clock, once before
preflight and once more just before the first commit; --inputs and --data are the
operator's own files. --scenario and --now substitute a fixture or a chosen time for that
live read: they are for --dry-run, or for tests that say so with --for-testing.

exit codes: {EXIT_COMMITTED} committed on every host; {EXIT_REFUSED} refused (not admitted; \
nothing ran);
{EXIT_USAGE} usage or input error (nothing ran); {EXIT_ROLLED_BACK} rolled back (a step failed, or \
admission no longer
held just before commit: every touched host restored, or none was touched);
{EXIT_NOT_RESTORED} not restored (a touched host's rollback or cleanup failed; named); \
{EXIT_COMMIT_PENDING} committed,
commit pending on a host (it runs the plan and keeps its backup).
--resume and --rollback exit alike ({EXIT_COMMITTED} also when the journal's transaction had \
already finished:
nothing runs); {EXIT_USAGE} for a missing, corrupt or locked journal, or --rollback past the \
commit point.

signals: SIGINT, SIGTERM or SIGHUP before the decision abandons the running step and rolls
back every touched host; during rollback, cleanup and commit they wait until every host is
done (only SIGKILL stops it then). The exit code is the report's; a line names the signals.

--check: plan as apply does (or bind --plan PLAN as apply does; admission is reported,
not required), then read every host over ssh (its unit file, unit and container state,
backups left over; its own preflight and readback, both read-only) and print per host
what apply would change. It writes nothing on a host and no journal. Exit codes:
{EXIT_COMMITTED} every host in sync and the plan admitted; {EXIT_WOULD_CHANGE} apply would \
change a host; {EXIT_UNCHECKED} a host could not
be checked (unreachable, or what it printed unreadable); {EXIT_REFUSED} not admitted, every \
host in sync;
{EXIT_USAGE} usage or input error; {EXIT_INTERRUPTED} a signal ended it.
"""


def add_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    arms: list[str],
    planning: argparse.ArgumentParser,
) -> None:
    """Register ``planner apply`` on the planner's subcommands; ``planning`` is the parent
    holding the planning options it shares with ``planner dry-run`` (:mod:`planner.options`)."""
    apply = commands.add_parser(
        "apply",
        help="run the transaction on the hosts over ssh (or print it: --dry-run)",
        description="Plan the arm as `planner dry-run` does; unless it is admitted, refuse and "
        "run nothing. Then, from this machine, run each host's stage scripts over ssh: "
        "preflight, preserve, apply (head first), readback and front door on every host, then "
        "commit everywhere; on the first failure, roll back every touched host in reverse "
        "order and clean up. Prints what ran and what each host was left in.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[planning],
    )
    apply.add_argument("arm", nargs="?", choices=arms, help="which arm to apply (or --recipe)")
    apply.add_argument(
        "--for-testing",
        action="store_true",
        help="for tests only: let a real apply read a --scenario's fixture log and inputs, or "
        "the log at --now, instead of --authority at the wall clock",
    )
    what = apply.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--hosts",
        help="every planned host's ssh address: HOST=USER@ADDRESS[:PORT],… (IPv6 in [])",
    )
    _journal_options(apply, what)
    apply.add_argument(
        "--dry-run",
        action="store_true",
        help="print the steps (one line each: stage, host, the sha256 of its script) and write "
        "the scripts; run nothing",
    )
    apply.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="with --dry-run: print every ssh command in full instead",
    )
    apply.add_argument(
        "--format",
        choices=("text", "json"),
        help="with --dry-run: json prints one document (schema: planner schema apply-dry-run)",
    )
    apply.add_argument(
        "--plan",
        metavar="PLAN",
        type=path_argument,
        help="apply exactly the plan `planner dry-run --plan-out PLAN` saved: refused (exit 2, "
        "naming it) if the planner, an input or the scripts changed, or it is not admitted now",
    )
    apply.add_argument(
        "--check",
        action="store_true",
        help="read every host over ssh and print what apply would change; change nothing "
        "(not with --dry-run)",
    )
    apply.add_argument(
        "--scripts",
        type=path_argument,
        help="where --dry-run writes the stage scripts "
        "(default: target/ARM-apply, the arm with dashes)",
    )
    apply.add_argument(
        "--ssh",
        default="ssh",
        help="the ssh client to run (default: ssh); a real apply needs it executable",
    )
    apply.add_argument(
        "--ssh-config",
        help="ssh -F FILE, or none (default: ssh's own config files); a real apply needs it",
    )
    apply.add_argument(
        "--identity", help="ssh -i FILE, and only that key (IdentitiesOnly); it must exist"
    )
    apply.add_argument(
        "--known-hosts", help="ssh UserKnownHostsFile (default: ssh's); it must exist"
    )
    apply.add_argument(
        "--connect-timeout",
        type=positive_count,
        default=DEFAULT_CONNECT_TIMEOUT,
        help=f"seconds to connect and authenticate (default: {DEFAULT_CONNECT_TIMEOUT})",
    )
    apply.add_argument(
        "--stage-timeout",
        type=positive_count,
        default=DEFAULT_STAGE_TIMEOUT,
        help=f"seconds a stage may run on its host (default: {DEFAULT_STAGE_TIMEOUT})",
    )
    apply.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help=f"say nothing while a step waits (default: a line on stderr {PROGRESS_FIRST} s "
        f"into a step, then every {PROGRESS_EVERY} s)",
    )
    apply.add_argument(
        "--commit-attempts",
        type=positive_count,
        default=COMMIT_ATTEMPTS,
        help=f"runs of a failing commit before it is left pending (default: {COMMIT_ATTEMPTS})",
    )


def _journal_options(
    apply: argparse.ArgumentParser, what: argparse._MutuallyExclusiveGroup
) -> None:
    """The journal a real apply writes, and the two ways to finish one (no planning input:
    the journal holds the plan; give the ssh options again)."""
    what.add_argument(
        "--resume",
        metavar="JOURNAL",
        type=path_argument,
        help="finish the transaction JOURNAL records (its coordinator was lost): commit "
        "every host once it was decided, else roll back every touched host",
    )
    what.add_argument(
        "--rollback",
        metavar="JOURNAL",
        type=path_argument,
        help="as --resume, but refuse (exit 2) once the commit point was passed",
    )
    apply.add_argument(
        "--journal",
        type=path_argument,
        help="where a real apply journals each step, synced as it goes "
        "(default: target/ARM-apply.journal, the arm with dashes)",
    )


def progress_of(args: argparse.Namespace) -> Callable[[str], None] | None:
    """Where the lines saying a step still waits go: stderr, or nowhere with ``--quiet``."""
    return None if args.quiet else to_stderr


def settings_of(args: argparse.Namespace) -> SshSettings:
    """The ssh settings the options give, each checked (:func:`check_ssh_options`)."""
    check_ssh_options(args, exist=not args.dry_run)
    return SshSettings(
        ssh=args.ssh,
        config=args.ssh_config,
        identity=args.identity,
        known_hosts=args.known_hosts,
        connect_timeout=args.connect_timeout,
        stage_timeout=args.stage_timeout,
    )


def _error(message: str) -> int:
    print(f"planner: error: {printable(message)}", file=sys.stderr)
    return EXIT_USAGE


_SSH_WORDS = re.compile(r"[^\s'\"%\\]+")
"""What ssh reads as one path in ``-o UserKnownHostsFile=`` and ``-i``: a space or a quote
splits the value into a list, and ``%`` starts one of ssh's own tokens."""


def check_ssh_options(args: argparse.Namespace, exist: bool) -> None:
    """``--ssh``, ``--identity``, ``--known-hosts`` and ``--ssh-config``: one path each with
    no control character, and (``exist``: a real run) the client an executable file, each
    file an existing regular file (``--ssh-config none`` is ssh's own "no config")."""
    files = (
        ("--identity", args.identity),
        ("--known-hosts", args.known_hosts),
        ("--ssh-config", args.ssh_config),
    )
    for option, value in (("--ssh", args.ssh), *files):
        if value is not None and (not value or not value.isprintable()):
            raise PlannerInputError(option, value, "give a path with no control character")
    for option, value in files[:2]:
        if value is not None and not _SSH_WORDS.fullmatch(value):
            raise PlannerInputError(
                option, value, "ssh would split it or expand it: no space, quote, % or \\"
            )
    if not exist:
        return
    found = shutil.which(args.ssh)
    if found is None or not Path(found).is_file():
        raise PlannerInputError("--ssh", args.ssh, "no executable file by that name")
    for option, value in files:
        if value is None or (option == "--ssh-config" and value == "none"):
            continue
        if not Path(value).is_file():
            what = "not a regular file" if Path(value).exists() else "no such file"
            raise PlannerInputError(option, value, what)


def check_live_read(args: argparse.Namespace) -> None:
    """A real apply admits on the authority log read at the wall clock: ``--scenario`` (a
    fixture's log and inputs) and ``--now`` (a chosen time) are for ``--dry-run``, or for a
    test that says so with ``--for-testing``."""
    if args.dry_run or args.for_testing:
        return
    for option, value in (("--scenario", args.scenario), ("--now", args.now)):
        if value is not None:
            raise PlannerInputError(
                "arguments",
                option,
                "a real apply reads --authority at the wall clock; "
                f"{option} is for --dry-run (or for tests: --for-testing)",
            )


def admission_gate(
    args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun], applied: TransactionPlan
) -> Callable[[], str | None]:
    """Admission asked again at the commit point: the plan made again from the same options
    (so the log is read again, at the wall clock) must still be admitted and still be the
    plan being applied. None when it holds; otherwise why not, one line."""

    def gate() -> str | None:
        try:
            again = plan(args)
            if not again.admitted:
                return "; ".join(r.line() for r in again.refusals)
            if plan_transaction(again, applied.hosts) != applied:
                return "the plan made again from the same options differs from the one applied"
        except PlannerInputError as exc:
            return f"its inputs could not be read again: {exc}"
        return None

    return gate


def run(args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]) -> int:
    """``planner apply``: plan, refuse unless admitted, then print or run the transaction."""
    if args.resume is not None or args.rollback is not None:
        return run_resume(args)
    if args.check:
        from planner import check  # it builds on this module: imported when asked for

        return check.run(args, plan)
    try:
        settings = settings_of(args)
        hosts = parse_hosts(args.hosts)
        if args.plan is not None:
            args, dry = _bound(args, plan)
        else:
            check_live_read(args)
            dry = plan(args)
        if not dry.admitted:
            return refused(dry, f"apply {dry.arm}: REFUSED: the plan is not admitted; nothing ran")
        transaction = plan_transaction(dry, hosts)
    except PlannerInputError as exc:
        return _error(str(exc))
    if args.dry_run:
        scripts = args.scripts or Path("target") / f"{dry.arm.replace('_', '-')}-apply"
        try:
            write_scripts(transaction, scripts)
        except OSError as exc:
            why = exc.strerror or str(exc)
            return _error(f"--scripts {scripts}: cannot write the stage scripts: {why}")
        _print_dry_run(args, transaction, settings, scripts)
        return EXIT_COMMITTED
    try:
        journal = journal_of(args, transaction, settings)
    except PlannerInputError as exc:
        return _error(str(exc))
    with journal:
        gate = admission_gate(args, plan, transaction)
        progress = progress_of(args)
        return execute(transaction, settings, args.commit_attempts, journal, gate, progress)


def refused(dry: DryRun, verdict: str) -> int:
    """Print every refusal of ``dry`` (each line, then its hint line), then ``verdict``, on
    stdout: what apply and ``apply --check`` say when they will not go on (exit 1)."""
    for line in (text for r in dry.refusals for text in r.lines()):
        print(printable(line))
    print(verdict)
    return EXIT_REFUSED


def _print_dry_run(
    args: argparse.Namespace, plan: TransactionPlan, settings: SshSettings, scripts: Path
) -> None:
    """The dry run as ``--format`` and ``-v`` ask: terse lines, every argv, or JSON."""
    if args.format == "json":
        document = dry_run_document(plan, settings, scripts, args.commit_attempts)
        print(document_json(document), end="")
        return
    if args.verbose:
        lines = render_dry_run(plan, settings, scripts, args.commit_attempts)
    else:
        lines = render_terse(plan, scripts, args.commit_attempts)
    for text in lines:
        print(printable(text))


SAVED_IN_PLAN = ("arm", "scenario", "authority", "inputs", "data", "recipe", "group", "name")
"""What ``--plan`` refuses beside it: the saved plan holds its request."""


def _bound(
    args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]
) -> tuple[argparse.Namespace, DryRun]:
    """``--plan PLAN``: the saved plan read and bound (:func:`planner.saved_plan.bind`); the
    options it is made again from (which the commit point's admission reads too), and the
    plan made again."""
    given = [n for n in SAVED_IN_PLAN if getattr(args, n, None) is not None]
    if given:
        named = ", ".join(n if n == "arm" else "--" + n for n in given)
        raise PlannerInputError("--plan", str(args.plan), f"holds its own inputs; drop {named}")
    saved = load_plan(args.plan)
    request = saved.request
    if not (args.dry_run or args.for_testing):
        for option, value in (("--scenario", request.scenario), ("--now", request.now)):
            if value is not None:
                raise PlannerInputError(
                    str(args.plan),
                    "request",
                    f"the plan was made with {option} {value}: a real apply reads --authority "
                    "at the wall clock; make the plan from --authority (tests: --for-testing)",
                )
        if args.now is not None:
            raise PlannerInputError("arguments", "--now", "is for --dry-run (or --for-testing)")
    again = request_args(saved, args.now if args.now is not None else request.now)
    merged = argparse.Namespace(**{**vars(args), **vars(again)})
    return merged, bind(saved, str(args.plan), again, plan)


def _say(text: str) -> None:
    """Print a line of the run's report; a terminal that went away (the operator's ssh
    session dropped: SIGHUP) never stops the transaction."""
    try:
        print(text, flush=True)
    except OSError:
        pass


def execute(
    transaction: TransactionPlan,
    settings: SshSettings,
    attempts: int,
    journal: Journal | None = None,
    gate: Gate | None = None,
    progress: Callable[[str], None] | None = None,
) -> int:
    """Run the transaction over ssh, each step printed as it ends (and journaled), then the
    report; ``gate`` is admission, asked again at the commit point; ``progress`` is told
    while a step still runs (:class:`SshTransport`). SIGINT, SIGTERM and
    SIGHUP stop the forward run (the step running is abandoned) and roll back; during
    rollback, cleanup and commit they are recorded and wait until every host is done. The
    exit code is the report's; a line names the signals received."""
    names = ", ".join(h.host_name for h in transaction.hosts)
    _say(f"apply {transaction.arm}: {len(transaction.hosts)} hosts ({names})")
    done: list[StepRecord] = []

    def run_step(step: TransactionStep) -> StepResult:
        result = transport(step)
        attempt = 1 + sum(r.step == step for r in done)
        done.append(StepRecord(step=step, attempt=attempt, result=result))
        _say(step_line(len(done), done[-1]))
        return result

    record = None if journal is None else journal.record
    with caught() as interruptions:
        with SshTransport(transaction, settings, interruptions, _say, progress) as transport:
            try:
                report = coordinate(transaction, run_step, attempts, gate=gate, on_event=record)
                if journal is not None:
                    journal.finish(report)
            except JournalError as exc:
                return _journal_failed(exc)
        for text in [*report.host_lines(), *signal_lines(report, interruptions.received)]:
            _say(text)
        _say(report.verdict())
    return report.exit_code


def signal_lines(report: TransactionReport, received: list[str]) -> list[str]:
    """What the signals the run received did, in one line (none without a signal)."""
    if not received:
        return []
    which = ", ".join(received)
    if not report.stopped:
        return [f"signals received: {which}: after the decision, so commit went on everywhere"]
    return [f"signals received: {which}: the first stopped the forward run; rollback went on"]


def journal_of(args: argparse.Namespace, plan: TransactionPlan, settings: SshSettings) -> Journal:
    """A real apply's new journal: ``--journal``, or ``target/ARM-apply.journal``."""
    path = args.journal or Path("target") / f"{plan.arm.replace('_', '-')}-apply.journal"
    return create(path, plan, settings.model_dump(), args.commit_attempts)


def _journal_failed(exc: JournalError) -> int:
    """The journal could not take a record: the run stops there (no step is sent unless its
    record is on disk), so the journal holds every step sent; hosts may be changed."""
    print(
        f"planner: error: journal {printable(str(exc.filename))}: {printable(exc.strerror or '')}"
        "; the transaction stopped and hosts may be changed: once the journal can be written "
        f"again, finish it with planner apply --resume {printable(str(exc.filename))}",
        file=sys.stderr,
    )
    return EXIT_NOT_RESTORED


PLANNING_INPUTS = (
    "arm", "scenario", "authority", "inputs", "now", "data", "recipe", "group", "name",
    "dry_run", "scripts", "journal", "for_testing", "plan", "check",
)  # fmt: skip
"""What ``--resume`` and ``--rollback`` refuse: the journal holds the plan."""


def run_resume(args: argparse.Namespace) -> int:
    """``planner apply --resume JOURNAL`` (or ``--rollback``): finish what JOURNAL records."""
    mode: Literal["resume", "rollback"] = "resume" if args.resume is not None else "rollback"
    path: Path = args.resume if args.resume is not None else args.rollback
    given = [n for n in PLANNING_INPUTS if getattr(args, n, None) not in (None, False)]
    if given:
        named = ", ".join(n if n == "arm" else "--" + n.replace("_", "-") for n in given)
        return _error(f"--{mode} takes no planning inputs (the journal holds the plan): {named}")
    try:
        journal, state = take_up(path)
    except PlannerInputError as exc:
        return _error(str(exc))
    with journal:
        settled = _nothing_to_run(journal, state, mode)
        return settled if settled is not None else _finish(journal, state, mode, args)


def _nothing_to_run(
    journal: Journal, state: JournalState, mode: Literal["resume", "rollback"]
) -> int | None:
    """What a journal that leaves no step to run says before anything connects: a rollback
    once the journal records the decision is refused (exit 2), a finished transaction is
    said so (exit 0); None when there is a step to run."""
    where = printable(str(journal.path))
    if mode == "rollback" and state.decided:
        return _error(
            f"--rollback {where}: the commit point was passed (the journal records the "
            "decision): the transaction commits; finish it with --resume"
        )
    if state.finished is not None:
        print(
            f"apply {state.plan.transaction.arm}: {where}: the transaction already finished "
            f"(exit {state.finished.exit_code}); nothing to do"
        )
        return EXIT_COMMITTED
    return None


def _finish(
    journal: Journal,
    state: JournalState,
    mode: Literal["resume", "rollback"],
    args: argparse.Namespace,
) -> int:
    """Finish over ssh what the journal left: rollback and cleanup before the decision,
    commit after it."""
    plan = state.plan.transaction
    where = printable(str(journal.path))
    names = ", ".join(h.host_name for h in plan.hosts)
    point = "past the commit point" if state.decided else "before the commit point"
    _say(f"apply {plan.arm}: {mode} {where}: {len(plan.hosts)} hosts ({names}), {point}")
    count = len(history(state))
    done: list[StepRecord] = []

    def run_step(step: TransactionStep) -> StepResult:
        result = transport(step)
        attempt = 1 + sum(r.step == step for r in done)
        done.append(StepRecord(step=step, attempt=attempt, result=result))
        _say(step_line(count + len(done), done[-1]))
        return result

    # a resume runs only rollback, cleanup and commit: signals wait until every host is done
    with caught() as interruptions:
        settings = settings_of(args)
        with SshTransport(plan, settings, interruptions, _say, progress_of(args)) as transport:
            try:
                report = resume(journal, state, run_step, args.commit_attempts, mode)
            except JournalError as exc:
                return _journal_failed(exc)
        for text in [*report.host_lines(), *signal_lines(report, interruptions.received)]:
            _say(text)
        _say(verdict(state, report))
    return report.exit_code
