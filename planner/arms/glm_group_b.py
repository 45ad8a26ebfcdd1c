"""Group B's GLM arm: the same launcher, called with GLM's own values.

Every GLM value lives here: its container and unit names, route, runtime key, image, the
row's parsers and its serving profile. GLM's inputs are all pinned (no open PR owns them),
so it declares no frontiers.
"""

from __future__ import annotations

from planner.arm_launch import ArmCall, DryRun, plan_arm
from planner.arms import Arm, ArmSources
from planner.authority import AuthorityState
from planner.checkpoint import (
    CheckpointManifest,
    CheckpointRow,
    CheckpointVllmParsers,
    NothingBeyondWeights,
    checkpoint_row,
)
from planner.fabric import Fabric
from planner.identity import ArmContainerIdentity, ArmUnitIdentity
from planner.launch import ServingRoute
from planner.profile import ServingLaunchProfile
from planner.runtime import ImageArtifact, ProducedImage, RegistryReading

NAME = "glm_group_b"
GROUP = "group_b"
MANIFEST = "checkpoints/glm-4.6-fp8-5c7e1f3b.manifest.json"
"""Its checkpoint manifest, under the data root."""
GLM_RUNTIME_KEY = "gunbc-glm-native"
GLM_ROUTE = ServingRoute(serve_port=8100, served_model_name="glm")
GLM_NATIVE_IMAGE = ProducedImage(
    artifact=ImageArtifact(
        config_digest="sha256:d6a537aebef0269609c1613efba5cba9c1c7939695e6095b4f6b467a7ea89dfc",
        runtime_key=GLM_RUNTIME_KEY,
    ),
    registry_reading=RegistryReading(vllm_version="0.33.0", hub_cli_path="/usr/local/bin/hf"),
)
"""The hand-pinned GLM native image and what was read inside it."""

GLM_NATIVE_CONTAINER = ArmContainerIdentity(
    name="glm-native-tp4", rendezvous_port=29500, shm_size="16g"
)
GLM_NATIVE_UNITS = ArmUnitIdentity(
    head_unit="glm-native-head.service",
    rank_unit="glm-native-rank.service",
    description="GLM native serving arm (Group B)",
)

GLM_PARSERS = CheckpointVllmParsers(tool_call="glm45", reasoning="glm45")
"""GLM-4.x: its own parsers and no tokenizer mode (so no tokenizer flag)."""

GLM_GROUP_B_PROFILE = ServingLaunchProfile(
    gpu_memory_utilization_bp=8500,
    max_model_len=131072,
    max_num_seqs=8,
    max_num_batched_tokens=8192,
    kv_cache_dtype="fp8",
    prefix_caching=True,
)
"""Group B's GLM serving profile: unchanged, and carrying no Engram request."""


def glm_row(manifest: CheckpointManifest) -> CheckpointRow:
    """The GLM row: its own parsers, nothing resident beyond weights."""
    return checkpoint_row(manifest, GLM_PARSERS, NothingBeyondWeights())


def glm_group_b_call(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    return ArmCall(
        arm=NAME,
        group=fabric.group(GROUP),
        row=glm_row(manifest),
        container=GLM_NATIVE_CONTAINER,
        units=GLM_NATIVE_UNITS,
        route=GLM_ROUTE,
        runtime_key=GLM_RUNTIME_KEY,
        profile=GLM_GROUP_B_PROFILE,
        image=GLM_NATIVE_IMAGE,
    )


def glm_group_b_launch_dry_run(
    fabric: Fabric, manifest: CheckpointManifest, state: AuthorityState
) -> DryRun:
    return plan_arm(glm_group_b_call(fabric, manifest), state)


def _dry_run(sources: ArmSources) -> DryRun:
    return glm_group_b_launch_dry_run(sources.fabric, sources.manifest(MANIFEST), sources.state)


ARM = Arm(
    name=NAME,
    group=GROUP,
    report="target/glm-group-b-launch-dry-run.txt",
    uses_inputs=False,
    plan=_dry_run,
)
