"""planner.identity: container and unit identities named by the caller."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.arms.glm_group_b import GLM_NATIVE_CONTAINER, GLM_NATIVE_UNITS
from planner.arms.v41_group_a import V41_CONTAINER, V41_UNITS
from planner.identity import LOG_ROOT, ArmContainerIdentity, ArmUnitIdentity, BindMount


def test_v41_container_identity() -> None:
    assert V41_CONTAINER.name == "gunbc-v41-tp4"
    assert V41_CONTAINER.rendezvous_port == 29511
    assert V41_CONTAINER.shm_size == "32g"
    assert V41_CONTAINER.extra_mounts == ()


def test_v41_unit_identity() -> None:
    assert V41_UNITS.head_unit == "gunbc-v41-tp4-head.service"
    assert V41_UNITS.rank_unit == "gunbc-v41-tp4-rank.service"
    assert V41_UNITS.log_root == LOG_ROOT == "/var/log/gunbc"


def test_head_is_rank_zero_only() -> None:
    assert V41_UNITS.unit_for_rank(0) == "gunbc-v41-tp4-head.service"
    for rank in (1, 2, 3):
        assert V41_UNITS.unit_for_rank(rank) == "gunbc-v41-tp4-rank.service"


def test_log_paths_follow_the_unit() -> None:
    assert V41_UNITS.log_path_for_rank(0) == "/var/log/gunbc/gunbc-v41-tp4-head.log"
    assert V41_UNITS.log_path_for_rank(3) == "/var/log/gunbc/gunbc-v41-tp4-rank.log"
    assert GLM_NATIVE_UNITS.log_path_for_rank(0) == "/var/log/gunbc/glm-native-head.log"


def test_glm_keeps_its_own_values() -> None:
    assert GLM_NATIVE_CONTAINER.name == "glm-native-tp4"
    assert GLM_NATIVE_CONTAINER.rendezvous_port == 29500
    assert GLM_NATIVE_UNITS.head_unit == "glm-native-head.service"
    assert GLM_NATIVE_UNITS.rank_unit == "glm-native-rank.service"


def test_v41_names_are_distinct_from_every_other_arm() -> None:
    v41 = {V41_CONTAINER.name, V41_UNITS.head_unit, V41_UNITS.rank_unit}
    glm = {GLM_NATIVE_CONTAINER.name, GLM_NATIVE_UNITS.head_unit, GLM_NATIVE_UNITS.rank_unit}
    assert not v41 & glm
    assert V41_CONTAINER.rendezvous_port != GLM_NATIVE_CONTAINER.rendezvous_port
    for name in v41:
        assert "glm" not in name
        assert "spark-pair" not in name


def test_bind_mount_is_read_only_unless_said() -> None:
    assert BindMount(source="/a").read_only is True
    assert BindMount(source="/a", read_only=False).read_only is False


@pytest.mark.parametrize("source", ["relative", "/a/../b", "/a b"])
def test_bind_mount_source_must_be_a_safe_path(source: str) -> None:
    with pytest.raises(ValidationError):
        BindMount(source=source)


def test_identities_refuse_unsafe_names() -> None:
    with pytest.raises(ValidationError):
        ArmContainerIdentity(name="x;y", rendezvous_port=1, shm_size="1g")
    with pytest.raises(ValidationError):
        ArmUnitIdentity(head_unit="a b.service", rank_unit="r.service", description="d")
