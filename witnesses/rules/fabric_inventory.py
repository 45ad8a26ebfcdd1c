"""Witness: the fabric inventory loads as the spec names it, and bad input is refused, located.

The shipped inventory (``fixtures/fabric.json``) is eight GB10 hosts srv1–srv8 of 121 GiB
each (spec §3: "a GB10 shows about 121 GiB to the OS") on the RoCE rail 10.77.1.11–18,
interface ``enp1s0f1np1``; Group A is srv5–8 and Group B srv1–4 (spec §3), and a group's
serving head is node rank 0, its first host. A bad inventory, manifest, name or path is
refused by a :class:`PlannerInputError` that names the file, the JSON path and the bad
value; the command line prints it as ``<file>: <where>: <message>``. The refusal values of
the checks render as ``refused: <code> at <location>: <message>``.
"""

from __future__ import annotations

import json
import posixpath
import string
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import fixtures
from claims import (
    ClaimKind,
    Verdict,
    claim,
    difference,
    expect,
    expect_equal,
    fails,
    holds,
    holds_unless,
)
from fixtures.builders import REORDERINGS, data_root_env
from planner import data
from planner.arms.v41_group_a import MANIFEST as V41_MANIFEST
from planner.checkpoint import load_manifest
from planner.fabric import load_fabric, serving_head
from planner.refusal import PlannerInputError, refusal
from planner.values import JsonProblem, one_line, printable, safe_name, safe_path, strict_json
from witnesses.support import c_locale

FIXTURES = Path(fixtures.__file__).resolve().parent
"""The data directory the spec ships beside the planner."""
INVENTORY = FIXTURES / "fabric.json"

Raw = dict[str, Any]
Edit = Callable[[Raw], object]

# The inventory the file states: (name, memory GiB, rail address, rail interface) per host.
_HOSTS = tuple((f"srv{n}", 121, f"10.77.1.{10 + n}", "enp1s0f1np1") for n in range(1, 9))
# The groups the spec names: (name, subject, hosts in node-rank order).
_GROUPS = (
    ("group_a", "group-a-serving", ("srv5", "srv6", "srv7", "srv8")),
    ("group_b", "group-b-serving", ("srv1", "srv2", "srv3", "srv4")),
)

_NAME_RULE = (
    "is not a safe name: start with a letter or digit and use letters, digits and "
    "_ . @ : - only (it is rendered into shell scripts, units and docker argv)"
)
_PATH_RULE = (
    "is not a safe absolute path: it must start with '/', hold no '.' or '..' segment, "
    "no empty segment (no '//', no trailing '/') and no shell metacharacters"
)


def _unsafe_name(value: str) -> str:
    """The message pydantic carries for a SafeName field given ``value``."""
    return f"Value error, {value!r} {_NAME_RULE} (value {value!r})"


def _inventory() -> Raw:
    raw: Raw = json.loads(INVENTORY.read_text(encoding="utf-8"))
    return raw


@dataclass(frozen=True)
class Exact:
    """The planner's own message, in full."""

    where: str
    message: str


@dataclass(frozen=True)
class Quoting:
    """A validation message: pydantic's wording (containing ``phrase``) quoting ``value``."""

    where: str
    phrase: str
    value: object


Said = Exact | Quoting


def _mismatch(load: Callable[[Path], object], path: Path, want: Said) -> str | None:
    """None when loading ``path`` is refused exactly as ``want`` says, else what happened."""
    try:
        load(path)
    except PlannerInputError as exc:
        got = (exc.source, exc.where, exc.message)
        printed = f"{exc.source}: {exc.where}: {exc.message}"
        if str(exc) != printed:
            return f"printed as {str(exc)!r}, not {printed!r}"
        if exc.source != str(path) or exc.where != want.where:
            return f"located at {got[:2]}, not {(str(path), want.where)}"
        if isinstance(want, Exact):
            return None if exc.message == want.message else f"said {exc.message!r}"
        quoted = exc.message.endswith(f" (value {want.value!r})")
        return None if quoted and want.phrase in exc.message else f"said {exc.message!r}"
    return "accepted"


def _refused_inventories(cases: dict[str, tuple[Edit, Said]]) -> Verdict:
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (edit, want) in cases.items():
            raw = _inventory()
            edit(raw)
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(raw), encoding="utf-8")
            found = _mismatch(load_fabric, path, want)
            if found is not None:
                problems.append(f"{name}: {found}")
    return expect(
        not problems,
        f"{len(cases)} bad inventories, each refused at its place quoting the value",
        "; ".join(problems),
    )


def _entry(raw: Raw, key: str, index: int) -> Raw:
    """Entry ``index`` of the inventory's list ``key`` (``hosts``, ``groups``)."""
    entry: Raw = raw[key][index]
    return entry


