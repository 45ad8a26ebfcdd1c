"""Declared mutants of the recipe reader and planner (witness ``recipe_values``)."""

from __future__ import annotations

from pathlib import Path

from mutation import mutant
from planner.arm_launch import DryRun
from planner.recipe import Recipe, load_recipe
from planner.recipe_launch import RecipeSources, recipe_dry_run

W = "recipe_values"


@mutant(
    replaces="planner.recipe.load_recipe",
    turns_red={f"{W}.a_recipe_is_read_as_its_toml_says"},
)
def the_build_profile_is_read_as_the_image_dir(path: Path) -> Recipe:
    """The recipe's build profile is read from its docker_image_dir field."""
    recipe = load_recipe(path)
    return recipe.model_copy(update={"build_profile": recipe.docker_image_dir})


@mutant(
    replaces="planner.recipe_launch.recipe_dry_run",
    turns_red={f"{W}.each_recipe_node_is_its_group_host_by_rank"},
    independent=False,
)
def nodes_are_numbered_from_one(sources: RecipeSources) -> DryRun:
    """The plan numbers its nodes from 1 (each node's argv is still its own rank's)."""
    run = recipe_dry_run(sources)
    hosts = tuple(
        h.model_copy(update={"realization": h.realization.model_copy(update={"rank": rank})})
        for rank, h in enumerate(run.hosts, 1)
    )
    return run.model_copy(update={"hosts": hosts})
