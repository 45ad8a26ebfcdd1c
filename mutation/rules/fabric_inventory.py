"""Declared mutants of the fabric inventory, the value types and the data loaders (witness
``fabric_inventory``).

Each is a careless edit of a loader or validator: a lost location, a dropped check, a
message that no longer names what it refuses, the environment ignored. Validators that
pydantic bound when the value types were built (``safe_name``, ``safe_path`` inside
``SafeName``/``SafePath``) are replaced where the claims call them by name. The two mutants
of ``load_json_model`` cannot be combined; the locale one is declared dependent.
"""

from __future__ import annotations

import json
import locale
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mutation import mutant
from planner import data
from planner.checkpoint import CheckpointManifest, load_manifest
from planner.fabric import Fabric, FabricGroup, Host, load_fabric
from planner.refusal import Location, PlannerInputError
from planner.values import M, load_json_model, located, safe_name, safe_path

W = "fabric_inventory"
BAD_HOST = f"{W}.a_bad_host_is_refused_at_its_field_quoting_the_value"
BAD_MANIFEST = f"{W}.a_bad_manifest_is_refused_at_its_first_bad_field"
HOSTILE = f"{W}.a_hostile_inventory_is_refused_at_its_place"
BAD_GROUP = f"{W}.a_bad_group_is_refused_at_its_field_quoting_the_value"
UNREADABLE = f"{W}.an_unreadable_inventory_is_refused_at_the_file_or_its_lists"
UNPLACEABLE = f"{W}.a_manifest_the_planner_cannot_place_is_refused_at_its_field"
SNAPSHOT = f"{W}.a_snapshot_manifest_is_found_by_model_or_known_absent"


@mutant(
    replaces="planner.fabric.load_fabric",
    turns_red={f"{W}.the_shipped_inventory_is_the_fabric_the_spec_names"},
)
def hosts_come_back_in_reverse(path: Path) -> Fabric:
    """The inventory's host list comes back last host first (the groups are unchanged)."""
    fabric = load_fabric(path)
    return Fabric(hosts=fabric.hosts[::-1], groups=fabric.groups)


@mutant(
    replaces="planner.fabric.Fabric.group",
    turns_red={f"{W}.an_unknown_group_is_refused_naming_the_known_ones"},
)
def unknown_group_names_no_alternative(self: Fabric, name: str) -> FabricGroup:
    """An unknown group is refused without naming the groups the inventory does know."""
    for group in self.groups:
        if group.name == name:
            return group
    raise KeyError(f"no fabric group {name!r}")


@mutant(replaces="planner.fabric._list", turns_red={UNREADABLE})
def a_missing_list_is_empty(raw: dict[str, object], key: str, source: str) -> list[object]:
    """An inventory without "hosts" or "groups" loads as one with none (a typo in the key
    silently empties the fabric)."""
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise PlannerInputError(source, key, f"must be a list (value {value!r})")
    return value


@mutant(replaces="planner.fabric._host", turns_red={BAD_HOST, HOSTILE})
def bad_host_located_without_its_index(index: int, raw: object, source: str) -> Host:
    """A bad host is located at hosts.<field>, not saying which of the hosts it is."""
    try:
        return Host.model_validate(raw)
    except ValidationError as exc:
        field, message = located(exc)
        raise PlannerInputError(source, f"hosts.{field}", message) from exc


@mutant(replaces="planner.fabric._group", turns_red={BAD_GROUP, HOSTILE})
def a_host_named_twice_in_a_group_is_dropped(
    index: int, raw: object, by_name: dict[str, Host], source: str
) -> FabricGroup:
    """A host named twice in a group is silently kept once, so the group plans one rank
    fewer than its file lists."""
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
        message = "a group needs at least one host (value [])"
        raise PlannerInputError(source, f"{label}.hosts", message)
    missing = [n for n in names if n not in by_name]
    if missing:
        raise PlannerInputError(source, f"{label}.hosts", f"unknown hosts {missing!r}")
    hosts = tuple(by_name[n] for n in dict.fromkeys(names))
    try:
        return FabricGroup.model_validate({**raw, "hosts": hosts})
    except ValidationError as exc:
        field, message = located(exc)
        where = label if field == "<root>" else f"{label}.{field}"
        raise PlannerInputError(source, where, message) from exc


@mutant(replaces="planner.fabric._named_once", turns_red={BAD_HOST, BAD_GROUP})
def names_given_twice_are_accepted(key: str, names: list[str], source: str) -> None:
    """A host or group named twice is accepted; lookups by name then find only one."""


@mutant(replaces="planner.values.located", turns_red={BAD_HOST, BAD_MANIFEST})
def the_last_bad_field_is_named(exc: ValidationError) -> tuple[str, str]:
    """With several bad fields, the last one is named instead of the first."""
    last = exc.errors()[-1]
    where = ".".join(str(p) for p in last["loc"]) or "<root>"
    return where, f"{last['msg']} (value {last.get('input')!r})"


@mutant(replaces="planner.values.load_json_model", turns_red={BAD_MANIFEST, UNPLACEABLE})
def a_bad_json_file_is_named_without_its_directory(model: type[M], path: Path, what: str) -> M:
    """A bad JSON model file is named by its base name only, not the path that was read."""
    try:
        return load_json_model(model, path, what)
    except PlannerInputError as exc:
        raise PlannerInputError(path.name, exc.where, exc.message) from exc


