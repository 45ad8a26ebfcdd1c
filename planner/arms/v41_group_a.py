"""The one V4.1 call site: the TP4 arm on Group A through the shared mp launcher.

Its names are distinct from every other arm's, so a V4 pair or GLM unit still running
reads as occupancy, never as this arm. Its profile is minted from #12371's launch shape,
its image is #12353's produced image, its Engram manifest is #12359's text: each is a
declared frontier until supplied.
"""

from __future__ import annotations

from planner.arm_launch import ArmCall, DryRun, plan_arm
from planner.arms import Arm, ArmSources
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest, deepseek_v41_flash_row
from planner.engram import V41_ENGRAM_PLACEMENT, parse_engram_manifest
from planner.fabric import Fabric
from planner.frontiers import V41_FRONTIERS, PlanInputs, unmet_obligations
from planner.identity import V41_CONTAINER, V41_UNITS
from planner.launch import ServingRoute
from planner.profile import ServingLaunchProfile, deepseek_v41_measurement_profile

NAME = "v41_group_a"
GROUP = "group_a"
MANIFEST = "checkpoints/deepseek-v41-flash-dba1be0a.manifest.json"
"""Its checkpoint manifest, under the data root."""
V41_RUNTIME_KEY = "gunbc-deepseek-v41-engram-produced"
SPARK_PAIR_SERVE_PORT = 8000
"""The route's port: V4.1 succeeds V4 on the same serving subject."""
V41_ROUTE = ServingRoute(serve_port=SPARK_PAIR_SERVE_PORT, served_model_name="dsv41")


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
