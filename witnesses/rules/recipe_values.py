"""Witness: a launcher recipe is read as its TOML says and planned one node per group host.

The recipes are ``fixtures/recipes/tiny.toml`` as it ships and, as its header invites, tiny
with every optional field appended (image dir, build profile, parent model, PP, args, env,
a composed model with a source and two local files). The expected values are the recipe
text read a second time with :mod:`tomllib` alone, and the group's hosts as ``fabric.json``
lists them (that order is node-rank order).
"""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, expect
from fixtures.builders import TINY_RECIPE, inventory
from planner.recipe import load_recipe
from planner.recipe_launch import RecipeSources, recipe_dry_run
from witnesses.support import group_raw

EVERY_FIELD = """
docker_image_dir = "tiny-build"
build_profile = "tiny-profile"
parent_model = "org/tiny-base"
pipeline_parallel_size = 1
args = ["--served-model-name", "tiny", "--max-model-len", "4096", "--enforce-eager"]

[env]
OMP_NUM_THREADS = "8"
HF_HUB_OFFLINE = "1"

[composed_model]
mount = "/model"

[[composed_model.sources]]
repo = "org/tiny"

[[composed_model.local_files]]
host = "/var/tmp/tiny/a.safetensors"

[[composed_model.local_files]]
host = "/var/tmp/tiny/b.safetensors"
"""
"""Every optional field of a recipe, appended to tiny (which sets only the required ones)."""


def _texts() -> dict[str, str]:
    tiny = TINY_RECIPE.read_text(encoding="utf-8")
    return {"tiny.toml": tiny, "tiny with every field": tiny + EVERY_FIELD}


@claim(ClaimKind.PLANNED_SHAPE)
def a_recipe_is_read_as_its_toml_says() -> Verdict:
    """A recipe is read field for field as written: name, image, image dir, build profile,
    model, parent model, node count, TP, PP, backend, shm size, entrypoint, every arg in
    order, the env, and the composed model's mount, sources and local files in order; a
    field the file leaves out stays unset."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, text in _texts().items():
            path = Path(tmp) / "recipe.toml"
            path.write_text(text, encoding="utf-8")
            want: dict[str, Any] = tomllib.loads(text)
            got = load_recipe(path).model_dump(mode="json", exclude_unset=True)
            wrong = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
            if wrong:
                problems.append(f"{label}: {wrong} differ from the file")
    return expect(not problems, "2 recipes read as written", "; ".join(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def each_recipe_node_is_its_group_host_by_rank() -> Verdict:
    """tiny planned over Group A names its file and itself as the file does, runs as the
    arm (and container) name it was given, and plans node rank i on the group's i-th host,
    srv5 the head, one node per host."""
    sources = RecipeSources(
        recipe=load_recipe(TINY_RECIPE),
        source=str(TINY_RECIPE),
        name="tiny-4x",
        group=inventory().group("group_a"),
        manifest=None,
        state=None,
    )
    plan = recipe_dry_run(sources)
    hosts = list(group_raw("group_a")["hosts"])
    name = tomllib.loads(TINY_RECIPE.read_text(encoding="utf-8"))["name"]
    want = (f"{TINY_RECIPE} ({name})", "tiny-4x", list(enumerate(hosts)))
    got = (
        plan.recipe,
        plan.arm,
        [(h.realization.rank, h.realization.host_name) for h in plan.hosts],
    )
    return expect(want == got, f"{len(hosts)} nodes on {hosts}, rank by rank", f"{got} != {want}")
