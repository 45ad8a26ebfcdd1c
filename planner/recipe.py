"""Launcher recipes (TOML): another way in, validated with locations and planned over N hosts.

A recipe names an image, a model, vLLM args and env, and optionally a composed model: a
per-node directory where the repo snapshot is symlinked from the HF cache and local files
are hardlinked over it (local files win at the same name). The launcher owns the
multi-node flags (``--nnodes/--node-rank/--master-addr/--master-port/--headless``) and the
per-node fabric env; a recipe that sets them is refused, located, with every other problem.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import Field, ValidationError

from planner.checkpoint import CheckpointManifest
from planner.fabric import FabricGroup, serving_head
from planner.launch import host_env
from planner.refusal import PlannerInputError, render_location
from planner.values import INT_RANGE, Frozen, OneLine, SafeName, SafePath, read_text_file

LAUNCHER_OWNED_FLAGS = ("--nnodes", "--node-rank", "--master-addr", "--master-port", "--headless")
LAUNCHER_OWNED_ENV = ("VLLM_HOST_IP", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")
COMPOSED_ROOT = "/tmp/gunbc-composed"
HF_CACHE_ROOT = "/var/lib/gunbc/hf-cache"
RECIPE_RENDEZVOUS_PORT = 29521
RECIPE_SERVE_PORT = 8000
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


class ComposedSource(Frozen):
    repo: str


class ComposedLocalFile(Frozen):
    host: SafePath


class ComposedModel(Frozen):
    mount: SafePath
    sources: tuple[ComposedSource, ...] = Field(min_length=1)
    local_files: tuple[ComposedLocalFile, ...] = ()


class Recipe(Frozen):
    """A launcher recipe as written; ``args`` are normalized by :func:`normalized_args`."""

    engine: Literal["vllm"]
    name: OneLine
    docker_image: str
    docker_image_dir: str | None = None
    build_profile: str | None = None
    model: str
    parent_model: str | None = None
    required_nodes: int = Field(ge=1)
    tensor_parallel_size: int = Field(ge=1)
    pipeline_parallel_size: int = Field(default=1, ge=1)
    distributed_backend: Literal["mp"]
    shm_size: SafeName
    entrypoint: tuple[str, ...] = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    composed_model: ComposedModel | None = None


class RecipeProblem(Frozen):
    where: str
    message: str


class RecipeInvalid(PlannerInputError):
    """Every problem of a recipe, each located; raised once, with all of them."""

    def __init__(self, source: str, problems: tuple[RecipeProblem, ...]) -> None:
        self.problems = problems
        listing = "".join(f"\n  {p.where}: {p.message}" for p in problems)
        super().__init__(source, f"{len(problems)} problem(s)", listing.removeprefix("\n  "))


def normalize_arg(arg: str) -> str:
    """Strip the shell quoting a recipe's multi-line values carry: whitespace, one '…' pair."""
    text = arg.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        text = text[1:-1]
    return text


def normalized_args(recipe: Recipe) -> tuple[str, ...]:
    return tuple(normalize_arg(a) for a in recipe.args)


_LONG_INTEGER = re.compile(r"[0-9][0-9_]{4299,}|0[xob][0-9A-Fa-f_]{4299,}")


def load_recipe(path: Path) -> Recipe:
    """Parse and validate a recipe file; any problem raises with every location.

    Values are validated strictly (TOML has real types: ``"4"`` is not a node count and
    ``true`` is not one either); integers beyond signed 64 bits are problems at their key."""
    source = str(path)
    text = read_text_file(path, "recipe")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = _TOML_AT.search(str(exc))
        where = f"line {at.group(1)}, column {at.group(2)}" if at else "end of file"
        raise PlannerInputError(source, where, f"malformed TOML: {exc}") from exc
    except ValueError as exc:  # an integer Python will not convert (over 4,300 digits)
        raise PlannerInputError(source, _position(text), f"unreadable integer: {exc}") from exc
    except RecursionError as exc:
        raise PlannerInputError(source, "<file>", "arrays or tables nested too deeply") from exc
    structure = structure_problems(raw)
    # TP × PP is checked once every field is well-typed, and reported with the arg/env problems
    recipe = None if structure else Recipe.model_validate(_as_tuples(raw), strict=True)
    problems = (
        structure
        + arg_and_env_problems(raw.get("args"), raw.get("env"))
        + (shape_problems(recipe) if recipe is not None else ())
    )
    if problems or recipe is None:
        raise RecipeInvalid(source, problems)
    return recipe


