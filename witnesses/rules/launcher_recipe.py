"""Witness: launcher recipes (seed 003) read with every problem located, then planned as an
arm built from data.

The seed recipe is DeepSeek-V4.1-Flash on four GB10 nodes with a composed model: the repo
snapshot symlinked from the HF cache and the two Engram table shards hardlinked from
node-local copies. The launcher owns the multi-node flags (in every spelling vLLM's own
parser reads) and the per-node fabric env. A recipe plans over exactly the group it is given
(any size the inventory holds), through the arms' own fit wall, create argv, units, apply
scripts, admission and report; a refused recipe lists every problem, located, in one error;
what its image adds to stock vLLM is a warning line, or a declared extension.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, expect, expect_equal
from fixtures.builders import (
    DATA_ROOT,
    SEED_RECIPE,
    TINY_RECIPE,
    inventory,
    run_planner,
    seed_recipe_plan,
    v41_dry_run,
    v41_manifest,
)
from planner.arm_launch import DryRun
from planner.checkpoint import CheckpointManifest, ManifestFile
from planner.fabric import FabricGroup
from planner.recipe import (
    COMPOSED_DIR_SCRIPT,
    COMPOSED_FILES_SCRIPT,
    ArgReading,
    ComposedLocalFile,
    Recipe,
    RecipeInvalid,
    composed_dir,
    composed_steps,
    load_recipe,
    read_args,
)
from planner.recipe_extensions import stock_parser_findings
from planner.recipe_launch import RecipeSources, recipe_dry_run
from planner.refusal import PlannerInputError
from witnesses.support import fabric_raw, read_json, value_after

_MINIMAL = TINY_RECIPE.read_text(encoding="utf-8")
# The seed recipe's vLLM args exactly as the file writes them, its multi-line shell-quoted
# JSON values without their surrounding whitespace and one pair of single quotes.
_SEED_ARGS = (
    *("--served-model-name", "dsv41", "--trust-remote-code"),
    *("--distributed-executor-backend", "mp", "--gpu-memory-utilization", "0.88"),
    *("--max-model-len", "524288", "--decode-context-parallel-size", "1"),
    *("--max-num-seqs", "4", "--max-num-batched-tokens", "4096"),
    *("--prefill-compute-share", "0.4", "--block-size", "256"),
    *("--enable-chunked-prefill", "--enable-prefix-caching", "--kv-cache-dtype", "fp8"),
    *("--attention-backend", "B12X", "--linear-backend", "b12x", "--moe-backend", "b12x"),
    *("--compilation-config", '{"cudagraph_mode":"FULL_AND_PIECEWISE"}'),
    *("--max_cudagraph_capture_size", "128"),
    "--speculative-config",
    '{"method":"dspark","num_speculative_tokens":7,"draft_tensor_parallel_size":4,'
    '"attention_backend":"B12X","draft_sample_method":"greedy",'
    '"rejection_sample_method":"standard","enable_adaptive_verification":true}',
    *("--engram-config", '{"cpu_offload":false,"table_memory":"disk"}'),
    *("--load-format", "instanttensor", "--safetensors-load-strategy", "lazy"),
    *("--generation-config", "vllm"),
    *("--override-generation-config", '{"temperature":1.0,"top_p":0.95}'),
    *("--limit-mm-per-prompt", '{"image":2}'),
    *("--reasoning-parser", "deepseek_v41", "--tool-call-parser", "deepseek_v41"),
    *("--enable-auto-tool-choice", "--jit-monitor-mode", "error"),
)
# The launcher's defaults (planner.recipe): where composed models and the HF cache live, the
# rendezvous port every node meets on and the port the head serves on.
_COMPOSED_ROOT = "/var/lib/gunbc/composed"  # beside the HF cache: only root writes there
_HF_CACHE = "/var/lib/gunbc/hf-cache"
_RENDEZVOUS_PORT = "29521"
_SERVE_PORT = "8000"


@contextmanager
def _recipe_file(text: str | bytes) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "recipe.toml"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        yield path


def _problems(text: str) -> list[tuple[str, str]]:
    with _recipe_file(text) as path:
        try:
            load_recipe(path)
        except RecipeInvalid as invalid:
            return [(p.where, p.message) for p in invalid.problems]
    return []


def _load(text: str) -> Recipe:
    with _recipe_file(text) as path:
        return load_recipe(path)


def _group(name: str = "group_a") -> FabricGroup:
    return inventory().group(name)


def _plan(
    recipe: Recipe,
    group: FabricGroup | None = None,
    manifest: CheckpointManifest | None = None,
    name: str = "tiny",
) -> DryRun:
    """The recipe's dry run over ``group`` (Group A) with ``manifest`` as its model's, no log."""
    sources = RecipeSources(
        recipe=recipe,
        source="recipe.toml",
        name=name,
        group=group or _group(),
        manifest=manifest,
        state=None,
    )
    return recipe_dry_run(sources)


def _argvs(run: DryRun) -> list[tuple[str, ...]]:
    return [h.realization.create_argv for h in run.hosts]


def _create_argv(
    group: FabricGroup,
    rank: int,
    *,
    container: str,
    shm: str,
    mounts: tuple[str, ...],
    env: tuple[tuple[str, str], ...],
    entrypoint: tuple[str, ...],
    image: str,
    model_path: str,
    args: tuple[str, ...],
) -> tuple[str, ...]:
    """The documented create argv of node ``rank``: host network and IPC, every GPU, the
    recipe's shm size, the arm and rank labels (the arm is the container's name), mounts,
    this host's fabric env (from its own inventory entry) then the recipe env, the recipe's
    entrypoint split into --entrypoint and its arguments, the model path, the recipe's args,
    then the multi-node flags the launcher owns."""
    host = group.hosts[rank]
    fabric_env = (
        ("VLLM_HOST_IP", host.rail_address),
        ("NCCL_SOCKET_IFNAME", host.rail_interface),
        ("GLOO_SOCKET_IFNAME", host.rail_interface),
    )
    head = group.hosts[0].rail_address  # node rank 0 is the rendezvous head
    role = ("--port", _SERVE_PORT) if rank == 0 else ("--headless",)
    return (
        *("docker", "create", "--name", container),
        *("--network", "host", "--ipc", "host", "--gpus", "all", "--shm-size", shm),
        *("--label", f"gunbc.arm={container}", "--label", f"gunbc.rank={rank}"),
        *(f for m in mounts for f in ("--mount", m)),
        *(f for k, v in (*fabric_env, *env) for f in ("--env", f"{k}={v}")),
        *("--entrypoint", entrypoint[0], image, *entrypoint[1:], model_path, *args),
        *("--nnodes", str(len(group.hosts)), "--node-rank", str(rank)),
        *("--master-addr", head, "--master-port", _RENDEZVOUS_PORT),
        *role,
    )


@claim(ClaimKind.PLANNED_SHAPE)
def local_files_win_over_the_snapshot() -> Verdict:
    """Running the planned composed-model steps for real: the snapshot is symlinked and a
    local file at the same name replaces its link as a hardlink."""
    with tempfile.TemporaryDirectory() as root:
        base = Path(root)
        shots = base / "cache" / "models--org--tiny" / "snapshots" / "r1"
        shots.mkdir(parents=True)
        (shots / "config.json").write_text("{}")
        (shots / "table.bin").write_text("remote")
        (base / "table.bin").write_text("local")
        text = _MINIMAL + (
            '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\nrepo = "org/tiny"\n'
            f'[[composed_model.local_files]]\nhost = "{base}/table.bin"\n'
        )
        (base / "recipe.toml").write_text(text)
        snapshot = CheckpointManifest(
            model="org/tiny",
            revision="r1",
            files=(
                ManifestFile(path="config.json", bytes=2, role="config"),
                ManifestFile(path="table.bin", bytes=6, role="engram_table"),
            ),
        )
        recipe = load_recipe(base / "recipe.toml")
        assert recipe.composed_model is not None
        where = composed_dir(recipe.model, str(base / "composed"))
        for step in composed_steps(recipe.composed_model, snapshot, where, str(base / "cache")):
            subprocess.run(step, check=True, capture_output=True)
        composed = base / "composed" / "org--tiny"
        found = (
            (composed / "config.json").is_symlink(),
            (composed / "table.bin").is_symlink(),
            (composed / "table.bin").read_text(),
        )
    return expect_equal((True, False, "local"), found, "(config linked, table linked, table)")


@claim(ClaimKind.POSITIVE_CONTROL)
def the_seed_recipe_is_accepted() -> Verdict:
    """The seed recipe validates and plans over Group A's four nodes with no refusal (its
    weight fits; with no authority log it is PLANNED, admission not checked)."""
    plan = seed_recipe_plan()
    return expect(
        len(plan.hosts) == 4 and not plan.refusals and plan.verdict == "PLANNED",
        f"{plan.arm}: {len(plan.hosts)} nodes, {plan.verdict}",
        f"the seed recipe did not plan: {[r.code for r in plan.refusals]}, {plan.verdict}",
    )


@claim(ClaimKind.PLANNED_SHAPE)
def every_seed_rank_gets_its_whole_create_argv() -> Verdict:
    """Each of Group A's four nodes, in inventory order, gets the whole create argv: the
    recipe's image, shm size, entrypoint and env, the composed model mounted read-only with
    the HF cache its links point into, its own fabric env, the recipe's args unquoted and in
    order, TP and PP from the recipe's fields (the args set neither), then the multi-node
    flags."""
    raw: dict[str, Any] = tomllib.loads(SEED_RECIPE.read_text(encoding="utf-8"))
    group = _group()
    mount = raw["composed_model"]["mount"]
    org, name = raw["model"].split("/")
    composed_dir = f"{_COMPOSED_ROOT}/{org}--{name}"
    expected = [
        (
            host.name,
            _create_argv(
                group,
                rank,
                container=SEED_RECIPE.stem,  # the builder names the container after the file
                shm=raw["shm_size"],
                mounts=(
                    f"type=bind,source={composed_dir},target={mount},readonly",
                    f"type=bind,source={_HF_CACHE},target={_HF_CACHE},readonly",
                ),
                env=tuple(raw["env"].items()),
                entrypoint=tuple(raw["entrypoint"]),
                image=raw["docker_image"],
                model_path=mount,  # a composed model is served from its mount
                args=(
                    *_SEED_ARGS,
                    *("--tensor-parallel-size", str(raw["tensor_parallel_size"])),
                    *("--pipeline-parallel-size", str(raw["pipeline_parallel_size"])),
                ),
            ),
        )
        for rank, host in enumerate(group.hosts)
    ]
    found = [(h.realization.host_name, h.realization.create_argv) for h in seed_recipe_plan().hosts]
    return expect_equal(expected, found, "(host, create argv) per node")


@claim(ClaimKind.PLANNED_SHAPE)
def the_seed_composed_model_is_the_snapshot_then_the_local_shards() -> Verdict:
    """Every node builds its composed dir the same way: make it root's alone under
    /var/lib/gunbc/composed (every directory of its path checked, each missing one made
    0755), symlink every file of the snapshot manifest from the HF cache's snapshot dir of
    that revision, in manifest order, then hardlink each local file (recipe order) over its
    base name, so the local wins, and check each hardlinked file is root's alone."""
    raw: dict[str, Any] = tomllib.loads(SEED_RECIPE.read_text(encoding="utf-8"))
    snapshot = v41_manifest()
    org, name = raw["model"].split("/")
    composed_dir = f"{_COMPOSED_ROOT}/{org}--{name}"
    source = f"{_HF_CACHE}/models--{org}--{name}/snapshots/{snapshot.revision}"
    local = [f"{composed_dir}/{Path(f['host']).name}" for f in raw["composed_model"]["local_files"]]
    steps = (
        ("bash", "-c", COMPOSED_DIR_SCRIPT, "compose", composed_dir),
        *(
            ("ln", "-sfn", "--", f"{source}/{f.path}", f"{composed_dir}/{f.path}")
            for f in snapshot.files
        ),
        *(
            ("ln", "-f", "--", f["host"], at)
            for f, at in zip(raw["composed_model"]["local_files"], local, strict=True)
        ),
        ("bash", "-c", COMPOSED_FILES_SCRIPT, "compose", *local),
    )
    found = [h.composed for h in seed_recipe_plan().hosts]
    return expect_equal([steps] * 4, found, "composed-model steps per node")


