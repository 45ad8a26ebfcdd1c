"""``planner apply --check`` (planner/check.py): the probe's output read strictly, the drift
it finds, its script as bash and shellcheck read it, the command line's refusals, and on the
four-host sshd fleet (fixtures/fleet.py): every host read and none changed, in sync after a
commit, a host changed by hand reported with its diff, a host that is down listed with the
others still checked, and Ctrl-C ending it with exit 130 and no control directory left."""

from __future__ import annotations

import base64
import json
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures import fleet
from fixtures.builders import v41_dry_run
from fixtures.fleet import Fault, Fleet
from fixtures.sandbox import HostState
from fixtures.transaction_cases import PREVIOUS_IMAGE, previous_unit, ranks, seed
from planner.check import (
    DIFF_LINES,
    LINE_WIDTH,
    Change,
    HostCheck,
    HostProbe,
    PlannedHost,
    ProbeUnreadable,
    Verdict,
    drift,
    exit_code,
    parse_probe,
    planned_hosts,
    probe_script,
    summary,
)
from planner.cli import main
from planner.transaction import HostAddress
from tests.realtools import bash_parses, shellcheck_clean

ARM = "v41_group_a"


def _planned() -> tuple[PlannedHost, ...]:
    return planned_hosts(v41_dry_run("supplied"))


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def _output(
    unit: bytes | None = None,
    container: tuple[str, str, str] | None = None,
    enabled: bool = True,
    active: bool = True,
    backups: tuple[str, ...] = (),
    preserved: bool = False,
    landing: bool = False,
) -> str:
    """What the probe prints for a host holding ``unit`` (None: no file) and ``container``
    (image, ``{{json .Config.Cmd}}``, running: None: no container), as docker prints each."""
    lines = ["format gunbc-check-1"]
    if unit is None:
        lines.append("unit_file absent")
    else:
        lines += ["unit_file present", f"unit_size {len(unit)}", f"unit {_b64(unit)}"]
    lines += [
        f"unit_enabled {'yes' if enabled else 'no'}",
        f"unit_active {'yes' if active else 'no'}",
    ]
    if container is None:
        lines.append("container absent")
    else:
        image, cmd, running = container
        lines += [
            "container present",
            *(
                f"{k} {_b64(v + chr(10))}"
                for k, v in (("image", image), ("cmd", cmd), ("running", running))
            ),
        ]
    lines += [
        f"preserved_container {'yes' if preserved else 'no'}",
        f"landing {'yes' if landing else 'no'}",
        f"backups {_b64(''.join(b + chr(0) for b in backups))}",
        "end ok",
    ]
    return "\n".join(lines) + "\n"


def _as_planned(host: PlannedHost) -> str:
    return _output(host.unit_text.encode(), (host.image, host.cmd_json, "true"))


# --- the probe's output, read strictly ----------------------------------------------------------


def test_a_host_as_planned_has_no_drift_and_an_empty_one_lacks_unit_and_container() -> None:
    head = _planned()[0]
    assert drift(head, parse_probe(_as_planned(head))).differences == ()
    empty = drift(head, parse_probe(_output(enabled=False, active=False)))
    assert empty.changes == (Change.UNIT_ABSENT, Change.CONTAINER_ABSENT)
    assert [d.line for d in empty.differences] == [
        "unit gunbc-v41-tp4-head.service: absent; apply would write it",
        "container gunbc-v41-tp4: absent",
    ]


