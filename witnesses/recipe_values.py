"""Witness: a launcher recipe is read as its TOML says and planned one node per group host.

The expected values are the recipe file read a second time with :mod:`tomllib` alone and
the group's hosts as ``fabric.json`` lists them (that order is node-rank order).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, expect
from fixtures.builders import DATA_ROOT, SEED_RECIPE, TINY_RECIPE, seed_recipe_plan
from planner.recipe import load_recipe

RECIPES = (SEED_RECIPE, TINY_RECIPE)


def _toml(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _group_host_names(group: str) -> list[str]:
    raw = json.loads((DATA_ROOT / "fabric.json").read_text(encoding="utf-8"))
    return list(next(g["hosts"] for g in raw["groups"] if g["name"] == group))


@claim(ClaimKind.PLANNED_SHAPE)
def a_recipe_is_read_as_its_toml_says() -> Verdict:
    """The seed recipe and the plain one are read field for field as written: name, image,
    image dir, build profile, model, parent model, node count, TP, PP, backend, shm size,
    entrypoint, every arg in order, the env, and the composed model's mount, sources and
    local files in order; a field the file leaves out stays unset."""
    problems = []
    for path in RECIPES:
        want = _toml(path)
        got = load_recipe(path).model_dump(mode="json", exclude_unset=True)
        wrong = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
        if wrong:
            problems.append(f"{path.name}: {wrong} differ from the file")
    return expect(not problems, f"{len(RECIPES)} recipes read as written", "; ".join(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def each_recipe_node_is_its_group_host_by_rank() -> Verdict:
    """The seed recipe planned over Group A names itself as its file does, runs under the
    container name it was given, and plans node rank i on the group's i-th host, srv5 the
    head, one node per host."""
    plan = seed_recipe_plan("group_a")
    hosts = _group_host_names("group_a")
    want = (_toml(SEED_RECIPE)["name"], SEED_RECIPE.stem, list(enumerate(hosts)))
    got = (plan.name, plan.container_name, [(r.rank, r.host_name) for r in plan.ranks])
    return expect(want == got, f"{len(hosts)} nodes on {hosts}, rank by rank", f"{got} != {want}")
