"""Declared mutants of the recipe reader and planner (witness ``recipe_values``)."""

from __future__ import annotations

from pathlib import Path

from mutation import mutant
from planner.checkpoint import CheckpointManifest
from planner.fabric import FabricGroup
from planner.recipe import (
    COMPOSED_ROOT,
    HF_CACHE_ROOT,
    Recipe,
    RecipePlan,
    load_recipe,
    plan_recipe,
)

W = "recipe_values"


@mutant(replaces="planner.recipe.load_recipe", turns_red={f"{W}.a_recipe_is_read_as_its_toml_says"})
def the_build_profile_is_read_as_the_image_dir(path: Path) -> Recipe:
    """The recipe's build profile is read from its docker_image_dir field."""
    recipe = load_recipe(path)
    return recipe.model_copy(update={"build_profile": recipe.docker_image_dir})


@mutant(
    replaces="planner.recipe.plan_recipe",
    turns_red={f"{W}.each_recipe_node_is_its_group_host_by_rank"},
    independent=False,
)
def nodes_are_numbered_from_one(
    recipe: Recipe,
    group: FabricGroup,
    container_name: str,
    snapshot: CheckpointManifest | None = None,
    composed_root: str = COMPOSED_ROOT,
    hf_cache_root: str = HF_CACHE_ROOT,
) -> RecipePlan:
    """The plan numbers its nodes from 1 (each node's argv is still its own rank's)."""
    plan = plan_recipe(recipe, group, container_name, snapshot, composed_root, hf_cache_root)
    ranks = tuple(r.model_copy(update={"rank": r.rank + 1}) for r in plan.ranks)
    return plan.model_copy(update={"ranks": ranks})
