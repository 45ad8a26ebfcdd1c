"""Runtime variants: the image an arm runs, and what was read inside it.

The V4.1 image is produced by the build lane and admitted at run time, so its identity
is a value. What was never read inside the image is absent (``None``), never defaulted.
"""

from __future__ import annotations

import re

from pydantic import field_validator

from planner.refusal import Refusal, refusal
from planner.values import Frozen, SafeName, SafePath

_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class ImageArtifact(Frozen):
    """A built image: its config digest and the runtime key it was built for."""

    config_digest: str
    runtime_key: SafeName

    @field_validator("config_digest")
    @classmethod
    def _digest(cls, value: str) -> str:
        if not _DIGEST.fullmatch(value):
            raise ValueError(f"{value!r} is not an image config digest (sha256:<64 hex>)")
        return value


class RegistryReading(Frozen):
    """What was read inside the image; a field never read stays absent."""

    vllm_version: str | None = None
    hub_cli_path: SafePath | None = None


class ProducedImage(Frozen):
    """The runtime variant: an artifact plus the optional registry reading taken inside it."""

    artifact: ImageArtifact
    registry_reading: RegistryReading | None = None


def arm_wall(image: ProducedImage) -> Refusal | None:
    """An image nobody probed cannot serve: refuse when no registry reading exists."""
    if image.registry_reading is None:
        return refusal(
            "runtime.unprobed_image",
            ("inputs", "produced_image", "registry_reading"),
            f"no registry reading exists for image {image.artifact.config_digest}",
            hint="take the registry reading inside the produced image before planning",
        )
    return None


def runtime_key_wall(image: ProducedImage, runtime_key: str) -> Refusal | None:
    """An image built for another runtime key cannot serve this arm: its artifact names the
    runtime it was built for, and that must be the arm's."""
    built_for = image.artifact.runtime_key
    if built_for == runtime_key:
        return None
    return refusal(
        "runtime.image_for_other_runtime",
        ("inputs", "produced_image", "artifact", "runtime_key"),
        f"image {image.artifact.config_digest} was built for runtime key {built_for!r}, "
        f"not this arm's {runtime_key!r}",
        hint="supply the image produced for this arm's runtime key",
    )
