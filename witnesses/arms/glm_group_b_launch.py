"""Witness: Group B's GLM arm through the same launcher, with GLM's own values.

Its rendered artifacts (:func:`artifacts`) are the regression control for any refactor
of the shared launcher: ``claims identity glm_group_b_launch --base REV`` compares them
byte for byte against another revision's own rendering.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from claims import ClaimKind, Verdict, claim, expect, expect_equal
from fixtures.builders import DATA_ROOT, glm_call, glm_dry_run, refusal_codes, rendered
from planner.arm_launch import DryRun
from planner.arms.glm_group_b import GLM_GROUP_B_PROFILE
from planner.arms.v41_group_a import V41_ENGRAM_REQUEST
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest
from witnesses.support import group_hosts, group_raw, manifest_weight_gib, placement, read_json


def _rendered() -> DryRun:
    return rendered(glm_dry_run(), "GLM")


def _key_as_before_the_engram_field(profile: ServingLaunchProfile) -> str:
    """The content key of the profile as it was before the Engram field existed: the
    documented recipe (sha256 over the canonical JSON of the other fields), recomputed here
    independently of ``content_key``. Across revisions, ``claims identity`` compares the
    subject key against the earlier revision's own rendering."""
    body = profile.model_dump(exclude={"engram"})
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


# --- GLM's own values, stated; the rest built from the inputs ----------------------------

GLM_RUNTIME_KEY = "gunbc-glm-native"
GLM_MANIFEST_FILE = DATA_ROOT / "checkpoints" / "glm-4.6-fp8-5c7e1f3b.manifest.json"


def artifacts() -> dict[str, str]:
    """Group B's rendered bytes: units, create argvs, every apply stage's script, subject key."""
    run = _rendered()
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
    before = _key_as_before_the_engram_field(GLM_GROUP_B_PROFILE)
    return expect_equal(before, GLM_GROUP_B_PROFILE.content_key(), "GLM subject key")


@claim(ClaimKind.PLANNED_SHAPE)
def an_explicit_engram_request_enters_the_key() -> Verdict:
    """The same profile with an Engram request set has a different content key."""
    with_engram = GLM_GROUP_B_PROFILE.model_copy(update={"engram": V41_ENGRAM_REQUEST})
    differs = with_engram.content_key() != GLM_GROUP_B_PROFILE.content_key()
    return expect(
        differs,
        "setting the Engram request changes the key",
        "an explicit Engram request left the key unchanged",
    )


@claim(ClaimKind.POSITIVE_CONTROL)
def glm_supplied_admits() -> Verdict:
    """Group B suspended for exactly the GLM candidate, image and hosts right: admitted."""
    run = glm_dry_run()
    return expect(run.admitted, f"admitted {run.candidate.key}", f"refused: {refusal_codes(run)}")


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
    body = minted.model_dump(exclude={"engram"})
    body["engram"] = {"cpu_offload": True, "dp_shared_memory": False}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    recipe = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    other = VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=True)
    shared = minted.model_copy(update={"engram": other})
    got = (minted.content_key(), shared.content_key() != minted.content_key())
    return expect_equal((recipe, True), got, "(V4.1 key, a changed request changes it)")


@claim(ClaimKind.PLANNED_SHAPE)
def glm_is_fitted_on_its_manifest_weights_and_group_b_pool() -> Verdict:
    """GLM's row is its manifest's model and revision, weighing its weight files rounded up
    to GiB once, decoded by glm45 with no tokenizer mode and keeping nothing resident beyond
    its weights; its call names Group B as the inventory lists it; its candidate is
    glm_group_b with that checkpoint and the gunbc-glm-native runtime; and the dry run's fit
    is that weight, no allowance, Group B's whole pool (the sum of its hosts' memory) over
    its four ranks."""
    raw = read_json(GLM_MANIFEST_FILE)
    hosts = group_hosts("group_b")
    group = group_raw("group_b")
    reference = f"{raw['model']}@{raw['revision']}"
    call = glm_call()
    row = call.row
    got: dict[str, Any] = {
        "row": (row.model, row.revision, row.weight_gib, row.placement),
        "parsers": (row.parsers.tool_call, row.parsers.reasoning, row.parsers.tokenizer_mode),
        "beyond weights": row.resident_beyond_weights.kind,
        "group": (
            call.group.name,
            call.group.subject,
            [h.model_dump() for h in call.group.hosts],
        ),
    }
    want: dict[str, Any] = {
        "row": (raw["model"], raw["revision"], manifest_weight_gib(raw), placement(raw)),
        "parsers": ("glm45", "glm45", None),
        "beyond weights": "nothing",
        "group": ("group_b", group["subject"], hosts),
    }
    run = _rendered()
    fit = run.fit
    got["candidate"] = (run.candidate.arm, run.candidate.checkpoint, run.candidate.runtime_key)
    want["candidate"] = ("glm_group_b", reference, GLM_RUNTIME_KEY)
    got["fit"] = None if fit is None else fit.model_dump()
    want["fit"] = {
        "pool_gib": sum(h["memory_gib"] for h in hosts),
        "weights_gib": manifest_weight_gib(raw),
        "allowance_gib": 0,
        "ranks": len(hosts),
    }
    wrong = [f"{k}: {got[k]} != {want[k]}" for k in want if got[k] != want[k]]
    summary = (
        f"{reference}: {want['fit']['weights_gib']} GiB on a {want['fit']['pool_gib']} GiB pool"
    )
    return expect(not wrong, summary, "; ".join(wrong))
