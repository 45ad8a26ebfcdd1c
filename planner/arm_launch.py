"""The shared arm launcher: plan, realize, stage, apply and admit any arm.

It spells no arm's literals: every name, port, parser and path arrives in an
:class:`ArmCall` that an arm's call site (a module of :mod:`planner.arms`) builds.
"""

from __future__ import annotations

from datetime import datetime

from planner.admission import AdmissionVerdict, Candidate, arm_launch_admission
from planner.apply import ApplyStep, apply_contexts, apply_steps
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointRow
from planner.engram import EngramPlacement, PlannedRemoteStep, engram_staging_steps
from planner.fabric import FabricGroup
from planner.fit import Fit, serving_arm_admits, serving_arm_admits_under
from planner.identity import ArmContainerIdentity, ArmUnitIdentity, BindMount
from planner.launch import LaunchPlan, ServingRoute, plan_arm_launch
from planner.profile import ServingLaunchProfile
from planner.realize import HostRealization, realize_hosts
from planner.refusal import Refusal
from planner.runtime import ProducedImage, arm_wall, runtime_key_wall
from planner.values import Frozen


class ArmCall(Frozen):
    """Everything one call site names for the launcher."""

    arm: str
    group: FabricGroup
    row: CheckpointRow
    container: ArmContainerIdentity
    units: ArmUnitIdentity
    route: ServingRoute
    runtime_key: str
    profile: ServingLaunchProfile | None
    image: ProducedImage | None
    engram: EngramPlacement | None = None
    engram_manifest: bytes | None = None
    obligations: tuple[Refusal, ...] = ()

    @property
    def candidate(self) -> Candidate:
        return Candidate(arm=self.arm, checkpoint=self.row.reference, runtime_key=self.runtime_key)


class RenderedHost(Frozen):
    """One host's artifacts: create argv and unit, staging steps, its apply stages; a
    recipe's host also has its composed-model steps (argvs run before apply)."""

    realization: HostRealization
    staging: tuple[PlannedRemoteStep, ...]
    steps: tuple[ApplyStep, ...]
    composed: tuple[tuple[str, ...], ...] = ()


class DryRun(Frozen):
    """The whole modeled launch: what would run, and whether it may."""

    arm: str
    read_at: datetime | None
    """When the authority log was read; ``None``: no log was given (a recipe's dry run),
    so admission was not checked."""
    candidate: Candidate
    fit: Fit | None
    plan_refusals: tuple[Refusal, ...]
    launch: LaunchPlan | None
    hosts: tuple[RenderedHost, ...]
    apply_order: tuple[ApplyStep, ...]
    admission: AdmissionVerdict | None
    recipe: str | None = None
    """A recipe's dry run: its file and its name, as the report's header names them."""
    warnings: tuple[str, ...] = ()
    """Lines the report and stdout carry that refuse nothing (a recipe's flags the stock
    vLLM parser does not know, and the extensions it declares)."""

    @property
    def rendered(self) -> bool:
        return self.launch is not None

    @property
    def refusals(self) -> tuple[Refusal, ...]:
        admission = self.admission.refusals if self.admission else ()
        return (*self.plan_refusals, *admission)

    @property
    def admitted(self) -> bool:
        return self.rendered and self.admission is not None and not self.refusals

    @property
    def verdict(self) -> str:
        """ADMITTED; PLANNED when it rendered with no refusal and no authority log was
        given (admission not checked, so ``planner apply`` refuses it); else REFUSED."""
        if self.admitted:
            return "ADMITTED"
        if self.rendered and self.read_at is None and not self.refusals:
            return "PLANNED"
        return "REFUSED"


def arm_mounts(call: ArmCall) -> tuple[BindMount, ...]:
    """Checkpoint read-only; Engram row stores and manifest read-only, receipts writable."""
    mounts = [BindMount(source=call.row.placement)]
    if call.engram is not None:
        mounts += [
            BindMount(source=call.engram.row_store_dir),
            BindMount(source=call.engram.manifest_dir),
            BindMount(source=call.engram.receipt_dir, read_only=False),
        ]
    return tuple(mounts)