@claim(ClaimKind.PLANNED_SHAPE)
def the_shipped_inventory_is_the_fabric_the_spec_names() -> Verdict:
    """fixtures/fabric.json loads into srv1–8 (121 GiB, rail 10.77.1.11–18 on enp1s0f1np1),
    Group A = srv5–8 and Group B = srv1–4 holding those same hosts, 4 hosts and a
    4 × 121 = 484 GiB pool each, and each group's serving head is its first host."""
    fabric = load_fabric(INVENTORY)
    hosts = tuple((h.name, h.memory_gib, h.rail_address, h.rail_interface) for h in fabric.hosts)
    if hosts != _HOSTS:
        return expect_equal(_HOSTS, hosts, "hosts (name, GiB, rail address, interface)")
    by_name = {h.name: h for h in fabric.hosts}
    want = [(n, s, tuple(by_name[h] for h in hs), 4, 484, by_name[hs[0]]) for n, s, hs in _GROUPS]
    names = [g.name for g in fabric.groups]
    if names != [n for n, _, _ in _GROUPS]:
        return expect_equal([n for n, _, _ in _GROUPS], names, "groups in file order")
    looked_up = [fabric.group(n) for n in names]
    got = [(g.name, g.subject, g.hosts, g.size, g.pool_gib, serving_head(g)) for g in looked_up]
    if got != want:
        return expect_equal(want, got, "groups (name, subject, hosts, size, pool GiB, head)")
    return holds("srv1–8 as listed; group_a srv5–8 head srv5, group_b srv1–4 head srv1; 484 GiB")


@claim(ClaimKind.REFUSAL)
def an_unknown_group_is_refused_naming_the_known_ones() -> Verdict:
    """Asking the inventory for group_c names the groups it does know, in file order."""
    fabric = load_fabric(INVENTORY)
    try:
        fabric.group("group_c")
    except KeyError as exc:
        said = exc.args[0] if exc.args else None
        want = "no fabric group 'group_c'; known groups: group_a, group_b"
        return expect_equal(want, said, "the refusal of group_c")
    return fails("group_c was found in an inventory of group_a and group_b")


def _unreadable(tmp: Path) -> dict[Path, Said]:
    """Files that are no inventory at all, or whose hosts/groups are not a list."""

    def write(name: str, text: str | bytes) -> Path:
        path = tmp / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def without(key: str) -> str:
        raw = _inventory()
        del raw[key]
        return json.dumps(raw)

    absent = tmp / "absent.json"
    return {
        absent: Exact(
            "<file>",
            f"cannot read inventory: [Errno 2] No such file or directory: {str(absent)!r}",
        ),
        # json's own words for a document cut off after "[" (11 characters read)
        write("cut.json", '{"hosts": ['): Exact(
            "<file>", "cannot read inventory: Expecting value: line 1 column 12 (char 11)"
        ),
        write("latin.json", b"\xff{}"): Exact(
            "<file>",
            "cannot read inventory: 'utf-8' codec can't decode byte 0xff in position 0: "
            "invalid start byte",
        ),
        write("list.json", "[]"): Exact("<root>", "inventory must be a JSON object"),
        write("no-hosts.json", without("hosts")): Exact("hosts", "Field required"),
        write("no-groups.json", without("groups")): Exact("groups", "Field required"),
        write("hosts-object.json", '{"hosts": {}, "groups": []}'): Exact(
            "hosts", "must be a list (value {})"
        ),
        write("groups-name.json", '{"hosts": [], "groups": "group_a"}'): Exact(
            "groups", "must be a list (value 'group_a')"
        ),
    }


