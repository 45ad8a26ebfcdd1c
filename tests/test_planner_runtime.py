"""planner.runtime: a partial registry reading, and the image's typed fields at their edges.

The arm wall refusing an unprobed image (located, quoting its digest, with its hint) and
passing a probed one are witnesses/arms/v41_group_a_launch.py's claims.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.runtime import ImageArtifact, ProducedImage, RegistryReading, arm_wall

DIGEST = "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22"
KEY = "gunbc-deepseek-v41-engram-produced"


def artifact(digest: str = DIGEST) -> ImageArtifact:
    return ImageArtifact(config_digest=digest, runtime_key=KEY)


def test_what_was_never_read_is_absent_not_defaulted() -> None:
    reading = RegistryReading()
    assert reading.vllm_version is None
    assert reading.hub_cli_path is None
    partial = ProducedImage(artifact=artifact(), registry_reading=RegistryReading(vllm_version="x"))
    assert partial.registry_reading is not None
    assert partial.registry_reading.hub_cli_path is None
    assert arm_wall(partial) is None


@pytest.mark.parametrize(
    "digest",
    [
        "",
        "ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22",
        "sha256:ab10f46a",
        "sha256:" + "AB" * 32,
        "sha256:" + "g" * 64,
        "sha512:" + "a" * 64,
        "sha256:" + "a" * 65,
        DIGEST + "\n",
        "gunbc/vllm:latest",
    ],
)
def test_bad_digest_is_rejected(digest: str) -> None:
    with pytest.raises(ValidationError, match="not an image config digest"):
        artifact(digest)


def test_runtime_key_must_be_a_safe_name() -> None:
    with pytest.raises(ValidationError):
        ImageArtifact(config_digest=DIGEST, runtime_key="key; rm")


def test_hub_cli_path_must_be_a_safe_absolute_path() -> None:
    with pytest.raises(ValidationError):
        RegistryReading(hub_cli_path="bin/hf")
