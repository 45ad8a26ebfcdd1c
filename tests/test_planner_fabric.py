"""planner.fabric: the rail-address rule at its edges, and a group missing its subject or name.

The shipped inventory, its groups, pools and serving heads, the unknown group, and every
other refused inventory are witnesses/rules/fabric_inventory.py's claims.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.data import default_data_root
from planner.fabric import Host, load_fabric
from planner.refusal import PlannerInputError

FABRIC_JSON = default_data_root() / "fabric.json"


@pytest.mark.parametrize(
    "address",
    [
        "10.77.1.256",
        "10.77.1",
        "10.77.1.15.1",
        "10.77.1.-1",
        "10.77.1.x",
        "10.77.1.15\n",
        "10.77.1.\u0661",
        "",
        "10.77..15",
    ],
)
def test_host_refuses_a_bad_rail_address_directly(address: str) -> None:
    with pytest.raises(ValueError, match="not an IPv4 rail address"):
        Host(name="srv9", memory_gib=121, rail_address=address, rail_interface="eth0")


# --- bad inventory files: each names the file and the field -------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _write_mutated(tmp_path: Path, mutate: Mutation) -> Path:
    raw = json.loads(FABRIC_JSON.read_text(encoding="utf-8"))
    mutate(raw)
    path = tmp_path / "fabric.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def _load_error(path: Path) -> PlannerInputError:
    with pytest.raises(PlannerInputError) as info:
        load_fabric(path)
    assert info.value.source == str(path)
    return info.value


def test_group_without_a_subject_is_refused_not_named_none(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"][0].pop("subject"))
    err = _load_error(path)
    assert err.where == "groups.group_a.subject"
    assert "Field required" in err.message


def test_group_without_a_name(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"][1].pop("name"))
    assert _load_error(path).where == "groups[1].name"
