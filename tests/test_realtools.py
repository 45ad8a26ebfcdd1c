"""The real-tool validators accept good artifacts and reject bad ones, for real.

docker, systemd-analyze, bash and shellcheck must be installed
(tools/install-ci-deps): a missing one fails these tests, it is never skipped.
The vLLM tests skip only when .venv-vllm is absent (tools/make-vllm-venv).
"""

from __future__ import annotations

import pytest

from tests.realtools import (
    VllmParse,
    bash_parses,
    docker_create_accepts,
    shellcheck_clean,
    systemd_unit_verifies,
    vllm_serve_parser_facts,
    vllm_serve_parses,
    vllm_venv_python,
)

# --- docker create ----------------------------------------------------------------

GOOD_DOCKER = (
    "docker", "create",
    "--name", "vllm-v41",
    "--gpus", "all",
    "--ipc", "host",
    "--network", "host",
    "--shm-size", "32g",
    "--ulimit", "memlock=-1",
    "-v", "/srv/models:/models:ro",
    "-e", "VLLM_HOST_IP=10.0.0.5",
    "--restart", "no",
    "vllm/vllm-openai:v0.33.0",
    "vllm", "serve", "deepseek-ai/DeepSeek-V4.1-Flash", "--tensor-parallel-size", "4",
)  # fmt: skip


def test_docker_accepts_a_valid_create_argv() -> None:
    result = docker_create_accepts(GOOD_DOCKER)
    assert result.ok, str(result)
    assert result.returncode == 1  # parsed, then no daemon at the socket


def test_docker_rejects_a_malformed_size() -> None:
    argv = list(GOOD_DOCKER)
    argv[argv.index("32g")] = "32zz"
    result = docker_create_accepts(argv)
    assert not result.ok
    assert result.returncode == 125
    assert "--shm-size" in result.output


def test_docker_rejects_an_unknown_flag() -> None:
    argv = [*GOOD_DOCKER[:2], "--gpu-count", "4", *GOOD_DOCKER[2:]]
    result = docker_create_accepts(argv)
    assert not result.ok
    assert result.returncode == 125
    assert "unknown flag: --gpu-count" in result.output


def test_docker_rejects_a_create_without_image() -> None:
    result = docker_create_accepts(["docker", "create", "--name", "x"])
    assert not result.ok
    assert "requires at least 1 argument" in result.output


def test_docker_rejects_an_argv_that_is_not_docker_create() -> None:
    assert not docker_create_accepts(["docker", "run", "img"]).ok
    assert not docker_create_accepts(["podman", "create", "img"]).ok


def test_docker_passes_values_only_the_daemon_checks() -> None:
    # Documented limit of a daemon-less check: the client does not validate it.
    assert docker_create_accepts(["docker", "create", "--restart", "sometimes", "img"]).ok


# --- systemd-analyze verify -------------------------------------------------------

GOOD_UNIT = """\
[Unit]
Description=vLLM DeepSeek-V4.1 (node rank 1)
Requires=docker.service
After=docker.service network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart=/usr/bin/docker start --attach vllm-v41
ExecStop=/usr/bin/docker stop --time 30 vllm-v41
Restart=on-failure
RestartSec=10
TimeoutStartSec=0

[Install]
WantedBy=multi-user.target
"""


def test_systemd_verifies_a_good_unit() -> None:
    result = systemd_unit_verifies("vllm-v41.service", GOOD_UNIT)
    assert result.ok, str(result)
    assert result.stderr == ""


def test_systemd_rejects_an_unknown_key() -> None:
    unit = GOOD_UNIT.replace("RestartSec=10", "RestartSecs=10")
    result = systemd_unit_verifies("vllm-v41.service", unit)
    assert not result.ok
    assert "Unknown key" in result.stderr
    assert "RestartSecs" in result.stderr