@claim(ClaimKind.REFUSAL)
def an_unreadable_inventory_is_refused_at_the_file_or_its_lists() -> Verdict:
    """A missing, cut-off or non-UTF-8 file is refused at <file> with the reader's reason; a
    non-object at <root>; a missing or non-list hosts/groups at that key, quoting it."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = _unreadable(Path(tmp))
        for path, want in cases.items():
            found = _mismatch(load_fabric, path, want)
            if found is not None:
                problems.append(f"{path.name}: {found}")
    return expect(not problems, f"{len(cases)} unreadable inventories located", "; ".join(problems))


def _set(index: int, **fields: object) -> Edit:
    return lambda raw: _entry(raw, "hosts", index).update(fields)


@claim(ClaimKind.REFUSAL)
def a_bad_host_is_refused_at_its_field_quoting_the_value() -> Verdict:
    """Each bad host is refused at hosts[i].<field> quoting the value: a missing, non-integer,
    boolean, zero or negative memory, an unsafe name or interface, a bad rail address, a host
    that is not an object, an unknown field, a name given twice; with two bad fields, the
    first (name) is the one named."""
    srv3 = {"name": "srv3", "rail_address": "10.77.1.13", "rail_interface": "enp1s0f1np1"}
    cases: dict[str, tuple[Edit, Said]] = {
        "no-memory": (
            lambda raw: _entry(raw, "hosts", 2).pop("memory_gib"),
            Quoting("hosts[2].memory_gib", "Field required", srv3),
        ),
        "memory-word": (
            _set(2, memory_gib="lots"),
            Quoting("hosts[2].memory_gib", "integer", "lots"),
        ),
        "memory-text": (
            _set(2, memory_gib="121"),
            Quoting("hosts[2].memory_gib", "integer", "121"),
        ),
        "memory-true": (_set(2, memory_gib=True), Quoting("hosts[2].memory_gib", "integer", True)),
        "memory-zero": (_set(5, memory_gib=0), Quoting("hosts[5].memory_gib", "greater than 0", 0)),
        "memory-negative": (
            _set(7, memory_gib=-121),
            Quoting("hosts[7].memory_gib", "greater than 0", -121),
        ),
        "unsafe-name": (
            _set(0, name="srv1;reboot"),
            Exact("hosts[0].name", _unsafe_name("srv1;reboot")),
        ),
        "unsafe-interface": (
            _set(2, rail_interface="eth0 $x"),
            Exact("hosts[2].rail_interface", _unsafe_name("eth0 $x")),
        ),
        "short-rail": (
            _set(4, rail_address="10.77.1"),
            Exact(
                "hosts[4].rail_address",
                "Value error, '10.77.1' is not an IPv4 rail address (value '10.77.1')",
            ),
        ),
        "host-a-string": (
            lambda raw: raw["hosts"].__setitem__(3, "srv4"),
            Quoting("hosts[3]", "valid dictionary", "srv4"),
        ),
        "unknown-field": (
            _set(1, colour="red"),
            Quoting("hosts[1].colour", "Extra inputs are not permitted", "red"),
        ),
        "name-twice": (
            _set(3, name="srv2"),
            Exact("hosts[3].name", "already names hosts[1] (value 'srv2')"),
        ),
        "two-bad-fields": (
            _set(6, name="srv 7", memory_gib=-1),
            Exact("hosts[6].name", _unsafe_name("srv 7")),
        ),
    }
    return _refused_inventories(cases)


def _members(index: int, *hosts: object) -> Edit:
    return lambda raw: _entry(raw, "groups", index).__setitem__("hosts", list(hosts))


@claim(ClaimKind.REFUSAL)
def a_bad_group_is_refused_at_its_field_quoting_the_value() -> Verdict:
    """Each bad group is refused at groups.<name>.<field> (groups[i] when it has no string
    name): not an object, unknown hosts (all of them, in order), a host named twice, no host,
    no or non-list hosts, an unsafe subject, an unknown field, a group name given twice."""
    cases: dict[str, tuple[Edit, Said]] = {
        "group-a-string": (
            lambda raw: raw["groups"].__setitem__(0, "group_a"),
            Exact("groups[0]", "must be a JSON object (value 'group_a')"),
        ),
        "unknown-hosts": (
            _members(0, "srv5", "srv9", "srv6", "srv0"),
            Exact("groups.group_a.hosts", "unknown hosts ['srv9', 'srv0']"),
        ),
        "host-twice": (
            _members(1, "srv1", "srv2", "srv1", "srv4", "srv2"),
            Exact("groups.group_b.hosts", "hosts named twice ['srv1', 'srv2']"),
        ),
        "no-host": (
            _members(1),
            Exact("groups.group_b.hosts", "a group needs at least one host (value [])"),
        ),
        "hosts-missing": (
            lambda raw: _entry(raw, "groups", 0).pop("hosts"),
            Exact("groups.group_a.hosts", "Field required"),
        ),
        "hosts-a-string": (
            lambda raw: _entry(raw, "groups", 0).__setitem__("hosts", "srv5"),
            Exact("groups.group_a.hosts", "must be a list (value 'srv5')"),
        ),
        "name-a-number": (
            lambda raw: _entry(raw, "groups", 1).__setitem__("name", 7),
            Quoting("groups[1].name", "valid string", 7),
        ),
        "unsafe-subject": (
            lambda raw: _entry(raw, "groups", 0).__setitem__("subject", "group a"),
            Exact("groups.group_a.subject", _unsafe_name("group a")),
        ),
        "unknown-field": (
            lambda raw: _entry(raw, "groups", 1).__setitem__("colour", "red"),
            Quoting("groups.group_b.colour", "Extra inputs are not permitted", "red"),
        ),
        "name-twice": (
            lambda raw: _entry(raw, "groups", 1).__setitem__("name", "group_a"),
            Exact("groups[1].name", "already names groups[0] (value 'group_a')"),
        ),
    }
    return _refused_inventories(cases)


_MANIFEST: Raw = {
    "model": "org/tiny",
    "revision": "r1",
    "files": [
        {"path": "config.json", "bytes": 10, "role": "config"},
        {"path": "model.safetensors", "bytes": 1024, "role": "weights"},
    ],
}


@claim(ClaimKind.REFUSAL)
def a_bad_manifest_is_refused_at_its_first_bad_field() -> Verdict:
    """A manifest file is refused at its first bad field (dotted, list indices as numbers)
    quoting the value, at <root> when it is no object, at <file> when unreadable."""

    def manifest(**fields: object) -> str:
        return json.dumps({**_MANIFEST, **fields})

    bad_role = [_MANIFEST["files"][0], {"path": "x", "bytes": 1, "role": "blob"}]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        absent = Path(tmp) / "absent.json"
        texts: dict[str, tuple[str | None, Said]] = {
            "absent": (
                None,
                Exact(
                    "<file>",
                    f"cannot read manifest: [Errno 2] No such file or directory: {str(absent)!r}",
                ),
            ),
            "empty": (
                "",
                Exact("<file>", "cannot read manifest: Expecting value: line 1 column 1 (char 0)"),
            ),
            "list": ("[]", Quoting("<root>", "an object", [])),
            "role": (manifest(files=bad_role), Quoting("files.1.role", "'weights'", "blob")),
            # revision comes before files, so it is the one named
            "two-bad": (
                manifest(revision="r1;x", files=bad_role),
                Exact("revision", _unsafe_name("r1;x")),
            ),
        }
        for name, (text, want) in texts.items():
            path = absent
            if text is not None:
                path = Path(tmp) / f"{name}.json"
                path.write_text(text, encoding="utf-8")
            found = _mismatch(load_manifest, path, want)
            if found is not None:
                problems.append(f"{name}: {found}")
        loaded = load_manifest(_write(Path(tmp) / "good.json", json.dumps(_MANIFEST)))
    if problems:
        return fails("; ".join(problems))
    return expect_equal(
        ("org/tiny", "r1", 1024),
        (loaded.model, loaded.revision, loaded.weight_bytes),
        "a good manifest",
    )


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@claim(ClaimKind.PLANNED_SHAPE)
def data_files_are_read_as_utf8_whatever_the_locale() -> Verdict:
    """JSON is UTF-8 (RFC 8259): an inventory and a manifest holding non-ASCII text load the
    same under the C locale as under a UTF-8 one."""
    shipped = load_fabric(INVENTORY)
    with tempfile.TemporaryDirectory() as tmp:
        raw = _inventory()
        raw["_about"] = "GB10 ≈ 121 GiB to the OS"
        inventory = _write(Path(tmp) / "fabric.json", json.dumps(raw, ensure_ascii=False))
        text = json.dumps({**_MANIFEST, "model": "org/modèle"}, ensure_ascii=False)
        manifest = _write(Path(tmp) / "m.json", text)
        try:
            with c_locale():
                same = load_fabric(inventory) == shipped
                model = load_manifest(manifest).model
        except PlannerInputError as exc:
            return fails(f"refused under the C locale: {exc}")
    return expect_equal((True, "org/modèle"), (same, model), "(inventory as shipped, model)")


# --- safe names and paths --------------------------------------------------------------

_LEAD = frozenset(string.ascii_letters + string.digits)
_NAME_CHARS = _LEAD | frozenset("_.@:-")
_PATH_CHARS = _LEAD | frozenset("_.@+-/")
_ODD = " \t\n;|&$`'\"\\<>()*?!#~=,%/+é١"
"""Whitespace, shell metacharacters, a '/', a '+' and two non-ASCII letters/digits."""


def _is_safe_name(value: str) -> bool:
    """The docstring's rule: a letter or digit, then letters, digits and _ . @ : - only."""
    return value[:1] in _LEAD and set(value) <= _NAME_CHARS