def _position(text: str) -> str:
    found = _LONG_INTEGER.search(text)
    if found is None:
        return "<file>"
    line = text.count("\n", 0, found.start()) + 1
    return f"line {line}, column {found.start() - text.rfind(chr(10), 0, found.start())}"


def _as_tuples(value: object) -> object:
    """TOML arrays as tuples (the recipe's frozen fields are tuples; strict validation takes
    a tuple for a tuple only)."""
    if isinstance(value, list):
        return tuple(_as_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _as_tuples(item) for key, item in value.items()}
    return value


def _out_of_range(value: object, where: tuple[str | int, ...]) -> list[RecipeProblem]:
    if isinstance(value, int) and not isinstance(value, bool) and value not in INT_RANGE:
        digits = len(str(abs(value)))
        message = f"an integer of {digits:,} digits is out of range (signed 64-bit at most)"
        return [RecipeProblem(where=render_location(where), message=message)]
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    return [p for key, item in items for p in _out_of_range(item, (*where, key))]


def structure_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """Every field that is missing or of the wrong type, located by its key path
    (``composed_model.sources[0].repo``: list items by index, as the args problems are)."""
    huge = _out_of_range(raw, ())
    if huge:
        return tuple(huge)
    try:
        Recipe.model_validate(_as_tuples(raw), strict=True)
    except ValidationError as exc:
        return tuple(
            RecipeProblem(
                where=render_location(e["loc"]),
                message="required, missing"
                if e["type"] == "missing"
                else f"{e['msg']} (value {_as_lists(e.get('input'))!r})",
            )
            for e in exc.errors()
        )
    return ()


