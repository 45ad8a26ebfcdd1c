"""``planner apply``: its dry run, refusals and input errors, run in-process."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from fixtures.builders import v41_dry_run
from planner.cli import main

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"


def _apply(*args: str) -> list[str]:
    return ["apply", "v41_group_a", *args]


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
        "10 rolled back (every touched host restored, or none was touched)",
        "11 not restored",
        "12 committed, commit pending on a host",
    ):
        assert phrase in text