def _is_safe_path(value: str) -> bool:
    """Absolute, normalized (posixpath.normpath leaves it as it is, and it does not start
    with the '//' POSIX lets normpath keep) and made of letters, digits and _ . @ + - /."""
    normal = posixpath.normpath(value) == value and not value.startswith("//")
    return value.startswith("/") and normal and set(value) <= _PATH_CHARS


def _accepted_iff(
    check: Callable[[str], str], is_safe: Callable[[str], bool], rule: str, value: str
) -> None:
    """``check`` returns ``value`` unchanged exactly when the rule ``is_safe`` holds for it,
    and otherwise refuses it saying ``rule``."""
    try:
        got = check(value)
    except ValueError as exc:
        assert not is_safe(value), f"{value!r} refused"
        assert str(exc) == f"{value!r} {rule}", f"{value!r} refused saying {exc}"
        return
    assert is_safe(value) and got == value, f"{value!r} accepted as {got!r}"


_FEW = settings(max_examples=40)


@_FEW
@given(st.text(st.sampled_from(sorted("aZ09_.@:-" + _ODD)), max_size=6))
@example("")
@example("srv5")
@example("9")
@example("a_b.c@d:e-f")
@example("-rf")
@example(".hidden")
@example("_x")
@example("@x")
@example(":x")
@example("a b")
@example("a\n")
@example("$(id)")
@example("a+b")
@example("é")
@example("١")
def _safe_name_is_the_rule(value: str) -> None:
    _accepted_iff(safe_name, _is_safe_name, _NAME_RULE, value)


