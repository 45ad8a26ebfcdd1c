"""Declared mutants of Group B's GLM arm (witness ``glm_group_b_launch``): defects of the
content key, which GLM's subject key and a set Engram request rely on differently. What GLM
renders, the mutants of ``arm_launch`` break.
"""

from __future__ import annotations

import hashlib
import json

from mutation import mutant
from planner.profile import ServingLaunchProfile

W = "glm_group_b_launch"
CONTENT_KEY = "planner.profile.ServingLaunchProfile.content_key"
KEY = f"{W}.the_engram_request_enters_the_key_by_its_content"


def _digest(body: dict[str, object]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@mutant(
    replaces=CONTENT_KEY,
    turns_red={f"{W}.glm_subject_key_is_unchanged_by_the_engram_field"},
)
def unset_engram_request_enters_the_key(self: ServingLaunchProfile) -> str:
    """The content key always carries the Engram field, so an unset request (null) changes
    every existing GLM subject key."""
    return _digest(self.model_dump())


@mutant(replaces=CONTENT_KEY, turns_red={KEY}, independent=False)
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