@claim(ClaimKind.PLANNED_SHAPE)
def a_plain_recipe_serves_its_model_id_with_nothing_composed() -> Verdict:
    """A recipe without [composed_model] plans no steps and no mounts and serves the model
    id itself, whether or not its manifest is at hand (over Group B here)."""
    recipe = _load(_MINIMAL)
    group = _group("group_b")
    expected = [
        (
            (),
            _create_argv(
                group,
                rank,
                container="tiny",
                shm="8g",
                mounts=(),
                env=(),
                entrypoint=("vllm", "serve"),
                image="tiny:local",
                model_path="org/tiny",
                # no args in the recipe: TP 4 from its field, PP 1 by default
                args=("--tensor-parallel-size", "4", "--pipeline-parallel-size", "1"),
            ),
        )
        for rank in range(4)
    ]
    tiny = CheckpointManifest(
        model="org/tiny",
        revision="r1",
        files=(ManifestFile(path="w.safetensors", bytes=2**30, role="weights"),),
    )
    found = [
        [(h.composed, h.realization.create_argv) for h in _plan(recipe, group, s).hosts]
        for s in (None, tiny)
    ]
    return expect_equal([expected, expected], found, "(steps, create argv) per node")


@claim(ClaimKind.PLANNED_SHAPE)
def parallel_sizes_set_in_the_args_are_not_repeated() -> Verdict:
    """A recipe whose args set --tensor-parallel-size or --pipeline-parallel-size keeps its
    own and gets no second one; a field the args do not set is still rendered (TP2 × PP2
    over four nodes, so PP comes from the field when only TP is in the args)."""
    text = _MINIMAL.replace("tensor_parallel_size = 4", "tensor_parallel_size = 2") + (
        "pipeline_parallel_size = 2\n"
    )
    both = _load(text + 'args = ["--pipeline-parallel-size", "2", "--tensor-parallel-size", "2"]\n')
    only_tp = _load(text + 'args = ["--tensor-parallel-size", "2"]\n')
    group = _group()
    argvs = [_argvs(_plan(r, group))[1] for r in (both, only_tp)]
    found = [argv[argv.index("org/tiny") :] for argv in argvs]
    owned = ("--nnodes", "4", "--node-rank", "1", "--master-addr", group.hosts[0].rail_address)
    tail = (*owned, "--master-port", _RENDEZVOUS_PORT, "--headless")
    expected = [
        ("org/tiny", "--pipeline-parallel-size", "2", "--tensor-parallel-size", "2", *tail),
        ("org/tiny", "--tensor-parallel-size", "2", "--pipeline-parallel-size", "2", *tail),
    ]
    return expect_equal(expected, found, "rank 1 serve argv from the model path")


@claim(ClaimKind.PLANNED_SHAPE)
def shell_quoting_is_stripped_once() -> Verdict:
    """Each arg loses its surrounding whitespace and one pair of single quotes, nothing
    more: an empty quoted value becomes the empty argument, a doubly quoted value keeps its
    inner pair, a lone quote or an inner apostrophe stays."""
    recipe = _load(
        _MINIMAL + 'args = ["  --chat-template  ", "\'\'", "\'\'x\'\'", "\'", "it\'s", '
        '"\\n\'{\\"a\\":1}\'\\n"]\n'
    )
    argv = _argvs(_plan(recipe))[0]
    start = argv.index("org/tiny") + 1
    found = argv[start : start + 6]
    return expect_equal(
        ("--chat-template", "", "'x'", "'", "it's", '{"a":1}'), found, "args as served"
    )


def _toml_basic(text: str) -> str:
    """``text`` as a TOML basic string: quotes and backslashes escaped, and every character
    that is not printable as ``\\uXXXX`` (TOML takes no control character raw)."""
    body = "".join(
        "\\" + c if c in '"\\' else c if c.isprintable() else f"\\u{ord(c):04x}" for c in text
    )
    return f'"{body}"'


def _toml_args(args: list[str]) -> str:
    """``args = [...]`` as a TOML line, each arg a basic string (:func:`_toml_basic`)."""
    return f"args = [{', '.join(map(_toml_basic, args))}]\n"


@claim(ClaimKind.REFUSAL)
def launcher_owned_flags_are_refused_in_every_spelling_vllm_reads() -> Verdict:
    """Each launcher-owned flag (the multi-node ones, and the head's ``--port``, which would
    override a recipe's silently) is refused at args[i] in every spelling vLLM 0.33.0's own
    parser takes for it: as written (alone, ``=value`` split at the first '=', shell-quoted,
    padded), with underscores (vLLM rewrites ``_`` to ``-`` in a flag's name), as an
    unambiguous prefix (argparse's abbreviations: ``--nnode``, ``--node``, ``--master-a``,
    ``--head``), and as its short alias, alone or with the value glued on (``-n``, ``-r``,
    ``-r1``); a spelling other than the flag's own says what vLLM reads it as. ``--master``
    could be either rendezvous flag: vLLM refuses it as ambiguous, and so does the recipe.
    The three fabric env keys are refused at env.KEY."""
    cases: list[tuple[str, str]] = []  # (written, expected message)
    owned = ("--nnodes", "--node-rank", "--master-addr", "--master-port", "--headless", "--port")
    for flag in owned:
        cases += [
            (flag, f"{flag} is launcher-owned"),
            (f"{flag}=1", f"{flag}=1 is launcher-owned"),
            (f"'{flag}=a=b'", f"{flag}=a=b is launcher-owned"),
            (f"  {flag}\n", f"{flag} is launcher-owned"),
        ]
    read_as = {  # spelling → the flag vLLM reads it as (facts of vLLM 0.33.0's serve parser)
        "--node_rank": "--node-rank",
        "--master_addr=10.0.0.9": "--master-addr",
        "--Master_port=1": None,  # argparse is case-sensitive: not a flag vLLM knows
        "--nnode": "--nnodes",
        "--node": "--node-rank",
        "--master-a": "--master-addr",
        "--master_p=2": "--master-port",
        "--head": "--headless",
        "-n": "--nnodes",
        "-r": "--node-rank",
        "-r1": "--node-rank",
        "-n=2": "--nnodes",
        "--por=9000": "--port",
    }
    cases += [(s, f"{s} is launcher-owned (vLLM reads it as {f})") for s, f in read_as.items() if f]
    cases += [("--Master_port=1", "")]
    cases += [
        (
            "--master",
            "--master is ambiguous to vLLM 0.33.0's parser: it could be --master-addr, "
            "--master-port",
        )
    ]
    args: list[str] = []
    wanted: list[tuple[str, str]] = []
    for number, (written, message) in enumerate(cases):
        if message:
            wanted.append((f"args[{len(args) + 1}]", message))
        args += [f"--max-model-len={1000 + number}" if number == 0 else f"v{number}", written]
    env = ("GLOO_SOCKET_IFNAME", "VLLM_HOST_IP", "NCCL_SOCKET_IFNAME")
    wanted += [(f"env.{key}", "set per node by the launcher") for key in env]
    text = (
        _MINIMAL + _toml_args(args) + "[env]\n" + "".join(f'{k} = "x"\nOK_{k} = "y"\n' for k in env)
    )
    return expect_equal(wanted, _problems(text), "recipe problems")


@claim(ClaimKind.PLANNED_SHAPE)
def args_are_read_as_vllms_own_parser_reads_them() -> Verdict:
    """Each arg is read as vLLM 0.33.0 reads it (facts of its FlexibleArgumentParser and of
    Python 3.11's argparse, checked against the real parser in
    tests/test_recipe_vllm_spellings.py): ``_`` becomes ``-`` in a flag's name only, before
    any ``.`` or ``=`` (so ``a--b_c`` in a dotted key stays); ``=value`` and a short alias's
    glued tail are the value, else the next arg when it is a value (``-1`` and ``-a b`` are);
    a prefix names its one option (``-as`` is ``-asc``) or is ambiguous (``-p``); ``-O3``,
    ``-O=2`` and ``-O 1`` are ``--optimization-level``, ``-O x`` and ``-o3`` flags vLLM does not
    know; a dotted key takes the next arg as its value whatever it is (``--nnodes`` here),
    ``-0.5`` is read as one; after ``--`` nothing is an option."""
    R = ArgReading
    cases: dict[tuple[str, ...], tuple[ArgReading, ...]] = {
        ("--node_rank", "1"): (R(0, "--node_rank", "node_rank", "--node-rank", "1"),),
        ("--served_model_name=my_model",): (
            R(
                0,
                "--served_model_name=my_model",
                "served_model_name",
                "--served-model-name",
                "my_model",
            ),
        ),
        ("--compilation_config.a--b_c=1",): (
            R(
                0,
                "--compilation_config.a--b_c=1",
                "compilation_config",
                "--compilation-config",
                "1",
                ("a--b_c",),
            ),
        ),
        ("--nnode=2", "3"): (R(0, "--nnode=2", "nnodes", "--nnodes", "2"),),
        ("-r12",): (R(0, "-r12", "node_rank", "-r", "12"),),
        ("-as", "3"): (R(0, "-as", "api_server_count", "-asc", "3"),),
        ("-p", "2"): (R(0, "-p", None, "-p", "2", (), ("-pp", "-pcp")),),
        ("--max-model-len", "-1", "--chat-template", "-a b"): (
            R(0, "--max-model-len", "max_model_len", "--max-model-len", "-1"),
            R(2, "--chat-template", "chat_template", "--chat-template", "-a b"),
        ),
        ("-O3", "-O=2", "-O", "1", "-O", "x", "-o3"): (
            R(0, "-O3", "optimization_level", "--optimization-level", "3"),
            R(1, "-O=2", "optimization_level", "--optimization-level", "2"),
            R(2, "-O", "optimization_level", "--optimization-level", "1"),
            R(4, "-O", None, "-O", "x"),
            R(6, "-o3", None, "-o3", None),
        ),
        ("--engram-config.use_thp", "--nnodes", "--engram-config.cpu_offload=true", "-n", "2"): (
            R(
                0,
                "--engram-config.use_thp",
                "engram_config",
                "--engram-config",
                "--nnodes",
                ("use_thp",),
            ),
            R(
                2,
                "--engram-config.cpu_offload=true",
                "engram_config",
                "--engram-config",
                "true",
                ("cpu_offload",),
            ),
            R(3, "-n", "nnodes", "-n", "2"),
        ),
        ("-0.5", "--nnodes", "--x"): (R(2, "--x", None, "--x", None),),
        ("--", "--nnodes", "2"): (R(0, "--", None, "--", None),),
    }
    found = {args: read_args(args) for args in cases}
    return expect_equal(cases, found, "readings per args")


