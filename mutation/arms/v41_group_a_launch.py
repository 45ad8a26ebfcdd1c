"""Declared mutants of the V4.1 TP4 launch on Group A (witness ``v41_group_a_launch``).

Each one is a defect a careless edit of the planner could make, named for the defect, with
the exact claims it turns red. ``seed_mutation_control`` is the seed's combined control:
three independent defects at once (Engram request dropped from the mint, held-host conjunct
removed, lease check removed) turn exactly plan, held and stale red, while the positive
admit control stays green. ``zero_allowance`` is the seed's allowance control: within this
witness it turns exactly the allowance claim red (the fit arithmetic witness sees it too).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from mutation import combined, mutant
from planner.admission import Candidate, image_admitted_for_runtime, successor_may_launch
from planner.apply import ApplyContext, cleanup_body
from planner.arm_launch import ArmCall, DryRun, plan_arm
from planner.arms.v41_group_a import (
    V41_STAIRCASE_CONCURRENCIES,
    deepseek_v41_measurement_profile,
    v41_group_a_call,
    v41_group_a_launch_dry_run,
)
from planner.authority import (
    AuthorityEvent,
    AuthorityState,
    HostReleased,
    SuspendedForAuthorizedSuccessor,
    fold,
)
from planner.checkpoint import (
    CHECKPOINT_ROOT,
    CheckpointManifest,
    CheckpointRow,
    NothingBeyondWeights,
)
from planner.fabric import Fabric, FabricGroup
from planner.fit import serving_arm_admits
from planner.frontiers import DeclaredFrontier, PlanInputs, unmet_obligations
from planner.identity import ArmContainerIdentity, ArmUnitIdentity
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest
from planner.realize import unit_text
from planner.refusal import Refusal
from planner.runtime import ProducedImage, arm_wall
from planner.values import load_json_model

W = "v41_group_a_launch"
PLAN = f"{W}.engram_request_renders_both_dotted_flags"
HELD = f"{W}.host_not_held_by_the_subject_is_refused"
STALE = f"{W}.expired_lease_is_refused"
ALLOWANCE = f"{W}.low_utilization_refuses_naming_the_declared_allowance"
MINT = "planner.arms.v41_group_a.deepseek_v41_measurement_profile"
CONJUNCT_1 = "planner.admission.successor_may_launch"
ENGRAM_FLAGS = VllmEngramConfigRequest.flags
V41_DRY_RUN = "planner.arms.v41_group_a.v41_group_a_launch_dry_run"
FRONTIERS = f"{W}.each_open_frontier_refuses_naming_its_owner_and_trigger"
ARTIFACTS = f"{W}.dry_run_renders_every_host_artifact"
UNPROBED = f"{W}.unprobed_image_is_refused_by_the_arm_wall"
READ_AT = f"{W}.the_log_is_read_at_its_time"
NO_MANIFEST = f"{W}.without_the_engram_manifest_nothing_renders"


def _without(refusals: tuple[Refusal, ...], code: str) -> tuple[Refusal, ...]:
    return tuple(r for r in refusals if r.code != code)


# --- the mint: what V4.1 fixes in its measurement profile ---------------------------------


@mutant(replaces=MINT, turns_red={PLAN})
def engram_request_dropped_from_the_mint(
    gpu_memory_utilization_bp: int,
    max_num_batched_tokens: int,
    prefix_caching: bool,
    staircase: tuple[int, ...] = V41_STAIRCASE_CONCURRENCIES,
) -> ServingLaunchProfile:
    """The minted V4.1 profile carries no Engram request, so no --engram-config flag renders."""
    minted = deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp, max_num_batched_tokens, prefix_caching, staircase
    )
    return minted.model_copy(update={"engram": None})


# --- the row, the launch shape and the realization ----------------------------------------


@mutant(replaces="planner.realize.unit_text", turns_red={ARTIFACTS})
def unit_without_a_service_section(
    container: ArmContainerIdentity, units: ArmUnitIdentity, rank: int
) -> str:
    """The unit is rendered without its [Service] header, so ExecStart lands in [Unit]."""
    return unit_text(container, units, rank).replace("[Service]\n", "", 1)


# --- the fit wall --------------------------------------------------------------------------


@mutant(
    replaces="planner.fit.page_cache_allowance_gib",
    turns_red={ALLOWANCE},
)
def zero_allowance(pool_gib: int, utilization_bp: int) -> int:
    """The page-cache allowance is charged as zero: the fit wall fits on weights alone."""
    return 0


@mutant(
    replaces="planner.fit.serving_arm_admits",
    turns_red={FRONTIERS, f"{W}.without_a_profile_the_wall_refuses"},
)
def without_a_profile_the_row_fits_on_weights(
    row: CheckpointRow, pool_gib: int, ranks: int
) -> Refusal | None:
    """Without a profile the wall fits the row on its weights, as if it kept nothing
    resident beyond them, instead of refusing the unknown allowance."""
    bare = row.model_copy(update={"resident_beyond_weights": NothingBeyondWeights()})
    return serving_arm_admits(bare, pool_gib, ranks)


# --- the arm wall and admission -------------------------------------------------------------


@mutant(replaces="planner.runtime.arm_wall", turns_red={UNPROBED})
def unprobed_image_passes_the_arm_wall(image: ProducedImage) -> Refusal | None:
    """The arm wall admits an image nobody took a registry reading inside."""
    return None


@mutant(
    replaces=CONJUNCT_1,
    turns_red={STALE},
)
def lease_check_removed(state: AuthorityState, group: FabricGroup) -> tuple[Refusal, ...]:
    """Conjunct 1 no longer checks the lease: a suspension whose lease expired admits."""
    return _without(successor_may_launch(state, group), "admission.lease_expired")


@mutant(
    replaces=CONJUNCT_1, turns_red={f"{W}.active_incumbent_is_refused", READ_AT}, independent=False
)
def active_incumbent_taken_for_a_suspension(
    state: AuthorityState, group: FabricGroup
) -> tuple[Refusal, ...]:
    """Conjunct 1 lets a group that is still Active with its incumbent admit a successor."""
    return _without(successor_may_launch(state, group), "admission.active_incumbent")


@mutant(
    replaces="planner.admission.successor_is_candidate",
    turns_red={f"{W}.suspension_for_another_successor_is_refused"},
)
def any_authorized_successor_admits(
    state: AuthorityState, group: FabricGroup, candidate: Candidate
) -> tuple[Refusal, ...]:
    """Conjunct 2 is dropped: a suspension for any successor admits this candidate."""
    return ()


@mutant(
    replaces="planner.admission.image_admitted_for_runtime",
    turns_red={f"{W}.image_admitted_for_another_runtime_is_refused"},
)
def image_admitted_for_any_runtime_key(
    state: AuthorityState, candidate: Candidate, image_digest: str
) -> tuple[Refusal, ...]:
    """Conjunct 3 accepts an image admitted for any runtime key, not the candidate's."""
    if state.runtime_keys_admitting(image_digest):
        return ()
    return image_admitted_for_runtime(state, candidate, image_digest)


