"""Witness: launcher recipes (seed 003) validated with locations and planned over N hosts.

The seed recipe is DeepSeek-V4.1-Flash on four GB10 nodes with a composed model: the repo
snapshot symlinked from the HF cache and the two Engram table shards hardlinked from
node-local copies. The launcher owns the multi-node flags and the per-node fabric env.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from claims import ClaimKind, Verdict, claim, expect, expect_equal
from fixtures.builders import SEED_RECIPE, TINY_RECIPE, inventory, seed_recipe_plan
from planner.checkpoint import CheckpointManifest, ManifestFile
from planner.recipe import RecipeInvalid, load_recipe, plan_recipe

_MINIMAL = TINY_RECIPE.read_text(encoding="utf-8")


def _value_after(argv: tuple[str, ...], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def _problems(text: str) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "recipe.toml"
        path.write_text(text, encoding="utf-8")
        try:
            load_recipe(path)
        except RecipeInvalid as invalid:
            return [(p.where, p.message) for p in invalid.problems]
    return []


@claim(ClaimKind.PLANNED_SHAPE)
def the_launcher_adds_the_multi_node_flags_per_rank() -> Verdict:
    """Each node gets --nnodes 4, its own --node-rank, the head's rail address and the
    rendezvous port; rank 0 serves on a port, the others are --headless."""
    plan = seed_recipe_plan()
    head = inventory().group("group_a").hosts[0].rail_address
    shape = [
        (
            _value_after(r.create_argv, "--nnodes"),
            _value_after(r.create_argv, "--node-rank"),
            _value_after(r.create_argv, "--master-addr"),
            "--headless" in r.create_argv,
        )
        for r in plan.ranks
    ]
    expected = [("4", str(r), head, r != 0) for r in range(4)]
    return expect_equal(expected, shape, "(nnodes, node rank, master addr, headless) per node")


@claim(ClaimKind.PLANNED_SHAPE)
def the_recipe_args_arrive_unquoted() -> Verdict:
    """Multi-line, shell-quoted JSON values reach vLLM as plain JSON."""
    argv = seed_recipe_plan().ranks[0].create_argv
    config = _value_after(argv, "--compilation-config")
    return expect_equal('{"cudagraph_mode":"FULL_AND_PIECEWISE"}', config, "--compilation-config")


@claim(ClaimKind.PLANNED_SHAPE)
def each_node_gets_the_recipe_env_and_its_own_fabric_env() -> Verdict:
    """The recipe's env reaches every node, and each node's VLLM_HOST_IP is its own."""
    plan = seed_recipe_plan()
    hosts = inventory().group("group_a").hosts
    seen = [
        ("NCCL_NCHANNELS=16" in r.create_argv, f"VLLM_HOST_IP={h.rail_address}" in r.create_argv)
        for r, h in zip(plan.ranks, hosts, strict=True)
    ]
    return expect_equal([(True, True)] * 4, seen, "(recipe env, own host IP) per node")


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
        plan = plan_recipe(
            load_recipe(base / "recipe.toml"),
            inventory().group("group_a"),
            "tiny",
            snapshot,
            composed_root=str(base / "composed"),
            hf_cache_root=str(base / "cache"),
        )
        for step in plan.ranks[0].composed_steps:
            subprocess.run(step, check=True, capture_output=True)
        composed = base / "composed" / "org--tiny"
        found = (
            (composed / "config.json").is_symlink(),
            (composed / "table.bin").is_symlink(),
            (composed / "table.bin").read_text(),
        )
    return expect_equal((True, False, "local"), found, "(config linked, table linked, table)")


@claim(ClaimKind.REFUSAL)
def launcher_owned_flags_and_env_are_refused_where_they_stand() -> Verdict:
    """A recipe that sets --node-rank or VLLM_HOST_IP is refused at args[i] and env.KEY."""
    found = _problems(
        _MINIMAL + 'args = ["--trust-remote-code", "--node-rank", "1"]\n'
        '[env]\nVLLM_HOST_IP = "10.0.0.1"\n'
    )
    wanted = [
        ("args[1]", "--node-rank is launcher-owned"),
        ("env.VLLM_HOST_IP", "set per node by the launcher"),
    ]
    return expect_equal(wanted, found, "recipe problems")


@claim(ClaimKind.REFUSAL)
def every_recipe_problem_is_reported_together() -> Verdict:
    """A missing field, a config value that is not JSON and a TP that does not cover the
    nodes are each reported, not only the first."""
    structure = _problems(
        _MINIMAL.replace('shm_size = "8g"\n', "") + 'args = ["--speculative-config", "\'{bad\'"]\n'
    )
    shape = _problems(_MINIMAL.replace("tensor_parallel_size = 4", "tensor_parallel_size = 2"))
    wheres = ([w for w, _ in structure], [w for w, _ in shape])
    return expect_equal(
        (["shm_size", "args[1]"], ["tensor_parallel_size"]), wheres, "problem locations"
    )


@claim(ClaimKind.POSITIVE_CONTROL)
def the_seed_recipe_is_accepted() -> Verdict:
    """The seed recipe validates and plans over Group A's four nodes."""
    plan = seed_recipe_plan()
    return expect(
        len(plan.ranks) == 4 and SEED_RECIPE.is_file(),
        f"{plan.name}: {len(plan.ranks)} nodes",
        "the seed recipe did not plan",
    )
