"""The planner's rendered artifacts, checked by the REAL tools (tests/realtools.py).

Every V4.1, GLM and seed-recipe host's ``docker create`` argv goes through the docker
client's own flag parser, its unit through ``systemd-analyze verify``, every stage script
through ``bash -n`` and shellcheck, and every arm rank's serve argv through vLLM's own ``vllm
serve`` parser (the seed recipe's image is a fork: its serve argv is checked against the stock
parser in tests/test_recipe_vllm_spellings.py).

As in tests/test_realtools.py: a missing docker, systemd-analyze, bash or shellcheck raises
``ToolMissing`` and fails (it is never a pass); only the vLLM checks skip, when the vLLM
venv is not built (tools/make-vllm-venv).
"""

from __future__ import annotations

import pytest

from fixtures.builders import glm_dry_run, seed_recipe_plan, v41_dry_run
from planner.apply import ApplyStep
from planner.arm_launch import DryRun
from planner.launch import RankLaunch
from planner.realize import HostRealization
from tests.realtools import (
    VllmParse,
    bash_parses,
    docker_create_accepts,
    shellcheck_clean,
    systemd_unit_verifies,
    vllm_serve_parses,
    vllm_venv_python,
)


def _supplied_runs() -> tuple[DryRun, DryRun]:
    v41, glm = v41_dry_run("supplied"), glm_dry_run("supplied")
    assert v41.launch is not None and glm.launch is not None
    return v41, glm


V41_RUN, GLM_RUN = _supplied_runs()
RUNS = (V41_RUN, GLM_RUN, seed_recipe_plan())
HOSTS: tuple[HostRealization, ...] = tuple(h.realization for r in RUNS for h in r.hosts)
STEPS: tuple[ApplyStep, ...] = tuple(s for r in RUNS for s in r.apply_order)
RANKS: tuple[tuple[str, RankLaunch], ...] = tuple(
    (r.arm, rank) for r in RUNS[:2] if r.launch is not None for rank in r.launch.ranks
)


def host_id(real: HostRealization) -> str:
    return f"{real.container_name}-{real.host_name}"


def step_id(step: ApplyStep) -> str:
    return f"{step.invocation[2]}-{step.host_name}-{step.stage.value}"


def test_every_artifact_is_fed() -> None:
    assert len(HOSTS) == 12
    assert len(STEPS) == 96
    assert len(RANKS) == 8


@pytest.mark.parametrize("real", HOSTS, ids=host_id)
def test_docker_accepts_the_create_argv(real: HostRealization) -> None:
    result = docker_create_accepts(real.create_argv)
    assert result.ok, str(result)


@pytest.mark.parametrize("real", HOSTS, ids=host_id)
def test_systemd_verifies_the_unit(real: HostRealization) -> None:
    result = systemd_unit_verifies(real.unit_name, real.unit_text)
    assert result.ok, str(result)


@pytest.mark.parametrize("step", STEPS, ids=step_id)
def test_bash_parses_the_stage_script(step: ApplyStep) -> None:
    result = bash_parses(step.script, f"{step.stage.value}.sh")
    assert result.ok, str(result)


@pytest.mark.parametrize("step", STEPS, ids=step_id)
def test_shellcheck_finds_nothing_in_the_stage_script(step: ApplyStep) -> None:
    result = shellcheck_clean(step.script, f"{step.stage.value}.sh")
    assert result.ok, str(result)
    assert result.stdout == "", result.stdout


# --- vLLM's own serve parser, one subprocess for every rank's argv ------------------------

needs_vllm = pytest.mark.skipif(
    vllm_venv_python() is None,
    reason="the vLLM venv (.venv-vllm or $VLLM_VENV) is not built: run tools/make-vllm-venv",
)


@pytest.fixture(scope="module")
def parsed() -> dict[tuple[str, int], VllmParse]:
    for _, rank in RANKS:
        assert rank.serve_argv[0] == "serve"
    results = vllm_serve_parses([rank.serve_argv[1:] for _, rank in RANKS])
    return {(arm, rank.rank): result for (arm, rank), result in zip(RANKS, results, strict=True)}


@needs_vllm
@pytest.mark.parametrize(("arm", "rank"), [(a, r.rank) for a, r in RANKS])
def test_vllm_accepts_every_serve_argv(
    parsed: dict[tuple[str, int], VllmParse], arm: str, rank: int
) -> None:
    result = parsed[(arm, rank)]
    assert result.ok, str(result)
    assert result.abbreviated == ()
    assert result.warnings == ()
    values = result.values
    assert (values["tensor_parallel_size"], values["nnodes"], values["node_rank"]) == (4, 4, rank)
    assert values["distributed_executor_backend"] == "mp"
    assert values["headless"] is (rank != 0)
    assert values["enable_auto_tool_choice"] is True


@needs_vllm
@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_vllm_reads_the_v41_launch_as_planned(
    parsed: dict[tuple[str, int], VllmParse], rank: int
) -> None:
    values = parsed[("v41_group_a", rank)].values
    assert values["model_tag"] == (
        "/var/lib/gunbc/checkpoints/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"
    )
    assert values["master_addr"] == "10.77.1.15"
    assert values["master_port"] == 29511
    assert values["kv_cache_dtype"] == "fp8_ds_mla"
    assert values["max_model_len"] == 262144
    assert values["max_num_seqs"] == 16
    assert values["max_num_batched_tokens"] == 8192
    assert values["gpu_memory_utilization"] == 0.8
    assert values["enable_prefix_caching"] is False
    assert values["tokenizer_mode"] == "deepseek_v41"
    assert values["tool_call_parser"] == "deepseek_v41"
    assert values["reasoning_parser"] == "deepseek_v41"
    assert values["engram_config"] == (
        "EngramConfig(cpu_offload=True, embedding_across_dp=False, "
        "dp_shared_memory=False, use_thp=False)"
    )
    if rank == 0:
        assert (values["host"], values["port"]) == ("0.0.0.0", 8000)


@needs_vllm
def test_vllm_reads_the_glm_launch_as_planned(parsed: dict[tuple[str, int], VllmParse]) -> None:
    values = parsed[("glm_group_b", 0)].values
    assert values["master_addr"] == "10.77.1.11"
    assert values["port"] == 8100
    assert values["tool_call_parser"] == "glm45"
    assert values["reasoning_parser"] == "glm45"
    assert values["tokenizer_mode"] == "auto"
    assert values["enable_prefix_caching"] is True
    assert values["engram_config"] is None
