"""Declared mutants of the coordinator's ssh transport (witness ``ssh_transport``): each
replaces one method of :class:`planner.coordinator.SshTransport`, or a function it runs,
with a defect seen only over a real connection."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path
from types import TracebackType
from typing import IO

from mutation import mutant
from planner.coordinator import (
    EXIT_CANNOT_RUN,
    REMOTE_SCRIPT,
    Kept,
    SshSettings,
    SshTransport,
    Ticks,
    control_path,
    exit_argv,
    finished_within,
    progress_line,
    remote_command,
)
from planner.transaction import HostAddress, StepResult, TransactionStep

W = "ssh_transport"
ONE_CONNECTION = f"{W}.a_step_runs_on_its_host_over_one_connection_and_returns_what_it_printed"
HUNG = f"{W}.a_hung_exit_request_is_killed_and_the_step_fails_with_no_answer"
OVER_SSH = f"{W}.planner_apply_runs_each_step_over_ssh_and_reports_what_it_left"
SIGNAL = f"{W}.a_signal_abandons_a_forward_step_and_lets_a_rollback_run"
CANNOT_START = f"{W}.an_ssh_client_that_cannot_be_started_fails_the_step_with_127_unstarted"


@mutant(replaces="planner.coordinator.SshTransport.close", turns_red={ONE_CONNECTION})
def connections_left_open(self: SshTransport) -> None:
    """Closing the transport removes its control directory but never sends ``ssh -O
    exit``: every host's connection stays up, unreachable, until ControlPersist ends it."""
    self.opened.clear()
    if self.control:
        shutil.rmtree(self.control, ignore_errors=True)


@mutant(
    replaces="planner.coordinator.SshTransport.close",
    turns_red={
        OVER_SSH,
        # its unbounded exit requests hang on the host that hangs them
        HUNG,
    },
    independent=False,
)
def ssh_tells_the_terminal_each_connection_it_closed(self: SshTransport) -> None:
    """Closing a connection lets ``ssh -O exit`` write to the coordinator's own stderr: every
    apply ends with ssh's ``Exit request sent.`` on the operator's terminal, once per host."""
    for host in (self.plan.host(rank) for rank in sorted(self.opened)):
        if Path(control_path(self.control, host)).exists():
            subprocess.run(exit_argv(self.settings, host, self.control), check=False, timeout=30)
    self.close()  # the dispatcher runs the original from here: nothing is left open to close


@mutant(
    replaces="planner.coordinator.SshTransport.__exit__", turns_red={ONE_CONNECTION, OVER_SSH, HUNG}
)
def leaving_the_transport_closes_nothing(
    self: SshTransport,
    kind: type[BaseException] | None,
    error: BaseException | None,
    trace: TracebackType | None,
) -> None:
    """Leaving the transport does nothing: every connection stays open and the private
    control directory with its sockets stays in the temp directory."""


@mutant(
    replaces="planner.coordinator.remote_command",
    turns_red={ONE_CONNECTION, f"{W}.a_stage_that_outlives_its_timeout_is_killed_with_124"},
)
def stage_timeout_read_as_minutes(step: TransactionStep, settings: SshSettings) -> str:
    """The host reads the stage timeout as minutes (``timeout 60m``): a stage that hangs
    holds the host's apply lock sixty times longer than ``--stage-timeout`` says."""
    late = REMOTE_SCRIPT.replace('"$grace" "$limit" flock', '"$grace" "${limit}m" flock')
    return remote_command(step, settings).replace(REMOTE_SCRIPT, late)


@mutant(
    replaces="planner.coordinator.wait_seconds",
    turns_red={f"{W}.a_step_that_never_answers_is_abandoned_after_the_wait", HUNG},
)
def no_margin_in_the_wait(settings: SshSettings) -> int:
    """The coordinator gives up on a step the moment its stage could have been killed, with
    no margin for the exit status to travel back: a stage killed on time can be reported
    as no answer."""
    return settings.stage_timeout + settings.kill_after + settings.connect_timeout


@mutant(
    replaces="planner.coordinator.SshTransport.__call__",
    turns_red={f"{W}.an_interrupted_step_fails_with_130_and_the_next_one_runs", SIGNAL},
)
def ctrl_c_reported_as_no_answer(self: SshTransport, step: TransactionStep) -> StepResult:
    """A Ctrl-C (or any signal) during a step is reported as a host that did not answer (no
    exit status), so the report blames the host for what the operator did."""
    result = self(step)  # the dispatcher runs the original from here
    if result.exit_code == 130:
        return result.model_copy(update={"exit_code": None})
    return result


@mutant(
    replaces="planner.coordinator.SshTransport._connect",
    turns_red={f"{W}.a_connection_that_went_away_is_opened_again"},
)
def a_lost_connection_is_never_reopened(self: SshTransport, host: HostAddress) -> StepResult | None:
    """Each host's connection is opened once per run: once it has gone (dropped, or closed
    after a step that did not answer), every later step there makes a connection of its
    own, authenticating again each time."""
    marker = Path(self.control) / f"{host.host_name}.opened"
    if marker.exists():
        return None
    marker.write_text("")
    return self._connect(host)  # the dispatcher runs the original from here


