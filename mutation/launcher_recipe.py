"""Declared mutants of the recipe ingestion (witness ``launcher_recipe``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mutation import mutant
from planner.checkpoint import CheckpointManifest
from planner.fabric import FabricGroup
from planner.recipe import (
    ComposedModel,
    Recipe,
    RecipeInvalid,
    RecipePlan,
    RecipeProblem,
    arg_and_env_problems,
    composed_steps,
    load_recipe,
    plan_recipe,
    recipe_serve_argv,
    structure_problems,
)

W = "launcher_recipe"
SEED_PLAN_CLAIMS = frozenset(
    f"{W}.{name}"
    for name in (
        "the_launcher_adds_the_multi_node_flags_per_rank",
        "the_recipe_args_arrive_unquoted",
        "each_node_gets_the_recipe_env_and_its_own_fabric_env",
        "the_seed_recipe_is_accepted",
    )
)


@mutant(
    replaces="planner.recipe.recipe_serve_argv",
    turns_red={f"{W}.the_launcher_adds_the_multi_node_flags_per_rank"},
)
def every_node_told_it_is_rank_zero(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """Every node is planned as node rank 0, so all of them serve and none rendezvous."""
    return recipe_serve_argv(recipe, group, 0, model_path)


@mutant(
    replaces="planner.recipe.normalized_args",
    turns_red={f"{W}.the_recipe_args_arrive_unquoted"},
)
def recipe_args_passed_with_their_shell_quotes(recipe: Recipe) -> tuple[str, ...]:
    """The args keep the recipe's shell quoting, so vLLM receives '...' around its JSON."""
    return recipe.args


@mutant(
    replaces="planner.recipe.plan_recipe",
    turns_red={f"{W}.each_node_gets_the_recipe_env_and_its_own_fabric_env"},
)
def recipe_env_dropped(
    recipe: Recipe,
    group: FabricGroup,
    container_name: str,
    snapshot: CheckpointManifest | None = None,
    composed_root: str = "/tmp/gunbc-composed",
    hf_cache_root: str = "/var/lib/gunbc/hf-cache",
) -> RecipePlan:
    """The recipe's [env] table never reaches the containers."""
    bare = recipe.model_copy(update={"env": {}})
    return plan_recipe(bare, group, container_name, snapshot, composed_root, hf_cache_root)


@mutant(
    replaces="planner.recipe.composed_steps",
    turns_red={f"{W}.local_files_win_over_the_snapshot"},
)
def local_files_linked_before_the_snapshot(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """Local files are hardlinked first and the snapshot's links then replace them."""
    steps = composed_steps(composed, snapshot, composed_dir, hf_cache_root)
    mkdir, rest = steps[0], steps[1:]
    return (mkdir, *(s for s in rest if s[1] == "-f"), *(s for s in rest if s[1] != "-f"))


@mutant(
    replaces="planner.recipe.arg_and_env_problems",
    turns_red={f"{W}.launcher_owned_flags_and_env_are_refused_where_they_stand"},
)
def launcher_owned_settings_let_through(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """A recipe may set the launcher's own flags and env: only bad JSON is reported."""
    return tuple(p for p in arg_and_env_problems(args, env) if p.message.startswith("not JSON"))


@mutant(
    replaces="planner.recipe.arg_and_env_problems",
    # the bad JSON arg of the all-problems claim is then reported twice
    turns_red={*SEED_PLAN_CLAIMS, f"{W}.every_recipe_problem_is_reported_together"},
    independent=False,
)
def every_json_config_value_refused(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """Any JSON-valued arg is refused as not JSON, so a valid recipe is rejected."""
    items = args if isinstance(args, list) else []
    jsonish = tuple(
        RecipeProblem(where=f"args[{i}]", message="not JSON")
        for i, a in enumerate(items)
        if isinstance(a, str) and a.strip().strip("'")[:1] in ("{", "[")
    )
    return (*arg_and_env_problems(args, env), *jsonish)


@mutant(
    replaces="planner.recipe.load_recipe",
    turns_red={f"{W}.every_recipe_problem_is_reported_together"},
)
def argument_problems_hidden_behind_structure(path: Path) -> Recipe:
    """When a field is missing, the problems of the args are not reported with it."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    found = structure_problems(raw)
    if found:
        raise RecipeInvalid(str(path), found)
    return load_recipe(path)


@mutant(
    replaces="planner.recipe.shape_problems",
    turns_red={f"{W}.every_recipe_problem_is_reported_together"},
    independent=False,
)
def tp_not_checked_against_the_nodes(recipe: Recipe) -> tuple[RecipeProblem, ...]:
    """TP × PP is never compared with the node count."""
    return ()