def test_a_forged_field_inside_a_value_is_a_value_and_a_forged_line_is_unreadable() -> None:
    """A unit file or a command holding ``\\ncontainer absent\\n`` is base64 on the wire, so it
    is only that file's bytes; a host printing a field twice or out of place is unreadable."""
    head = _planned()[0]
    forged = head.unit_text + "\ncontainer absent\nend ok\n"
    probe = parse_probe(_output(forged.encode(), (head.image, head.cmd_json, "true")))
    assert probe.container is not None and probe.unit is not None
    assert drift(head, probe).changes == (Change.UNIT_DIFFERS,)
    good = _as_planned(head)
    size = len(head.unit_text.encode())
    for bad, why in (
        (good.replace("end ok\n", "container absent\nend ok\n"), "unknown or given twice"),
        (good.replace("end ok\n", "verdict ok\nend ok\n"), "unknown or given twice"),
        (good.removesuffix("end ok\n"), "field end missing"),
        (good.removesuffix("\n"), "does not end with a line end"),
        (good.replace("unit_enabled yes", "unit_enabled maybe"), "field unit_enabled missing"),
        (good.replace("container present", "container absent"), "field image where container"),
        (good.replace("running ", "running *"), "line 10 is not a KEY VALUE field"),
        (good.replace("running ", "running A"), "field running is not base64"),
        (good.replace(f"unit_size {size}", "unit_size " + "9" * 16), "is not a size"),
        ("format gunbc-check-1\n" + good, "line 2: field format unknown or given twice"),
        ("\n".join(reversed(good.split("\n")[:-1])) + "\n", "not in the probe's order"),
    ):
        with pytest.raises(ProbeUnreadable, match=why):
            parse_probe(bad)


def test_control_characters_a_host_prints_reach_no_line_raw() -> None:
    """ESC, CR, bidi overrides and C1 controls in a unit file, an image, a command and a
    backup's name are shown escaped, and every line stays within its width."""
    head = _planned()[0]
    hostile = "\x1b[2J\r\u202e\x85\x9b"
    unit = (head.unit_text + f"Description={hostile}\n").encode()
    cmd = json.dumps(["serve", hostile])
    out = _output(unit, (hostile, cmd, "false"), backups=(f"x{hostile}/unit",))
    with pytest.raises(ProbeUnreadable) as raised:
        parse_probe(f"format gunbc-check-1\n{hostile}\n")
    assert str(raised.value).isprintable()
    found = drift(head, parse_probe(out))
    lines = [text for d in found.differences for text in (d.line, *d.detail)]
    assert found.changes == (
        Change.UNIT_DIFFERS,
        Change.IMAGE_DIFFERS,
        Change.ARGV_DIFFERS,
        Change.NOT_RUNNING,
        Change.LEFT_OVER,
    )
    assert all(line.isprintable() and len(line) <= LINE_WIDTH for line in lines)
    assert "+Description=\\x1b[2J\\r\\u202e\\x85\\x9b" in lines
    assert lines[-5:-2] == [
        "container gunbc-v41-tp4: command differs: argument 1:",
        f"planned: {json.loads(head.cmd_json)[1]!r}",
        "host: '\\x1b[2J\\r\\u202e\\x85\\x9b'",
    ]


def test_a_huge_unit_diff_is_cut_and_counted() -> None:
    head = _planned()[0]
    unit = "".join(f"Line{n}={'x' * 500}\n" for n in range(5000)).encode()
    probe = parse_probe(_output(unit, (head.image, head.cmd_json, "true")))
    (differs,) = drift(head, probe).differences
    assert differs.change is Change.UNIT_DIFFERS
    assert len(differs.detail) == DIFF_LINES
    assert differs.detail[:2] == ("--- planned", f"+++ srv5:{head.unit_path}")
    assert differs.detail[-1].startswith("[… ") and differs.detail[-1].endswith(
        " more diff lines …]"
    )
    assert all(len(line) <= LINE_WIDTH - 4 for line in differs.detail)


def test_what_an_earlier_apply_left_over_is_named() -> None:
    head = _planned()[0]
    names = tuple(f"dir{n}/unit" for n in range(12))
    out = _as_planned(head).replace("preserved_container no", "preserved_container yes")
    out = out.replace("landing no", "landing yes").replace(
        "backups \n", f"backups {_b64(''.join(n + chr(0) for n in names))}\n"
    )
    probe = parse_probe(out)
    assert isinstance(probe, HostProbe) and len(probe.backups) == 12
    lines = [d.line for d in drift(head, probe).differences]
    assert lines[0] == "container gunbc-v41-tp4-preserved: left over by an earlier preserve"
    assert (
        lines[1]
        == "/etc/systemd/system/gunbc-v41-tp4-head.service.landing: left over by an apply cut short"
    )
    assert lines[2].startswith("/var/lib/gunbc/preserve/v41_group_a: backups left over: dir0/unit,")
    assert lines[2].endswith(" and 2 more")


