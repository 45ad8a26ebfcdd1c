"""The transaction's plan and decisions (planner/transaction.py), and its ssh commands.

``coordinate`` takes the function that runs a step as its input; these tests give it one that
answers from a table, to reach the decisions no fleet fault reaches (a rollback that fails, a
commit that fails every attempt). The fleet runs the real thing (test_transaction_fleet.py).
"""

from __future__ import annotations

import hashlib
import shlex

import pytest

from fixtures.builders import v41_dry_run
from planner.apply import FORWARD_STAGES, Stage
from planner.coordinator import SshSettings, remote_command, session_argv, wait_seconds
from planner.refusal import PlannerInputError
from planner.transaction import (
    EXIT_COMMIT_PENDING,
    EXIT_COMMITTED,
    EXIT_NOT_RESTORED,
    EXIT_ROLLED_BACK,
    HostAddress,
    HostFinal,
    StepResult,
    TransactionPlan,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
)

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6:2222,srv7=ops@[fd00::7]:22,srv8=root@srv8.lan"


def _plan() -> TransactionPlan:
    return plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))


def test_hosts_parse_into_addresses_with_default_port() -> None:
    hosts = parse_hosts(HOSTS)
    assert [(h.host_name, h.user, h.address, h.port) for h in hosts] == [
        ("srv5", "root", "10.0.0.5", 22),
        ("srv6", "root", "10.0.0.6", 2222),
        ("srv7", "ops", "fd00::7", 22),
        ("srv8", "root", "srv8.lan", 22),
    ]
    assert hosts[2].spec() == "srv7=ops@[fd00::7]:22"


@pytest.mark.parametrize(
    ("text", "item", "message"),
    [
        ("", "", "HOST=USER@ADDRESS"),
        ("srv5=root@10.0.0.5,,srv6=root@x", "srv5=root@10.0.0.5,,srv6=root@x", "comma"),
        ("srv5", "srv5", "expected HOST=USER@ADDRESS[:PORT]"),
        ("srv5=10.0.0.5", "srv5=10.0.0.5", "name the ssh user"),
        ("srv5=Root;rm@10.0.0.5", "srv5=Root;rm@10.0.0.5", "'Root;rm' is not a user name"),
        ("srv5=root@-oProxyCommand=x", "srv5=root@-oProxyCommand=x", "not a host name"),
        ("srv5=root@10.0.0.5:", "srv5=root@10.0.0.5:", "no port after it"),
        ("srv5=root@10.0.0.5:0", "srv5=root@10.0.0.5:0", "port 0 is outside 1..65535"),
        ("srv5=root@10.0.0.5:22x", "srv5=root@10.0.0.5:22x", "port '22x' is not a number"),
        ("srv5=root@[fd00::7", "srv5=root@[fd00::7", "not a bracketed IPv6 address"),
        ("srv5=root@[fd00::7]:", "srv5=root@[fd00::7]:", "a ':' with no port after it"),
        ("srv5=root@[fd00::7]22", "srv5=root@[fd00::7]22", "expected ':PORT' after ]: '22'"),
        ("srv5=root@a,srv5=root@b", "srv5=root@b", "host srv5 is named twice"),
        ("srv5=root@[:]", "srv5=root@[:]", "'[:]' is not a bracketed IPv6 address"),
        ("srv5=root@[]", "srv5=root@[]", "'[]' is not a bracketed IPv6 address"),
        ("srv5=root@[::1", "srv5=root@[::1", "'[::1' is not a bracketed IPv6 address"),
        ("srv5=root@[1:2:3]", "srv5=root@[1:2:3]", "not a bracketed IPv6 address"),
        ("srv5=root@[fd00::7%a;b]", "srv5=root@[fd00::7%a;b]", "not a bracketed IPv6 address"),
        ("srv5=root@999.0.0.1", "srv5=root@999.0.0.1", "'999.0.0.1' is not an IPv4 address"),
        # an IPv6 address without brackets is said to be one, never "port ':1' is not a number"
        ("srv5=root@::1", "srv5=root@::1", "'::1' holds more than one ':': an IPv6 address"),
        ("srv5=root@fd00::7:22", "srv5=root@fd00::7:22", "must be in brackets, as in root@[::1]"),
        (
            "srv5=root@10.0.0.5,srv6=root@10.0.0.5:22",
            "srv6=root@10.0.0.5:22",
            "srv6 and srv5 are one ssh destination (10.0.0.5 port 22)",
        ),
        (
            "srv5=root@[fd00::7],srv6=ops@[fd00:0::7]:22",
            "srv6=ops@[fd00:0::7]:22",
            "srv6 and srv5 are one ssh destination (fd00::7 port 22)",
        ),
        (
            "srv5=root@Srv8.lan:2222,srv6=root@srv8.LAN:2222",
            "srv6=root@srv8.LAN:2222",
            "srv6 and srv5 are one ssh destination (srv8.lan port 2222)",
        ),
    ],
)
def test_bad_hosts_are_located_errors(text: str, item: str, message: str) -> None:
    with pytest.raises(PlannerInputError) as caught:
        parse_hosts(text)
    assert caught.value.source == "--hosts"
    assert caught.value.where == item
    assert message in caught.value.message


def test_one_address_on_two_ports_or_an_ipv6_with_a_zone_is_two_hosts() -> None:
    hosts = parse_hosts("srv5=root@10.0.0.5,srv6=root@10.0.0.5:2222,srv7=root@[fe80::1%eth0]")
    assert [(h.address, h.port) for h in hosts] == [
        ("10.0.0.5", 22),
        ("10.0.0.5", 2222),
        ("fe80::1%eth0", 22),
    ]