@claim(ClaimKind.REFUSAL)
def a_flag_set_twice_is_refused_where_it_is_set_again() -> Verdict:
    """vLLM keeps the last of a flag given twice, silently; a recipe that gives one twice is
    refused at the second, naming the flag and where it was first: the same spelling, two
    spellings vLLM reads as one flag (``--x=1`` then ``--x 2``, ``-`` then ``_``, a prefix),
    a flag and its ``--no-`` form, a flag vLLM does not know given twice, a dotted config key
    given twice or after the whole config. Two different keys of one config merge, and a
    flag that appends (``--middleware``) may repeat: both are accepted."""
    args = [
        *("--max-num-seqs", "4", "--max-num-seqs", "8"),  # [2]: the same spelling
        *("--block-size=16", "--block_size", "32"),  # [5]: '=' then '_'
        *("--max-model-len", "4096", "--max-model", "8192"),  # [9]: a prefix
        *("--enable-prefix-caching", "--no-enable-prefix-caching"),  # [12]: its --no- form
        *("--prefill-compute-share=0.4", "--prefill-compute-share", "0.5"),  # [14]: unknown
        *("--engram-config.cpu_offload", "true", "--engram-config.use_thp", "false"),
        *("--engram-config.cpu_offload", "false"),  # [20]: the same dotted key again
        *("--compilation-config", "{}", "--compilation-config.mode", "3"),  # [24]: after whole
        *("--middleware", "a.b", "--middleware", "c.d"),  # appends: accepted
    ]
    again = "vLLM keeps only the last"
    wanted = [
        ("args[2]", f"--max-num-seqs sets --max-num-seqs again (first at args[0]); {again}"),
        ("args[5]", f"--block_size sets --block-size again (first at args[4]); {again}"),
        ("args[9]", f"--max-model sets --max-model-len again (first at args[7]); {again}"),
        (
            "args[12]",
            "--no-enable-prefix-caching sets --enable-prefix-caching again (first at args[11]); "
            + again,
        ),
        (
            "args[14]",
            "--prefill-compute-share sets --prefill-compute-share again (first at args[13]); "
            + again,
        ),
        (
            "args[20]",
            "--engram-config.cpu_offload sets --engram-config.cpu_offload again "
            f"(first at args[16]); {again}",
        ),
        (
            "args[24]",
            "--compilation-config.mode sets --compilation-config.mode again (first at "
            f"args[22]); {again}",
        ),
    ]
    return expect_equal(wanted, _problems(_MINIMAL + _toml_args(args)), "recipe problems")


@claim(ClaimKind.REFUSAL)
def args_may_not_override_the_checked_parallel_fields() -> Verdict:
    """TP, PP and the backend are the recipe's fields, checked against the nodes; an arg
    that sets one to another value, in any spelling vLLM reads (``--tensor-parallel-size
    8``, ``-tp=8``, ``--tensor_parallel_size``, the prefix ``--pipeline-parallel``), with no
    value, or as a dotted key, is refused at args[i] quoting the arg and the field, whatever
    comes before it; one that agrees is accepted and the launcher does not render the flag a
    second time."""
    tp, pp = "tensor_parallel_size = 4", "pipeline_parallel_size = 1"  # tiny's TP, PP default
    cases: list[tuple[str, list[tuple[str, str]]]] = [  # (args as TOML, problems), each alone
        (
            '"--tensor-parallel-size", "8"',
            [("args[0]", f"--tensor-parallel-size 8 contradicts {tp}")],
        ),
        ('"-tp=8"', [("args[0]", f"-tp=8 contradicts {tp}")]),
        (
            '"--tensor_parallel_size", "two"',
            [("args[0]", f"--tensor_parallel_size two contradicts {tp}")],
        ),
        ('"--pipeline-parallel", "2"', [("args[0]", f"--pipeline-parallel 2 contradicts {pp}")]),
        (
            '"--distributed-executor-backend", "ray"',
            [
                (
                    "args[0]",
                    '--distributed-executor-backend ray contradicts distributed_backend = "mp"',
                )
            ],
        ),
        # a flag vLLM takes for another, and an agreeing TP, before a contradicting PP
        ('"--max-num-seqs", "4", "-tp", "4", "-pp", "3"', [("args[4]", f"-pp 3 contradicts {pp}")]),
        # a dotted key makes vLLM read a JSON object as the size: it never agrees
        (
            '"--pipeline-parallel-size.x", "1"',
            [("args[0]", f"--pipeline-parallel-size.x 1 contradicts {pp}")],
        ),
        (
            '"--tensor-parallel-size"',
            [("args[0]", f"--tensor-parallel-size with no value contradicts {tp}")],
        ),
        ('"--distributed-executor-backend=mp"', []),  # agrees
        # an arg that is not a string is a type problem, reported once
        ('"--tensor-parallel-size", 8', [("args[1]", "Input should be a valid string (value 8)")]),
    ]
    refused = [_problems(_MINIMAL + f"args = [{args}]\n") for args, _ in cases]
    wanted = [problems for _, problems in cases]
    agreeing = _load(_MINIMAL + _toml_args(["-tp", "4", "--pipeline_parallel_size=1"]))
    argv = _argvs(_plan(agreeing))[1]
    served = argv[argv.index("org/tiny") :]
    group = _group()
    tail = (
        *("--nnodes", "4", "--node-rank", "1", "--master-addr", group.hosts[0].rail_address),
        *("--master-port", _RENDEZVOUS_PORT, "--headless"),
    )
    want_served = ("org/tiny", "-tp", "4", "--pipeline_parallel_size=1", *tail)
    return expect_equal(
        (wanted, want_served), (refused, served), "(refusals, agreeing rank 1 serve argv)"
    )


@claim(ClaimKind.REFUSAL)
def flags_no_recipe_may_set_are_refused() -> Verdict:
    """``--model`` (the model is the recipe's field), ``--config`` (more flags from a file
    the launcher cannot check), ``-h`` (vLLM prints its help and exits), ``--`` (the
    launcher's flags after it would be positionals), an arg holding a NUL byte, and one
    holding a line break or a control character (a flag or a value: an arg is one line of
    the report and the argv) are each refused at args[i]."""
    args = ["--model", "org/other", "--config=x.yaml", "-h", "--max\0-num-seqs", "--x\ny"]
    args += ["--served-model-name", "a\x1b[2Jb", "a\u2028b", "--", "--x"]
    wanted = [
        ("args[0]", "--model names the model, which is the recipe's model field"),
        ("args[2]", "--config=x.yaml reads more flags from a file the launcher cannot check"),
        ("args[3]", "-h makes vLLM print its help and exit"),
        ("args[4]", "holds a NUL byte"),
        *(
            (f"args[{i}]", f"holds U+{code}, a line break or control character: an arg is one line")
            for i, code in ((5, "000A"), (7, "001B"), (8, "2028"))
        ),
        (
            "args[9]",
            "-- ends vLLM's options: the launcher's flags after it would be read as models",
        ),
    ]
    return expect_equal(wanted, _problems(_MINIMAL + _toml_args(args)), "recipe problems")


@claim(ClaimKind.REFUSAL)
def positionals_docker_or_vllm_would_read_as_options_are_refused() -> Verdict:
    """The image is docker's positional and the model vLLM's: ``--privileged`` or
    ``--volume=/:/host`` as the image would be read by docker as options (a privileged
    container, the host's root mounted), ``-tp`` as the model by vLLM; each is refused at its
    key, and so is a NUL byte or a line break in either."""
    cases = {
        "docker_image": (
            '"--privileged"',
            "'--privileged' starts with '-': docker would read it as an option",
        ),
        "docker_image ": (
            '"--volume=/:/host"',
            "'--volume=/:/host' starts with '-': docker would read it as an option",
        ),
        "docker_image  ": ('"img\\u0000:1"', "'img\\x00:1' holds a NUL byte"),
        "model": ('"-tp"', "'-tp' starts with '-': vLLM would read it as an option"),
        "model ": (
            '"org/x\\nforged"',
            "'org/x\\nforged' holds a space or a control character: it is one word",
        ),
    }
    found: dict[str, object] = {
        case: _problems(_replacing(case.strip(), value)) for case, (value, _) in cases.items()
    }
    wanted: dict[str, object] = {
        case: [(case.strip(), message)] for case, (_, message) in cases.items()
    }
    # an image with a space; an image of the wrong type does not stop the model's check
    found["a space"] = _problems(_replacing("docker_image", '"tiny local"'))
    wanted["a space"] = [
        ("docker_image", "'tiny local' holds a space or a control character: it is one word")
    ]
    both = _replacing("docker_image", "3").replace('model = "org/tiny"', 'model = "-x"')
    found["both"] = _problems(both)
    wanted["both"] = [
        ("docker_image", "Input should be a valid string (value 3)"),
        ("model", "'-x' starts with '-': vLLM would read it as an option"),
    ]
    return expect_equal(wanted, found, "problems per hostile positional")


@claim(ClaimKind.REFUSAL)
def every_problem_of_a_recipe_is_listed_in_order() -> Verdict:
    """Wrong types, missing fields and unknown keys (each with pydantic's reason and the
    value found; an unknown key with the key allowed at its place closest to it, if one is
    close), nested ones located by key path and list index, then the args that are
    launcher-owned or not JSON (a '[' value as well as a '{' one, in every spelling vLLM
    takes: the next arg, ``--flag=…`` with underscores, a short alias's ``-ac=…``, a prefix's
    ``--override-gen=…``, a dotted key's ``=…``), then the env: all in one refusal. A
    non-string arg is a type problem, reported once."""
    text = (
        _MINIMAL.replace("required_nodes = 4", 'required_nodes = "four"').replace(
            'shm_size = "8g"\n', ""
        )
        + "bogus = 1\ntensor_paralel_size = 1\n"
        + 'args = ["--nnodes", 4, "[1,", "--speculative-config", "\'{bad\'", '
        + '"--compilation_config={bad", "-ac=[1,", "--override-gen={x", "--engram-config.x={y"]\n'
        + '[env]\nNCCL_SOCKET_IFNAME = "eth0"\n'
        + '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\nrepo = 3\nrepos = 1\n'
        + "[[composed_model.local_files]]\n"
    )
    as_int = "Input should be a valid integer"  # strict: a string is never read as a number
    wanted = [
        ("required_nodes", f"{as_int} (value 'four')"),
        ("shm_size", "required, missing"),
        ("args[1]", "Input should be a valid string (value 4)"),
        ("composed_model.sources[0].repo", "Input should be a valid string (value 3)"),
        (
            "composed_model.sources[0].repos",
            "Extra inputs are not permitted (value 1); did you mean repo?",
        ),
        # pydantic also reports the tuple as too short when its only item is invalid
        (
            "composed_model.sources",
            "Tuple should have at least 1 item after validation, not 0 "
            "(value [{'repo': 3, 'repos': 1}])",
        ),
        ("composed_model.local_files[0].host", "required, missing"),
        ("bogus", "Extra inputs are not permitted (value 1)"),
        (
            "tensor_paralel_size",
            "Extra inputs are not permitted (value 1); did you mean tensor_parallel_size?",
        ),
        ("args[0]", "--nnodes is launcher-owned"),
        ("args[2]", "not JSON: Expecting value"),
        ("args[4]", "not JSON: Expecting property name enclosed in double quotes"),
        ("args[5]", "not JSON: Expecting property name enclosed in double quotes"),
        ("args[6]", "not JSON: Expecting value"),
        ("args[7]", "not JSON: Expecting property name enclosed in double quotes"),
        ("args[8]", "not JSON: Expecting property name enclosed in double quotes"),
        ("env.NCCL_SOCKET_IFNAME", "set per node by the launcher"),
    ]
    return expect_equal(wanted, _problems(text), "recipe problems")


