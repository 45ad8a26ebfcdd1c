"""The one V4.1 call site: the TP4 arm on Group A through the shared mp launcher.

Every V4.1 value lives here, beside the call that names them: its container and unit names,
its route and runtime key, its checkpoint row's parsers, the measurement profile's fixed
axes, its Engram placement, its declared frontiers and the stress model's resident bets.
The shared modules hold the types and rules these values are given to.

Its names are distinct from every other arm's, so a V4 pair or GLM unit still running
reads as occupancy, never as this arm. Its profile is minted from #12371's launch shape,
its image is #12353's produced image, its Engram manifest is #12359's text: each is a
declared frontier until supplied.
"""

from __future__ import annotations

from planner.arm_launch import ArmCall, DryRun, plan_arm
from planner.arms import Arm, ArmSources
from planner.authority import AuthorityState
from planner.checkpoint import (
    CheckpointManifest,
    CheckpointRow,
    CheckpointVllmParsers,
    PageCacheFromNonKvHeadroom,
    checkpoint_row,
)
from planner.engram import EngramPlacement, parse_engram_manifest
from planner.fabric import Fabric
from planner.fit import ResidentBet
from planner.frontiers import DeclaredFrontier, PlanInputs, unmet_obligations
from planner.identity import ArmContainerIdentity, ArmUnitIdentity
from planner.launch import ServingRoute
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest

NAME = "v41_group_a"
GROUP = "group_a"
MANIFEST = "checkpoints/deepseek-v41-flash-dba1be0a.manifest.json"
"""Its checkpoint manifest, under the data root."""
V41_RUNTIME_KEY = "gunbc-deepseek-v41-engram-produced"
SPARK_PAIR_SERVE_PORT = 8000
"""The route's port: V4.1 succeeds V4 on the same serving subject."""
V41_ROUTE = ServingRoute(serve_port=SPARK_PAIR_SERVE_PORT, served_model_name="dsv41")

V41_CONTAINER = ArmContainerIdentity(name="gunbc-v41-tp4", rendezvous_port=29511, shm_size="32g")
V41_UNITS = ArmUnitIdentity(
    head_unit="gunbc-v41-tp4-head.service",
    rank_unit="gunbc-v41-tp4-rank.service",
    description="DeepSeek-V4.1 TP4 serving arm (Group A)",
)

DEEPSEEK_V41_PARSERS = CheckpointVllmParsers(
    tool_call="deepseek_v41", reasoning="deepseek_v41", tokenizer_mode="deepseek_v41"
)
"""The vLLM recipe's parsers and tokenizer mode for DeepSeek-V4.1."""


def deepseek_v41_flash_row(manifest: CheckpointManifest) -> CheckpointRow:
    """The V4.1 row: backbone weight, recipe parsers, page-cache allowance beyond weights
    (its Engram table shards are served from row stores, read through the page cache)."""
    return checkpoint_row(manifest, DEEPSEEK_V41_PARSERS, PageCacheFromNonKvHeadroom())


V41_MEASUREMENT_MAX_MODEL_LEN = 262144
V41_STAIRCASE_CONCURRENCIES: tuple[int, ...] = (1, 2, 4, 6, 16)
"""The capacity measurement's staircase; one serve covers all of it."""

V41_ENGRAM_REQUEST = VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=False)


def deepseek_v41_measurement_profile(
    gpu_memory_utilization_bp: int,
    max_num_batched_tokens: int,
    prefix_caching: bool,
    staircase: tuple[int, ...] = V41_STAIRCASE_CONCURRENCIES,
) -> ServingLaunchProfile:
    """Mint the V4.1 profile: V4.1 fixes fp8_ds_mla and the Engram request; the
    capacity measurement owns utilization, batched tokens and prefix caching."""
    return ServingLaunchProfile(
        gpu_memory_utilization_bp=gpu_memory_utilization_bp,
        max_model_len=V41_MEASUREMENT_MAX_MODEL_LEN,
        max_num_seqs=max(staircase),
        max_num_batched_tokens=max_num_batched_tokens,
        kv_cache_dtype="fp8_ds_mla",
        prefix_caching=prefix_caching,
        engram=V41_ENGRAM_REQUEST,
    )


V41_ENGRAM_PLACEMENT = EngramPlacement(
    row_store_dir="/var/tmp/engram-local/DeepSeek-V4.1-Flash",
    manifest_dir="/var/lib/gunbc/engram/v41/manifest",
    manifest_name="row-store-manifest.json",
    receipt_dir="/var/lib/gunbc/engram/v41/receipts",
)

