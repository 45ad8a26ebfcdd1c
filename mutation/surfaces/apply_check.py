"""Declared mutants of ``planner apply --check`` (witness ``apply_check``).

Each is one careless edit of :mod:`planner.check`: a parser that lets a host print a field
twice or reads its unit file as text, a comparison that forgets a difference or takes a unit
of the right size for the planned one, a diff or a host's text shown whole or raw, an
argument counted from one, exit codes in another order, a journal taken and dropped;
``--resume`` taking ``--check`` without a word; the command compared as docker never
prints it (:func:`planner.apply.go_json`, which readback shares); and a check that gives up
at the first host nothing answers. (What reads a host that answers, the probe script and the
sessions, is tested on the sshd fleet by tests/test_apply_check_fleet.py, not declared here:
see the witness's docstring.)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from mutation import mutant
from planner.apply import go_json
from planner.arm_launch import DryRun
from planner.check import (
    LINE_WIDTH,
    Change,
    Drift,
    HostCheck,
    HostProbe,
    PlannedHost,
    ProbedUnit,
    Verdict,
    argv_difference,
    check_host,
    drift,
    exit_code,
    parse_probe,
    planned_hosts,
    run,
    unit_diff,
)
from planner.coordinator import (
    EXIT_WOULD_CHANGE,
    SshSettings,
    SshTransport,
    caught,
    run_resume,
)
from planner.transaction import RunStep, TransactionPlan

W = "apply_check"
PROBE_REFUSED = f"{W}.probe_output_the_probe_does_not_print_is_refused_saying_why"
HOST_BYTES = f"{W}.bytes_a_host_controls_stay_inside_their_field"
DRIFT = f"{W}.drift_names_exactly_each_difference_and_nothing_in_sync"
SHOWN = f"{W}.what_a_host_controls_is_shown_escaped_and_bounded"
EXITS = f"{W}.the_exit_code_and_summary_put_what_was_not_read_first"
OPTIONS = f"{W}.check_refuses_a_dry_run_and_a_journal_and_resume_refuses_check"
COMMAND = f"{W}.a_command_is_compared_as_docker_prints_it_whatever_it_holds"
UNREACHABLE = f"{W}.every_host_is_tried_and_each_one_nothing_answers_is_listed_with_ssh_s_reason"


@mutant(replaces="planner.check.parse_probe", turns_red={PROBE_REFUSED})
def a_field_given_twice_keeps_its_last_value(stdout: str) -> HostProbe:
    """A field the host prints twice is read, its last line winning: a host forges a field
    by printing it again."""
    lines = stdout.split("\n")
    keys = [line.partition(" ")[0] for line in lines]
    kept = [line for i, line in enumerate(lines) if not line or keys[i] not in keys[i + 1 :]]
    return parse_probe("\n".join(kept))


@mutant(replaces="planner.check.parse_probe", turns_red={HOST_BYTES})
def the_unit_file_is_read_as_text(stdout: str) -> HostProbe:
    """The unit file's bytes are decoded as UTF-8 and encoded again: bytes that are not
    UTF-8 read as U+FFFD, not as the host holds them."""
    probe = parse_probe(stdout)
    if probe.unit is None:
        return probe
    text = probe.unit.head.decode("utf-8", errors="replace").encode()
    return probe.model_copy(update={"unit": probe.unit.model_copy(update={"head": text})})


@mutant(replaces="planner.check.drift", turns_red={DRIFT})
def a_unit_of_the_planned_size_is_the_planned_unit(plan: PlannedHost, probe: HostProbe) -> Drift:
    """A unit file as long as the planned one is taken for it: a byte changed in place
    goes unseen."""
    planned = plan.unit_text.encode()
    if probe.unit is not None and probe.unit.size == len(planned):
        probe = probe.model_copy(update={"unit": ProbedUnit(size=len(planned), head=planned)})
    return drift(plan, probe)


def _without(change: Change, found: Drift) -> Drift:
    kept = tuple(d for d in found.differences if d.change is not change)
    return found.model_copy(update={"differences": kept})


@mutant(replaces="planner.check.drift", turns_red={DRIFT})
def a_stopped_container_is_as_planned(plan: PlannedHost, probe: HostProbe) -> Drift:
    """A planned container that is not running is no difference."""
    return _without(Change.NOT_RUNNING, drift(plan, probe))


@mutant(replaces="planner.check.drift", turns_red={DRIFT, SHOWN})
def leftovers_are_not_reported(plan: PlannedHost, probe: HostProbe) -> Drift:
    """What an earlier apply left over (a preserved container, a landing unit, backups) is
    no difference."""
    return _without(Change.LEFT_OVER, drift(plan, probe))


@mutant(replaces="planner.check.unit_diff", turns_red={SHOWN})
def the_unit_diff_is_shown_whole(
    planned: str, found: bytes, where: str, limit: int = 40
) -> tuple[str, ...]:
    """A unit's diff is never cut: a host's huge unit file floods the report."""
    return unit_diff(planned, found, where, limit=10**9)


@mutant(replaces="planner.check.shown", turns_red={SHOWN})
def host_text_is_shown_raw(text: str, width: int = LINE_WIDTH) -> str:
    """Text a host controls is cut to its width but not escaped: its control characters
    reach the operator's terminal."""
    return text if len(text) <= width else text[: width - 1] + "…"