def test_the_exit_code_and_summary_put_what_was_not_read_first() -> None:
    host = HostAddress(host_name="srv5", user="root", address="10.0.0.5")

    def of(*verdicts: Verdict) -> tuple[HostCheck, ...]:
        return tuple(
            HostCheck(host=host.model_copy(update={"host_name": f"srv{5 + i}"}), rank=i, verdict=v)
            for i, v in enumerate(verdicts)
        )

    same, change, away = Verdict.IN_SYNC, Verdict.WOULD_CHANGE, Verdict.UNREACHABLE
    assert exit_code(of(same, same), True, []) == 0
    assert exit_code(of(same, same), False, []) == 1
    assert exit_code(of(same, change), False, []) == 3
    assert exit_code(of(away, change), True, []) == 4
    assert exit_code(of(Verdict.UNREADABLE), True, []) == 4
    assert exit_code(of(away), True, ["SIGINT"]) == 130
    assert summary(ARM, of(same, change, away), False, []) == (
        "check v41_group_a: 3 hosts, 1 would change (srv6), 1 unreachable (srv7); "
        "the plan is not admitted (apply would refuse it)"
    )


@pytest.mark.parametrize("rank", range(4))
def test_the_probe_script_parses_and_is_shellcheck_clean(rank: int) -> None:
    script = probe_script(_planned()[rank])
    assert bash_parses(script, "check.sh").ok
    result = shellcheck_clean(script, "check.sh")
    assert result.ok, str(result)
    assert all(len(line) <= 120 for line in script.splitlines())


# --- the command line ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _check_args(hosts: str, identity: Path, known: Path, *extra: str) -> list[str]:
    return [
        "apply", ARM, "--check", "--for-testing", "--hosts", hosts, "--ssh-config", "none",
        "--identity", str(identity), "--known-hosts", str(known), "--connect-timeout", "3",
        "--stage-timeout", "5", *extra,
    ]  # fmt: skip


def test_check_refuses_dry_run_resume_and_a_journal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert (
        main(["apply", ARM, "--scenario", "supplied", "--hosts", "a=r@h", "--check", "--dry-run"])
        == 2
    )
    assert "--check and --dry-run: choose one" in capsys.readouterr().err
    assert main(["apply", "--resume", str(tmp_path / "j"), "--check"]) == 2
    assert "--resume takes no planning inputs (the journal holds the plan): --check" in (
        capsys.readouterr().err
    )
    key = tmp_path / "key"
    key.write_text("")
    args = _check_args("srv5=root@10.0.0.5", key, key, "--scenario", "supplied", "--journal", "j")
    assert main(args) == 2
    assert "--check writes no journal" in capsys.readouterr().err


def test_every_host_gets_its_attempt_and_every_unreachable_one_is_listed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Four hosts on ports nothing listens on, under a plan admission refuses: each is tried,
    each is listed unreachable with ssh's reason, the admission verdict is printed: exit 4."""
    key = tmp_path / "key"
    key.write_text("")
    ports = [_free_port() for _ in range(4)]
    hosts = ",".join(f"srv{5 + i}=root@127.0.0.1:{p}" for i, p in enumerate(ports))
    code = main(_check_args(hosts, key, key, "--scenario", "expired_lease"))
    out = capsys.readouterr().out.splitlines()
    assert code == 4
    assert out[0] == "check v41_group_a: 4 hosts (srv5, srv6, srv7, srv8): read only"
    assert out[1] == "admission: REFUSED (apply would refuse)"
    assert out[2].startswith("  refused: admission.lease_expired at ")
    unreachable = [line for line in out if ": unreachable: " in line]
    assert [line.split()[0] for line in unreachable] == ["srv5", "srv6", "srv7", "srv8"]
    assert all(line.endswith("Connection refused") for line in unreachable)
    assert out[-1] == (
        "check v41_group_a: 4 hosts, 0 would change, 4 unreachable (srv5, srv6, srv7, srv8); "
        "the plan is not admitted (apply would refuse it)"
    )


