"""The fabric: hosts, their memory and rail addresses, and the serving groups.

The inventory is data (``fixtures/fabric.json``) loaded into frozen values. "Head"
everywhere means node rank 0, and one function derives it: :func:`serving_head`.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError, field_validator

from planner.refusal import PlannerInputError
from planner.values import Frozen, SafeName, located


class Host(Frozen):
    """One GB10 host: its memory as the OS sees it and its fabric-rail endpoint."""

    name: SafeName
    memory_gib: int
    rail_address: str
    rail_interface: SafeName

    @field_validator("rail_address")
    @classmethod
    def _ipv4(cls, value: str) -> str:
        parts = value.split(".")
        if len(parts) != 4 or not all(p.isdigit() and 0 <= int(p) <= 255 for p in parts):
            raise ValueError(f"{value!r} is not an IPv4 rail address")
        return value


class FabricGroup(Frozen):
    """A serving group: hosts in node-rank order and the subject that holds them."""

    name: SafeName
    subject: SafeName
    hosts: tuple[Host, ...]

    @property
    def size(self) -> int:
        return len(self.hosts)

    @property
    def pool_gib(self) -> int:
        """The group's unified memory pool (GB10 memory is shared by CPU and GPU)."""
        return sum(h.memory_gib for h in self.hosts)

    def rank_of(self, host: Host) -> int:
        return self.hosts.index(host)


class Fabric(Frozen):
    """Every host and every group of the inventory."""

    hosts: tuple[Host, ...]
    groups: tuple[FabricGroup, ...]

    def group(self, name: str) -> FabricGroup:
        for group in self.groups:
            if group.name == name:
                return group
        known = ", ".join(g.name for g in self.groups)
        raise KeyError(f"no fabric group {name!r}; known groups: {known}")


def serving_head(group: FabricGroup) -> Host:
    """The group's serving head: the host at node rank 0."""
    return group.hosts[0]


def load_fabric(path: Path) -> Fabric:
    """Read the inventory file; an unreadable or invalid file names the file and field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PlannerInputError(str(path), "<file>", f"cannot read inventory: {exc}") from exc
    if not isinstance(raw, dict):
        raise PlannerInputError(str(path), "<root>", "inventory must be a JSON object")
    try:
        hosts = tuple(Host.model_validate(h) for h in raw.get("hosts", ()))
        by_name = {h.name: h for h in hosts}
        groups = tuple(_group(g, by_name, str(path)) for g in raw.get("groups", ()))
        return Fabric(hosts=hosts, groups=groups)
    except ValidationError as exc:
        raise PlannerInputError(str(path), *located(exc)) from exc


def _group(raw: dict[str, object], by_name: dict[str, Host], source: str) -> FabricGroup:
    names = raw.get("hosts", ())
    if not isinstance(names, list):
        raise PlannerInputError(source, f"groups.{raw.get('name')}.hosts", "must be a list")
    missing = [n for n in names if n not in by_name]
    if missing:
        raise PlannerInputError(
            source, f"groups.{raw.get('name')}.hosts", f"unknown hosts {missing!r}"
        )
    return FabricGroup(
        name=str(raw.get("name")),
        subject=str(raw.get("subject")),
        hosts=tuple(by_name[n] for n in names),
    )