@mutant(
    replaces="planner.values.load_json_model",
    turns_red={f"{W}.data_files_are_read_as_utf8_whatever_the_locale", BAD_MANIFEST, UNPLACEABLE},
    independent=False,
)
def a_json_file_is_read_in_the_locale_encoding(model: type[M], path: Path, what: str) -> M:
    """A JSON model file is decoded with the locale's encoding, so a manifest holding
    non-ASCII text cannot be read under the C locale."""
    try:
        raw = json.loads(path.read_text(encoding=locale.getpreferredencoding(False)))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlannerInputError(str(path), "<file>", f"cannot read {what}: {exc}") from exc
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise PlannerInputError(str(path), *located(exc)) from exc


@mutant(
    replaces="planner.values.safe_name",
    turns_red={f"{W}.a_safe_name_is_a_letter_or_digit_then_letters_digits_and_five_marks"},
)
def a_name_may_start_with_a_mark(value: str) -> str:
    """A name may start with any allowed mark, so "-rf" passes as a name into argv."""
    if value and value[0] in "_.@:-":
        safe_name(f"x{value}")
        return value
    return safe_name(value)


@mutant(
    replaces="planner.values.safe_path",
    turns_red={f"{W}.a_safe_path_is_absolute_normalized_and_plain"},
)
def a_trailing_slash_is_accepted(value: str) -> str:
    """A path ending in '/' is accepted, so one directory has two spellings."""
    if len(value) > 1 and value.endswith("/"):
        safe_path(value[:-1])
        return value
    return safe_path(value)


@mutant(
    replaces="planner.refusal.render_location",
    turns_red={f"{W}.a_refusal_renders_its_location_and_one_line"},
)
def list_indices_rendered_as_names(location: Location) -> str:
    """A list index renders as a dotted name (hosts.2) instead of hosts[2]."""
    return ".".join(str(part) for part in location) or "<root>"


@mutant(
    replaces="planner.data.default_data_root",
    turns_red={f"{W}.the_data_root_is_the_environment_or_the_fixtures"},
)
def the_environment_is_ignored() -> Path:
    """$GUNBC_PLANNER_DATA is ignored: the data root is always the fixtures directory."""
    return Path(data.__file__).resolve().parent.parent / "fixtures"


@mutant(replaces="planner.data.snapshot_manifest", turns_red={SNAPSHOT})
def an_unknown_model_gets_the_first_manifest(
    model: str, root: Path | None = None
) -> CheckpointManifest:
    """An unknown model is given the first manifest found instead of none, so its weight is
    guessed from another model's."""
    base = (root or data.default_data_root()) / "checkpoints"
    paths = sorted(base.glob("*.manifest.json"))
    found = [m for m in (load_manifest(p) for p in paths) if m.model == model]
    return found[0] if found else load_manifest(paths[0])


@mutant(replaces="planner.data.snapshot_manifest", turns_red={SNAPSHOT}, independent=False)
def a_model_named_twice_stands_on_the_manifest_that_sorts_first(
    model: str, root: Path | None = None
) -> CheckpointManifest | None:
    """Two manifests naming one model are not an error: the plan stands on whichever file
    sorts first, so a manifest added for another revision is used or ignored by its name."""
    base = (root or data.default_data_root()) / "checkpoints"
    named = (load_manifest(p) for p in sorted(base.glob("*.manifest.json")))
    return next((m for m in named if m.model == model), None)


@mutant(
    replaces="planner.refusal.PlannerInputError.__init__",
    turns_red={UNREADABLE, BAD_HOST, BAD_GROUP, BAD_MANIFEST},
)
def the_printed_error_drops_the_file(self: Any, source: str, where: str, message: str) -> None:
    """The error the command line prints says where and what, but not in which file."""
    self.source = source
    self.where = where
    self.message = message
    Exception.__init__(self, f"{where}: {message}")


@mutant(replaces="planner.fabric.check_inventory_keys", turns_red={HOSTILE})
def any_top_level_key_is_accepted(raw: dict[str, object], source: str) -> None:
    """An inventory may hold any top-level key and any comment: a misspelled ``groups`` key
    is silently ignored."""


@mutant(
    replaces="planner.values.one_line",
    turns_red={f"{W}.the_json_rules_hold_at_their_edges"},
)
def a_name_may_break_lines(value: str) -> str:
    """A value held to one line may hold a newline, U+2028 or a tab: a recipe name can forge
    a heading of its report's first line, and a name of any file the planner reads can
    break the line its error is printed on."""
    return value


@mutant(
    replaces="planner.fabric.load_fabric",
    turns_red={f"{W}.the_order_hosts_are_listed_in_changes_no_group"},
    independent=False,  # hosts_come_back_in_reverse replaces load_fabric too
)
def a_group_takes_its_hosts_in_the_inventory_order(path: Path) -> Fabric:
    """A group holds its hosts in the order the inventory lists them, not the order the group
    names them: an inventory written in another order moves every rank, the head included."""
    fabric = load_fabric(path)
    listed = [h.name for h in fabric.hosts]
    groups = tuple(
        g.model_copy(update={"hosts": tuple(sorted(g.hosts, key=lambda h: listed.index(h.name)))})
        for g in fabric.groups
    )
    return fabric.model_copy(update={"groups": groups})