@claim(ClaimKind.REFUSAL)
def a_tp_that_does_not_cover_the_nodes_is_reported_with_the_other_problems() -> Verdict:
    """Once the fields are well-typed, TP × PP ≠ nodes is reported after the arg and env
    problems in the same refusal, naming both sizes and the node count."""
    text = _MINIMAL.replace("tensor_parallel_size = 4", "tensor_parallel_size = 2") + (
        'args = ["--master-port", "1"]\n'
    )
    wanted = [
        ("args[0]", "--master-port is launcher-owned"),
        (
            "tensor_parallel_size",
            "TP 2 × PP 1 must equal required_nodes 4 (one GB10 GPU per node)",
        ),
    ]
    return expect_equal(wanted, _problems(text), "recipe problems")


@claim(ClaimKind.POSITIVE_CONTROL)
def tp_times_pp_covering_the_nodes_is_accepted() -> Verdict:
    """TP 2 × PP 2 covers four nodes: the recipe loads and plans."""
    text = _MINIMAL.replace("tensor_parallel_size = 4", "tensor_parallel_size = 2")
    plan = _plan(_load(text + "pipeline_parallel_size = 2\n"))
    return expect_equal(4, len(plan.hosts), "nodes planned")


@claim(ClaimKind.REFUSAL)
def the_refusal_names_the_file_and_lists_every_problem() -> Verdict:
    """The error a user reads: the file, the number of problems, then each problem as
    'where: message', one per indented line."""
    with _recipe_file(_MINIMAL + 'args = ["--headless"]\n[env]\nVLLM_HOST_IP = "1"\n') as path:
        try:
            load_recipe(path)
        except RecipeInvalid as invalid:
            found: tuple[str, str, str] | None = (invalid.source, invalid.where, str(invalid))
        else:
            found = None
        wanted = (
            str(path),
            "2 problem(s)",
            f"{path}: 2 problem(s): args[0]: --headless is launcher-owned\n"
            "  env.VLLM_HOST_IP: set per node by the launcher",
        )
    return expect_equal(wanted, found, "(source, where, message)")


def _input_error(text: str | bytes, *, missing: bool = False) -> tuple[str, str, str, str]:
    with _recipe_file(text) as path:
        if missing:
            path.unlink()
        try:
            load_recipe(path)
        except PlannerInputError as error:
            return (str(path), error.source, error.where, error.message)
    return (str(path), "", "", "accepted")


@claim(ClaimKind.REFUSAL)
def unreadable_and_malformed_files_are_located() -> Verdict:
    """A file that is missing or not UTF-8 is refused at <file>; a TOML syntax error at its
    line and column (the column of the newline ending an unterminated string), or at the
    end of file when the document stops short; each names the file."""
    lines = _MINIMAL.count("\n")
    cut = '  "unterminated]'
    cases = [
        _input_error(_MINIMAL, missing=True),
        _input_error(b"engine = '\xff'\n"),  # byte 10 is not UTF-8
        _input_error(_MINIMAL + f'args = ["--x",\n{cut}\n'),
        _input_error(_MINIMAL + 'args = ["--x",'),
    ]
    # a read error's text after "file: " is the OS's or the codec's: its first clause is the
    # fact; a TOML error quotes tomllib's reason with the position it found
    found = [(where, message.split(": ")[:2]) for _, _, where, message in cases]
    at = f"line {lines + 2}, column {len(cut) + 1}"
    wanted = [
        ("<file>", ["cannot read recipe", "[Errno 2] No such file or directory"]),
        ("<file>", ["cannot read recipe", "'utf-8' codec can't decode byte 0xff in position 10"]),
        (at, ["malformed TOML", f"Illegal character '\\n' (at {at})"]),
        ("end of file", ["malformed TOML", "Invalid value (at end of document)"]),
    ]
    named = all(path == source for path, source, _, _ in cases)
    return expect_equal((wanted, True), (found, named), "(where, message) per file, file named")


@claim(ClaimKind.REFUSAL)
def a_composed_model_is_not_planned_without_its_own_snapshot() -> Verdict:
    """A composed model whose model has no manifest in the data is refused, weight unknown,
    with no host rendered (its links would point nowhere and its weight is never guessed);
    a composed model linking another repo than the recipe's model is a problem of the
    recipe at ``composed_model.sources[0].repo``."""
    composed = '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\n'
    run = _plan(_load(_MINIMAL + composed + 'repo = "org/tiny"\n'))
    unknown = (len(run.hosts), [(r.code, r.where) for r in run.refusals], run.verdict)
    other = _problems(_MINIMAL + composed + 'repo = "org/other"\n')
    wanted = (
        (0, [("fit.weight_unknown", "model")], "REFUSED"),
        [
            (
                "composed_model.sources[0].repo",
                "'org/other' is not the recipe's model 'org/tiny', whose snapshot is linked",
            )
        ],
    )
    return expect_equal(wanted, (unknown, other), "(no manifest, another repo)")


@claim(ClaimKind.PLANNED_SHAPE)
def composed_links_resolve_into_the_hf_cache_folder_of_the_repo() -> Verdict:
    """Run for real, the composed dir's links read the snapshot's files through the HF
    cache's own folder naming (models--ORG--NAME, and models--NAME for a namespace-free id
    such as gpt2); the composed dir is named after the repo id the same way."""
    found = []
    for repo, folder in (("org/tiny", "org--tiny"), ("gpt2", "gpt2")):
        with tempfile.TemporaryDirectory() as root:
            base = Path(root)
            shots = base / "cache" / f"models--{folder}" / "snapshots" / "r1"
            shots.mkdir(parents=True)
            (shots / "config.json").write_text(f"config of {repo}")
            snapshot = CheckpointManifest(
                model=repo,
                revision="r1",
                files=(ManifestFile(path="config.json", bytes=2, role="config"),),
            )
            text = _MINIMAL.replace('model = "org/tiny"', f'model = "{repo}"') + (
                f'[composed_model]\nmount = "/model"\n[[composed_model.sources]]\nrepo = "{repo}"\n'
            )
            recipe = _load(text)
            assert recipe.composed_model is not None
            where = composed_dir(repo, str(base / "composed"))
            for step in composed_steps(recipe.composed_model, snapshot, where, str(base / "cache")):
                subprocess.run(step, check=True, capture_output=True)
            linked = base / "composed" / folder / "config.json"
            found.append(linked.read_text() if linked.exists() else "dangling or absent")
    return expect_equal(["config of org/tiny", "config of gpt2"], found, "config read via links")


def _replacing(key: str, value: str) -> str:
    """The tiny recipe with ``key`` written as ``value`` (TOML, as is)."""
    lines = [ln for ln in _MINIMAL.splitlines() if not ln.startswith(f"{key} =")]
    return "\n".join([*lines, f"{key} = {value}"]) + "\n"


@claim(ClaimKind.REFUSAL)
def a_recipe_is_read_strictly_and_every_place_named() -> Verdict:
    """TOML has real types, so none is stretched: a node count of "4", true or 4.0, an
    image given as a date, a node count of 20 digits (beyond 64 bits) are each refused at
    their key; 5,000 digits (more than Python reads) at their line and column; arrays
    nested 3,000 deep at <file>; a name holding a newline, U+2028 or a tab at ``name``, and
    a build profile, image dir or parent model holding a line break or a control character
    at its key — each is one line of text, so it cannot forge the report's lines."""
    lines = len(_MINIMAL.splitlines())
    key_cases = {
        'required_nodes = "4"': (_replacing("required_nodes", '"4"'), "required_nodes"),
        "required_nodes = true": (_replacing("required_nodes", "true"), "required_nodes"),
        "required_nodes = 4.0": (_replacing("required_nodes", "4.0"), "required_nodes"),
        "docker_image = a date": (_replacing("docker_image", "1979-05-27"), "docker_image"),
        "required_nodes of 20 digits": (_replacing("required_nodes", "9" * 20), "required_nodes"),
        "a name with a newline": (_replacing("name", '"tiny\\nrecipe plan: forged"'), "name"),
        "a name with U+2028": (_replacing("name", '"tiny\\u2028forged"'), "name"),
        "a name with a tab": (_replacing("name", '"tiny\\tforged"'), "name"),
        "a build profile with a newline": (
            _MINIMAL + 'build_profile = "p\\nfit: forged"\n',
            "build_profile",
        ),
        "an image dir with an escape": (
            _MINIMAL + 'docker_image_dir = "d\\u001b[2J"\n',
            "docker_image_dir",
        ),
        "a parent model with U+0085": (_MINIMAL + 'parent_model = "o/p\\u0085x"\n', "parent_model"),
    }
    seen: dict[str, object] = {}
    want: dict[str, object] = {}
    for case, (text, where) in key_cases.items():
        seen[case] = [place for place, _ in _problems(text)]
        want[case] = [where]
    huge = _input_error(_replacing("required_nodes", "9" * 5000))
    seen["required_nodes of 5,000 digits"] = (
        huge[0] == huge[1],
        huge[2],
        huge[3].startswith("unreadable integer: "),
    )
    want["required_nodes of 5,000 digits"] = (True, f"line {lines}, column 18", True)
    deep = _input_error(_MINIMAL + "x = " + "[" * 3000 + "]" * 3000 + "\n")
    seen["arrays 3,000 deep"] = (deep[0] == deep[1], deep[2], deep[3])
    want["arrays 3,000 deep"] = (True, "<file>", "arrays or tables nested too deeply")
    return expect_equal(want, seen, "where each hostile recipe is refused")


