"""A launcher recipe as an arm built from data: the same plan → fit → realize → apply →
report path the arms take (:mod:`planner.arm_launch`), with the recipe's own values.

What the recipe gives and what the launcher decides:

- **Group**: the recipe plans over exactly the group it is given (``--group``, any group
  the inventory holds); ``required_nodes`` must be its size (one GB10 GPU per node, so
  TP × PP = nodes, checked when the recipe is read). Another size is refused
  (``recipe.group_size``), valid input that this group cannot run.
- **Fit**: the arms' wall (:mod:`planner.fit`) over the group's pool, with the weight read
  from the model's checkpoint manifest under the data root (``checkpoints/*.manifest.json``,
  the one whose ``model`` is the recipe's) and the recipe's ``--gpu-memory-utilization``
  (vLLM's default, 0.9, when the args leave it unset). A recipe that configures Engram
  (``--engram-config`` in any spelling) keeps the page-cache allowance beyond its weights, as
  the V4.1 row does (its table rows are read through the page cache); any other keeps none. A
  model with no manifest is refused (``fit.weight_unknown``): its weight is never guessed.
- **Realization**: the arms' ``docker create`` builder, units and transactional apply
  scripts, with the recipe's image (a digest or a ``name:tag``), entrypoint, shm size and env
  (after the launcher's per-host fabric env); each rank runs the recipe's args after its model
  path, then the TP/PP the args leave unset, then the multi-node flags the launcher owns.
  A composed model is built on each host before apply (its steps are in the report) and
  mounted read-only where the args read the model, beside the HF cache it links into.
- **Names**: the arm, the container and the units are named after the recipe's directory
  (or file stem, or ``--name``): ``<name>``, ``<name>-head.service``, ``<name>-rank.service``.
- **Admission** runs when an authority log is given: the group's suspension for this
  candidate (``<name>:<model>@<revision>:<build profile>``) and every host held. A recipe
  names its image by tag, which names no content the log could have admitted, so the image
  conjunct runs only for an image given by digest and is otherwise reported as not checked.
  Without a log the result is PLANNED, never ADMITTED, and ``planner apply`` refuses it.
- **Values**: a recipe takes no arm's value (the arms' live in :mod:`planner.arms`, which
  this path never imports): its rendezvous and serving ports are the recipe path's own
  (:mod:`planner.recipe`; its serving port is the same number as V4.1's route, written
  there, never read from that arm), and its page-cache allowance is the shared rule of
  :mod:`planner.checkpoint` and :mod:`planner.fit`, chosen by the recipe's own Engram flags.
  A recipe is data: a value it needs belongs to its file or to this path, never to an arm.
"""

from __future__ import annotations

import hashlib
import json

from planner.admission import AdmissionVerdict, Candidate, recipe_launch_admission
from planner.apply import ApplyStep
from planner.arm_launch import DryRun, RenderedHost, render_hosts
from planner.authority import AuthorityState
from planner.checkpoint import (
    CheckpointManifest,
    NothingBeyondWeights,
    PageCacheFromNonKvHeadroom,
    ResidentBeyondWeights,
)
from planner.fabric import FabricGroup
from planner.fit import Fit, serving_arm_admits_under
from planner.identity import ArmContainerIdentity, ArmName, ArmUnitIdentity, BindMount
from planner.launch import LaunchPlan, RankLaunch, host_env
from planner.measure import gibibyte_ceiling
from planner.profile import utilization_text
from planner.recipe import (
    HF_CACHE_ROOT,
    RECIPE_RENDEZVOUS_PORT,
    RECIPE_SERVE_PORT,
    Recipe,
    composed_dir,
    composed_steps,
    group_refusals,
    recipe_serve_argv,
    utilization_bp,
)
from planner.recipe_extensions import stock_parser_findings
from planner.refusal import Refusal, refusal
from planner.values import Frozen

VLLM_DEFAULT_UTILIZATION_BP = 9000
"""vLLM's ``--gpu-memory-utilization`` default (0.9): what a recipe that leaves it unset gets."""


class RecipeWeight(Frozen):
    """What the fit wall reads of a recipe's model: its manifest's weight and what it keeps
    resident beyond it."""

    reference: str
    weight_gib: int
    resident_beyond_weights: ResidentBeyondWeights


class RecipeUtilization(Frozen):
    """The recipe's ``--gpu-memory-utilization``, in basis points."""

    gpu_memory_utilization_bp: int

    @property
    def utilization_text(self) -> str:
        return utilization_text(self.gpu_memory_utilization_bp)


class RecipeSources(Frozen):
    """What the command line read for a recipe's dry run."""

    recipe: Recipe
    source: str
    """The recipe file, as given: refusals name it."""
    name: ArmName
    """The arm, container and unit name (checked by the caller too, where it is located)."""
    group: FabricGroup
    manifest: CheckpointManifest | None
    """The model's checkpoint manifest; ``None``: the data has none (weight unknown)."""
    state: AuthorityState | None
    """The authority state at ``--now``; ``None``: no log given (admission not checked)."""


def uses_engram(recipe: Recipe) -> bool:
    return any(r.dest == "engram_config" for r in recipe.arg_readings())


def recipe_weight(recipe: Recipe, manifest: CheckpointManifest) -> RecipeWeight:
    """The manifest's weights files, rounded once; the page-cache allowance when the recipe
    configures Engram (its table rows are read through the page cache)."""
    resident: ResidentBeyondWeights = (
        PageCacheFromNonKvHeadroom() if uses_engram(recipe) else NothingBeyondWeights()
    )
    return RecipeWeight(
        reference=f"{manifest.model}@{manifest.revision}",
        weight_gib=gibibyte_ceiling(manifest.weight_bytes),
        resident_beyond_weights=resident,
    )