def test_systemd_rejects_an_unparsable_value() -> None:
    unit = GOOD_UNIT.replace("Restart=on-failure", "Restart=sometimes")
    result = systemd_unit_verifies("vllm-v41.service", unit)
    assert not result.ok
    assert "sometimes" in result.stderr


def test_systemd_rejects_a_missing_exec_binary() -> None:
    unit = GOOD_UNIT.replace("ExecStart=/usr/bin/docker", "ExecStart=/usr/bin/podman")
    result = systemd_unit_verifies("vllm-v41.service", unit)
    assert not result.ok
    assert "/usr/bin/podman" in result.stderr
    # The same unit verifies once the host is known to carry that binary.
    stubs = ("/usr/bin/docker", "/usr/bin/podman")
    assert systemd_unit_verifies("vllm-v41.service", unit, stubs).ok


def test_systemd_rejects_a_missing_exec_stop_binary() -> None:
    unit = GOOD_UNIT.replace("ExecStop=/usr/bin/docker", "ExecStop=/opt/bin/docker")
    assert not systemd_unit_verifies("vllm-v41.service", unit).ok


def test_systemd_rejects_a_requirement_on_a_missing_unit() -> None:
    unit = GOOD_UNIT.replace("Requires=docker.service", "Requires=dockerd.service")
    result = systemd_unit_verifies("vllm-v41.service", unit)
    assert not result.ok
    assert "dockerd.service" in result.stderr


def test_systemd_rejects_a_service_without_exec_start() -> None:
    unit = "\n".join(ln for ln in GOOD_UNIT.splitlines() if not ln.startswith("ExecStart="))
    assert not systemd_unit_verifies("vllm-v41.service", unit).ok


def test_systemd_rejects_a_bad_unit_name() -> None:
    assert not systemd_unit_verifies("../vllm.service", GOOD_UNIT).ok
    assert not systemd_unit_verifies("vllm", GOOD_UNIT).ok


# --- bash -n and shellcheck -------------------------------------------------------

GOOD_SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
target="${1:?usage: preflight TARGET}"
if ! docker inspect --format '{{.State.Status}}' "$target" >/dev/null 2>&1; then
    echo "no container $target" >&2
    exit 1
fi
for path in /srv/models /dev/shm; do
    df -h "$path"