_OTHERS = {
    "a composed dir another user made first": (
        "mkdir -p composed/org--tiny && chown 1234 composed/org--tiny",
        "{d} is owned by uid 1234, not root",
    ),
    "a composed dir others may write": (
        "mkdir -p composed/org--tiny && chmod 0777 composed/org--tiny",
        "{d} is writable by group or others (mode 777)",
    ),
    "a composed root others may write": (
        "mkdir composed && chmod 0757 composed",
        "{b}/composed is writable by group or others (mode 757)",
    ),
    "a composed root in a sticky directory": (
        "mkdir -m 1777 sticky",
        "{b}/sticky is writable by others: {b}/sticky/composed is made only where no one else "
        "can write",
    ),
    "a local file another user owns": (
        "chown 1234 local/table.bin",
        "{d}/table.bin is owned by uid 1234, not root",
    ),
}


def _compose_among_others(prepare: str) -> tuple[int, str, bool]:
    """The tiny recipe's composed steps run for real (as root) in a fresh root-owned tree
    after ``prepare``, stopping at the first that fails: its exit status and stderr, and
    whether config.json was linked."""
    recipe = _load(
        _MINIMAL + '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\n'
        'repo = "org/tiny"\n[[composed_model.local_files]]\nhost = "/local/table.bin"\n'
    )
    assert recipe.composed_model is not None
    snapshot = CheckpointManifest(
        model="org/tiny",
        revision="r1",
        files=(ManifestFile(path="config.json", bytes=2, role="config"),),
    )
    with tempfile.TemporaryDirectory(dir="/run", prefix="gunbc-claim-") as root:
        base = Path(root)
        base.chmod(0o755)
        (base / "cache/models--org--tiny/snapshots/r1").mkdir(parents=True)
        (base / "cache/models--org--tiny/snapshots/r1/config.json").write_text("{}")
        (base / "local").mkdir()
        (base / "local/table.bin").write_text("local")
        local = ComposedLocalFile(host=f"{base}/local/table.bin")
        composed = recipe.composed_model.model_copy(update={"local_files": (local,)})
        subprocess.run(["bash", "-c", prepare], cwd=base, check=True)
        top = base / ("sticky" if "sticky" in prepare else "")
        where = composed_dir(recipe.model, str(top / "composed"))
        for step in composed_steps(composed, snapshot, where, str(base / "cache")):
            done = subprocess.run(step, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                break
        linked = Path(where, "config.json").is_symlink()
        shown = done.stderr.replace(where, "{d}").replace(str(base), "{b}")
    return done.returncode, shown, linked


@claim(ClaimKind.REFUSAL)
def a_composed_model_another_user_could_change_is_refused() -> Verdict:
    """Run for real as root: the composed steps refuse, with exit 1 and the place named,
    before linking anything, a composed dir another local user made first or anyone may
    write, a composed root others may write, making a directory inside a sticky one (anyone
    could have made its name first); and, once linked, a local file another user owns (a
    hardlink is the file: its owner changes the weights in place)."""
    want, found = {}, {}
    for what, (prepare, message) in _OTHERS.items():
        found[what] = _compose_among_others(prepare)
        linked = "local file" in what  # the files are checked once linked
        want[what] = (1, f"composed model: {message}\n", linked)
    return expect_equal(want, found, "(exit, stderr, config.json linked) per composed dir")


@claim(ClaimKind.REFUSAL)
def composed_sources_that_would_be_ignored_are_refused() -> Verdict:
    """Every composed-model entry is planned or refused: a second source (only the model's
    snapshot is linked) at ``composed_model.sources[i]``, a local file at a name an earlier
    one takes (its hardlink would replace the other) at its ``host``; the seed recipe has
    none of them. Where the model is mounted is another claim's (not over ``/`` or the
    HF cache)."""
    head = '[composed_model]\nmount = "{m}"\n[[composed_model.sources]]\nrepo = "org/tiny"\n'
    cases = {
        "a second source": (
            head.format(m="/model") + '[[composed_model.sources]]\nrepo = "org/other"\n',
            [
                (
                    "composed_model.sources[1]",
                    "'org/other' would be ignored: only the recipe's model's snapshot "
                    "(sources[0]) is linked",
                )
            ],
        ),
        "two local files at one name": (
            head.format(m="/model")
            + '[[composed_model.local_files]]\nhost = "/a/shard.bin"\n'
            + '[[composed_model.local_files]]\nhost = "/c/other.bin"\n'
            + '[[composed_model.local_files]]\nhost = "/b/shard.bin"\n',
            [
                (
                    "composed_model.local_files[2].host",
                    "'/b/shard.bin' links at shard.bin, as local_files[0] does: "
                    "the later would silently replace it",
                )
            ],
        ),
    }
    want = {what: problems for what, (_, problems) in cases.items()}
    found = {what: _problems(_MINIMAL + text) for what, (text, _) in cases.items()}
    want["the seed recipe"], found["the seed recipe"] = [], _seed_problems()
    return expect_equal(want, found, "problems per composed model")


def _seed_problems() -> list[tuple[str, str]]:
    try:
        load_recipe(SEED_RECIPE)
    except RecipeInvalid as invalid:
        return [(p.where, p.message) for p in invalid.problems]
    return []


@claim(ClaimKind.REFUSAL)
def composed_model_paths_stay_inside_the_composed_directory() -> Verdict:
    """A composed model's paths are sealed to its directory as Engram staging seals its
    writes (no absolute path, no '..', nothing empty): a model named ``..`` (its directory
    would be the composed root's parent) is refused at ``model``, a local file whose name is
    empty at its key; a snapshot manifest whose file path is ``../../etc/cron.d/x``,
    absolute, or holds a NUL byte is refused at plan time naming the manifest and
    ``files[i].path``, before any step is rendered. A local file that is not a table, or
    whose host is not a string, is a type problem only."""
    composed = '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\nrepo = "org/tiny"\n'
    dotdot = _problems(_replacing("model", '".."') + composed)
    # a local file of the wrong type is a type problem; the next one is still checked
    empty_name = _problems(
        _MINIMAL
        + composed
        + '[[composed_model.local_files]]\nhost = 3\n[[composed_model.local_files]]\nhost = "/"\n'
    )
    not_a_table = _problems(
        _MINIMAL + '[composed_model]\nmount = "/model"\nlocal_files = ["x"]\n'
        '[[composed_model.sources]]\nrepo = "org/tiny"\n'
    )
    recipe = _load(_MINIMAL + composed)
    planned = []
    for path in ("../../etc/cron.d/x", "/etc/cron.d/x", "a\0b", "ok/../../x"):
        snapshot = CheckpointManifest(
            model="org/tiny",
            revision="r1",
            files=(
                ManifestFile(path="config.json", bytes=2, role="config"),
                ManifestFile(path=path, bytes=1, role="weights"),
            ),
        )
        try:
            _plan(recipe, manifest=snapshot)
            planned.append(("planned", "", ""))
        except PlannerInputError as error:
            planned.append((error.source, error.where, error.message))
    root, tiny_dir = _COMPOSED_ROOT, f"{_COMPOSED_ROOT}/org--tiny"
    manifest = "the snapshot manifest of org/tiny"
    wanted = (
        [("model", f"'..' escapes the sealed directory {root}")],
        [
            ("composed_model.local_files[0].host", "Input should be a valid string (value 3)"),
            ("composed_model.local_files[1].host", f"'' escapes the sealed directory {tiny_dir}"),
        ],
        [
            (
                "composed_model.local_files[0]",
                "Input should be a valid dictionary or instance of ComposedLocalFile (value 'x')",
            )
        ],
        [
            (
                manifest,
                "files[1].path",
                f"'../../etc/cron.d/x' escapes the sealed directory {tiny_dir}",
            ),
            (manifest, "files[1].path", f"'/etc/cron.d/x' escapes the sealed directory {tiny_dir}"),
            (manifest, "files[1].path", "'a\\x00b' holds a NUL byte"),
            (manifest, "files[1].path", f"'ok/../../x' escapes the sealed directory {tiny_dir}"),
        ],
    )
    found = (dotdot, empty_name, not_a_table, planned)
    return expect_equal(wanted, found, "(model, local files, local file not a table, manifest)")


@claim(ClaimKind.REFUSAL)
def a_recipe_for_another_group_size_is_refused_with_its_hint() -> Verdict:
    """A valid recipe asking for more (5) or fewer (2) nodes than the group's 4 hosts is not
    an input error: ``planner recipe`` exits 1 with the README's refusal line (code, where,
    message naming the file, the counts and the group) and its hint on stdout, then the
    verdict; no host rendered, so no report is written."""
    Seen = tuple[int | str | None, list[str], str, list[str]]
    found: list[Seen] = []
    wanted: list[Seen] = []
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in (5, 2):
            path = Path(tmp) / f"n{nodes}.toml"
            text = _replacing("required_nodes", str(nodes)).replace(
                "tensor_parallel_size = 4", f"tensor_parallel_size = {nodes}"
            )
            # a model whose manifest the data holds: its weight is known, only the size fails
            seed_model = f'model = "{v41_manifest().model}"'
            path.write_text(text.replace('model = "org/tiny"', seed_model), encoding="utf-8")
            ran = run_planner("recipe", path, "--out", Path(tmp) / "plan.txt")
            left = sorted(p.name for p in Path(tmp).iterdir())
            found.append((ran.code, ran.lines, ran.err, left))
            wanted.append(
                (
                    1,
                    [
                        f"n{nodes}: no host rendered, so no report written",
                        f"refused: recipe.group_size at required_nodes: {path} needs {nodes} "
                        "nodes; group_a has 4 hosts",
                        f"  hint: plan it over a group of {nodes} hosts (--group)",
                        f"n{nodes}: REFUSED",
                    ],
                    "",
                    sorted(f"n{n}.toml" for n in (5, 2)[: len(wanted) + 1]),
                )
            )
    return expect_equal(wanted, found, "(exit, stdout lines, stderr, files left) per recipe")


# --------------------------------------------------------------------------- a recipe as an arm

_GIB = 2**30


def _ceil_gib(count: int) -> int:
    return -(-count // _GIB)


def _expected_fit(
    manifest: CheckpointManifest, group: FabricGroup, utilization_bp: int, engram: bool
) -> tuple[int, int, int, bool]:
    """(weights, allowance, pool, fits) as docs/recipes.md's fit wall states it: weights are the
    manifest's ``weights`` files in GiB rounded up; with Engram the allowance is the pool's
    share outside ``--gpu-memory-utilization``, rounded up once; fits when resident × 5/4 is
    at most the pool."""
    weights = _ceil_gib(sum(f.bytes for f in manifest.files if f.role == "weights"))
    pool = sum(h.memory_gib for h in group.hosts)
    allowance = _ceil_gib(-(-pool * _GIB * (10000 - utilization_bp) // 10000)) if engram else 0
    return weights, allowance, pool, (weights + allowance) * 5 <= pool * 4


@claim(ClaimKind.PLANNED_SHAPE)
def the_fit_weighs_the_manifest_at_the_recipes_utilization() -> Verdict:
    """The fit wall weighs a recipe's model by its manifest's weights files and, when the
    recipe configures Engram, charges the page-cache allowance at the recipe's own
    ``--gpu-memory-utilization`` (vLLM's default 0.9 when it sets none): the seed recipe
    (Engram, 0.88) over Group A's pool; tiny (no Engram) with no allowance; tiny with a dotted
    Engram key at the default 0.9."""
    group = _group()
    tiny = CheckpointManifest(
        model="org/tiny",
        revision="r1",
        files=(
            ManifestFile(path="config.json", bytes=4096, role="config"),
            ManifestFile(path="w.safetensors", bytes=40 * _GIB, role="weights"),
            ManifestFile(path="t.safetensors", bytes=7 * _GIB, role="engram_table"),
        ),
    )
    heavy = tiny.model_copy(
        update={"files": (ManifestFile(path="w.safetensors", bytes=400 * _GIB, role="weights"),)}
    )
    engram = _load(_MINIMAL + 'args = ["--engram-config.cpu_offload", "false"]\n')
    cases = {
        "seed": (seed_recipe_plan(), _expected_fit(v41_manifest(), group, 8800, True)),
        "tiny": (_plan(_load(_MINIMAL), group, tiny), _expected_fit(tiny, group, 9000, False)),
        "tiny + engram": (_plan(engram, group, tiny), _expected_fit(tiny, group, 9000, True)),
        "too heavy": (_plan(engram, group, heavy), _expected_fit(heavy, group, 9000, True)),
    }
    found = {
        name: (run.fit.weights_gib, run.fit.allowance_gib, run.fit.pool_gib, run.fit.fits)
        if run.fit is not None
        else None
        for name, (run, _) in cases.items()
    }
    wanted = {name: want for name, (_, want) in cases.items()}
    # a fit that fails refuses the plan, naming the utilization it was charged at
    heavy_run = cases["too heavy"][0]
    refused = [(r.code, "at utilization 0.9:" in r.message) for r in heavy_run.refusals]
    return expect_equal(
        (wanted, [("fit.exceeds_pool", True)], "REFUSED"),
        (found, refused, heavy_run.verdict),
        "((weights, allowance, pool, fits) per recipe, the heavy one's refusals, verdict)",
    )


@claim(ClaimKind.REFUSAL)
def a_model_without_a_manifest_is_refused_weight_unknown() -> Verdict:
    """A recipe whose model has no checkpoint manifest is refused by name, weight unknown,
    never fitted on a guess: no fit line, one refusal at ``model`` naming the file and the
    model and saying why, with a hint naming where the manifest goes; REFUSED (its hosts
    still render: nothing else is missing)."""
    run = _plan(_load(_MINIMAL), manifest=None)
    found = (run.fit, [list(r.lines()) for r in run.refusals], len(run.hosts), run.verdict)
    wanted = (
        None,
        [
            [
                "refused: fit.weight_unknown at model: recipe.toml serves org/tiny: weight "
                "unknown: the data holds no checkpoint manifest of it, so the fit wall cannot "
                "be checked (a weight is never guessed)",
                "  hint: add the model's manifest as checkpoints/<name>.manifest.json under the "
                "data root",
            ]
        ],
        4,
        "REFUSED",
    )
    return expect_equal(wanted, found, "(fit, refusals, hosts rendered, verdict)")


@claim(ClaimKind.REFUSAL)
def a_utilization_the_fit_cannot_read_is_refused_where_it_stands() -> Verdict:
    """``--gpu-memory-utilization`` decides the fit, so it must be a decimal above 0 and at
    most 1 with at most four places: 1.5, 0, 1.0001, abc and 0.88888 are refused at args[i],
    and the flag with no value; 0.88, =.9, 0.0001 and 1 are read."""
    flag = "--gpu-memory-utilization"
    cases = {
        "1.5": [("args[0]", f"{flag}: 1.5 is not above 0 and at most 1 (the fit wall reads it)")],
        "0": [("args[0]", f"{flag}: 0 is not above 0 and at most 1 (the fit wall reads it)")],
        "abc": [
            ("args[0]", f"{flag}: 'abc' is not a decimal of at most four places (the fit wall "
             "reads it)")
        ],
        "0.88888": [
            ("args[0]", f"{flag}: '0.88888' is not a decimal of at most four places (the fit "
             "wall reads it)")
        ],
        "1.0001": [
            ("args[0]", f"{flag}: 1.0001 is not above 0 and at most 1 (the fit wall reads it)")
        ],
        "0.88": [],
        "0.0001": [],
        "1": [],
    }  # fmt: skip
    found = {v: _problems(_MINIMAL + _toml_args([flag, v])) for v in cases}
    found["=.9"] = _problems(_MINIMAL + _toml_args([f"{flag}=.9"]))
    found["no value"] = _problems(_MINIMAL + _toml_args([flag]))
    alone = [("args[0]", f"{flag} needs a value (the fit wall reads it)")]
    return expect_equal({**cases, "=.9": [], "no value": alone}, found, "problems per utilization")


def _log(
    path: Path,
    successor: str,
    srv8: str,
    lease: str = "2026-11-29T18:00:00Z",
    admitted: tuple[str, str] | None = None,
) -> Path:
    """A log suspending group_a for ``successor`` until ``lease``, srv5-7 held by
    group-a-serving and srv8 by ``srv8``; ``admitted`` (runtime key, digest) admits an image."""
    held = [("srv5", "group-a-serving"), ("srv6", "group-a-serving")]
    held += [("srv7", "group-a-serving"), ("srv8", srv8)]
    lines = [
        f'{{"seq":{i},"at":"2026-11-20T09:05:00Z","event":"host_held","host":"{h}",'
        f'"subject":"{s}"}}'
        for i, (h, s) in enumerate(held, 1)
    ]
    if admitted is not None:
        lines.append(
            '{"seq":5,"at":"2026-11-28T10:00:00Z","event":"image_admitted",'
            f'"runtime_key":"{admitted[0]}","config_digest":"{admitted[1]}"}}'
        )
    lines.append(
        f'{{"seq":6,"at":"2026-11-29T10:00:00Z","event":"group_suspended","group":"group_a",'
        f'"successor":"{successor}","lease_expires_at":"{lease}"}}'
    )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


_DIGEST = "sha256:" + "5e" * 32


@claim(ClaimKind.REFUSAL)
def with_a_log_the_recipe_is_admitted_by_its_group_and_hosts() -> Verdict:
    """Given an authority log, a recipe's dry run is admitted when group_a is suspended for
    exactly its candidate (``<name>:<model>@<revision>:<build profile>``) and every host is
    held by the group's subject; the report says when the log was read, that every checked
    conjunct holds and that the image conjunct was not checked (the image is a tag). A
    suspension for another candidate or a host held by another subject refuses it, located,
    exit 1. A recipe whose image is a digest gets all four conjuncts: admitted when the log
    admitted that digest for its build profile, refused (``admission.image_not_admitted``)
    when not. With no --now the log is read at the wall clock."""
    raw: dict[str, Any] = tomllib.loads(SEED_RECIPE.read_text(encoding="utf-8"))
    manifest = v41_manifest()
    profile = raw["build_profile"]
    mine = f"{SEED_RECIPE.stem}:{manifest.model}@{manifest.revision}:{profile}"
    other = f"v41_group_a:{manifest.model}@{manifest.revision}:gunbc-deepseek-v41-engram-produced"
    unchecked = (
        f"admission: not checked: image admitted for runtime key {profile!r}: "
        f"the recipe names its image by tag ({raw['docker_image']}), not by digest"
    )
    found: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # the seed recipe with its image given by digest, kept under the seed's own name
        by_digest = Path(tmp) / "digest" / f"{SEED_RECIPE.stem}.toml"
        by_digest.parent.mkdir()
        by_digest.write_text(
            SEED_RECIPE.read_text(encoding="utf-8").replace(
                f'docker_image = "{raw["docker_image"]}"', f'docker_image = "{_DIGEST}"'
            ),
            encoding="utf-8",
        )
        cases: dict[str, tuple[Path, str, str, tuple[str, str] | None]] = {
            "admitted": (SEED_RECIPE, mine, "group-a-serving", None),
            "another candidate": (SEED_RECIPE, other, "group-a-serving", None),
            "srv8 held elsewhere": (SEED_RECIPE, mine, "group-b-serving", None),
            "digest admitted": (by_digest, mine, "group-a-serving", (profile, _DIGEST)),
            "digest not admitted": (by_digest, mine, "group-a-serving", None),
        }
        for case, (recipe, successor, srv8, admitted) in cases.items():
            log = _log(Path(tmp) / "log.jsonl", successor, srv8, admitted=admitted)
            out = Path(tmp) / "report.txt"
            argv = ["dry-run", "--recipe", str(recipe), "--authority", str(log)]
            ran = run_planner(*argv, "--now", "2026-11-29T12:00:00Z", "--out", out)
            report = out.read_text(encoding="utf-8").splitlines() if out.is_file() else []
            codes = [ln.split()[1] for ln in ran.lines if "refused:" in ln]
            admission = [ln for ln in report if ln.startswith(("admission:", "authority"))]
            found[case] = (ran.code, codes, admission, report[-1:])
        log = _log(Path(tmp) / "log.jsonl", mine, "group-a-serving", "2099-01-01T00:00:00Z")
        before = datetime.now(UTC)
        ran = run_planner(
            "dry-run", "--recipe", SEED_RECIPE, "--authority", log, "--out", Path(tmp) / "now.txt"
        )
        after = datetime.now(UTC)
        read = re.findall(r"^authority read at: (.*)$", (Path(tmp) / "now.txt").read_text(), re.M)
        at = datetime.fromisoformat(read[0]) if read else None
        found["no --now"] = (ran.code, at is not None and before <= at <= after)
    read_at = "authority read at: 2026-11-29T12:00:00+00:00"
    held = "admission: admitted (every checked conjunct holds)"
    wanted = {
        "admitted": (0, [], [read_at, held, unchecked], ["result: ADMITTED"]),
        "another candidate": (
            1, ["admission.other_successor"], [read_at, unchecked], ["result: REFUSED (1)"]
        ),
        "srv8 held elsewhere": (
            1, ["admission.host_not_held"], [read_at, unchecked], ["result: REFUSED (1)"]
        ),
        "digest admitted": (
            0, [], [read_at, "admission: admitted (all four conjuncts hold)"],
            ["result: ADMITTED"],
        ),
        "digest not admitted": (
            1, ["admission.image_not_admitted"], [read_at], ["result: REFUSED (1)"]
        ),
        "no --now": (0, True),
    }  # fmt: skip
    return expect_equal(wanted, found, "(exit, refusal codes, admission lines, result) per log")


@claim(ClaimKind.REFUSAL)
def a_recipe_planned_without_a_log_is_not_applied() -> Verdict:
    """With no authority log a recipe's dry run is PLANNED, not admitted: ``planner apply
    --recipe`` refuses it (exit 1, nothing ran) and writes no stage script."""
    hosts = ",".join(f"srv{n}=root@127.0.0.{n}" for n in (5, 6, 7, 8))
    with tempfile.TemporaryDirectory() as tmp:
        scripts = Path(tmp) / "scripts"
        argv = ["apply", "--recipe", str(SEED_RECIPE), "--hosts", hosts, "--dry-run"]
        ran = run_planner(*argv, "--scripts", scripts)
        found = (ran.code, ran.lines[-1:], scripts.exists())
    wanted = (
        1,
        [f"apply {SEED_RECIPE.stem}: REFUSED: the plan is not admitted; nothing ran"],
        False,
    )
    return expect_equal(wanted, found, "(exit, last line, scripts written)")


def _big_root(tmp: Path, hosts: int) -> Path:
    """A data root like the fixtures with a group ``group_c`` of ``hosts`` more hosts."""
    root = tmp / "data"
    root.mkdir()
    for entry in DATA_ROOT.iterdir():
        if entry.name != "fabric.json":
            (root / entry.name).symlink_to(entry)
    fabric = fabric_raw()
    extra = [
        {
            "name": f"big{i:02d}",
            "memory_gib": 121,
            "rail_address": f"10.78.1.{i + 1}",
            "rail_interface": "enp1s0f1np1",
        }
        for i in range(hosts)
    ]
    fabric["hosts"] += extra
    fabric["groups"].append(
        {"name": "group_c", "subject": "group-c-serving", "hosts": [h["name"] for h in extra]}
    )
    (root / "fabric.json").write_text(json.dumps(fabric), encoding="utf-8")
    return root


@claim(ClaimKind.PLANNED_SHAPE)
def a_sixteen_host_group_plans_as_four_do() -> Verdict:
    """Group size is data: a recipe for 16 nodes (TP 4 × PP 4) over an inventory group of 16
    hosts plans every host in order, each told --nnodes 16, its own --node-rank and rail
    address, the head's address to meet at, and fits against the 16 hosts' pool."""
    with tempfile.TemporaryDirectory() as tmp:
        root = _big_root(Path(tmp), 16)
        text = _replacing("required_nodes", "16") + "pipeline_parallel_size = 4\n"
        path = Path(tmp) / "big.toml"
        path.write_text(text, encoding="utf-8")
        out = Path(tmp) / "big.txt"
        ran = run_planner(
            "dry-run", "--recipe", path, "--group", "group_c", "--data", root, "--out", out
        )
        report = out.read_text(encoding="utf-8") if out.is_file() else ""
        group = read_json(root / "fabric.json")["groups"][-1]
    names = group["hosts"]
    head = "10.78.1.1"
    found = (ran.code, ran.err, [
        (
            line.split()[1],
            value_after(tuple(argv), "--nnodes"),
            value_after(tuple(argv), "--node-rank"),
            value_after(tuple(argv), "--master-addr"),
            next((a for a in argv if a.startswith("VLLM_HOST_IP=")), None),
        )
        for line, argv in zip(
            re.findall(r"^host .*$", report, re.M),
            [shlex.split(ln) for ln in re.findall(r"^docker create .*$", report, re.M)],
            strict=False,
        )
    ], re.findall(r"^fit: .*$", report, re.M))  # fmt: skip
    wanted = (
        0,
        "",
        [(n, "16", str(i), head, f"VLLM_HOST_IP=10.78.1.{i + 1}") for i, n in enumerate(names)],
        [f"fit: (16 weights + 0 allowance) x 5/4 = 20 GiB vs pool {16 * 121} GiB: fits by "
         f"{16 * 121 - 20} GiB"],
    )  # fmt: skip
    return expect_equal(wanted, found, "(exit, stderr, per host planned, fit line)")


@claim(ClaimKind.PLANNED_SHAPE)
def readback_compares_a_tag_with_the_name_created_from() -> Verdict:
    """A tag names no content, so each host's readback of the seed recipe compares the
    container's ``.Config.Image`` (the reference it was created from) with the recipe's
    image; an arm's image is a digest and its readback compares ``.Image``."""
    raw: dict[str, Any] = tomllib.loads(SEED_RECIPE.read_text(encoding="utf-8"))
    tag_check = '[ "$(inspect \'{{.Config.Image}}\')" = "$expected_image" ]'
    digest_check = '[ "$(inspect \'{{.Image}}\')" = "$expected_image" ]'

    def readbacks(run: DryRun) -> list[tuple[bool, bool, bool]]:
        scripts = [s.script for h in run.hosts for s in h.steps if s.stage.value == "readback"]
        return [
            (tag_check in text, digest_check in text, f"expected_image={image(run)}" in text)
            for text in scripts
        ]

    def image(run: DryRun) -> str:
        return run.launch.image_digest if run.launch is not None else "?"

    found = (readbacks(seed_recipe_plan()), readbacks(v41_dry_run("supplied")))
    wanted = ([(True, False, True)] * 4, [(False, True, True)] * 4)
    same_image = image(seed_recipe_plan()) == raw["docker_image"]
    return expect_equal((wanted, True), (found, same_image), "(tag, digest, image) per readback")


_OPTIONS = {2: "--headless", 3: "--config", 5: "--", 6: "-m"}  # [4] x.yaml: a plain word
_NOT_WORDS = {7: "", 8: "a\0b", 9: "a\nb", 10: "a b"}


@claim(ClaimKind.REFUSAL)
def env_and_entrypoint_that_would_break_the_argv_are_refused() -> Verdict:
    """Env entries reach ``docker create --env KEY=value``, the report and readback's line
    match, and the entrypoint is docker's ``--entrypoint`` value and the words before the
    model: a key that is not a variable name, a value with a line break or an escape
    character, an entrypoint starting with '-', and after the program any option
    (``--headless``, ``--config``, a bare ``--``, ``-m``: vLLM's parser would read it outside
    the args' rules) or a word that is empty or holds a NUL, a newline or a space are each
    refused where they stand (any other value, ``aXb`` here, passes); an empty entrypoint or
    composed-model source list, or a source that is not a table, is a type problem only."""
    words = '"--headless", "--config", "x.yaml", "--", "-m", "", "a\\u0000b", "a\\nb", "a b"'
    text = _replacing("entrypoint", f'["--privileged", "serve", {words}]') + (
        '[env]\n"A-B" = "1"\nGOOD = "aXb"\nBROKEN = "a\\nb"\nESCAPED = "a\\u001bb"\n'
    )
    found = [(where, message.split(": ")[0]) for where, message in _problems(text)]
    option = "is an option before the model, outside the args' checks"
    not_a_word = "is not one printable word (no space or control character)"
    wanted = [
        ("entrypoint[0]", "'--privileged' is not a safe name"),
        *((f"entrypoint[{i}]", f"{w!r} {option}") for i, w in _OPTIONS.items()),
        *((f"entrypoint[{i}]", f"{w!r} {not_a_word}") for i, w in _NOT_WORDS.items()),
        ("env.A-B", "'A-B' is not an environment variable name (letters, digits, _)"),
        ("env.BROKEN", "'a\\nb' holds a NUL byte, a line break or a control character"),
        ("env.ESCAPED", "'a\\x1bb' holds a NUL byte, a line break or a control character"),
    ]
    composed = '[composed_model]\nmount = "/model"\n'
    empty = [
        [where for where, _ in _problems(text)]
        for text in (
            _replacing("entrypoint", "[]"),
            _MINIMAL + composed + "sources = []\n",
            _MINIMAL + composed + 'sources = ["x"]\n',
        )
    ]
    wanted_empty = [
        ["entrypoint"],
        ["composed_model.sources"],
        # pydantic then finds no valid item left either
        ["composed_model.sources[0]", "composed_model.sources"],
    ]
    return expect_equal((wanted, wanted_empty), (found, empty), "(problems, empty lists)")


# --- what the image adds to stock vLLM (planner.recipe_extensions) ---

_SEED_IMAGE = "image jovian-r37-ds41:local (build profile jovian-r37-ds41)"
_NOT_AN_OPTION = "is not an option of vLLM 0.33.0's serve parser"
_NOT_AN_ENGRAM_FIELD = "is not a field of vLLM 0.33.0's EngramConfig"
_SEED_DECLARED = (
    "\n[image_extensions]\n"
    'flags = ["--prefill-compute-share"]\n'
    'config_fields = ["--engram-config.table_memory"]\n'
)


def _finding_lines(recipe: Recipe) -> list[str]:
    return [finding.line() for finding in stock_parser_findings(recipe)]


@claim(ClaimKind.PLANNED_SHAPE)
def the_seed_recipe_warns_of_each_flag_and_field_stock_vllm_refuses() -> Verdict:
    """The seed recipe's image is a fork: vLLM 0.33.0's serve parser refuses its
    ``--prefill-compute-share`` flag (args[15]) and its Engram ``table_memory`` field
    (args[35]). The dry run's findings are exactly one warning line each, naming the flag or
    field, its arg, the image and its build profile; nothing else in the seed is flagged."""
    wanted = [
        f"warning: args[15] --prefill-compute-share {_NOT_AN_OPTION}; {_SEED_IMAGE} must add it",
        f"warning: args[35] --engram-config.table_memory {_NOT_AN_ENGRAM_FIELD}; "
        f"{_SEED_IMAGE} must add it",
    ]
    return expect_equal(wanted, _finding_lines(load_recipe(SEED_RECIPE)), "seed findings")


@claim(ClaimKind.PLANNED_SHAPE)
def a_declared_extension_is_recorded_instead_of_a_warning() -> Verdict:
    """A recipe that declares what its image adds (``[image_extensions] flags`` and
    ``config_fields``) gets one extension line per declared flag or field, saying where it
    is declared, and no warning, in the findings and in the plan's warnings; declaring
    changes nothing the launcher runs (the seed planned with and without the declaration is
    the same plan)."""
    seed_text = SEED_RECIPE.read_text(encoding="utf-8")
    declared = _load(seed_text + _SEED_DECLARED)
    wanted = [
        f"extension: args[15] --prefill-compute-share {_NOT_AN_OPTION}; "
        f"declared at image_extensions.flags[0] for {_SEED_IMAGE}",
        f"extension: args[35] --engram-config.table_memory {_NOT_AN_ENGRAM_FIELD}; "
        f"declared at image_extensions.config_fields[0] for {_SEED_IMAGE}",
    ]
    plans = [
        _plan(r, manifest=v41_manifest(), name=SEED_RECIPE.stem)
        for r in (load_recipe(SEED_RECIPE), declared)
    ]
    same = (plans[1].launch, plans[1].hosts) == (plans[0].launch, plans[0].hosts)
    found = (_finding_lines(declared), list(plans[1].warnings), same)
    return expect_equal((wanted, wanted, True), found, "(findings, plan warnings, plan unchanged)")


@claim(ClaimKind.REFUSAL)
def a_stale_or_stock_declaration_is_a_located_problem() -> Verdict:
    """A declaration that would hide nothing or nothing uses is refused at its place, with
    the recipe's other problems: a flag stock vLLM has (as written, as a prefix it reads as
    one of its flags, or an ambiguous prefix of several), a field its EngramConfig has, a
    flag or field no arg sets (stale), a malformed name (an underscore says the dashed
    spelling), an entry that is not a string, and one declared twice; in a recipe with no
    args every declaration is stale. Well-formed declarations the args use pass."""
    flags = ["--zq", "--max-model-len", "--max-model", "--gone", 1, "--x_y", "-z", "--master"]
    flags += ["--zq"]
    fields = ["--engram-config.table_memory", "--engram-config.cpu_offload"]
    fields += ["--engram-config.gone"]
    declared = f"\n[image_extensions]\nflags = {flags}\nconfig_fields = {fields}\n"
    args = _toml_args(["--zq", "1", "--engram-config.table_memory", "disk"])
    at, field_at = "image_extensions.flags", "image_extensions.config_fields"
    hides = "declaring it hides nothing"
    reads = "vLLM 0.33.0's serve parser reads"
    not_a_flag = "is not a flag as vLLM reads it ('--', then letters, digits, '-')"
    wanted = [
        (f"{at}[4]", "Input should be a valid string (value 1)"),
        (f"{at}[1]", f"--max-model-len is an option of vLLM 0.33.0's serve parser: {hides}"),
        (f"{at}[2]", f"{reads} --max-model as its own --max-model-len: {hides}"),
        (f"{at}[3]", "no arg sets --gone: a stale declaration (remove it)"),
        (f"{at}[5]", f"'--x_y' {not_a_flag}: write --x-y"),
        (f"{at}[6]", f"'-z' {not_a_flag}"),
        (
            f"{at}[7]",
            f"{reads} --master as a prefix of its own --master-addr, --master-port: {hides}",
        ),
        (f"{at}[8]", "--zq is declared again (first at flags[0])"),
        (f"{field_at}[1]", f"cpu_offload is a field of vLLM 0.33.0's EngramConfig: {hides}"),
        (f"{field_at}[2]", "no arg sets --engram-config.gone: a stale declaration (remove it)"),
    ]
    stale = "no arg sets --prefill-compute-share: a stale declaration (remove it)"
    no_args = [
        (f"{at}[0]", stale),
        (
            f"{field_at}[0]",
            stale.replace("--prefill-compute-share", "--engram-config.table_memory"),
        ),
    ]
    found = (_problems(_MINIMAL + args + declared), _problems(_MINIMAL + _SEED_DECLARED))
    return expect_equal((wanted, no_args), found, "(recipe problems, with no args)")


@claim(ClaimKind.PLANNED_SHAPE)
def an_unknown_flag_or_field_is_found_in_every_spelling_vllm_reads() -> Verdict:
    """Each arg is read as vLLM reads it before it is judged: an unknown flag with
    underscores or ``=value`` is found under its dashed name (saying how it was written), a
    prefix of a declared flag is that flag, and an Engram field is found as a dotted key
    (underscored flag name, ``+`` list append), and any checked config's field as a JSON
    key. A recipe with no build profile
    says so."""
    args = ["--prefill_compute_share=0.4", "--zq-long-fl", "1", "--engram_config.table_memory"]
    args += ["disk", "--engram-config.mirror+", "a,b", "--attention-config", '{"gone": 1}']
    declared = '[image_extensions]\nflags = ["--zq-long-flag"]\n'
    tail = "; image tiny:local (no build profile) must add it"
    field = _NOT_AN_ENGRAM_FIELD
    wanted = [
        f"warning: args[0] --prefill-compute-share (written --prefill_compute_share) "
        f"{_NOT_AN_OPTION}{tail}",
        f"extension: args[1] --zq-long-flag (written --zq-long-fl) {_NOT_AN_OPTION}; "
        "declared at image_extensions.flags[0] for image tiny:local (no build profile)",
        f"warning: args[3] --engram-config.table_memory (written --engram_config.table_memory) "
        f"{field}{tail}",
        f"warning: args[5] --engram-config.mirror (written --engram-config.mirror+) {field}{tail}",
        f"warning: args[7] --attention-config.gone is not a field of vLLM 0.33.0's "
        f"AttentionConfig{tail}",
    ]
    found = _finding_lines(_load(_MINIMAL + _toml_args(args) + declared))
    return expect_equal(wanted, found, "findings")


@claim(ClaimKind.PLANNED_SHAPE)
def flags_and_fields_vllm_knows_yield_nothing() -> Verdict:
    """Flags and config fields vLLM 0.33.0 has, in any spelling it reads (underscores, a
    prefix, ``=value``, a dotted key, a JSON key, a nested dotted key, a short alias), yield
    no finding; nor does a config value that is not a JSON object, or no value at all (it has
    no field to judge)."""
    args = ["--max_model_len", "4", "--max-num-seq=2", "--attention-config", '{"backend":"x"}']
    args += ["--engram-config.use_thp", "false", "--compilation-config.pass_config.x", "1"]
    args += ["-cc.mode", "3", "--kv-cache-dtype", "fp8", "--kernel-config", '["not", "an object"]']
    args += ["--reasoning-config"]  # the last arg: a config flag with no value
    found = _finding_lines(_load(_MINIMAL + _toml_args(args)))
    return expect_equal([], found, "findings")


@claim(ClaimKind.PLANNED_SHAPE)
def a_recipe_runs_as_its_name_from_its_own_entrypoint() -> Verdict:
    """A recipe's arm, container and units are named after it: each host's unit is
    ``<name>-head.service`` on rank 0 and ``<name>-rank.service`` elsewhere, described as the
    launcher recipe of that name, and starts the container ``<name>``; the create argv gives
    the recipe's entrypoint program to ``--entrypoint`` and the rest of it before the model,
    and every node meets at the launcher's rendezvous port."""
    recipe = _load(_replacing("entrypoint", '["python3", "/usr/local/bin/vllm", "serve"]'))
    run = _plan(recipe, name="tiny-x")
    found = []
    for host in run.hosts:
        real = host.realization
        argv = real.create_argv
        at = argv.index("--entrypoint")
        found.append(
            (
                real.container_name,
                real.unit_name,
                "Description=launcher recipe tiny-x: " in real.unit_text,
                "ExecStart=/usr/bin/docker start --attach tiny-x" in real.unit_text,
                argv[at + 1 : at + 6],
                value_after(argv, "--master-port"),
            )
        )
    wanted = [
        (
            "tiny-x",
            "tiny-x-head.service" if rank == 0 else "tiny-x-rank.service",
            True,
            True,
            ("python3", "tiny:local", "/usr/local/bin/vllm", "serve", "org/tiny"),
            _RENDEZVOUS_PORT,
        )
        for rank in range(4)
    ]
    return expect_equal(wanted, found, "(container, unit, description, start, entrypoint, port)")


@claim(ClaimKind.REFUSAL)
def a_composed_model_is_not_mounted_over_the_root_or_the_cache() -> Verdict:
    """The composed model's mount is where the container reads it: at ``/`` it would hide
    the image's whole file system, and at the HF cache (/var/lib/gunbc/hf-cache), inside it
    or around it (``/var``, ``/var/lib/gunbc``) it collides with the cache's own read-only
    mount; each is refused at composed_model.mount, and ``/model`` passes."""
    composed = '[composed_model]\nmount = "{}"\n[[composed_model.sources]]\nrepo = "org/tiny"\n'
    mounts = ("/", "/var", "/var/lib/gunbc", _HF_CACHE, f"{_HF_CACHE}/x", "/model")
    found = {m: _problems(_MINIMAL + composed.format(m)) for m in mounts}
    collides = f"collides with the HF cache's own mount at {_HF_CACHE}"
    wanted: dict[str, list[tuple[str, str]]] = {
        m: [("composed_model.mount", f"{m!r} {collides}")] for m in mounts[1:5]
    }
    wanted["/"] = [("composed_model.mount", "'/' would hide the image's whole file system")]
    wanted["/model"] = []
    return expect_equal(wanted, found, "problems per mount")


def _named_run(recipe: Path, *name: str) -> tuple[int | str | None, str, bool]:
    """(exit, stderr, report written) of ``planner dry-run --recipe recipe [--name=…]``."""
    out = recipe.parent / "plan.txt"
    argv = ["dry-run", "--recipe", str(recipe), *(f"--name={n}" for n in name), "--out", str(out)]
    ran = run_planner(*argv)
    written = out.exists()
    out.unlink(missing_ok=True)
    return ran.code, ran.err, written


@claim(ClaimKind.REFUSAL)
def a_name_docker_or_systemd_would_misread_is_refused() -> Verdict:
    """The arm name is the container's (docker takes ``[a-zA-Z0-9][a-zA-Z0-9_.-]+``, two
    characters at least) and its units' (``<name>-head.service``: systemd reads an '@' as a
    template instance, and takes 255 characters at most): ``--name a@b:c``, ``a``, ``a:b``
    and 243 characters are usage errors at ``--name``, and a file stem that gives ``a@b`` is
    an input error naming the file and where the name came from, each exit 2 with nothing
    written; ``a.b-c_d`` and 242 characters plan (exit 0)."""
    refused = "is not a container and unit name"
    with tempfile.TemporaryDirectory() as tmp:
        recipe = Path(tmp) / "tiny.toml"
        recipe.write_text(_MINIMAL, encoding="utf-8")
        stem = Path(tmp) / "a@b.toml"
        stem.write_text(_MINIMAL, encoding="utf-8")
        found = {n: _named_run(recipe, n) for n in ("a@b:c", "a", "a:b", "x" * 243)}
        found["stem a@b"] = _named_run(stem)
        planned = {n: _named_run(recipe, n)[::2] for n in ("a.b-c_d", "x" * 242)}
    wanted: dict[str, tuple[int, str, bool]] = {
        n: (2, f"planner: error: arguments: --name: {n!r} {refused}: docker takes ", False)
        for n in ("a@b:c", "a", "a:b")
    }
    wanted["x" * 243] = (
        2,
        f"planner: error: arguments: --name: a name of 243 characters {refused}",
        False,
    )
    wanted["stem a@b"] = (
        2,
        f"planner: error: {stem}: the name of its file stem: 'a@b' {refused}",
        False,
    )
    seen = {
        case: (code, err[: len(wanted[case][1])], out) for case, (code, err, out) in found.items()
    }
    ok = {n: (0, True) for n in planned}
    return expect_equal((wanted, ok), (seen, planned), "(refused names, planned names)")


_KEYED = (
    "docker_image",
    "model",
    "entrypoint",
    "args",
    "env",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "composed_model",
)


@claim(ClaimKind.PLANNED_SHAPE)
def the_profile_key_digests_what_the_recipe_tells_the_engine() -> Verdict:
    """A recipe's profile key is ``sha256:`` then the SHA-256 of the canonical JSON (keys
    sorted, no spaces) of what it tells the engine: image, model, entrypoint, args (as
    written), env, TP, PP and composed model, absent fields at their defaults. So the key
    changes with any of them and not with the recipe's name or its declared extensions."""
    seed = load_recipe(SEED_RECIPE)
    raw: dict[str, Any] = tomllib.loads(SEED_RECIPE.read_text(encoding="utf-8"))
    body = {key: raw.get(key) for key in _KEYED}
    body["pipeline_parallel_size"] = raw.get("pipeline_parallel_size", 1)
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    want = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()

    def key(recipe: Recipe) -> str:
        run = _plan(recipe, manifest=v41_manifest())
        return run.launch.profile_key if run.launch is not None else "not rendered"

    text = SEED_RECIPE.read_text(encoding="utf-8")
    renamed = _load(text.replace(f'name = "{raw["name"]}"', 'name = "another name"'))
    other_env = _load(text.replace('OMP_NUM_THREADS = "8"', 'OMP_NUM_THREADS = "4"'))
    found = (key(seed), key(renamed) == key(seed), key(other_env) != key(seed))
    return expect_equal((want, True, True), found, "(key, same renamed, differs by env)")