def recipe_utilization(recipe: Recipe) -> RecipeUtilization:
    """The args' ``--gpu-memory-utilization`` (validated when the recipe was read), else
    vLLM's default."""
    for reading in recipe.arg_readings():
        if reading.dest == "gpu_memory_utilization" and reading.value is not None:
            return RecipeUtilization(gpu_memory_utilization_bp=utilization_bp(reading.value))
    return RecipeUtilization(gpu_memory_utilization_bp=VLLM_DEFAULT_UTILIZATION_BP)


def weight_unknown(recipe: Recipe, source: str) -> Refusal:
    return refusal(
        "fit.weight_unknown",
        ("model",),
        f"{source} serves {recipe.model}: weight unknown: the data holds no checkpoint "
        "manifest of it, so the fit wall cannot be checked (a weight is never guessed)",
        hint="add the model's manifest as checkpoints/<name>.manifest.json under the data root",
    )


def recipe_fit(sources: RecipeSources) -> tuple[Fit | None, tuple[Refusal, ...]]:
    recipe, group = sources.recipe, sources.group
    if sources.manifest is None:
        return None, (weight_unknown(recipe, sources.source),)
    weight = recipe_weight(recipe, sources.manifest)
    fit, refused = serving_arm_admits_under(
        weight, recipe_utilization(recipe), group.pool_gib, group.size
    )
    return fit, (refused,) if refused else ()


def recipe_identities(recipe: Recipe, name: str) -> tuple[ArmContainerIdentity, ArmUnitIdentity]:
    container = ArmContainerIdentity(
        name=name,
        rendezvous_port=RECIPE_RENDEZVOUS_PORT,
        shm_size=recipe.shm_size,
        entrypoint=recipe.entrypoint[0],
    )
    units = ArmUnitIdentity(
        head_unit=f"{name}-head.service",
        rank_unit=f"{name}-rank.service",
        description=f"launcher recipe {name}",
    )
    return container, units


def recipe_mounts(recipe: Recipe) -> tuple[BindMount, ...]:
    """A composed model's directory where the args read the model, and the HF cache its
    links point into, both read-only; none without a composed model."""
    if recipe.composed_model is None:
        return ()
    return (
        BindMount(source=composed_dir(recipe.model), target=recipe.composed_model.mount),
        BindMount(source=HF_CACHE_ROOT),
    )


def recipe_key(recipe: Recipe) -> str:
    """A digest of what the recipe tells the engine (image, model, entrypoint, args, env,
    parallelism): the report's profile key, which changes whenever the serve changes."""
    body = recipe.model_dump(
        include={
            "docker_image",
            "model",
            "entrypoint",
            "args",
            "env",
            "tensor_parallel_size",
            "pipeline_parallel_size",
            "composed_model",
        }
    )
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def recipe_launch_plan(recipe: Recipe, group: FabricGroup) -> LaunchPlan:
    """Every rank's serve argv and env, head first, over exactly ``group``'s hosts."""
    model_path = recipe.model if recipe.composed_model is None else recipe.composed_model.mount
    ranks = tuple(
        RankLaunch(
            rank=rank,
            host=host,
            serve_argv=recipe_serve_argv(recipe, group, rank, model_path),
            env=(*host_env(host), *recipe.env.items()),
        )
        for rank, host in enumerate(group.hosts)
    )
    return LaunchPlan(ranks=ranks, image_digest=recipe.docker_image, profile_key=recipe_key(recipe))


def _candidate(sources: RecipeSources) -> Candidate:
    recipe, manifest = sources.recipe, sources.manifest
    checkpoint = f"{manifest.model}@{manifest.revision}" if manifest else recipe.model
    runtime = recipe.build_profile or recipe.docker_image
    return Candidate(arm=sources.name, checkpoint=checkpoint, runtime_key=runtime)


def recipe_dry_run(sources: RecipeSources) -> DryRun:
    """Plan, fit, render every host when the recipe can run on the group, and admit when a
    log was given; what the recipe's image adds to stock vLLM is a warning (or, declared, an
    extension) line of the report and stdout."""
    recipe, group = sources.recipe, sources.group
    sized = group_refusals(recipe, group, sources.source)
    fit, fit_refusals = recipe_fit(sources)
    candidate = _candidate(sources)
    renderable = not sized and (recipe.composed_model is None or sources.manifest is not None)
    launch: LaunchPlan | None = None
    hosts: tuple[RenderedHost, ...] = ()
    order: tuple[ApplyStep, ...] = ()
    admission: AdmissionVerdict | None = None
    if renderable:
        launch = recipe_launch_plan(recipe, group)
        composed: tuple[tuple[str, ...], ...] = ()
        if recipe.composed_model is not None and sources.manifest is not None:
            composed = composed_steps(
                recipe.composed_model, sources.manifest, composed_dir(recipe.model), HF_CACHE_ROOT
            )
        identities = recipe_identities(recipe, sources.name)
        hosts, order = render_hosts(
            launch,
            sources.name,
            identities,
            recipe_mounts(recipe),
            RECIPE_SERVE_PORT,
            composed=composed,
        )
        if sources.state is not None:
            admission = recipe_launch_admission(
                sources.state, group, candidate, recipe.docker_image
            )
    return DryRun(
        arm=sources.name,
        read_at=sources.state.read_at if sources.state is not None else None,
        candidate=candidate,
        fit=fit,
        plan_refusals=(*sized, *fit_refusals),
        launch=launch,
        hosts=hosts,
        apply_order=order,
        admission=admission,
        recipe=f"{sources.source} ({recipe.name})",
        warnings=tuple(f.line() for f in stock_parser_findings(recipe)),
    )
