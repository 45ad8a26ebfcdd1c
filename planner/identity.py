"""Container and unit identities: values the caller names, never spelled by the launcher."""

from __future__ import annotations

from planner.values import Frozen, SafeName, SafePath

LOG_ROOT = "/var/log/gunbc"


class BindMount(Frozen):
    """A host path mounted inside the container: at the same path unless ``target`` is set
    (a recipe's composed model is mounted where its args read the model)."""

    source: SafePath
    read_only: bool = True
    target: SafePath | None = None


class ArmContainerIdentity(Frozen):
    """The container an arm runs as on every host of its group."""

    name: SafeName
    rendezvous_port: int
    shm_size: SafeName
    extra_mounts: tuple[BindMount, ...] = ()
    entrypoint: SafeName = "vllm"
    """The image's program the serve argv is given to (a recipe names its own)."""


class ArmUnitIdentity(Frozen):
    """The systemd units that run the container: one for the head, one for the others."""

    head_unit: SafeName
    rank_unit: SafeName
    description: str
    log_root: SafePath = LOG_ROOT

    def unit_for_rank(self, rank: int) -> str:
        return self.head_unit if rank == 0 else self.rank_unit

    def log_path_for_rank(self, rank: int) -> str:
        return f"{self.log_root}/{self.unit_for_rank(rank).removesuffix('.service')}.log"


V41_CONTAINER = ArmContainerIdentity(name="gunbc-v41-tp4", rendezvous_port=29511, shm_size="32g")
V41_UNITS = ArmUnitIdentity(
    head_unit="gunbc-v41-tp4-head.service",
    rank_unit="gunbc-v41-tp4-rank.service",
    description="DeepSeek-V4.1 TP4 serving arm (Group A)",
)

GLM_NATIVE_CONTAINER = ArmContainerIdentity(
    name="glm-native-tp4", rendezvous_port=29500, shm_size="16g"
)
GLM_NATIVE_UNITS = ArmUnitIdentity(
    head_unit="glm-native-head.service",
    rank_unit="glm-native-rank.service",
    description="GLM native serving arm (Group B)",
)
