"""Witness: Group B's GLM arm, through the same launcher: its subject key is its profile's
key as it was before the Engram field, and a set Engram request enters a key by its content.
What it renders, the claims every arm shares state (``arm_launch``).

Its rendered artifacts (:func:`artifacts`) are the regression control for any refactor
of the shared launcher: ``claims identity glm_group_b_launch --base REV`` compares them
byte for byte against another revision's own rendering.
"""

from __future__ import annotations

import hashlib
import json

from claims import ClaimKind, Verdict, claim, expect_equal
from fixtures.builders import glm_dry_run, rendered
from planner.arms.glm_group_b import GLM_GROUP_B_PROFILE
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest


def _recipe_key(profile: ServingLaunchProfile, engram: dict[str, bool] | None = None) -> str:
    """A profile's content key by the documented recipe, recomputed here independently of
    ``content_key``: sha256 over the canonical JSON of its fields but the Engram request,
    with ``engram`` under "engram" when given. Across revisions, ``claims identity`` compares
    the subject key against the earlier revision's own rendering."""
    body = profile.model_dump(exclude={"engram"})
    if engram is not None:
        body["engram"] = engram
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def artifacts() -> dict[str, str]:
    """Group B's rendered bytes: units, create argvs, every apply stage's script, subject key."""
    run = rendered(glm_dry_run(), "GLM")
    found: dict[str, str] = {"subject_key": GLM_GROUP_B_PROFILE.content_key()}
    for host in run.hosts:
        real = host.realization
        found[f"{real.host_name}/{real.unit_name}"] = real.unit_text
        found[f"{real.host_name}/create.argv"] = "\0".join(real.create_argv)
        for step in host.steps:
            found[f"{real.host_name}/{step.stage.value}.sh"] = step.script
    return found


@claim(ClaimKind.PLANNED_SHAPE)
def glm_subject_key_is_unchanged_by_the_engram_field() -> Verdict:
    """GLM's subject key equals the key of its profile computed without the Engram field."""
    before = _recipe_key(GLM_GROUP_B_PROFILE)
    return expect_equal(before, GLM_GROUP_B_PROFILE.content_key(), "GLM subject key")


@claim(ClaimKind.PLANNED_SHAPE)
def the_engram_request_enters_the_key_by_its_content() -> Verdict:
    """A profile's key is the digest of all its fields with the Engram request under
    "engram" when set: V4.1's measurement profile's key is that, and two requests that
    differ in one field give two keys."""
    minted = ServingLaunchProfile(
        gpu_memory_utilization_bp=8000,
        max_model_len=262144,
        max_num_seqs=16,
        max_num_batched_tokens=8192,
        kv_cache_dtype="fp8_ds_mla",
        prefix_caching=False,
        engram=VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=False),
    )
    recipe = _recipe_key(minted, {"cpu_offload": True, "dp_shared_memory": False})
    other = VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=True)
    shared = minted.model_copy(update={"engram": other})
    got = (minted.content_key(), shared.content_key() != minted.content_key())
    return expect_equal((recipe, True), got, "(V4.1 key, a changed request changes it)")