V41_ENGRAM_RESIDENT_BETS: tuple[ResidentBet, ...] = (
    ResidentBet(concurrency=2, per_rank_gib=19),
    ResidentBet(concurrency=4, per_rank_gib=30),
    ResidentBet(concurrency=6, per_rank_gib=37),
    ResidentBet(concurrency=16, per_rank_gib=46),
)
"""The stress model's bets; a later measurement confirms or falsifies each."""

V41_FRONTIERS: tuple[DeclaredFrontier, ...] = (
    DeclaredFrontier(
        id="produced_image",
        input="produced V4.1 image (config digest) + a registry reading",
        owner_pr=12353,
        owner="build lane",
        today="V41RuntimeProductionUnestablished; with no reading the arm wall refuses",
        trigger="#12353 merges",
        sufficient_for="the plan runs the produced image by its config digest",
        blocks_input="produced_image",
    ),
    DeclaredFrontier(
        id="launch_shape",
        input="max_num_batched_tokens 8192, utilization 8000 bp, prefix caching explicit off",
        owner_pr=12371,
        owner="v41_measurement_launch_shape (clever-gull-48)",
        today="obligation naming #12371",
        trigger="#12371 merges",
        sufficient_for="the minted profile carries the measurement's declared axes",
        blocks_input="launch_shape",
    ),
    DeclaredFrontier(
        id="engram_manifest",
        input="Engram manifest text",
        owner_pr=12359,
        owner="v41_engram_store_manifest",
        today="obligation naming #12359",
        trigger="#12359 merges",
        sufficient_for="each host stages the manifest as a sealed, readback-verified write",
        blocks_input="engram_manifest",
    ),
    DeclaredFrontier(
        id="host_occupancy",
        input="occupancy conjunct (a V4 unit or any GPU process is live, or memory is short)",
        owner_pr=12351,
        owner="admit_spark_host_unoccupied",
        today="not yet a conjunct",
        trigger="#12351 merges",
        sufficient_for="a host whose V4 unit or any GPU process is live, or whose available "
        "memory is short, refuses this launch",
    ),
    DeclaredFrontier(
        id="authority_transition",
        input="the authority transition itself",
        owner_pr=12370,
        owner="adhoc-f7cabf26-ca3 (bright-ant-770)",
        today="consumed as specified: SuspendedForAuthorizedSuccessor with the exact candidate, "
        "lease observed at read time",
        trigger="#12370 merges",
        sufficient_for="admission reads the suspension for exactly this candidate from the log",
    ),
)
"""V4.1's open inputs and conditions, each owned by a pull request."""


def v41_profile(inputs: PlanInputs) -> ServingLaunchProfile | None:
    shape = inputs.launch_shape
    if shape is None:
        return None
    return deepseek_v41_measurement_profile(
        gpu_memory_utilization_bp=shape.gpu_memory_utilization_bp,
        max_num_batched_tokens=shape.max_num_batched_tokens,
        prefix_caching=shape.prefix_caching,
    )


def v41_group_a_call(
    fabric: Fabric, manifest: CheckpointManifest, inputs: PlanInputs, source: str = "inputs"
) -> ArmCall:
    """Name every V4.1 value for the shared launcher."""
    manifest_bytes = None
    if inputs.engram_manifest is not None:
        manifest_bytes = parse_engram_manifest(inputs.engram_manifest, V41_ENGRAM_PLACEMENT, source)
    return ArmCall(
        arm=NAME,
        group=fabric.group(GROUP),
        row=deepseek_v41_flash_row(manifest),
        container=V41_CONTAINER,
        units=V41_UNITS,
        route=V41_ROUTE,
        runtime_key=V41_RUNTIME_KEY,
        profile=v41_profile(inputs),
        image=inputs.produced_image,
        engram=V41_ENGRAM_PLACEMENT,
        engram_manifest=manifest_bytes,
        obligations=unmet_obligations(V41_FRONTIERS, inputs),
    )


def v41_group_a_launch_dry_run(
    fabric: Fabric,
    manifest: CheckpointManifest,
    inputs: PlanInputs,
    state: AuthorityState,
    source: str = "inputs",
) -> DryRun:
    """Plan and admit; ``source`` names the inputs file in any error about its content."""
    return plan_arm(v41_group_a_call(fabric, manifest, inputs, source), state)


def _dry_run(sources: ArmSources) -> DryRun:
    manifest = sources.manifest(MANIFEST)
    return v41_group_a_launch_dry_run(
        sources.fabric, manifest, sources.inputs, sources.state, sources.inputs_source
    )


ARM = Arm(
    name=NAME,
    group=GROUP,
    report="target/v41-group-a-launch-dry-run.txt",
    uses_inputs=True,
    plan=_dry_run,
)