@mutant(
    replaces="planner.admission.hosts_held_by_subject",
    turns_red={HELD},
)
def held_host_conjunct_removed(state: AuthorityState, group: FabricGroup) -> tuple[Refusal, ...]:
    """Conjunct 4 is dropped: hosts held by another subject no longer refuse the launch."""
    return ()


@mutant(
    replaces="planner.arm_launch.DryRun.admitted",
    turns_red={f"{W}.the_correct_suspension_admits"},
    independent=False,
)
def admitted_reads_the_refusals_backwards(self: DryRun) -> bool:
    """A dry run counts as admitted when it has refusals (the ``not`` is lost), so the
    correct suspension is reported refused."""
    return self.rendered and self.admission is not None and bool(self.refusals)


# --- declared frontiers ---------------------------------------------------------------------


@mutant(
    replaces="planner.frontiers.unmet_obligations",
    turns_red={FRONTIERS, f"{W}.live_inputs_name_exactly_the_open_frontiers", NO_MANIFEST},
)
def engram_manifest_obligation_forgotten(
    frontiers: tuple[DeclaredFrontier, ...], inputs: PlanInputs
) -> tuple[Refusal, ...]:
    """An unsupplied Engram manifest is no longer named as #12359's obligation."""
    return _without(unmet_obligations(frontiers, inputs), "frontier.engram_manifest")