def _as_lists(value: object) -> object:
    """A value as the recipe wrote it (its arrays as lists), for a message."""
    if isinstance(value, tuple):
        return [_as_lists(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_lists(item) for key, item in value.items()}
    return value


def arg_and_env_problems(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """Launcher-owned flags or env, and config values that are not JSON, each located."""
    found: list[RecipeProblem] = []
    items = args if isinstance(args, list) else []
    for i, arg in enumerate(normalize_arg(a) if isinstance(a, str) else "" for a in items):
        if arg.split("=", 1)[0] in LAUNCHER_OWNED_FLAGS:
            found.append(RecipeProblem(where=f"args[{i}]", message=f"{arg} is launcher-owned"))
        elif arg[:1] in ("{", "["):
            try:
                json.loads(arg)
            except json.JSONDecodeError as exc:
                found.append(RecipeProblem(where=f"args[{i}]", message=f"not JSON: {exc.msg}"))
    for key in env if isinstance(env, dict) else ():
        if key in LAUNCHER_OWNED_ENV:
            found.append(RecipeProblem(where=f"env.{key}", message="set per node by the launcher"))
    return tuple(found)


def shape_problems(recipe: Recipe) -> tuple[RecipeProblem, ...]:
    """TP × PP must cover the nodes: one GB10 GPU per node."""
    if recipe.tensor_parallel_size * recipe.pipeline_parallel_size == recipe.required_nodes:
        return ()
    return (
        RecipeProblem(
            where="tensor_parallel_size",
            message=f"TP {recipe.tensor_parallel_size} × PP {recipe.pipeline_parallel_size} "
            f"must equal required_nodes {recipe.required_nodes} (one GB10 GPU per node)",
        ),
    )


class RecipeRank(Frozen):
    """One node of a recipe launch: its create argv and its composed-model steps."""

    rank: int
    host_name: str
    create_argv: tuple[str, ...]
    composed_steps: tuple[tuple[str, ...], ...]


class RecipePlan(Frozen):
    name: str
    container_name: str
    ranks: tuple[RecipeRank, ...]


def _snapshot_dir(manifest: CheckpointManifest, hf_cache_root: str) -> str:
    """The snapshot dir in the HF cache; the repo folder is ``models--`` then the repo id with
    '/' as '--', so a namespace-free id such as ``gpt2`` lives in ``models--gpt2``."""
    folder = "--".join(("models", *manifest.model.split("/")))
    return f"{hf_cache_root}/{folder}/snapshots/{manifest.revision}"


def composed_steps(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """Symlink the whole snapshot, then hardlink each local file over its name (local wins)."""
    if composed.sources[0].repo != snapshot.model:
        raise ValueError(
            f"snapshot {snapshot.model} is not the recipe's {composed.sources[0].repo}"
        )
    source = _snapshot_dir(snapshot, hf_cache_root)
    links = tuple(
        ("ln", "-sfn", "--", f"{source}/{f.path}", f"{composed_dir}/{f.path}")
        for f in snapshot.files
    )
    locals_ = tuple(
        ("ln", "-f", "--", f.host, f"{composed_dir}/{PurePosixPath(f.host).name}")
        for f in composed.local_files
    )
    return (("mkdir", "-p", "--", composed_dir), *links, *locals_)


def recipe_serve_argv(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """The serve argv of node ``rank``: the recipe's args, then TP and PP from the recipe's
    fields unless the args set them, then the flags the launcher owns."""
    args = normalized_args(recipe)
    owned = (
        "--nnodes",
        str(group.size),
        "--node-rank",
        str(rank),
        "--master-addr",
        serving_head(group).rail_address,
        "--master-port",
        str(RECIPE_RENDEZVOUS_PORT),
    )
    tp = (
        ()
        if "--tensor-parallel-size" in args
        else ("--tensor-parallel-size", str(recipe.tensor_parallel_size))
    )
    pp = (
        ()
        if "--pipeline-parallel-size" in args
        else ("--pipeline-parallel-size", str(recipe.pipeline_parallel_size))
    )
    role = ("--port", str(RECIPE_SERVE_PORT)) if rank == 0 else ("--headless",)
    return (*recipe.entrypoint[1:], model_path, *args, *tp, *pp, *owned, *role)


def plan_recipe(
    recipe: Recipe,
    group: FabricGroup,
    container_name: str,
    snapshot: CheckpointManifest | None = None,
    composed_root: str = COMPOSED_ROOT,
    hf_cache_root: str = HF_CACHE_ROOT,
) -> RecipePlan:
    """Plan the recipe over ``group``: one create argv and composed-model steps per node."""
    if recipe.required_nodes != group.size:
        raise ValueError(
            f"recipe needs {recipe.required_nodes} nodes, {group.name} has {group.size}"
        )
    composed = recipe.composed_model
    if composed is not None and snapshot is None:
        raise ValueError("a composed model needs the snapshot manifest of its source repo")
    composed_dir = f"{composed_root}/{recipe.model.replace('/', '--')}"
    steps: tuple[tuple[str, ...], ...] = ()
    mounts: tuple[str, ...] = ()
    model_path = recipe.model
    if composed is not None and snapshot is not None:
        steps = composed_steps(composed, snapshot, composed_dir, hf_cache_root)
        model_path = composed.mount
        mounts = (
            f"type=bind,source={composed_dir},target={composed.mount},readonly",
            f"type=bind,source={hf_cache_root},target={hf_cache_root},readonly",
        )
    ranks = []
    for rank, host in enumerate(group.hosts):
        env = (*recipe.env.items(), *host_env(host))
        argv = (
            "docker",
            "create",
            "--name",
            container_name,
            "--network",
            "host",
            "--ipc",
            "host",
            "--gpus",
            "all",
            "--shm-size",
            recipe.shm_size,
            *(f for m in mounts for f in ("--mount", m)),
            *(f for k, v in env for f in ("--env", f"{k}={v}")),
            "--entrypoint",
            recipe.entrypoint[0],
            recipe.docker_image,
            *recipe_serve_argv(recipe, group, rank, model_path),
        )
        ranks.append(
            RecipeRank(rank=rank, host_name=host.name, create_argv=argv, composed_steps=steps)
        )
    return RecipePlan(name=recipe.name, container_name=container_name, ranks=tuple(ranks))
