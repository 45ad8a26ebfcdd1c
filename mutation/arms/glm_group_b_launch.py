"""Declared mutants of Group B's GLM arm (witness ``glm_group_b_launch``).

GLM goes through the same launcher as V4.1, so these defects sit in the shared pieces GLM
relies on differently: an absent tokenizer mode, an unset Engram request, the content key,
the serving head, and GLM's own call site.
"""

from __future__ import annotations

import hashlib
import json

from mutation import mutant
from planner.arm_launch import ArmCall
from planner.arms.glm_group_b import glm_group_b_call, glm_row
from planner.checkpoint import CheckpointManifest, CheckpointRow
from planner.fabric import Fabric
from planner.profile import ServingLaunchProfile

W = "glm_group_b_launch"
CALL_SITE = "planner.arms.glm_group_b.glm_group_b_call"
CONTENT_KEY = "planner.profile.ServingLaunchProfile.content_key"
KEY = f"{W}.the_engram_request_enters_the_key_by_its_content"
FIT = f"{W}.glm_is_fitted_on_its_manifest_weights_and_group_b_pool"


def _digest(body: dict[str, object]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@mutant(
    replaces=CALL_SITE,
    turns_red={
        f"{W}.glm_supplied_admits",
        FIT,
    },
    independent=False,
)
def glm_asks_under_another_arm_name(fabric: Fabric, manifest: CheckpointManifest) -> ArmCall:
    """GLM's call site names its arm glm_native, so its candidate is not the one Group B
    was suspended for."""
    return glm_group_b_call(fabric, manifest).model_copy(update={"arm": "glm_native"})


@mutant(
    replaces=CONTENT_KEY,
    turns_red={f"{W}.glm_subject_key_is_unchanged_by_the_engram_field"},
)
def unset_engram_request_enters_the_key(self: ServingLaunchProfile) -> str:
    """The content key always carries the Engram field, so an unset request (null) changes
    every existing GLM subject key."""
    return _digest(self.model_dump())


@mutant(
    replaces=CONTENT_KEY,
    turns_red={f"{W}.an_explicit_engram_request_enters_the_key", KEY},
    independent=False,
)
def engram_request_left_out_of_the_key(self: ServingLaunchProfile) -> str:
    """The content key never carries the Engram request, so setting one leaves the key as
    it was."""
    return _digest(self.model_dump(exclude={"engram"}))


@mutant(replaces=CONTENT_KEY, turns_red={KEY}, independent=False)
def engram_request_entered_as_null(self: ServingLaunchProfile) -> str:
    """A set Engram request enters the key as null, so two different requests share one
    key."""
    body = self.model_dump(exclude={"engram"})
    if self.engram is not None:
        body["engram"] = None
    return _digest(body)


@mutant(replaces="planner.arms.glm_group_b.glm_row", turns_red={FIT})
def glm_weight_rounded_down(manifest: CheckpointManifest) -> CheckpointRow:
    """GLM's weight is rounded down to whole GiB, so the fit under-counts it."""
    row = glm_row(manifest)
    return row.model_copy(update={"weight_gib": manifest.weight_bytes // 1024**3})
