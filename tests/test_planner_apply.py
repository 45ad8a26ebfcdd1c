"""planner.apply: the transactional apply's stage scripts, rendered from values.

Every script is parsed by the real bash (``bash -n``); the create command inside the apply
script is evaluated by the real bash to prove its quoting yields the planned argv exactly.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess

import pytest

from fixtures.builders import glm_dry_run, v41_dry_run
from planner import data
from planner.apply import (
    FORWARD_STAGES,
    PRESERVE_ROOT,
    UNIT_DIR,
    ApplyContext,
    ApplyStep,
    Stage,
    apply_contexts,
    apply_steps,
    front_door,
    stage_script,
)
from planner.arm_launch import DryRun, arm_mounts
from planner.arms.glm_group_b import MANIFEST as GLM_MANIFEST
from planner.arms.glm_group_b import glm_group_b_call
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.arms.v41_group_a import v41_group_a_call
from planner.scenarios import load_inputs, load_scenario

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def _supplied_runs() -> tuple[DryRun, DryRun]:
    v41, glm = v41_dry_run("supplied"), glm_dry_run("supplied")
    assert v41.launch is not None and glm.launch is not None
    return v41, glm


V41_RUN, GLM_RUN = _supplied_runs()
ALL_STEPS = V41_RUN.apply_order + GLM_RUN.apply_order


def step_id(step: ApplyStep) -> str:
    return f"{step.host_name}-{step.stage.value}"


def _contexts(run: DryRun) -> tuple[ApplyContext, ...]:
    root = data.default_data_root()
    if run.arm == "glm_group_b":
        call = glm_group_b_call(data.fabric(root), data.manifest(GLM_MANIFEST, root))
    else:
        scenario = load_scenario(root, "supplied")
        call = v41_group_a_call(
            data.fabric(root), data.manifest(V41_MANIFEST, root), load_inputs(scenario.inputs)
        )
    assert run.launch is not None
    return apply_contexts(
        run.launch,
        run.arm,
        tuple(h.realization for h in run.hosts),
        tuple(m.source for m in arm_mounts(call)),
        call.container.rendezvous_port,
        call.route.serve_port,
    )


V41_CONTEXTS = _contexts(V41_RUN)


# --- order ------------------------------------------------------------------------------


@pytest.mark.parametrize("run", [V41_RUN, GLM_RUN], ids=lambda r: r.arm)
def test_every_stage_for_every_host_each_stage_head_first(run: DryRun) -> None:
    order = run.apply_order
    assert len(order) == len(Stage) * 4
    stages = [s.stage for s in order]
    assert stages == [stage for stage in Stage for _ in range(4)]
    for stage in Stage:
        ranks = [s.rank for s in order if s.stage == stage]
        assert ranks == [0, 1, 2, 3]


def test_forward_stages_end_in_commit_and_rollback_is_not_forward() -> None:
    assert FORWARD_STAGES == (
        Stage.PREFLIGHT,
        Stage.PRESERVE,
        Stage.APPLY,
        Stage.READBACK,
        Stage.FRONT_DOOR,
        Stage.COMMIT,
    )
    assert Stage.ROLLBACK not in FORWARD_STAGES
    assert Stage.CLEANUP not in FORWARD_STAGES


def test_hosts_carry_their_own_steps() -> None:
    for host in V41_RUN.hosts:
        assert [s.stage for s in host.steps] == list(Stage)
        assert {s.rank for s in host.steps} == {host.realization.rank}


def test_apply_steps_sorts_contexts_by_rank() -> None:
    shuffled = tuple(reversed(V41_CONTEXTS))
    assert apply_steps(shuffled) == V41_RUN.apply_order


@pytest.mark.parametrize("step", V41_RUN.apply_order, ids=step_id)
def test_invocation_passes_the_container_name(step: ApplyStep) -> None:
    assert step.invocation == ("bash", f"{step.stage.value}.sh", "gunbc-v41-tp4")


# --- every script parses, and refuses to run without its container name ----------------


@needs_bash
@pytest.mark.parametrize("step", ALL_STEPS, ids=lambda s: f"{s.host_name}-{s.stage.value}")
def test_every_script_passes_bash_n(step: ApplyStep) -> None:
    assert BASH is not None
    result = subprocess.run(
        [BASH, "-n"], input=step.script, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@needs_bash
@pytest.mark.parametrize("step", V41_RUN.hosts[1].steps, ids=step_id)
def test_a_script_without_its_container_name_stops_before_doing_anything(step: ApplyStep) -> None:
    assert BASH is not None
    result = subprocess.run(
        [BASH, "-s"], input=step.script, capture_output=True, text=True, check=False, timeout=10
    )
    assert result.returncode != 0
    assert f"usage: {step.stage.value}.sh CONTAINER_NAME" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("step", ALL_STEPS, ids=step_id)
def test_each_script_takes_the_container_name_as_its_first_argument(step: ApplyStep) -> None:
    lines = step.script.splitlines()
    assert lines[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in lines[:4]
    assert f'container_name="${{1:?usage: {step.stage.value}.sh CONTAINER_NAME}}"' in lines


def _outside_unit_heredoc(script: str) -> str:
    return re.sub(r"<<'GUNBC_UNIT_TEXT'\n.*?\nGUNBC_UNIT_TEXT\n", "", script, flags=re.S)


def _guard(name: str) -> str:
    return f'[ "$container_name" = {name} ] || fail "this script was planned for container {name}"'


@pytest.mark.parametrize("step", ALL_STEPS, ids=step_id)
def test_no_script_hard_codes_the_container_name_outside_the_unit(step: ApplyStep) -> None:
    """The name arrives as $1; the one literal is the guard that $1 is the planned name."""
    name = step.invocation[2]
    script = _outside_unit_heredoc(step.script)
    assert script.count(_guard(name)) == 1
    token = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])")
    assert not token.search(script.replace(_guard(name), "")), step.script


@needs_bash
@pytest.mark.parametrize("step", ALL_STEPS[:8], ids=step_id)
def test_a_script_refuses_a_name_it_was_not_planned_for(step: ApplyStep) -> None:
    assert BASH is not None
    done = subprocess.run(
        [BASH, "-s", "other-container"],
        input=step.script,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert f"this script was planned for container {step.invocation[2]}" in done.stderr


def test_the_unit_heredoc_is_the_only_place_the_name_appears() -> None:
    apply_script = V41_RUN.hosts[0].steps[2].script
    assert V41_RUN.hosts[0].steps[2].stage == Stage.APPLY
    assert "ExecStart=/usr/bin/docker start --attach gunbc-v41-tp4" in apply_script
    assert "gunbc-v41-tp4\n" not in _outside_unit_heredoc(apply_script)


@pytest.mark.parametrize("step", V41_RUN.apply_order, ids=step_id)
def test_no_v41_stage_script_mentions_glm(step: ApplyStep) -> None:
    assert "glm" not in step.script.lower()
    assert "gunbc-spark-pair" not in step.script


@pytest.mark.parametrize("step", GLM_RUN.apply_order, ids=step_id)
def test_no_glm_stage_script_mentions_v41(step: ApplyStep) -> None:
    assert "v41" not in step.script.lower()


# --- what each stage does ---------------------------------------------------------------


def _script(rank: int, stage: Stage) -> str:
    (step,) = [s for s in V41_RUN.apply_order if s.rank == rank and s.stage == stage]
    return step.script


def _assigned(script: str, var: str) -> str:
    (line,) = [ln for ln in script.splitlines() if ln.startswith(f"{var}=")]
    (value,) = shlex.split(line.split("=", 1)[1])
    return value


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_header_values(rank: int) -> None:
    script = _script(rank, Stage.PRESERVE)
    unit = "gunbc-v41-tp4-head" if rank == 0 else "gunbc-v41-tp4-rank"
    assert _assigned(script, "unit") == f"{unit}.service"
    assert _assigned(script, "unit_path") == f"{UNIT_DIR}/{unit}.service"
    assert _assigned(script, "preserve_dir") == f"{PRESERVE_ROOT}/v41_group_a/{unit}"
    assert _assigned(script, "log_path") == f"/var/log/gunbc/{unit}.log"


def test_preflight_checks_image_mount_sources_and_names() -> None:
    script = _script(0, Stage.PREFLIGHT)
    assert (
        _assigned(script, "image")
        == V41_RUN.hosts[0].realization.create_argv[
            V41_RUN.hosts[0].realization.create_argv.index("--entrypoint") + 2
        ]
    )
    assert _assigned(script, "arm") == "v41_group_a"
    assert 'docker image inspect "$image"' in script
    (loop,) = [ln for ln in script.splitlines() if ln.startswith("for source in ")]
    sources = shlex.split(loop.removeprefix("for source in ").removesuffix("; do"))
    assert sources == [
        "/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a",
        "/var/tmp/engram-local/DeepSeek-V4.1-Flash",
        "/var/lib/gunbc/engram/v41/manifest",
        "/var/lib/gunbc/engram/v41/receipts",
    ]
    assert '\n  trusted "$source"\ndone\n' in script
    assert "occupied by another arm" in script


def test_a_single_mount_source_is_checked_without_a_loop() -> None:
    (step,) = [s for s in GLM_RUN.apply_order if s.rank == 0 and s.stage == Stage.PREFLIGHT]
    assert "for source in" not in step.script
    (check,) = [ln for ln in step.script.splitlines() if ln.startswith("trusted ")]
    assert shlex.split(check) == [
        "trusted",
        "/var/lib/gunbc/checkpoints/zai-org--GLM-4.6-FP8/5c7e1f3b",
    ]


@pytest.mark.parametrize("step", ALL_STEPS, ids=step_id)
def test_a_script_assigns_only_the_header_values_it_reads(step: ApplyStep) -> None:
    body = step.script.split("; exit 1; }\n", 1)[1]
    for var in ("unit", "unit_path", "preserve_dir"):
        assigned = any(ln.startswith(f"{var}=") for ln in step.script.splitlines())
        assert assigned == bool(re.search(rf"\$\{{?{var}\b", body)), var


def test_fail_names_the_container_stage_host_and_log() -> None:
    script = _script(1, Stage.READBACK)
    assert (
        "fail() { printf 'readback of %s on %s: %s (log: %s)\\n' "
        '"$container_name" srv6 "$*" "$log_path" >&2; exit 1; }'
    ) in script.splitlines()


def test_preserve_saves_unit_activity_unit_file_and_container() -> None:
    script = _script(2, Stage.PRESERVE)
    assert 'touch "$preserve_dir/unit-was-active"' in script
    # the copy lands under its saved name only once whole; what was absent is recorded
    lines = [line.strip() for line in script.splitlines()]
    copy = lines.index('cp -p "$unit_path" "$preserve_dir/unit.copying"')
    assert lines[copy + 1] == 'mv -f "$preserve_dir/unit.copying" "$preserve_dir/unit"'
    assert 'touch "$preserve_dir/no-unit"' in lines
    rename = lines.index('docker rename "$container_name" "$container_name-preserved"')
    assert lines[rename + 1 : rename + 3] == ["else", 'touch "$preserve_dir/no-container"']


def test_rollback_restores_what_preserve_saved() -> None:
    preserve = _script(2, Stage.PRESERVE)
    rollback = _script(2, Stage.ROLLBACK)
    assert _assigned(rollback, "preserve_dir") == _assigned(preserve, "preserve_dir")
    saved = set(re.findall(r'"\$preserve_dir/([\w-]+)"', preserve))
    restored = set(re.findall(r'"\$preserve_dir/([\w-]+)"', rollback))
    # ([\w-]+ stops at the dot of unit.copying, the copy's temporary name)
    assert saved == {"unit", "unit-was-active", "no-unit", "no-container"}
    assert saved <= restored
    assert 'cp -p "$preserve_dir/unit" "$unit_path"' in rollback
    assert 'docker rename "$container_name-preserved" "$container_name"' in rollback
    assert 'systemctl start "$unit"' in rollback
    lines = rollback.splitlines()
    assert lines.index('  docker rm -f "$container_name" >/dev/null 2>&1 || true') < lines.index(
        '  docker rename "$container_name-preserved" "$container_name"'
    )


def test_commit_drops_the_preserved_state() -> None:
    script = _script(0, Stage.COMMIT)
    assert 'systemctl enable "$unit" >/dev/null' in script
    assert 'docker rm "$container_name-preserved" >/dev/null' in script
    assert 'rm -rf "$preserve_dir"' in script


def test_cleanup_removes_landing_and_preserve() -> None:
    script = _script(3, Stage.CLEANUP)
    assert 'rm -f "$unit_path.landing"' in script
    assert 'rm -rf "$preserve_dir"' in script


def test_head_apply_does_not_wait_and_followers_wait_for_its_rendezvous() -> None:
    assert "/dev/tcp/" not in _script(0, Stage.APPLY)
    for rank in (1, 2, 3):
        assert "until (exec 3<>/dev/tcp/10.77.1.15/29511) 2>/dev/null; do" in _script(
            rank, Stage.APPLY
        )


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_apply_lands_the_planned_unit_text_through_a_heredoc(rank: int) -> None:
    script = _script(rank, Stage.APPLY)
    body = re.search(r"<<'GUNBC_UNIT_TEXT'\n(.*?\n)GUNBC_UNIT_TEXT\n", script, flags=re.S)
    assert body is not None
    assert body.group(1) == V41_RUN.hosts[rank].realization.unit_text
    lines = script.splitlines()
    assert (
        lines.index('mv -f "$unit_path.landing" "$unit_path"')
        < lines.index("systemctl daemon-reload")
        < lines.index('systemctl start "$unit"')
    )


@needs_bash
@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_apply_create_command_yields_the_planned_argv_under_real_bash(rank: int) -> None:
    assert BASH is not None
    script = _script(rank, Stage.APPLY)
    match = re.search(r"^docker \\\n.*?>/dev/null$", script, flags=re.M | re.S)
    assert match is not None
    create = match.group(0).removesuffix(" >/dev/null")
    probe = f"container_name=probe-name\ndocker() {{ printf '%s\\0' docker \"$@\"; }}\n{create}\n"
    result = subprocess.run([BASH, "-c", probe], capture_output=True, check=True, timeout=10)
    argv = result.stdout.decode().split("\0")[:-1]
    planned = list(V41_RUN.hosts[rank].realization.create_argv)
    planned[planned.index("--name") + 1] = "probe-name"
    assert argv == planned


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_readback_expects_the_planned_command_image_and_env(rank: int) -> None:
    script = _script(rank, Stage.READBACK)
    assert V41_RUN.launch is not None
    launch = V41_RUN.launch.ranks[rank]
    assert json.loads(_assigned(script, "expected_cmd")) == list(launch.serve_argv)
    assert _assigned(script, "expected_image") == V41_RUN.launch.image_digest
    for key, value in launch.env:
        assert f"grep -qFx -- {shlex.quote(f'{key}={value}')} " in script
    assert "{{json .Config.Cmd}}" in script
    assert "{{.State.Running}}" in script


def test_front_door_head_answers_health_followers_are_active() -> None:
    head = front_door(V41_CONTEXTS[0])
    assert head.check == ("curl", "-fsS", "--max-time", "5", "http://10.77.1.15:8000/health")
    assert head.log_path == "/var/log/gunbc/gunbc-v41-tp4-head.log"
    for ctx in V41_CONTEXTS[1:]:
        door = front_door(ctx)
        assert door.check == ("systemctl", "is-active", "--quiet", "gunbc-v41-tp4-rank.service")
        assert door.log_path == "/var/log/gunbc/gunbc-v41-tp4-rank.log"


def test_every_step_carries_its_own_front_door_and_log() -> None:
    for step in V41_RUN.apply_order:
        assert step.front_door == front_door(V41_CONTEXTS[step.rank])


def test_front_door_script_tails_its_own_log_on_timeout() -> None:
    script = _script(0, Stage.FRONT_DOOR)
    assert "until curl -fsS --max-time 5 http://10.77.1.15:8000/health >/dev/null 2>&1" in script
    assert 'tail -n 50 "$log_path"' in script


def test_glm_front_door_uses_its_own_port() -> None:
    head = GLM_RUN.apply_order[0]
    assert head.front_door.check[-1] == "http://10.77.1.11:8100/health"
    assert head.front_door.log_path == "/var/log/gunbc/glm-native-head.log"


def test_a_unit_containing_the_heredoc_terminator_is_refused() -> None:
    ctx = V41_CONTEXTS[0]
    bad = ctx.realization.model_copy(
        update={"unit_text": ctx.realization.unit_text + "GUNBC_UNIT_TEXT\nrm -rf /\n"}
    )
    with pytest.raises(ValueError, match="heredoc terminator"):
        stage_script(Stage.APPLY, ctx.model_copy(update={"realization": bad}))


def test_context_paths() -> None:
    ctx = V41_CONTEXTS[1]
    assert ctx.unit_path == "/etc/systemd/system/gunbc-v41-tp4-rank.service"
    assert ctx.preserve_dir == "/var/lib/gunbc/preserve/v41_group_a/gunbc-v41-tp4-rank"
    assert ctx.head_rail_address == "10.77.1.15"
    assert (ctx.rendezvous_port, ctx.serve_port) == (29511, 8000)
