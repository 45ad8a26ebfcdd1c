"""planner.identity: the safe-name and safe-path types on identities and mounts.

The V4.1 and GLM identities themselves (names, ports, shm sizes, units, log paths) are
stated whole by witnesses/arms/arm_launch.py's claims, against each arm's expected values.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.identity import ArmContainerIdentity, ArmUnitIdentity, BindMount


@pytest.mark.parametrize("source", ["relative", "/a/../b", "/a b"])
def test_bind_mount_source_must_be_a_safe_path(source: str) -> None:
    with pytest.raises(ValidationError):
        BindMount(source=source)


def test_identities_refuse_unsafe_names() -> None:
    with pytest.raises(ValidationError):
        ArmContainerIdentity(name="x;y", rendezvous_port=1, shm_size="1g")
    with pytest.raises(ValidationError):
        ArmUnitIdentity(head_unit="a b.service", rank_unit="r.service", description="d")