_SEGMENTS = ("a", "b1", ".", "..", "", ".x", "..y", "a.b", "x+y@z", "a b", "a;b", "$x", "é", "a:b")


@_FEW
@given(
    st.one_of(
        st.lists(st.sampled_from(_SEGMENTS), max_size=4).map(lambda s: "/" + "/".join(s)),
        st.text(st.sampled_from(sorted("a0._@+-/" + _ODD)), max_size=6),
    )
)
@example("/")
@example("/var/lib/gunbc")
@example("/a/")
@example("//")
@example("//a")
@example("/a//b")
@example("/.")
@example("/./a")
@example("/a/.")
@example("/..")
@example("/a/../b")
@example("/...")
@example("/a..b")
@example("relative")
@example("")
@example("/a b")
@example("/a;b")
@example("/a:b")
@example("/a\n")
def _safe_path_is_the_rule(value: str) -> None:
    _accepted_iff(safe_path, _is_safe_path, _PATH_RULE, value)


@claim(ClaimKind.PROPERTY)
def a_safe_name_is_a_letter_or_digit_then_letters_digits_and_five_marks() -> Verdict:
    """safe_name accepts exactly a letter or digit followed by letters, digits and _ . @ : -
    (ASCII only) and refuses anything else saying why."""
    try:
        _safe_name_is_the_rule()
    except AssertionError as exc:
        return fails(str(exc))
    return holds("40 names and 15 boundary cases: accepted ⇔ [A-Za-z0-9][A-Za-z0-9_.@:-]*")


@claim(ClaimKind.PROPERTY)
def a_safe_path_is_absolute_normalized_and_plain() -> Verdict:
    """The safe-path type accepts exactly an absolute path that normpath leaves unchanged
    (no '.', '..' or empty segment, no trailing '/') of letters, digits and _ . @ + - /."""
    try:
        _safe_path_is_the_rule()
    except AssertionError as exc:
        return fails(str(exc))
    return holds("40 paths and 19 boundary cases: accepted ⇔ absolute, normalized, plain")


# --- refusal values ----------------------------------------------------------------------


@claim(ClaimKind.PLANNED_SHAPE)
def a_refusal_renders_its_location_and_one_line() -> Verdict:
    """A refusal keeps its code, location, message and hint (none unless given); its place
    joins names with dots and renders list indices as [n], <root> when empty; its line is
    ``refused: <code> at <place>: <message>``."""
    cases = [
        (("groups", "group_a", "hosts", 2, "memory_gib"), "", "groups.group_a.hosts[2].memory_gib"),
        (("runs", 1, 0), "look at run 1", "runs[1][0]"),
        ((0, "name"), "", "[0].name"),
        ((), "", "<root>"),
    ]
    want = []
    got = []
    for location, hint, where in cases:
        made = (
            refusal("fabric.wall", location, "needs 480 GiB", hint)
            if hint
            else refusal("fabric.wall", location, "needs 480 GiB")
        )
        want.append((location, hint, where, f"refused: fabric.wall at {where}: needs 480 GiB"))
        got.append((made.location, made.hint, made.where, made.line()))
    return expect_equal(want, got, "(location, hint, where, line) per refusal")


# --- the data root and its loaders -------------------------------------------------------


def _copied_root(tmp: Path, memory: int) -> Path:
    """A data root whose inventory gives srv8 ``memory`` GiB and which has a tiny manifest."""
    raw = _inventory()
    _entry(raw, "hosts", 7)["memory_gib"] = memory
    _write(tmp / "fabric.json", json.dumps(raw))
    _write(tmp / "checkpoints" / "tiny.manifest.json", json.dumps(_MANIFEST))
    return tmp


@claim(ClaimKind.PLANNED_SHAPE)
def the_data_root_is_the_environment_or_the_fixtures() -> Verdict:
    """$GUNBC_PLANNER_DATA names the data root when set and non-empty, else it is the fixtures
    directory beside the planner; the loaders read the root they are given, else that one."""
    with tempfile.TemporaryDirectory() as tmp:
        given_root = _copied_root(Path(tmp) / "given", 120)
        env_root = _copied_root(Path(tmp) / "env", 119)
        with data_root_env(None):
            unset = data.default_data_root()
            pool_given = data.fabric(given_root).group("group_a").pool_gib
            tiny = data.manifest("checkpoints/tiny.manifest.json", given_root).model
        with data_root_env(""):
            empty = data.default_data_root()
        with data_root_env(str(env_root)):
            named = data.default_data_root()
            pool_env = data.fabric().group("group_a").pool_gib
    # pools: three hosts of 121 GiB and srv8 of 120 (given root) or 119 (environment root)
    want = (FIXTURES, FIXTURES, env_root, 483, "org/tiny", 482)
    got = (unset, empty, named, pool_given, tiny, pool_env)
    return expect_equal(want, got, "(unset, empty, set root; given pool, manifest, env pool)")


