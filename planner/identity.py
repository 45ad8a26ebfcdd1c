"""Container and unit identities: values the caller names, never spelled by the launcher."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from planner.values import Frozen, SafeName, SafePath

LOG_ROOT = "/var/log/gunbc"
# docker's container-name grammar (its daemon's RestrictedNamePattern: two characters at
# least), which is also within systemd's unit-name characters and holds no '@' (a template)
_CONTAINER_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.-]+")
UNIT_NAME_MAX = 255
"""systemd's longest unit name (UNIT_NAME_MAX, 256 with its NUL)."""
ARM_UNIT_SUFFIXES = ("-head.service", "-rank.service")


def arm_name(value: str) -> str:
    """``value`` when docker takes it as a container name and systemd each of its units
    (``<name>-head.service``, ``<name>-rank.service``) as a plain unit name; else raises.
    ``a@b:c`` would be a container docker refuses and a unit systemd reads as an instance
    of template ``a@.service``."""
    longest = max(len(value + suffix) for suffix in ARM_UNIT_SUFFIXES)
    if _CONTAINER_NAME.fullmatch(value) is None:
        raise ValueError(
            f"{value!r} is not a container and unit name: docker takes "
            "[a-zA-Z0-9][a-zA-Z0-9_.-]+ (two characters at least; no '@', which systemd "
            "reads as a template instance, no ':')"
        )
    if longest > UNIT_NAME_MAX:
        raise ValueError(
            f"a name of {len(value)} characters is not a container and unit name: its unit "
            f"names would be {longest} characters, systemd takes {UNIT_NAME_MAX} at most"
        )
    return value


def _arm_name_rule(value: str) -> str:
    return arm_name(value)  # looked up at each call, like the other rules


ArmName = Annotated[str, AfterValidator(_arm_name_rule)]
"""An arm's container and unit name (:func:`arm_name`)."""


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