def fit_wall(call: ArmCall) -> tuple[Fit | None, tuple[Refusal, ...]]:
    pool, ranks = call.group.pool_gib, call.group.size
    if call.profile is None:
        refused = serving_arm_admits(call.row, pool, ranks)
        return None, (refused,) if refused else ()
    fit, refused = serving_arm_admits_under(call.row, call.profile, pool, ranks)
    return fit, (refused,) if refused else ()


def _renderable(call: ArmCall) -> tuple[ServingLaunchProfile, ProducedImage] | None:
    if call.profile is None or call.image is None:
        return None
    if call.engram is not None and call.engram_manifest is None:
        return None
    return call.profile, call.image


def render_hosts(
    plan: LaunchPlan,
    arm: str,
    identities: tuple[ArmContainerIdentity, ArmUnitIdentity],
    mounts: tuple[BindMount, ...],
    serve_port: int,
    staging: tuple[PlannedRemoteStep, ...] = (),
    composed: tuple[tuple[str, ...], ...] = (),
) -> tuple[tuple[RenderedHost, ...], tuple[ApplyStep, ...]]:
    """Every host's create argv, unit and apply stages from a launch plan: the one
    realization arms and recipes share."""
    container, units = identities
    reals = realize_hosts(plan, arm, container, units, mounts)
    contexts = apply_contexts(
        plan, arm, reals, tuple(m.source for m in mounts), container.rendezvous_port, serve_port
    )
    order = apply_steps(contexts)
    by_rank: dict[int, list[ApplyStep]] = {r.rank: [] for r in reals}
    for step in order:  # one pass over the order: linear in hosts, not quadratic
        by_rank[step.rank].append(step)
    hosts = tuple(
        RenderedHost(
            realization=r, staging=staging, steps=tuple(by_rank[r.rank]), composed=composed
        )
        for r in reals
    )
    return hosts, order


def _render(
    call: ArmCall, profile: ServingLaunchProfile, image: ProducedImage
) -> tuple[LaunchPlan, tuple[RenderedHost, ...], tuple[ApplyStep, ...]]:
    extra_env = call.engram.env() if call.engram else ()
    digest = image.artifact.config_digest
    plan = plan_arm_launch(
        call.group, call.row, profile, call.container, call.route, digest, extra_env
    )
    staging: tuple[PlannedRemoteStep, ...] = ()
    if call.engram is not None and call.engram_manifest is not None:
        staging = engram_staging_steps(call.engram, call.engram_manifest)
    identities = (call.container, call.units)
    hosts, order = render_hosts(
        plan, call.arm, identities, arm_mounts(call), call.route.serve_port, staging
    )
    return plan, hosts, order


def plan_arm(call: ArmCall, state: AuthorityState) -> DryRun:
    """Plan, render when every input is there, and admit against the authority state."""
    fit, fit_refusals = fit_wall(call)
    walls = (
        (arm_wall(call.image), runtime_key_wall(call.image, call.runtime_key))
        if call.image is not None
        else ()
    )
    plan_refusals = (*call.obligations, *fit_refusals, *(w for w in walls if w is not None))
    ready = _renderable(call)
    launch: LaunchPlan | None = None
    hosts: tuple[RenderedHost, ...] = ()
    order: tuple[ApplyStep, ...] = ()
    admission: AdmissionVerdict | None = None
    if ready is not None:
        launch, hosts, order = _render(call, *ready)
        admission = arm_launch_admission(
            state, call.group, call.candidate, ready[1].artifact.config_digest
        )
    return DryRun(
        arm=call.arm,
        read_at=state.read_at,
        candidate=call.candidate,
        fit=fit,
        plan_refusals=plan_refusals,
        launch=launch,
        hosts=hosts,
        apply_order=order,
        admission=admission,
    )
