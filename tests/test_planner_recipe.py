"""Launcher recipes: located validation, the N-host plan, the composed model on real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planner import data
from planner.checkpoint import CheckpointManifest, ManifestFile
from planner.identity import arm_name
from planner.recipe import (
    FIELD_DESTS,
    LAUNCHER_OWNED_DESTS,
    LAUNCHER_OWNED_FLAGS,
    RecipeInvalid,
    composed_dir,
    composed_steps,
    load_recipe,
    normalized_args,
    read_args,
    recipe_serve_argv,
)
from planner.recipe_launch import RecipeSources, recipe_dry_run
from planner.refusal import PlannerInputError
from planner.vllm_serve_options import SERVE_ACTIONS
from tests.realtools import systemd_unit_verifies

SEED_RECIPE = data.default_data_root() / "recipes" / "dsv41-flash-jovian-r37-4x.toml"
TINY_RECIPE = data.default_data_root() / "recipes" / "tiny.toml"
MINIMAL = TINY_RECIPE.read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "recipe.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> list[tuple[str, str]]:
    with pytest.raises(RecipeInvalid) as caught:
        load_recipe(path)
    return [(p.where, p.message) for p in caught.value.problems]


def test_seed_recipe_loads_and_normalizes_its_quoted_json() -> None:
    recipe = load_recipe(SEED_RECIPE)
    args = normalized_args(recipe)
    config = args[args.index("--compilation-config") + 1]
    assert config == '{"cudagraph_mode":"FULL_AND_PIECEWISE"}'
    assert recipe.required_nodes == 4 and recipe.composed_model is not None


def test_seed_recipe_plans_four_nodes_with_launcher_owned_flags() -> None:
    recipe = load_recipe(SEED_RECIPE)
    group = data.fabric().group("group_a")
    manifest = data.snapshot_manifest(recipe.model)
    sources = RecipeSources(
        recipe=recipe, source="seed", name="dsv41-r37", group=group, manifest=manifest, state=None
    )
    run = recipe_dry_run(sources)
    head = group.hosts[0].rail_address
    assert len(run.hosts) == 4 and run.verdict == "PLANNED"
    for host in run.hosts:
        argv, rank = host.realization.create_argv, host.realization.rank
        assert argv[argv.index("--node-rank") + 1] == str(rank)
        assert argv[argv.index("--master-addr") + 1] == head
        assert ("--headless" in argv) == (rank != 0)
        assert f"VLLM_HOST_IP={group.hosts[rank].rail_address}" in argv
        assert argv[argv.index("--entrypoint") + 2] == "jovian-r37-ds41:local"


def test_malformed_toml_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, MINIMAL + 'args = ["--x",\n  "unterminated]\n')
    with pytest.raises(PlannerInputError) as caught:
        load_recipe(path)
    bad_line = MINIMAL.count("\n") + 2  # the unterminated string, two lines after the base
    assert caught.value.where.startswith(f"line {bad_line},")
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("flag", LAUNCHER_OWNED_FLAGS)
def test_launcher_owned_flags_are_refused_at_their_index(tmp_path: Path, flag: str) -> None:
    path = _write(tmp_path, MINIMAL + f'args = ["--trust-remote-code", "{flag}", "1"]\n')
    assert _problems(path) == [("args[1]", f"{flag} is launcher-owned")]


def test_every_problem_is_reported_together(tmp_path: Path) -> None:
    text = MINIMAL.replace('shm_size = "8g"\n', "") + (
        'args = ["--nnodes", "4", "--speculative-config", "\'{bad\'"]\n'
        '[env]\nNCCL_SOCKET_IFNAME = "eth0"\n'
    )
    wheres = [where for where, _ in _problems(_write(tmp_path, text))]
    assert wheres == ["shm_size", "args[0]", "args[3]", "env.NCCL_SOCKET_IFNAME"]


def test_tp_times_pp_must_cover_the_nodes(tmp_path: Path) -> None:
    text = MINIMAL.replace("tensor_parallel_size = 4", "tensor_parallel_size = 2")
    assert [w for w, _ in _problems(_write(tmp_path, text))] == ["tensor_parallel_size"]


def test_a_name_with_shell_metacharacters_is_refused(tmp_path: Path) -> None:
    text = MINIMAL.replace('shm_size = "8g"', 'shm_size = "8g; rm -rf /"')
    assert [w for w, _ in _problems(_write(tmp_path, text))] == ["shm_size"]


def test_cli_reports_every_problem_and_writes_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path, MINIMAL + 'args = ["--headless"]\n[env]\nVLLM_HOST_IP = "1"\n')
    out = tmp_path / "plan.txt"
    done = subprocess.run(
        [sys.executable, "-m", "planner.cli", "recipe", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "args[0]: --headless is launcher-owned" in done.stderr
    assert "env.VLLM_HOST_IP" in done.stderr
    assert not out.exists()


def test_composed_model_links_snapshot_and_local_files_win(tmp_path: Path) -> None:
    """Run the planned steps for real: symlinks into the cache, local hardlinks win."""
    cache, local = tmp_path / "cache", tmp_path / "local"
    snapshot = CheckpointManifest(
        model="org/tiny",
        revision="r1",
        files=(
            ManifestFile(path="config.json", bytes=2, role="config"),
            ManifestFile(path="table.safetensors", bytes=6, role="engram_table"),
        ),
    )
    shots = cache / "models--org--tiny" / "snapshots" / "r1"
    shots.mkdir(parents=True)
    (shots / "config.json").write_text("{}")
    (shots / "table.safetensors").write_text("remote")
    local.mkdir()
    (local / "table.safetensors").write_text("local!")
    text = MINIMAL + (
        '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\nrepo = "org/tiny"\n'
        f'[[composed_model.local_files]]\nhost = "{local}/table.safetensors"\n'
    )
    recipe = load_recipe(_write(tmp_path, text))
    assert recipe.composed_model is not None
    where = composed_dir(recipe.model, str(tmp_path / "composed"))
    for step in composed_steps(recipe.composed_model, snapshot, where, str(cache)):
        subprocess.run(step, check=True)
    composed = tmp_path / "composed" / "org--tiny"
    assert (composed / "config.json").is_symlink()
    assert (composed / "config.json").read_text() == "{}"
    table = composed / "table.safetensors"
    assert not table.is_symlink() and table.read_text() == "local!"
    assert os.stat(table).st_ino == os.stat(local / "table.safetensors").st_ino


def test_a_recipe_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "recipe.toml"
    path.write_bytes(b"engine = '\xff'\n")
    with pytest.raises(PlannerInputError) as caught:
        load_recipe(path)
    assert caught.value.source == str(path) and caught.value.where == "<file>"


def test_toml_cut_off_at_the_end_says_so(tmp_path: Path) -> None:
    with pytest.raises(PlannerInputError) as caught:
        load_recipe(_write(tmp_path, MINIMAL + "args = [1,"))
    assert caught.value.where == "end of file"


def _cli(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    """`planner recipe` on ``text``, as a user runs it (a real subprocess)."""
    path = _write(tmp_path, text)
    return subprocess.run(
        [sys.executable, "-m", "planner.cli", "recipe", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )


def test_five_nodes_on_a_four_host_group_is_refused_not_an_input_error(tmp_path: Path) -> None:
    text = MINIMAL.replace("required_nodes = 4", "required_nodes = 5").replace(
        "tensor_parallel_size = 4", "tensor_parallel_size = 5"
    )
    done = _cli(tmp_path, text)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith(": no host rendered, so no report written")
    assert lines[1].startswith("refused: recipe.group_size at required_nodes: ")
    assert lines[1].endswith("recipe.toml needs 5 nodes; group_a has 4 hosts")
    assert lines[2] == "  hint: plan it over a group of 5 hosts (--group)"
    assert len(lines) == 4 and lines[3].endswith(": REFUSED")
    assert done.stderr == "" and not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("args", "where", "message"),
    [
        (
            '"--node_rank", "1"',
            "args[0]",
            "--node_rank is launcher-owned (vLLM reads it as --node-rank)",
        ),
        ('"--nnode", "4"', "args[0]", "--nnode is launcher-owned (vLLM reads it as --nnodes)"),
        ('"-r", "1"', "args[0]", "-r is launcher-owned (vLLM reads it as --node-rank)"),
        ('"--max-num-seqs", "4", "--max-num-seqs", "8"', "args[2]", "--max-num-seqs sets"),
        ('"--x=1", "--x", "2"', "args[1]", "--x sets --x again (first at args[0])"),
        (
            '"--tensor-parallel-size", "8"',
            "args[0]",
            "--tensor-parallel-size 8 contradicts tensor_parallel_size = 4",
        ),
        ('"--max-num-seqs\\u00004"', "args[0]", "holds a NUL byte"),
    ],
)
def test_args_vllm_would_misread_exit_2_located(
    tmp_path: Path, args: str, where: str, message: str
) -> None:
    done = _cli(tmp_path, MINIMAL + f"args = [{args}]\n")
    assert done.returncode == 2, done.stderr
    assert f"1 problem(s): {where}: {message}" in done.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("key", "value"),
    [("docker_image", '"--privileged"'), ("docker_image", '"--volume=/:/host"'), ("model", '"-x"')],
)
def test_a_positional_that_reads_as_an_option_exits_2(tmp_path: Path, key: str, value: str) -> None:
    text = "\n".join(ln for ln in MINIMAL.splitlines() if not ln.startswith(f"{key} ="))
    done = _cli(tmp_path, text + f"\n{key} = {value}\n")
    assert done.returncode == 2, done.stderr
    assert f"1 problem(s): {key}: '{value[1:-1]}' starts with '-'" in done.stderr


def test_a_manifest_path_escaping_the_composed_dir_exits_2(tmp_path: Path) -> None:
    data_root = tmp_path / "data"
    shutil.copytree(data.default_data_root(), data_root)
    manifest = data_root / "checkpoints" / "tiny-1a2b3c4d.manifest.json"  # org/tiny's
    files = [{"path": "../../../etc/cron.d/x", "bytes": 1, "role": "weights"}]
    manifest.write_text(json.dumps({"model": "org/tiny", "revision": "r1", "files": files}))
    composed = '[composed_model]\nmount = "/model"\n[[composed_model.sources]]\nrepo = "org/tiny"\n'
    path = _write(tmp_path, MINIMAL + composed)
    done = subprocess.run(
        [sys.executable, "-m", "planner.cli", "recipe", str(path), "--data", str(data_root),
         "--out", str(tmp_path / "o")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "planner: error: the snapshot manifest of org/tiny: files[0].path: "
        "'../../../etc/cron.d/x' escapes the sealed directory /var/lib/gunbc/composed/org--tiny\n"
    )
    assert not (tmp_path / "o").exists()


def test_a_recipe_port_is_refused_as_launcher_owned(tmp_path: Path) -> None:
    """The head serves on the launcher's --port: a recipe's own (any spelling vLLM reads)
    would be silently overridden by it, so it is refused as the other owned flags are."""
    args = '"--port", "9000", "--por=9001", "--max-num-seqs", "2"'
    assert _problems(_write(tmp_path, MINIMAL + f"args = [{args}]\n")) == [
        ("args[0]", "--port is launcher-owned"),
        ("args[2]", "--por=9001 is launcher-owned (vLLM reads it as --port)"),
    ]


def test_the_owned_flags_are_vllm_options_and_all_the_launcher_renders(tmp_path: Path) -> None:
    """Each launcher-owned flag is an option string of its dest in vLLM's serve option table
    (the real parser's, tests/test_recipe_vllm_spellings.py), and the flags the launcher
    renders after a recipe's (empty) args, over every rank, are every owned one and otherwise
    only the fields' (TP, PP): a flag rendered but not owned would override a recipe's
    silently."""
    options = dict(SERVE_ACTIONS)
    assert len(LAUNCHER_OWNED_FLAGS) == len(LAUNCHER_OWNED_DESTS)
    for flag, dest in zip(LAUNCHER_OWNED_FLAGS, LAUNCHER_OWNED_DESTS, strict=True):
        assert flag in options.get(dest, ()), f"{flag} is not vLLM's option of {dest}"
    recipe = load_recipe(_write(tmp_path, MINIMAL))
    group = data.fabric().group("group_a")
    rendered: set[str | None] = set()
    for rank in range(group.size):
        argv = recipe_serve_argv(recipe, group, rank, "org/tiny")
        assert argv[: argv.index("org/tiny") + 1] == (*recipe.entrypoint[1:], "org/tiny")
        rendered |= {r.dest for r in read_args(argv[argv.index("org/tiny") + 1 :])}
    assert set(LAUNCHER_OWNED_DESTS) <= rendered <= {*LAUNCHER_OWNED_DESTS, *FIELD_DESTS}


def test_the_longest_arm_name_makes_units_systemd_verifies(tmp_path: Path) -> None:
    """arm_name's length limit is systemd's, and tight: the longest name it takes plans
    units the real systemd-analyze verifies; one more character makes a unit name no file
    system here can even hold (NAME_MAX) and systemd refuses (UNIT_NAME_MAX)."""
    longest = "x" * 242
    assert arm_name(longest) == longest
    with pytest.raises(ValueError, match="systemd takes 255 at most"):
        arm_name(longest + "x")
    assert len(longest + "x-head.service") > os.pathconf(tmp_path, "PC_NAME_MAX")
    recipe = load_recipe(_write(tmp_path, MINIMAL))
    group = data.fabric().group("group_a")
    sources = RecipeSources(
        recipe=recipe, source="r", name=longest, group=group, manifest=None, state=None
    )
    for host in recipe_dry_run(sources).hosts:
        real = host.realization
        verified = systemd_unit_verifies(real.unit_name, real.unit_text)
        assert verified.ok, verified