@claim(ClaimKind.REFUSAL)
def a_snapshot_manifest_is_found_by_model_or_known_absent() -> Verdict:
    """snapshot_manifest finds a model's manifest among checkpoints/*.manifest.json (other
    files are not manifests, so a model only such a file names has none: ``None``, which a
    recipe's dry run refuses as weight unknown); each shipped model's is found. A model two
    manifests name is a located error naming the checkpoints directory and both files, not
    whichever sorts first."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        checkpoints = root / "checkpoints"
        for stem, model in (("a.manifest", "org/a"), ("b.manifest", "org/b"), ("c", "org/c")):
            _write(checkpoints / f"{stem}.json", json.dumps({**_MANIFEST, "model": model}))
        found = data.snapshot_manifest("org/b", root)
        unknown = data.snapshot_manifest("org/c", root)
        again = {**_MANIFEST, "model": "org/b", "revision": "0ther0ne"}
        _write(checkpoints / "b2.manifest.json", json.dumps(again))
        try:
            twice: object = data.snapshot_manifest("org/b", root)
        except PlannerInputError as error:
            twice = (Path(error.source).relative_to(root).as_posix(), error.where, error.message)
        alone = data.snapshot_manifest("org/a", root)
    models = ("zai-org/GLM-4.6-FP8", "deepseek-ai/DeepSeek-V4.1-Flash", "org/tiny")
    shipped = tuple(getattr(data.snapshot_manifest(m, FIXTURES), "revision", None) for m in models)
    refusal = (
        "checkpoints",
        "model",
        "org/b is named by 2 manifests (b.manifest.json, b2.manifest.json): keep one",
    )
    return expect_equal(
        ("org/b", None, refusal, "org/a", ("5c7e1f3b", "dba1be0a", "1a2b3c4d")),
        (
            getattr(found, "model", None),
            unknown,
            twice,
            getattr(alone, "model", None),
            shipped,
        ),
        "(found model, manifest of org/c, org/b named twice, org/a beside it, shipped revisions)",
    )


# --- hostile data --------------------------------------------------------------------------------


_HOSTS_OPEN = '{"hosts": ['


def _raw_inventory(host0: str) -> str:
    """The shipped inventory as text, host 0's object replaced by ``host0`` written as is."""
    raw = _inventory()
    hosts = [json.dumps(h) for h in raw["hosts"][1:]]
    groups = json.dumps(raw["groups"])
    return f'{_HOSTS_OPEN}{host0}, {", ".join(hosts)}], "groups": {groups}}}'


def _host0(memory: str = "121", name: str = '"srv1"', rail: str = '"10.77.1.11"') -> str:
    return (
        f'{{"name": {name}, "memory_gib": {memory}, "rail_address": {rail}, '
        '"rail_interface": "enp1s0f1np1"}'
    )


def _refused_at(text: str) -> tuple[str, str] | str:
    """(where, message) of loading ``text`` as an inventory, or what happened instead."""
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp) / "fabric.json", text)
        try:
            load_fabric(path)
        except PlannerInputError as exc:
            return (exc.where, exc.message) if exc.source == str(path) else exc.source
    return "loaded"


@claim(ClaimKind.REFUSAL)
def a_hostile_inventory_is_refused_at_its_place() -> Verdict:
    """A memory given twice (the second a live-looking 121), a memory of "121", 121.0, 20
    digits or NaN, a rail address holding a lone surrogate, a host nested 100 deep, an
    unknown top-level key, a comment that is not text, and a group member that is not a
    name: each is refused at its place (key path, or line and column for the nesting),
    saying what is wrong — a JSON file that says two things, or says a thing loosely, is
    never planned."""
    raw = _inventory()
    twice = _host0().replace('"memory_gib": 121', '"memory_gib": -1, "memory_gib": 121')
    members = json.dumps(raw["groups"]).replace('"srv5"', '["srv5"]', 1)  # Group A's first
    cases: dict[str, tuple[str, str, str]] = {
        "memory twice": (
            _raw_inventory(twice),
            "hosts[0].memory_gib",
            "key 'memory_gib' is given twice (values -1 and 121)",
        ),
        'memory "121"': (_raw_inventory(_host0('"121"')), "hosts[0].memory_gib", "(value '121')"),
        "memory 121.0": (_raw_inventory(_host0("121.0")), "hosts[0].memory_gib", "(value 121.0)"),
        "memory of 20 digits": (
            _raw_inventory(_host0("9" * 20)),
            "hosts[0].memory_gib",
            "an integer of 20 digits is out of range",
        ),
        "memory NaN": (_raw_inventory(_host0("NaN")), "hosts[0].memory_gib", "NaN is not"),
        "rail with a lone surrogate": (
            _raw_inventory(_host0(rail='"10.77.1.\\udc81"')),
            "hosts[0].rail_address",
            "a lone surrogate \\udc81",
        ),
        "host nested 100 deep": (
            _raw_inventory("[" * 100 + _host0() + "]" * 100),
            # the document is level 1 and the hosts array level 2: the 63rd bracket opens 65
            f"line 1, column {len(_HOSTS_OPEN) + 63}",
            "nested deeper than 64 levels",
        ),
        "unknown top-level key": (
            json.dumps({**raw, "hosts_extra": []}),
            "hosts_extra",
            "unknown key: an inventory holds hosts, groups and _comments",
        ),
        "comment that is not text": (
            json.dumps({**raw, "_about": 7}),
            "_about",
            "a comment must be text (value 7)",
        ),
        "member not a name": (
            json.dumps({"hosts": raw["hosts"], "groups": json.loads(members)}),
            "groups.group_a.hosts[0]",  # srv5 is Group A's first member
            "must be a host name (value ['srv5'])",
        ),
    }
    seen = {}
    for case, (text, _, fact) in cases.items():
        found = _refused_at(text)
        seen[case] = found if isinstance(found, str) else (found[0], fact in found[1])
    want = {case: (where, True) for case, (_, where, _) in cases.items()}
    return expect_equal(want, seen, "(where, states the fact) per hostile inventory")