CONTROLS = (
    combined(
        "seed_mutation_control",
        "The seed's mutation control: Engram request dropped from the mint, held-host "
        "conjunct removed and lease check removed, at once; exactly plan, held and stale "
        "turn red and the positive admit control stays green.",
        engram_request_dropped_from_the_mint,
        held_host_conjunct_removed,
        lease_check_removed,
    ),
)


# --- the authority log, read at a time -----------------------------------------------------


@mutant(
    replaces="planner.authority.fold",
    turns_red={HELD},
)
def released_hosts_stay_held(events: tuple[AuthorityEvent, ...], now: datetime) -> AuthorityState:
    """The fold ignores host_released events: a host once held stays held."""
    return fold(tuple(e for e in events if not isinstance(e, HostReleased)), now)


@mutant(replaces="planner.authority.fold", turns_red={READ_AT}, independent=False)
def the_log_is_read_to_its_end(events: Iterable[AuthorityEvent], now: datetime) -> AuthorityState:
    """The fold reads events logged after the read time as if they had already happened."""
    events = tuple(events)
    last = max((e.at for e in events), default=now)
    return fold(events, max(last, now)).model_copy(update={"read_at": now})


@mutant(
    replaces="planner.authority.SuspendedForAuthorizedSuccessor.lease_live",
    turns_red={STALE},
    independent=False,
)
def a_lease_is_live_at_its_expiry(self: SuspendedForAuthorizedSuccessor, now: datetime) -> bool:
    """A lease still counts as live at the instant it expires."""
    return now <= self.lease_expires_at


@mutant(replaces="planner.apply.cleanup_body", turns_red={ARTIFACTS})
def cleanup_leaves_the_unit_landing_file(ctx: ApplyContext) -> list[str]:
    """Cleanup no longer removes the unit's landing temp file, so a failed apply leaves a
    half-installed unit file beside the real one."""
    return [line for line in cleanup_body(ctx) if ".landing" not in line]


# --- each rank's whole plan ----------------------------------------------------------------


@mutant(
    replaces="planner.profile.ServingLaunchProfile.utilization_text",
    turns_red={
        ALLOWANCE,
    },
)
def utilization_rendered_in_basis_points(self: ServingLaunchProfile) -> str:
    """Utilization is rendered as its basis points (8000), a value vLLM rejects, instead of
    the decimal 0.8."""
    return str(self.gpu_memory_utilization_bp)


# --- the row, the Engram request, the inputs ------------------------------------------------


@mutant(
    replaces="planner.checkpoint.local_checkpoint_directory",
    turns_red={f"{W}.a_checkpoint_is_placed_only_from_org_name_and_plain_revision"},
)
def placement_split_at_the_last_slash(
    model: str, revision: str, root: str = CHECKPOINT_ROOT
) -> str:
    """The placement splits the model at its last slash, so a deeper path is placed
    instead of refused."""
    org, _, name = model.rpartition("/")
    if not org or not name or not revision.isalnum():
        raise ValueError(f"cannot place model {model!r} at revision {revision!r}")
    return f"{root}/{org}--{name}/{revision}"


