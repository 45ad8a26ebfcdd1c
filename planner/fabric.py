"""The fabric: hosts, their memory and rail addresses, and the serving groups.

The inventory is data (``fixtures/fabric.json``) loaded into frozen values. "Head"
everywhere means node rank 0, and one function derives it: :func:`serving_head`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError, field_validator

from planner.refusal import PlannerInputError
from planner.values import Frozen, JsonProblem, SafeName, located, read_text_file, strict_json


class Host(Frozen):
    """One GB10 host: its memory as the OS sees it and its fabric-rail endpoint."""

    name: SafeName
    memory_gib: Annotated[int, Field(strict=True, gt=0)]
    rail_address: str
    rail_interface: SafeName

    @field_validator("rail_address")
    @classmethod
    def _ipv4(cls, value: str) -> str:
        parts = value.split(".")
        octets = all(p.isascii() and p.isdigit() and 0 <= int(p) <= 255 for p in parts)
        if len(parts) != 4 or not octets:
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
    """Read the inventory file; an unreadable or invalid file names the file and field.

    A host or group is named once; a group names at least one known host, each once. The
    file is strict JSON and every value is validated strictly (no ``true`` read as ``1``);
    besides ``hosts`` and ``groups`` it holds only comments (keys starting ``_``, text).
    """
    source = str(path)
    text = read_text_file(path, "inventory")
    try:
        raw = strict_json(text)
    except JsonProblem as exc:
        raise PlannerInputError(source, exc.where, exc.message) from exc
    except json.JSONDecodeError as exc:
        raise PlannerInputError(source, "<file>", f"cannot read inventory: {exc}") from exc
    if not isinstance(raw, dict):
        raise PlannerInputError(source, "<root>", "inventory must be a JSON object")
    check_inventory_keys(raw, source)
    hosts = tuple(_host(i, h, source) for i, h in enumerate(_list(raw, "hosts", source)))
    _named_once("hosts", [h.name for h in hosts], source)
    by_name = {h.name: h for h in hosts}
    groups = tuple(
        _group(i, g, by_name, source) for i, g in enumerate(_list(raw, "groups", source))
    )
    _named_once("groups", [g.name for g in groups], source)
    return Fabric(hosts=hosts, groups=groups)


def check_inventory_keys(raw: dict[str, object], source: str) -> None:
    """Besides ``hosts`` and ``groups`` an inventory holds only comments: keys starting with
    ``_`` whose values are text. Anything else is refused at its key."""
    for key, value in raw.items():
        if key.startswith("_") and not isinstance(value, str):
            raise PlannerInputError(source, key, f"a comment must be text (value {value!r})")
        if not key.startswith("_") and key not in ("hosts", "groups"):
            message = "unknown key: an inventory holds hosts, groups and _comments"
            raise PlannerInputError(source, key, message)


def _list(raw: dict[str, object], key: str, source: str) -> list[object]:
    if key not in raw:
        raise PlannerInputError(source, key, "Field required")
    value = raw[key]
    if not isinstance(value, list):
        raise PlannerInputError(source, key, f"must be a list (value {value!r})")
    return value


def _named_once(key: str, names: list[str], source: str) -> None:
    for index, name in enumerate(names):
        first = names.index(name)
        if first != index:
            message = f"already names {key}[{first}] (value {name!r})"
            raise PlannerInputError(source, f"{key}[{index}].name", message)


def _within(prefix: str, field: str) -> str:
    return prefix if field == "<root>" else f"{prefix}.{field}"


def _host(index: int, raw: object, source: str) -> Host:
    try:
        return Host.model_validate(raw, strict=True)
    except ValidationError as exc:
        field, message = located(exc)
        raise PlannerInputError(source, _within(f"hosts[{index}]", field), message) from exc


def _group(index: int, raw: object, by_name: dict[str, Host], source: str) -> FabricGroup:
    if not isinstance(raw, dict):
        raise PlannerInputError(
            source, f"groups[{index}]", f"must be a JSON object (value {raw!r})"
        )
    label = f"groups.{raw['name']}" if isinstance(raw.get("name"), str) else f"groups[{index}]"
    if "hosts" not in raw:
        raise PlannerInputError(source, f"{label}.hosts", "Field required")
    names = raw["hosts"]
    if not isinstance(names, list):
        raise PlannerInputError(source, f"{label}.hosts", f"must be a list (value {names!r})")
    if not names:
        raise PlannerInputError(
            source, f"{label}.hosts", "a group needs at least one host (value [])"
        )
    for position, name in enumerate(names):
        if not isinstance(name, str):
            message = f"must be a host name (value {name!r})"
            raise PlannerInputError(source, f"{label}.hosts[{position}]", message)
    missing = [n for n in names if n not in by_name]
    if missing:
        raise PlannerInputError(source, f"{label}.hosts", f"unknown hosts {missing!r}")
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise PlannerInputError(source, f"{label}.hosts", f"hosts named twice {twice!r}")
    try:
        members = tuple(by_name[n] for n in names)
        return FabricGroup.model_validate({**raw, "hosts": members}, strict=True)
    except ValidationError as exc:
        field, message = located(exc)
        raise PlannerInputError(source, _within(label, field), message) from exc