def _manifest_root(tmp: Path, relative: str, document: dict[str, object]) -> Path:
    root = tmp / "data"
    _write(root / relative, json.dumps(document))
    return root


@claim(ClaimKind.REFUSAL)
def a_manifest_the_planner_cannot_place_is_refused_at_its_field() -> Verdict:
    """An arm's manifest whose model has no organisation, a nested name or a character a
    path cannot carry, whose revision is not alphanumeric, or whose file has a negative or
    textual byte count loads no plan: each is refused at its field naming the file, never
    a crash further on."""
    base = json.loads((FIXTURES / V41_MANIFEST).read_text(encoding="utf-8"))
    files = base["files"]
    cases: dict[str, tuple[dict[str, object], str, str]] = {
        "model without organisation": ({"model": "DeepSeek"}, "model", "cannot place model"),
        "nested model name": ({"model": "a/b/c"}, "model", "cannot place model"),
        "model with a space": ({"model": "org/a b"}, "model", "is not a safe absolute path"),
        "revision with a dot": ({"revision": "a.b"}, "revision", "cannot place model"),
        "negative bytes": (
            {"files": [{**files[0], "bytes": -1}, *files[1:]]},
            "files.0.bytes",
            "greater than or equal to 0",
        ),
        "bytes as text": (
            {"files": [{**files[0], "bytes": "4731"}, *files[1:]]},
            "files.0.bytes",
            "(value '4731')",
        ),
    }
    seen: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for number, (case, (change, _, _)) in enumerate(cases.items()):
            root = _manifest_root(Path(tmp) / str(number), V41_MANIFEST, {**base, **change})
            try:
                data.manifest(V41_MANIFEST, root)
                seen[case] = "loaded"
            except PlannerInputError as exc:
                fact = cases[case][2]
                named = exc.source == str(root / V41_MANIFEST)
                seen[case] = (named, exc.where, fact in exc.message)
    want = {case: (True, where, True) for case, (_, where, _) in cases.items()}
    return expect_equal(want, seen, "(file named, where, states the fact) per manifest")


def _strictly(text: str) -> tuple[str, object]:
    """What ``strict_json`` makes of ``text``: ("read", the value), or (where, message)."""
    try:
        return ("read", strict_json(text))
    except JsonProblem as problem:
        return (problem.where, problem.message)


_TWICE = "is given twice (values {} and {}): an input that says two things is corrupt"
_OUT = "an integer of {} digits is out of range: integers here are signed 64-bit (value {})"


