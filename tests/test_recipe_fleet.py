"""A recipe's transaction for real: planned like an arm, applied on four sshd hosts.

The tiny recipe (no composed model, so nothing to build on the hosts first) is dry-run over
Group A, then its stage scripts run through the coordinator on a fleet of real sshd hosts on
this machine (fixtures/fleet.py), each seeded with the recipe's image. Every host must end
running the container the plan created, from the recipe's tag, with the planned command and
env, its unit active: the readback stage compares a tag by ``.Config.Image``.
"""

from __future__ import annotations

import pytest

from fixtures import fleet
from fixtures.builders import TINY_RECIPE, inventory
from fixtures.fleet import Case
from fixtures.sandbox import HostSeed
from planner.arm_launch import DryRun
from planner.data import snapshot_manifest
from planner.recipe import load_recipe
from planner.recipe_launch import RecipeSources, recipe_dry_run
from planner.transaction import EXIT_COMMITTED

_MISSING = fleet.unavailable()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"{_MISSING} (CI runs as root)")


def _tiny() -> DryRun:
    recipe = load_recipe(TINY_RECIPE)
    sources = RecipeSources(
        recipe=recipe,
        source=str(TINY_RECIPE),
        name="tiny",
        group=inventory().group("group_a"),
        manifest=snapshot_manifest(recipe.model),
        state=None,
    )
    return recipe_dry_run(sources)


def test_a_recipes_transaction_commits_on_every_host() -> None:
    run = _tiny()
    assert run.launch is not None and run.verdict == "PLANNED", run.refusals
    seeds = tuple(HostSeed(images=(run.launch.image_digest,)) for _ in run.hosts)
    (done,) = fleet.run(run, [Case(seeds)])
    assert done.report.exit_code == EXIT_COMMITTED, done.report.verdict()
    for host, launch, after in zip(run.hosts, run.launch.ranks, done.after, strict=True):
        real = host.realization
        container = after.containers[real.container_name]
        assert container.running, real.host_name
        assert container.image == "tiny:local"
        assert container.cmd == launch.serve_argv
        assert set(f"{k}={v}" for k, v in launch.env) <= set(container.env)
        assert container.label_map["gunbc.rank"] == str(real.rank)
        assert real.unit_name in after.active
        assert after.files[f"/etc/systemd/system/{real.unit_name}"] == real.unit_text.encode()
