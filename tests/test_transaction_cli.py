"""``planner apply``: its dry run, refusals and input errors, run in-process."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from fixtures.builders import v41_dry_run
from planner.cli import main

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"


def _apply(*args: str) -> list[str]:
    """``planner apply`` of V4.1; a dry run with ``-v``: every ssh command in full."""
    verbose = ["-v"] if "--dry-run" in args else []
    return ["apply", "v41_group_a", *args, *verbose]


def test_the_dry_run_prints_every_command_and_writes_the_scripts_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = tmp_path / "scripts"
    code = main(
        _apply("--scenario", "supplied", "--hosts", HOSTS, "--dry-run", "--scripts", str(scripts))
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0] == "# planner apply v41_group_a --dry-run: the coordinator's plan; nothing ran"
    steps = [line for line in out if line[:1].isdigit()]
    planned = [
        (s.stage.value, s.host_name)
        for s in v41_dry_run("supplied").apply_order
        if s.stage.value not in ("rollback", "cleanup")
    ]
    assert [tuple(line.split(" ", 2)[1].rstrip(":").split("@")) for line in steps] == planned
    # each line is a shell command: ssh ... < the script file, holding the plan's bytes
    for line in steps:
        words = shlex.split(line.split(": ", 1)[1])
        assert words[0] == "ssh" and words[-2] == "<"
        stage, host = line.split(" ", 2)[1].rstrip(":").split("@")
        script = Path(words[-1])
        assert script == scripts / host / f"{stage}.sh"
        rendered = next(
            s.script
            for s in v41_dry_run("supplied").apply_order
            if s.stage.value == stage and s.host_name == host
        )
        assert script.read_text() == rendered
    undo = [line.split(": ", 1)[0] for line in out if line.startswith(("rollback@", "cleanup@"))]
    assert undo == [f"{stage}@srv{n}" for stage in ("rollback", "cleanup") for n in (8, 7, 6, 5)]


def test_a_plan_that_is_not_admitted_is_refused_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = tmp_path / "scripts"
    code = main(
        _apply("--scenario", "live", "--hosts", HOSTS, "--dry-run", "--scripts", str(scripts))
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[-1] == "apply v41_group_a: REFUSED: the plan is not admitted; nothing ran"
    # each refusal, then its hint on the next line (every refusal of live has one)
    assert all(line.startswith("refused: ") for line in out[:-1:2]) and len(out) > 1
    assert all(line.startswith("  hint: ") for line in out[1:-1:2])
    assert not scripts.exists()


@pytest.mark.parametrize(
    ("hosts", "message"),
    [
        (
            "srv5=root@10.0.0.5",
            "planner: error: --hosts: srv5=root@10.0.0.5:22: no address for srv6, srv7, srv8 "
            "(the plan's hosts: srv5, srv6, srv7, srv8)\n",
        ),
        (
            HOSTS + ",srv9=root@10.0.0.9",
            "planner: error: --hosts: srv5=root@10.0.0.5:22,srv6=root@10.0.0.6:22,"
            "srv7=root@10.0.0.7:22,srv8=root@10.0.0.8:22,srv9=root@10.0.0.9:22: "
            "srv9 not in the plan (the plan's hosts: srv5, srv6, srv7, srv8)\n",
        ),
        (
            "srv5=root@10.0.0.5:99999",
            "planner: error: --hosts: srv5=root@10.0.0.5:99999: port 99999 is outside 1..65535\n",
        ),
    ],
)
def test_hosts_that_do_not_match_the_plan_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hosts: str, message: str
) -> None:
    scripts = tmp_path / "scripts"
    code = main(
        _apply("--scenario", "supplied", "--hosts", hosts, "--dry-run", "--scripts", str(scripts))
    )
    captured = capsys.readouterr()
    assert (code, captured.out, captured.err) == (2, "", message)
    assert not scripts.exists()


def test_a_timeout_must_be_a_positive_whole_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(_apply("--scenario", "supplied", "--hosts", HOSTS, "--stage-timeout", "0"))
    assert stopped.value.code == 2
    assert "--stage-timeout: expected a whole number from 1 to 999999, got '0'" in (
        capsys.readouterr().err
    )


def test_help_states_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["apply", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for phrase in (
        "0 committed on every host",
        "1 refused (not admitted; nothing ran)",
        "2 usage or input error (nothing ran)",
        "10 rolled back (a step failed, or admission no longer held just before commit: every "
        "touched host restored, or none was touched)",
        "for tests only: let a real apply read a --scenario's fixture log and inputs",
        "11 not restored",
        "12 committed, commit pending on a host",
    ):
        assert phrase in text


def _client(directory: Path) -> Path:
    """An executable stand-in for ssh that records each run: these tests must end before
    any ssh would run, so one that ran is the failure."""
    client = directory / "ssh"
    client.write_text(f"#!/bin/sh\necho ran >> {directory / 'ran'}\n")
    client.chmod(0o755)
    return client


@pytest.mark.parametrize(
    "extra",
    [
        ("--scenario", "supplied"),
        ("--scenario", "supplied", "--now", "2026-11-29T12:00:00Z"),
        ("--authority", "log.jsonl", "--now", "2026-11-29T12:00:00Z"),
    ],
)
def test_a_real_apply_takes_no_chosen_time_or_fixture_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...]
) -> None:
    code = main(_apply(*extra, "--hosts", HOSTS, "--ssh", str(_client(tmp_path))))
    captured = capsys.readouterr()
    option = extra[0] if extra[0] == "--scenario" else "--now"
    assert (code, captured.out) == (2, "")
    assert captured.err == (
        f"planner: error: arguments: {option}: a real apply reads --authority at the wall "
        f"clock; {option} is for --dry-run (or for tests: --for-testing)\n"
    )
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize(
    ("option", "value", "why"),
    [
        ("--ssh", "{tmp}/missing", "no executable file by that name"),
        ("--ssh", "{tmp}/plain", "no executable file by that name"),
        ("--ssh", "no-such-ssh-client-here", "no executable file by that name"),
        ("--identity", "{tmp}/missing", "no such file"),
        ("--known-hosts", "{tmp}/missing", "no such file"),
        ("--ssh-config", "{tmp}/missing", "no such file"),
        ("--ssh-config", "{tmp}", "not a regular file"),
    ],
)
def test_an_ssh_client_or_file_that_is_not_there_exits_2_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, why: str
) -> None:
    (tmp_path / "plain").write_text("not a program\n")
    given = value.format(tmp=tmp_path)
    testing = ("--scenario", "supplied", "--for-testing", "--hosts", HOSTS)
    ssh = () if option == "--ssh" else ("--ssh", str(_client(tmp_path)))
    code = main(_apply(*testing, *ssh, option, given))
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err == f"planner: error: {option}: {given}: {why}\n"
    assert not (tmp_path / "ran").exists()


def test_a_control_character_in_an_option_reaches_the_terminal_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        _apply(
            "--scenario",
            "supplied",
            "--dry-run",
            "--hosts",
            "srv5\x1b[2J=root@a",
            "--ssh",
            "ssh\x1b]0;pwned\x07",
            "--scripts",
            str(tmp_path / "s"),
        )
    )
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err == (
        "planner: error: --ssh: ssh\\x1b]0;pwned\\x07: give a path with no control character\n"
    )
    code = main(
        _apply(
            "--scenario",
            "supplied",
            "--dry-run",
            "--hosts",
            "srv5\x1b[2J=root@a",
            "--scripts",
            str(tmp_path / "s"),
        )
    )
    err = capsys.readouterr().err
    assert code == 2 and err.isascii() and "\x1b" not in err
    assert err.startswith("planner: error: --hosts: srv5\\x1b[2J=root@a:22: no address for ")


def _write_set(scripts: Path) -> int:
    return main(
        _apply("--scenario", "supplied", "--hosts", HOSTS, "--dry-run", "--scripts", str(scripts))
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_scripts_write_that_fails_leaves_the_previous_set_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = tmp_path / "scripts"
    assert _write_set(scripts) == 0
    for script in scripts.rglob("*.sh"):
        script.write_text("the previous set\n")
    shutil.rmtree(scripts / "srv7")
    (scripts / "srv7").write_text("a file where srv7's directory goes\n")
    before = _tree(scripts)
    capsys.readouterr()
    assert _write_set(scripts) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"planner: error: --scripts {scripts}: cannot write the stage scripts")
    assert _tree(scripts) == before
    assert sorted(os.listdir(tmp_path)) == ["scripts"]


def test_a_scripts_write_replaces_the_previous_set_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = tmp_path / "scripts"
    assert _write_set(scripts) == 0
    fresh = _tree(scripts)
    (scripts / "srv9").mkdir()
    (scripts / "srv9" / "preflight.sh").write_text("from an older plan\n")
    (scripts / "srv5" / "commit.sh").write_text("changed\n")
    assert _write_set(scripts) == 0
    assert _tree(scripts) == fresh
    assert sorted(os.listdir(tmp_path)) == ["scripts"]