@claim(ClaimKind.REFUSAL)
def the_json_rules_hold_at_their_edges() -> Verdict:
    """The strict reader every planner input goes through, at each rule's edge: 2^63 − 1
    and −2^63 are read, 2^63 and −2^63 − 1 (and 5,000 digits) are refused quoting the value
    (cut to 150 characters past 200); NaN, Infinity and -Infinity are refused where they
    stand; a key given twice names both values (an object, an array, a text cut past 200
    characters); U+D800 and U+DFFF are refused in a value or a key, U+D7FF and U+E000 read;
    64 levels of nesting are read and the 65th is refused at its line and column, however
    deep, with brackets, escaped quotes and backslashes inside strings and closed levels not
    counted; a 64-level object repeating a key, or holding NaN, at its bottom names it.
    Messages escape what would break their line, and a name is one line of printable text."""
    deep_objects = '{"a": ' * 64 + "1" + "}" * 64
    tricky = '[\n"[[\\"[",\n' + "[" * 64 + "]" * 64 + "]"
    bottom = '{"a": ' * 63 + '{"k": 1, "k": 2}' + "}" * 63
    long_a, long_b = "a" * 198, "b" * 199
    closed = '[[], {}, "\\\\", '  # the document, two closed levels, a string of one backslash
    cases: dict[str, tuple[str, object]] = {
        "2^63 - 1": (str(2**63 - 1), ("read", 2**63 - 1)),
        "-2^63": (str(-(2**63)), ("read", -(2**63))),
        "2^63": (str(2**63), ("<root>", _OUT.format(19, 2**63))),
        "-2^63 - 1": (f"[{-(2**63) - 1}]", ("[0]", _OUT.format(19, -(2**63) - 1))),
        "5,000 digits": (
            '{"n": ' + "7" * 5000 + "}",
            ("n", _OUT.format("5,000", "7" * 150 + "… (5,000 characters)")),
        ),
        "NaN": ("[1, NaN]", ("[1]", "NaN is not a JSON number")),
        "Infinity": ('{"x": Infinity}', ("x", "Infinity is not a JSON number")),
        "-Infinity": ("-Infinity", ("<root>", "-Infinity is not a JSON number")),
        "object then array": (
            '{"k": {}, "k": []}',
            ("k", "key 'k' " + _TWICE.format("an object", "an array")),
        ),
        "200 and 201": (
            f'{{"o": {{"k": "{long_a}", "k": "{long_b}"}}}}',
            (
                "o.k",
                "key 'k' " + _TWICE.format(repr(long_a), repr(long_b)[:150] + "… (201 characters)"),
            ),
        ),
        "U+D800 in a key": (
            '{"a\\ud800b": 1}',
            ("<root>", "a lone surrogate \\ud800 is not a character (value 'a\\ud800b')"),
        ),
        "U+DFFF in a value": (
            '{"o": ["\\udfff"]}',
            ("o[0]", "a lone surrogate \\udfff is not a character (value '\\udfff')"),
        ),
        "U+D7FF and U+E000": ('["\\ud7ff\\ue000"]', ("read", ["\ud7ff\ue000"])),
        "64 levels": ("[" * 64 + "]" * 64, ("read", json.loads("[" * 64 + "]" * 64))),
        "65 levels of objects": (
            '{"a": ' * 65 + "1" + "}" * 65,
            ("line 1, column 385", "nested deeper than 64 levels"),
        ),
        "65 levels after a string of brackets": (
            tricky,
            ("line 3, column 64", "nested deeper than 64 levels"),
        ),
        "5,000 levels": (
            "[" * 5000 + "]" * 5000,
            ("line 1, column 65", "nested deeper than 64 levels"),
        ),
        "a key twice 64 levels down": (bottom, ("a." * 63 + "k", "key 'k' " + _TWICE.format(1, 2))),
        "NaN 64 levels down": (
            '{"a": ' * 63 + "[NaN]" + "}" * 63,
            ("a." * 62 + "a[0]", "NaN is not a JSON number"),
        ),
        "65 levels after closed brackets and an escaped backslash": (
            closed + "[" * 64 + "]" * 64 + "]",
            (f"line 1, column {len(closed) + 64}", "nested deeper than 64 levels"),
        ),
    }
    seen: dict[str, object] = {case: _strictly(text) for case, (text, _) in cases.items()}
    want: dict[str, object] = {case: expected for case, (_, expected) in cases.items()}
    seen["64 levels of objects"] = _strictly(deep_objects)[0]
    want["64 levels of objects"] = "read"
    seen["printable"] = printable("a\nb\u2028c\x85d\udcffe f\tg")
    want["printable"] = "a\\nb\\u2028c\\x85d\\udcffe f\\tg"
    try:
        one_line("tiny (4x) — r37")
        one_line("tiny\tforged")
        seen["one line"] = "a tab accepted"
    except ValueError as exc:
        seen["one line"] = str(exc)
    want["one line"] = "'tiny\\tforged' is not one line of printable text: it holds U+0009"
    return expect_equal(want, seen, "what the strict reader makes of each text")


@claim(ClaimKind.PLANNED_SHAPE)
def the_order_hosts_are_listed_in_changes_no_group() -> Verdict:
    """The inventory's ``hosts`` are definitions in no particular order: listed last first,
    or rotated by one, every group still holds its hosts in the order the group names them
    (its node ranks, the head first) and every host reads the same."""
    shipped = load_fabric(INVENTORY)
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, reorder in REORDERINGS.items():
            raw = _inventory()
            raw["hosts"] = reorder(raw["hosts"])
            path = Path(tmp) / "fabric.json"
            path.write_text(json.dumps(raw), encoding="utf-8")
            fabric = load_fabric(path)
            for want, got in zip(shipped.groups, fabric.groups, strict=True):
                ranks = [h.name for h in got.hosts]
                problems += difference(f"{name}: {want.name}", [h.name for h in want.hosts], ranks)
                problems += difference(f"{name}: {want.name} hosts", want.hosts, got.hosts)
            by_name = sorted(fabric.hosts, key=lambda h: h.name)
            problems += difference(
                f"{name}: hosts", sorted(shipped.hosts, key=lambda h: h.name), by_name
            )
    return holds_unless(
        problems, f"{len(shipped.groups)} groups in rank order however the hosts are listed"
    )