@mutant(
    replaces="planner.coordinator.SshTransport._connect",
    turns_red={f"{W}.an_unknown_host_key_or_a_closed_port_fails_the_step_with_255", CANNOT_START},
    independent=False,
)
def a_failed_connection_is_reported_as_no_answer(
    self: SshTransport, host: HostAddress
) -> StepResult | None:
    """A connection ssh refused (a host key it does not know, a closed port), or an ssh that
    could not start, is reported as a host that did not answer, hiding the reason."""
    if Path(control_path(self.control, host)).exists():
        return None
    failed = self._connect(host)  # the dispatcher runs the original from here
    return None if failed is None else StepResult(exit_code=None)


@mutant(replaces="planner.coordinator.finished_within", turns_red={HUNG})
def a_hung_exit_request_escapes(
    processes: list[subprocess.Popen[bytes] | None], seconds: float
) -> list[bool]:
    """An exit request still running at its timeout is killed and its timeout raised, as
    ``subprocess.run(timeout=…)`` does: abandoning a step whose host hangs ``ssh -O exit``
    ends the coordinator with an internal error, and nothing is rolled back."""
    for process in processes:
        if process is not None:
            try:
                process.wait(seconds)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise
    return finished_within(processes, seconds)  # the dispatcher runs the original from here


@mutant(
    replaces="planner.coordinator.Kept.add",
    turns_red={f"{W}.a_step_keeps_the_first_and_last_64_kib_of_each_stream"},
)
def every_byte_a_host_prints_is_kept(self: Kept, data: bytes) -> None:
    """Everything a step prints is kept, however much: a host printing without end takes
    the coordinator's memory with it."""
    self.total += len(data)
    self.head += data


@mutant(replaces="planner.coordinator.SshTransport._exchange", turns_red={SIGNAL})
def a_signal_is_noticed_only_between_steps(
    self: SshTransport,
    process: subprocess.Popen[bytes],
    step: TransactionStep,
    streams: dict[IO[bytes] | None, Kept],
    limit: float,
) -> str | None:
    """The wait on a step does not listen for signals: a SIGTERM during a stage that runs for
    half an hour (a front door) waits for it to end before the coordinator rolls back."""
    interruptions, self.interruptions = self.interruptions, None
    try:
        return self._exchange(process, step, streams, limit)  # the original, from here
    finally:
        self.interruptions = interruptions


@mutant(
    replaces="planner.coordinator.remote_command",
    turns_red={f"{W}.a_script_cut_short_in_transit_exits_97_and_never_runs", ONE_CONNECTION},
    independent=False,
)
def run_a_script_that_arrived_incomplete(step: TransactionStep, settings: SshSettings) -> str:
    """The host runs whatever part of the script arrived, without checking its sha256: a
    connection cut mid-transfer runs half a stage (here half of apply: it fails part way, and
    rollback happens to restore the host)."""
    check = REMOTE_SCRIPT.index("if ! echo")
    end = REMOTE_SCRIPT.index("fi; ") + len("fi; ")
    unchecked = REMOTE_SCRIPT[:check] + REMOTE_SCRIPT[end:]
    return remote_command(step, settings).replace(REMOTE_SCRIPT, unchecked)


@mutant(
    replaces="planner.coordinator.SshTransport._waiting",
    turns_red={f"{W}.a_step_still_running_says_so_at_each_tick"},
)
def progress_gives_the_stage_timeout_as_the_wait(
    self: SshTransport, step: TransactionStep, elapsed: float, tick: float, limit: float
) -> float:
    """The progress line says a step gives up after its stage timeout, not after the
    coordinator's whole wait (the kill grace, the connect timeout and 2 s more): the operator
    reads a deadline that passes while the step still waits."""
    if self.progress is None:
        return math.inf
    if elapsed < tick:
        return tick
    self.progress(progress_line(step, elapsed, self.settings.stage_timeout))
    return self.ticks.after(elapsed)


@mutant(replaces="planner.coordinator.SshTransport._connect", turns_red={CANNOT_START})
def an_ssh_that_cannot_start_is_a_host_with_no_answer(
    self: SshTransport, host: HostAddress
) -> StepResult | None:
    """An ssh client the coordinator cannot start is reported as a host that never answered:
    the operator goes looking at the network, not at the client."""
    failed = self._connect(host)  # the dispatcher runs the original from here
    if failed is not None and failed.exit_code == EXIT_CANNOT_RUN:
        return StepResult(exit_code=None, stderr=f"{host.destination}: no answer")
    return failed


@mutant(
    replaces="planner.coordinator.Ticks.after",
    turns_red={f"{W}.a_waiting_step_says_so_first_at_the_first_tick_then_at_every_interval"},
)
def a_tick_reached_is_the_next_one(self: Ticks, elapsed: float) -> float:
    """A step exactly at a tick is told that tick again as its next one: the transport
    says it is waiting twice at the same moment, then waits a whole interval short."""
    if elapsed <= self.first:
        return self.first
    return self.first + -(-(elapsed - self.first) // self.every) * self.every