done
"""


def test_bash_parses_a_good_script() -> None:
    result = bash_parses(GOOD_SCRIPT)
    assert result.ok, str(result)


def test_bash_rejects_a_syntax_error() -> None:
    result = bash_parses(GOOD_SCRIPT.replace("done\n", ""), name="preflight.sh")
    assert not result.ok
    assert "preflight.sh" in result.stderr
    assert "syntax error" in result.stderr


def test_bash_rejects_an_unterminated_here_document() -> None:
    # bash -n exits 0 here and only warns.
    result = bash_parses("cat <<EOF\nhello\n")
    assert result.returncode == 0
    assert not result.ok
    assert "here-document" in result.stderr


def test_shellcheck_passes_a_clean_script() -> None:
    result = shellcheck_clean(GOOD_SCRIPT)
    assert result.ok, str(result)


def test_shellcheck_rejects_an_unquoted_expansion() -> None:
    result = shellcheck_clean('#!/bin/bash\nx="$1"\nrm $x\n', name="cleanup.sh")
    assert not result.ok
    assert "cleanup.sh:3:4: info:" in result.stdout
    assert "SC2086" in result.reason


def test_shellcheck_rejects_a_warning() -> None:
    result = shellcheck_clean("#!/bin/bash\ncd /srv/models\nls\n")
    assert not result.ok
    assert "SC2164" in result.stdout


def test_shellcheck_rejects_a_syntax_error() -> None:
    assert not shellcheck_clean("#!/bin/bash\nif then\n").ok


def test_shellcheck_lists_but_passes_other_info_notes() -> None:
    # SC2029 (info): the variable expands on the client side, as intended here.
    result = shellcheck_clean('#!/bin/bash\nhost="$1"\nssh "$host" "echo $host"\n')
    assert result.ok, str(result)
    assert "SC2029" in result.stdout


# --- vLLM's own serve parser --------------------------------------------------------

needs_vllm = pytest.mark.skipif(
    vllm_venv_python() is None,
    reason="the vLLM venv (.venv-vllm or $VLLM_VENV) is not built: run tools/make-vllm-venv "
    "(about 80-110 s, 2.4 GB)",
)

V41_ARGV = [
    "deepseek-ai/DeepSeek-V4.1-Flash",
    "--distributed-executor-backend", "mp",
    "--tensor-parallel-size", "4",
    "--nnodes", "4",
    "--node-rank", "1",
    "--master-addr", "10.0.0.5",
    "--master-port", "29501",
    "--headless",
    "--kv-cache-dtype", "fp8_ds_mla",
    "--engram-config.cpu_offload", "true",
    "--engram-config.dp_shared_memory", "false",
    "--max-model-len", "262144",
    "--max-num-seqs", "16",
    "--max-num-batched-tokens", "8192",
    "--no-enable-prefix-caching",
    "--gpu-memory-utilization", "0.8",
    "--tool-call-parser", "deepseek_v41",
    "--reasoning-parser", "deepseek_v41",
    "--enable-auto-tool-choice",
    "--tokenizer-mode", "deepseek_v41",
]  # fmt: skip

FRONT_DOOR_ARGV = [
    "deepseek-ai/DeepSeek-V4.1-Flash",
    "--served-model-name", "deepseek-v4.1-flash",
    "--host", "0.0.0.0",
    "--port", "8000",
    "--tensor-parallel-size", "4",
    "--nnodes", "4",
    "--node-rank", "0",
    "--master-addr", "10.0.0.5",
    "--distributed-executor-backend", "mp",
]  # fmt: skip

GLM_ARGV = [
    "zai-org/GLM-4.6",
    "--tool-call-parser", "glm45",
    "--reasoning-parser", "glm45",
    "--enable-auto-tool-choice",
]  # fmt: skip


def _set(argv: list[str], flag: str, value: str) -> list[str]:
    """argv with the value after `flag` replaced."""
    out = list(argv)
    out[out.index(flag) + 1] = value
    return out


BAD_ARGVS: dict[str, tuple[list[str], str, str]] = {
    # name: (argv, stage that must reject it, text the error must carry)
    "unknown flag": (
        [*V41_ARGV, "--prefill-compute-share", "0.5"],
        "parse",
        "unrecognized arguments: --prefill-compute-share",
    ),
    "bad kv-cache dtype": (
        _set(V41_ARGV, "--kv-cache-dtype", "fp8_ds_mlx"),
        "engine_config",
        "Invalid kv_cache_dtype: 'fp8_ds_mlx'",
    ),
    "unknown engram key": (
        [*V41_ARGV, "--engram-config.table_memory", "4"],
        "parse",
        "table_memory",
    ),
    "node rank out of range": (
        _set(V41_ARGV, "--node-rank", "4"),
        "engine_config",
        "`--node-rank` must be between 0 and 3",
    ),
    "nnodes does not divide the world": (
        _set(V41_ARGV, "--nnodes", "3"),
        "engine_config",
        "`--nnodes 3` must evenly divide",
    ),
    "bad executor backend": (
        _set(V41_ARGV, "--distributed-executor-backend", "threads"),
        "engine_config",
        "executor backend",
    ),
    "bad engram combination": (
        [*V41_ARGV, "--engram-config.use_thp", "true", "--engram-config.cpu_offload", "false"],
        "parse",
        "use_thp requires cpu_offload=True",
    ),
    "unknown tokenizer mode": (
        _set(V41_ARGV, "--tokenizer-mode", "deepseek_v41x"),
        "tokenizer_mode",
        "deepseek_v41x",
    ),
    "unknown tool parser": (
        ["m", "--tool-call-parser", "glm46", "--enable-auto-tool-choice"],
        "api_server",
        "glm46",
    ),
    "unknown reasoning parser": (["m", "--reasoning-parser", "glm46"], "parser_names", "glm46"),
    "bad port": (["m", "--port", "80a"], "parse", "--port"),
    "auto tool choice without parser": (["m", "--enable-auto-tool-choice"], "validate_serve", ""),
    "model not first": (["--served-model-name", "x", "m"], "parse", "positional"),
}


@pytest.fixture(scope="module")
def vllm_results() -> dict[str, VllmParse]:
    named = {
        "v41": V41_ARGV,
        "front door": FRONT_DOOR_ARGV,
        "glm": GLM_ARGV,
        "abbreviated": ["m", "--nnode", "2", "--tensor-parallel-size", "2"],
        **{name: argv for name, (argv, _, _) in BAD_ARGVS.items()},
    }
    results = vllm_serve_parses(list(named.values()))
    return dict(zip(named, results, strict=True))


@needs_vllm
def test_vllm_parses_the_v41_group_a_worker_argv(vllm_results: dict[str, VllmParse]) -> None:
    result = vllm_results["v41"]
    assert result.ok, str(result)
    assert result.abbreviated == ()
    values = result.values
    assert values["model_tag"] == "deepseek-ai/DeepSeek-V4.1-Flash"
    assert values["kv_cache_dtype"] == "fp8_ds_mla"
    assert values["engram_config"] == (
        "EngramConfig(cpu_offload=True, embedding_across_dp=False, "
        "dp_shared_memory=False, use_thp=False)"
    )
    assert values["headless"] is True
    assert values["enable_prefix_caching"] is False
    assert (values["nnodes"], values["node_rank"], values["tensor_parallel_size"]) == (4, 1, 4)
    assert values["tokenizer_mode"] == "deepseek_v41"
    assert values["tool_call_parser"] == values["reasoning_parser"] == "deepseek_v41"


@needs_vllm
def test_vllm_parses_the_front_door_flags(vllm_results: dict[str, VllmParse]) -> None:
    result = vllm_results["front door"]
    assert result.ok, str(result)
    assert result.values["served_model_name"] == ["deepseek-v4.1-flash"]
    assert (result.values["host"], result.values["port"]) == ("0.0.0.0", 8000)


@needs_vllm
def test_vllm_knows_the_glm45_parsers(vllm_results: dict[str, VllmParse]) -> None:
    assert vllm_results["glm"].ok, str(vllm_results["glm"])


@needs_vllm
def test_vllm_reports_abbreviated_flags(vllm_results: dict[str, VllmParse]) -> None:
    result = vllm_results["abbreviated"]
    assert result.ok  # argparse takes --nnode as --nnodes ...
    assert result.abbreviated == ("--nnode",)  # ... and the planner can refuse it
    assert result.values["nnodes"] == 2


@needs_vllm
@pytest.mark.parametrize("name", sorted(BAD_ARGVS))
def test_vllm_rejects(name: str, vllm_results: dict[str, VllmParse]) -> None:
    _, stage, text = BAD_ARGVS[name]
    result = vllm_results[name]
    assert not result.ok
    assert result.stage == stage, str(result)
    assert text in (result.error or ""), str(result)


@needs_vllm
def test_vllm_facts() -> None:
    facts = vllm_serve_parser_facts()
    assert facts.vllm_version == "0.33.0"
    assert "deepseek_v41" in facts.tokenizer_modes
    assert {"deepseek_v41", "glm45", "glm47"} <= set(facts.tool_call_parsers)
    assert {"deepseek_v41", "glm45", "glm47"} <= set(facts.reasoning_parsers)
    assert "fp8_ds_mla" in facts.kv_cache_dtypes
    assert {"--headless", "--engram-config", "--port", "--host"} <= set(facts.options)


def test_vllm_results_without_argvs_need_no_venv() -> None:
    assert vllm_serve_parses([]) == []