@mutant(replaces="planner.check.argv_difference", turns_red={DRIFT})
def arguments_are_counted_from_one(
    planned_json: str, found_json: str
) -> tuple[str, tuple[str, ...]]:
    """The first argument that differs is numbered from 1, not as the argv's index."""
    where, pairs = argv_difference(planned_json, found_json)
    if where.startswith("argument "):
        where = f"argument {int(where.split()[1]) + 1}"
    return where, pairs


@mutant(replaces="planner.check.exit_code", turns_red={EXITS})
def a_host_that_would_change_outranks_one_not_checked(
    checks: tuple[HostCheck, ...], admitted: bool, signals: list[str]
) -> int:
    """A host that would change decides the exit code (3) before a host that could not be
    checked (4): a script reading 3 applies to a fleet it never saw whole."""
    if not signals and any(c.verdict is Verdict.WOULD_CHANGE for c in checks):
        return EXIT_WOULD_CHANGE
    return exit_code(checks, admitted, signals)


@mutant(replaces="planner.check.exit_code", turns_red={EXITS})
def a_plan_not_admitted_exits_0_in_sync(
    checks: tuple[HostCheck, ...], admitted: bool, signals: list[str]
) -> int:
    """Admission is left out of the exit code: a plan apply would refuse exits 0 in sync."""
    return exit_code(checks, True, signals)


@mutant(replaces="planner.check.run", turns_red={OPTIONS})
def a_journal_is_taken_and_dropped(
    args: argparse.Namespace, plan: Callable[[argparse.Namespace], DryRun]
) -> int:
    """``--check --journal`` runs the check and writes no journal, without a word."""
    return run(argparse.Namespace(**{**vars(args), "journal": None}), plan)


@mutant(replaces="planner.coordinator.run_resume", turns_red={OPTIONS})
def resume_drops_check(args: argparse.Namespace) -> int:
    """``--resume`` (or ``--rollback``) with ``--check`` finishes the journal's transaction:
    the operator asked to look and it changes hosts."""
    return run_resume(argparse.Namespace(**{**vars(args), "check": False}))


@mutant(replaces="planner.apply.go_json", turns_red={COMMAND})
def a_line_separator_is_compared_raw(values: tuple[str, ...]) -> str:
    """U+2028 is expected as itself, as Python's encoder writes it; docker escapes it, so a
    container whose command holds one never reads back as planned."""
    return go_json(values).replace("\\u2028", "\u2028")


@mutant(
    replaces="planner.check.check_host",
    turns_red={f"{W}.each_host_is_judged_from_what_its_probe_preflight_and_readback_answered"},
)
def a_host_is_judged_by_its_probe_alone(
    plan: PlannedHost, transaction: TransactionPlan, run_step: RunStep, stopped: Callable[[], bool]
) -> HostCheck:
    """The verdict reads only what the probe found: a host whose readback fails (its
    container runs, but not as planned in a way the probe does not read) is in sync, and
    apply's own readback then fails on a host the check called in sync."""
    check = check_host(plan, transaction, run_step, stopped)
    found = check.drift is not None and check.drift.differences
    if check.verdict is Verdict.WOULD_CHANGE and not found:
        return check.model_copy(update={"verdict": Verdict.IN_SYNC})
    return check


@mutant(replaces="planner.check.check_hosts", turns_red={UNREACHABLE})
def the_check_gives_up_at_the_first_host_nothing_answers(
    dry: DryRun,
    transaction: TransactionPlan,
    settings: SshSettings,
    progress: Callable[[str], None] | None = None,
) -> tuple[tuple[HostCheck, ...], list[str]]:
    """A host that does not answer ends the check: the hosts after it are never tried, and
    the operator reads one unreachable host where several are down."""
    checks: list[HostCheck] = []
    with caught() as interruptions:
        with SshTransport(transaction, settings, interruptions, progress=progress) as transport:
            for plan in planned_hosts(dry):
                checks.append(
                    check_host(plan, transaction, transport, lambda: bool(interruptions.received))
                )
                for line in checks[-1].lines():
                    print(line, flush=True)
                if checks[-1].verdict is Verdict.UNREACHABLE:
                    break
        return tuple(checks), list(interruptions.received)
