"""planner.fabric: the inventory file, groups, pools and the serving head."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.data import default_data_root
from planner.fabric import Fabric, FabricGroup, Host, load_fabric, serving_head
from planner.refusal import PlannerInputError

FABRIC_JSON = default_data_root() / "fabric.json"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return load_fabric(FABRIC_JSON)


def test_inventory_has_eight_hosts_of_121_gib(fabric: Fabric) -> None:
    assert [h.name for h in fabric.hosts] == [f"srv{i}" for i in range(1, 9)]
    assert all(h.memory_gib == 121 for h in fabric.hosts)


def test_every_host_has_a_distinct_rail_address(fabric: Fabric) -> None:
    addresses = [h.rail_address for h in fabric.hosts]
    assert len(set(addresses)) == 8
    assert fabric.hosts[4].rail_address == "10.77.1.15"


def test_group_a_is_srv5_to_srv8_with_a_484_gib_pool(fabric: Fabric) -> None:
    group = fabric.group("group_a")
    assert [h.name for h in group.hosts] == ["srv5", "srv6", "srv7", "srv8"]
    assert group.size == 4
    assert group.pool_gib == 484 == 4 * 121
    assert group.subject == "group-a-serving"


def test_group_b_is_srv1_to_srv4(fabric: Fabric) -> None:
    group = fabric.group("group_b")
    assert [h.name for h in group.hosts] == ["srv1", "srv2", "srv3", "srv4"]
    assert group.pool_gib == 484
    assert group.subject == "group-b-serving"


def test_groups_hold_the_same_host_values_as_the_inventory(fabric: Fabric) -> None:
    by_name = {h.name: h for h in fabric.hosts}
    for group in fabric.groups:
        assert all(by_name[h.name] == h for h in group.hosts)


@pytest.mark.parametrize(("group", "head"), [("group_a", "srv5"), ("group_b", "srv1")])
def test_serving_head_is_node_rank_zero(fabric: Fabric, group: str, head: str) -> None:
    g = fabric.group(group)
    assert serving_head(g).name == head
    assert g.hosts.index(serving_head(g)) == 0


def test_unknown_group_names_the_known_ones(fabric: Fabric) -> None:
    with pytest.raises(KeyError, match="group_a, group_b"):
        fabric.group("group_c")


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


def test_pool_of_a_custom_group() -> None:
    hosts = tuple(
        Host(name=f"h{i}", memory_gib=m, rail_address=f"10.0.0.{i}", rail_interface="eth0")
        for i, m in enumerate((100, 121, 64), start=1)
    )
    group = FabricGroup(name="g", subject="s", hosts=hosts)
    assert group.pool_gib == 285
    assert serving_head(group) == hosts[0]


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


def test_a_copy_of_the_inventory_loads_the_same(tmp_path: Path, fabric: Fabric) -> None:
    assert load_fabric(_write_mutated(tmp_path, lambda raw: None)) == fabric


def test_malformed_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "fabric.json"
    path.write_text('{"hosts": [', encoding="utf-8")
    err = _load_error(path)
    assert err.where == "<file>"
    assert "cannot read inventory" in err.message


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    err = _load_error(tmp_path / "nope.json")
    assert err.where == "<file>"


def test_inventory_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "fabric.json"
    path.write_text("[]", encoding="utf-8")
    assert _load_error(path).where == "<root>"


def test_unknown_host_in_a_group(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"][0]["hosts"].append("srv9"))
    err = _load_error(path)
    assert err.where == "groups.group_a.hosts"
    assert "srv9" in err.message


def test_bad_rail_address_names_the_host_and_field(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["hosts"][4].update(rail_address="10.77.1"))
    err = _load_error(path)
    assert err.where == "hosts[4].rail_address"
    assert "'10.77.1'" in err.message


def test_host_name_with_shell_metacharacters(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["hosts"][0].update(name="srv1;rm"))
    err = _load_error(path)
    assert err.where == "hosts[0].name"
    assert "srv1;rm" in err.message
    assert "not a safe name" in err.message


def test_rail_interface_with_shell_metacharacters(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["hosts"][2].update(rail_interface="eth0 $x"))
    assert _load_error(path).where == "hosts[2].rail_interface"


def test_unknown_host_field(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["hosts"][1].update(colour="red"))
    assert _load_error(path).where == "hosts[1].colour"


def test_group_that_is_not_an_object(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"].__setitem__(0, "group_a"))
    err = _load_error(path)
    assert err.where == "groups[0]"


def test_group_without_a_subject_is_refused_not_named_none(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"][0].pop("subject"))
    err = _load_error(path)
    assert err.where == "groups.group_a.subject"
    assert "Field required" in err.message


def test_group_without_a_name(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"][1].pop("name"))
    assert _load_error(path).where == "groups[1].name"


def test_group_hosts_that_are_not_a_list(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw["groups"][0].update(hosts="srv5"))
    err = _load_error(path)
    assert err.where == "groups.group_a.hosts"
    assert "must be a list" in err.message


def test_hosts_that_are_not_a_list(tmp_path: Path) -> None:
    path = _write_mutated(tmp_path, lambda raw: raw.update(hosts={"srv1": {}}))
    assert _load_error(path).where == "hosts"