def test_the_plan_names_every_planned_host_exactly() -> None:
    run = v41_dry_run("supplied")
    with pytest.raises(PlannerInputError) as caught:
        plan_transaction(run, parse_hosts("srv5=root@a,srv6=root@b,srv9=root@c"))
    assert caught.value.message == (
        "no address for srv7, srv8; srv9 not in the plan (the plan's hosts: srv5, srv6, srv7, srv8)"
    )


def test_forward_steps_are_the_planners_order_with_commit_last() -> None:
    plan = _plan()
    run = v41_dry_run("supplied")
    expected = [(s.stage, s.rank, s.script) for s in run.apply_order if s.stage in FORWARD_STAGES]
    assert [(s.stage, s.rank, s.script) for s in plan.forward] == expected
    assert [s.stage for s in plan.forward[-4:]] == [Stage.COMMIT] * 4
    assert [(s.stage, s.rank) for s in plan.rollbacks] == [(Stage.ROLLBACK, r) for r in range(4)]
    assert plan.preserve_dirs[0] == "/var/lib/gunbc/preserve/v41_group_a/gunbc-v41-tp4-head"


def _answers(failing: dict[tuple[Stage, int], list[int | None]]) -> tuple[list[str], object]:
    """A step runner that answers 0 unless ``failing`` lists the exit statuses of the next
    runs of that (stage, rank); the steps it ran, in order."""
    ran: list[str] = []

    def run_step(step: TransactionStep) -> StepResult:
        ran.append(step.label)
        codes = failing.get((step.stage, step.rank), [])
        code = codes.pop(0) if codes else 0
        return StepResult(exit_code=code, stderr="" if code == 0 else "it failed\n")

    return ran, run_step


def test_a_rollback_that_fails_keeps_the_others_going_and_is_never_cleaned_up() -> None:
    ran, run_step = _answers({(Stage.READBACK, 1): [1], (Stage.ROLLBACK, 2): [1]})
    report = coordinate(_plan(), run_step)  # type: ignore[arg-type]
    assert ran[-7:] == [
        "rollback@srv8",
        "rollback@srv7",
        "rollback@srv6",
        "rollback@srv5",
        "cleanup@srv8",
        "cleanup@srv6",
        "cleanup@srv5",
    ]
    assert report.finals[2] is HostFinal.ROLLBACK_FAILED
    assert report.exit_code == EXIT_NOT_RESTORED
    lines = report.lines()
    assert (
        "  srv7 (rank 2): rollback failed: its state is unknown; what preserve saved stays in "
        "/var/lib/gunbc/preserve/v41_group_a/gunbc-v41-tp4-rank; "
        "ran: preflight, preserve, apply, rollback"
    ) in lines
    assert lines[-1] == (
        "apply v41_group_a: NOT RESTORED: readback@srv6 failed (exit 1: it failed); "
        "srv7 not restored"
    )


def test_a_commit_that_fails_every_attempt_is_left_pending() -> None:
    ran, run_step = _answers({(Stage.COMMIT, 3): [1, 255, None]})
    report = coordinate(_plan(), run_step, commit_attempts=3)  # type: ignore[arg-type]
    assert ran[-3:] == ["commit@srv8"] * 3
    assert report.finals == (HostFinal.COMMITTED,) * 3 + (HostFinal.COMMIT_PENDING,)
    assert report.exit_code == EXIT_COMMIT_PENDING
    assert report.verdict() == "apply v41_group_a: COMMITTED, commit pending on srv8"


def test_a_failure_before_any_change_rolls_nothing_back() -> None:
    ran, run_step = _answers({(Stage.PREFLIGHT, 3): [1]})
    report = coordinate(_plan(), run_step)  # type: ignore[arg-type]
    assert ran == ["preflight@srv5", "preflight@srv6", "preflight@srv7", "preflight@srv8"]
    assert report.finals == (HostFinal.UNTOUCHED,) * 4
    assert report.exit_code == EXIT_ROLLED_BACK
    assert report.verdict().startswith("apply v41_group_a: STOPPED: preflight@srv8 failed")


def test_a_clean_run_exits_committed() -> None:
    ran, run_step = _answers({})
    report = coordinate(_plan(), run_step)  # type: ignore[arg-type]
    assert len(ran) == 24 and report.exit_code == EXIT_COMMITTED


def test_every_session_carries_strict_host_key_checking_and_the_scripts_sha256() -> None:
    plan = _plan()
    step = plan.forward[0]
    settings = SshSettings(identity="/keys/id", known_hosts="/keys/known", connect_timeout=7)
    argv = session_argv(settings, plan.host(0), "/run/control", step)
    assert argv[:3] == ("ssh", "-o", "BatchMode=yes")
    assert "StrictHostKeyChecking=yes" in argv and "UserKnownHostsFile=/keys/known" in argv
    assert argv[argv.index("-i") + 1] == "/keys/id" and "IdentitiesOnly=yes" in argv
    assert argv[-3:-1] == ("--", "root@10.0.0.5")
    words = shlex.split(argv[-1])
    assert words[:3] == ["exec", "sh", "-c"]
    assert words[4:] == [
        "gunbc-apply",
        "preflight",
        hashlib.sha256(step.script.encode()).hexdigest(),
        str(settings.stage_timeout),
        str(settings.kill_after),
        "gunbc-v41-tp4",
    ]
    assert argv[-1] == remote_command(step, settings)
    assert wait_seconds(settings) == settings.stage_timeout + settings.kill_after + 7 + 2


def test_an_ipv6_host_is_reached_by_its_address() -> None:
    host = HostAddress(host_name="srv7", user="ops", address="fd00::7", port=22)
    assert host.destination == "ops@fd00::7"