def test_check_reads_the_hosts_against_a_saved_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--check --plan PLAN`` binds the saved plan as apply does (its own inputs), then
    tries every host; here none answers."""
    plan = tmp_path / "plan.json"
    saved = ["--out", str(tmp_path / "r.txt"), "--plan-out", str(plan)]
    assert main(["dry-run", ARM, "--scenario", "supplied", *saved]) == 0
    key = tmp_path / "key"
    key.write_text("")
    hosts = ",".join(f"srv{5 + i}=root@127.0.0.1:{_free_port()}" for i in range(4))
    args = _check_args(hosts, key, key, "--plan", str(plan))
    args.remove(ARM)
    capsys.readouterr()
    assert main(args) == 4
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "check v41_group_a: 4 hosts (srv5, srv6, srv7, srv8): read only",
        "admission: ADMITTED",
    ]
    assert (
        out[-1]
        == "check v41_group_a: 4 hosts, 0 would change, 4 unreachable (srv5, srv6, srv7, srv8)"
    )
    assert main([*args, "--scenario", "supplied"]) == 2
    assert "holds its own inputs; drop --scenario" in capsys.readouterr().err


# --- on the four-host sshd fleet -----------------------------------------------------------

_MISSING = fleet.unavailable()
on_fleet = pytest.mark.skipif(_MISSING is not None, reason=f"{_MISSING} (CI runs as root)")


@pytest.fixture
def hosts() -> Iterator[Fleet]:
    """The fleet the transaction witness uses: srv5 and srv6 run the previous V4.1 arm, srv7
    and srv8 have none of it (another arm's container, another arm's backup)."""
    run = v41_dry_run("supplied")
    assert run.launch is not None
    names = tuple(h.realization.host_name for h in run.hosts)
    seeds = tuple(seed(r) for r in ranks(run))
    with fleet.started(names, seeds, (run.launch.head.host.rail_address,)) as started:
        yield started


def _on(started: Fleet, *extra: str) -> list[str]:
    keys = started.base / "keys"
    hosts = ",".join(a.spec() for a in started.addresses)
    return [
        *_check_args(hosts, keys / "client", keys / "known_hosts", "--scenario", "supplied"),
        *extra,
    ]


def _check(started: Fleet, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(_on(started))
    return code, capsys.readouterr().out.splitlines()


def _block(out: list[str], host: str) -> list[str]:
    """The lines of one host: its header and the indented lines under it."""
    start = next(i for i, line in enumerate(out) if line.startswith(f"{host} (rank "))
    end = next((i for i in range(start + 1, len(out)) if not out[i].startswith("  ")), len(out))
    return out[start:end]


def _without_calls(states: tuple[HostState, ...]) -> list[HostState]:
    return [s.without_calls() for s in states]


@on_fleet
def test_check_before_any_apply_reads_every_host_and_changes_nothing(
    hosts: Fleet,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = hosts.read()
    code, out = _check(hosts, capsys)
    assert code == 3
    assert out[1] == "admission: ADMITTED"
    srv5, srv7 = _block(out, "srv5"), _block(out, "srv7")
    assert srv5[0].endswith(": would change:")
    previous = len(previous_unit("gunbc-v41-tp4").encode())
    assert srv5[1] == f"  unit gunbc-v41-tp4-head.service: differs from the plan, {previous} bytes:"
    assert "    +Description=the previous V4.1 arm" in srv5
    image = srv5.index("  container gunbc-v41-tp4: image differs:")
    assert srv5[image + 1 : image + 3] == [
        f"    planned: {v41_dry_run('supplied').launch.image_digest}",  # type: ignore[union-attr]
        f"    host: {PREVIOUS_IMAGE}",
    ]
    assert srv5[image + 3 : image + 6] == [
        "  container gunbc-v41-tp4: command differs: argument 1:",
        f"    planned: {json.loads(_planned()[0].cmd_json)[1]!r}",
        "    host: '/old'",
    ]
    assert srv7[1:] == [
        "  unit gunbc-v41-tp4-rank.service: absent; apply would write it",
        "  container gunbc-v41-tp4: absent",
        "  preflight: would pass",
        "  readback: does not run what was planned (exit 1: readback of gunbc-v41-tp4 on srv7: "
        "gunbc-v41-tp4 is not running (log: /var/log/gunbc/gunbc-v41-tp4-rank.log))",
    ]
    assert (
        out[-1]
        == "check v41_group_a: 4 hosts, 4 would change (srv5, srv6, srv7, srv8), 0 unreachable"
    )
    assert _without_calls(hosts.read()) == _without_calls(before)
    stages = [[c.split("gunbc-apply ")[1].split()[0] for c in cmds] for cmds in hosts.commands()]
    assert stages == [["readback", "preflight", "readback"]] * 4
    # Ctrl-C during srv6's first session: it is abandoned, nothing more starts: exit 130
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    interrupting = tmp_path / "ssh"
    interrupting.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" -M "*|*" -O "*) ;; *" {hosts.addresses[1].destination} "*)\n'
        '  kill -INT "$PPID";;\nesac\nexec ssh "$@"\n'
    )
    interrupting.chmod(0o755)
    code = main(_on(hosts, "--ssh", str(interrupting)))
    out = capsys.readouterr().out.splitlines()
    assert code == 130
    assert _block(out, "srv5")[0].endswith("would change:")
    assert _block(out, "srv8") == [out[-2]] and out[-2].endswith(": not checked")
    assert out[-1].endswith("; interrupted by SIGINT")
    assert list(tmp_path.glob("gunbc-apply-*")) == []
    assert _without_calls(hosts.read()) == _without_calls(before)


@on_fleet
def test_after_a_commit_every_host_is_in_sync_then_drift_and_a_down_host_are_reported(
    hosts: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    apply = _on(hosts, "--journal", str(hosts.base / "apply.journal"))
    apply.remove("--check")
    assert main(apply) == 0
    capsys.readouterr()
    code, out = _check(hosts, capsys)
    assert code == 0, out
    assert [line.split(": ", 1)[1] for line in out if " (rank " in line] == ["in sync"] * 4
    assert out[-1] == "check v41_group_a: 4 hosts, 0 would change, 0 unreachable"
    # srv6's unit edited by hand, its container stopped behind systemd's back
    unit = hosts.host_root(1) / "etc/systemd/system/gunbc-v41-tp4-rank.service"
    unit.write_text(unit.read_text().replace("Restart=no\n", "Restart=always\n"))
    (hosts.host_root(1) / "state/containers/gunbc-v41-tp4/running").write_text("false\n")
    hosts.arm(Fault("down", 3))
    code, out = _check(hosts, capsys)
    assert code == 4
    assert _block(out, "srv6") == [
        f"srv6 (rank 1, {hosts.addresses[1].spec().partition('=')[2]}): would change:",
        f"  unit gunbc-v41-tp4-rank.service: differs from the plan, {unit.stat().st_size} bytes:",
        "    --- planned",
        "    +++ srv6:/etc/systemd/system/gunbc-v41-tp4-rank.service",
        "    @@ -11,3 +11,3 @@",
        "     TimeoutStopSec=150",
        "    -Restart=no",
        "    +Restart=always",
        "     StandardOutput=append:/var/log/gunbc/gunbc-v41-tp4-rank.log",
        "  container gunbc-v41-tp4: not running",
        "  preflight: would pass",
        "  readback: does not run what was planned (exit 1: readback of gunbc-v41-tp4 on srv6: "
        "gunbc-v41-tp4 is not running (log: /var/log/gunbc/gunbc-v41-tp4-rank.log))",
    ]
    assert [len(_block(out, h)) for h in ("srv5", "srv7")] == [3, 3]
    (srv8,) = _block(out, "srv8")
    down = hosts.addresses[3]
    assert srv8.endswith(f": unreachable: Connection to {down.address} port {down.port} timed out")
    assert out[-1] == "check v41_group_a: 4 hosts, 1 would change (srv6), 1 unreachable (srv8)"