@mutant(
    replaces="planner.checkpoint.load_manifest",
    turns_red={f"{W}.an_unreadable_manifest_is_named_as_a_manifest"},
)
def manifest_errors_name_a_checkpoint(path: Path) -> CheckpointManifest:
    """An unreadable manifest is reported as an unreadable checkpoint, not a manifest."""
    return load_json_model(CheckpointManifest, path, "checkpoint")


@mutant(
    replaces="planner.profile.VllmEngramConfigRequest.flags",
    turns_red={f"{W}.the_engram_request_renders_each_field_as_its_own_word"},
)
def dp_shared_memory_always_rendered_false(self: VllmEngramConfigRequest) -> tuple[str, ...]:
    """dp_shared_memory renders false whatever the request says."""
    return ENGRAM_FLAGS(self.model_copy(update={"dp_shared_memory": False}))


@mutant(
    replaces="planner.arms.v41_group_a.v41_group_a_call", turns_red={NO_MANIFEST}, independent=False
)
def an_absent_engram_manifest_taken_as_empty(
    fabric: Fabric, manifest: CheckpointManifest, inputs: PlanInputs, source: str = "inputs"
) -> ArmCall:
    """An unsupplied Engram manifest is taken as empty bytes, so the plan renders and
    stages an empty manifest while still naming #12359."""
    call = v41_group_a_call(fabric, manifest, inputs, source)
    if call.engram_manifest is None:
        return call.model_copy(update={"engram_manifest": b""})
    return call


@mutant(
    replaces=V41_DRY_RUN, turns_red={f"{W}.an_engram_manifest_error_names_the_file_it_came_from"}
)
def the_dry_run_forgets_the_named_inputs_file(
    fabric: Fabric,
    manifest: CheckpointManifest,
    inputs: PlanInputs,
    state: AuthorityState,
    source: str = "inputs",
) -> DryRun:
    """The dry run drops the inputs file its caller named, so an Engram manifest error
    points at "inputs" instead of the file."""
    return plan_arm(v41_group_a_call(fabric, manifest, inputs), state)


@mutant(replaces="planner.runtime.arm_wall", turns_red={UNPROBED}, independent=False)
def arm_wall_refusal_without_its_hint(image: ProducedImage) -> Refusal | None:
    """The arm wall refuses an unprobed image but no longer says what to do about it."""
    refused = arm_wall(image)
    return refused.model_copy(update={"hint": ""}) if refused else None


@mutant(
    replaces="planner.measure.ceil_div",
    turns_red={ALLOWANCE},
)
def ceiling_division_left_fractional(numerator: int, denominator: int) -> int:
    """Ceiling division divides as floats, so the wall's ×5/4 requirement is reported as
    661.25 GiB instead of whole GiB."""
    return -(-numerator / denominator)  # type: ignore[return-value]


@mutant(
    replaces=V41_DRY_RUN,
    turns_red={f"{W}.the_candidate_is_this_arm_its_checkpoint_and_runtime"},
    independent=False,
)
def the_candidate_names_the_model_without_its_revision(
    fabric: Fabric,
    manifest: CheckpointManifest,
    inputs: PlanInputs,
    state: AuthorityState,
    source: str = "inputs",
) -> DryRun:
    """The dry run reports its candidate's checkpoint as the bare model name."""
    run = v41_group_a_launch_dry_run(fabric, manifest, inputs, state, source)
    candidate = run.candidate.model_copy(update={"checkpoint": manifest.model})
    return run.model_copy(update={"candidate": candidate})


@mutant(replaces="planner.frontiers.unmet_obligations", turns_red={FRONTIERS}, independent=False)
def obligations_hint_at_the_owner_not_the_trigger(
    frontiers: tuple[DeclaredFrontier, ...], inputs: PlanInputs
) -> tuple[Refusal, ...]:
    """Each obligation's hint names its owner instead of the merge that consumes it."""
    found = unmet_obligations(frontiers, inputs)
    owners = {f"frontier.{f.id}": f.owner for f in frontiers}
    return tuple(r.model_copy(update={"hint": f"ask {owners[r.code]}"}) for r in found)
