"""Witness: Engram staging as planned remote steps, sealed and readback-verified."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import planner.engram
from claims import ClaimKind, Verdict, claim, expect, expect_equal, fails, holds
from fixtures.builders import rendered, v41_dry_run
from planner.arms.v41_group_a import V41_ENGRAM_PLACEMENT
from planner.engram import (
    FileTreeScope,
    LandingMismatch,
    MkdirStep,
    TypedFileWrite,
    land_file_write,
    parse_engram_manifest,
)
from planner.refusal import PlannerInputError
from witnesses.arms.expected.v41_group_a import EXPECTED as V41
from witnesses.support import scenario_raw

_STORES = V41_ENGRAM_PLACEMENT.row_store_dir
_SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
"""Landings fsync: on a memory filesystem that costs nothing, so the claims stay fast."""
_ESCAPES = (
    f"{_STORES}/../x.safetensors",
    f"{_STORES}/../../../etc/shadow",
    "/etc/shadow",
    f"{_STORES}-other/x.safetensors",
)


def _staging() -> tuple[MkdirStep | TypedFileWrite, ...]:
    hosts = v41_dry_run("supplied").hosts
    if not hosts:
        raise AssertionError("supplied inputs rendered no hosts")
    return hosts[0].staging


def _write() -> TypedFileWrite:
    writes = [s for s in _staging() if isinstance(s, TypedFileWrite)]
    if len(writes) != 1:
        raise AssertionError(f"expected one manifest write, got {len(writes)}")
    return writes[0]


@claim(ClaimKind.PLANNED_SHAPE)
def every_host_stages_the_supplied_manifest_alike() -> Verdict:
    """Every host's Engram staging is the same three steps, making what V4.1's literal env
    names: ``mkdir -p --`` the manifest file's dir, ``mkdir -p --`` the receipt dir, then the
    supplied manifest text, byte for byte, written as that file sealed to its dir with mode
    0644 (readable by the container, written by nobody else)."""
    env = dict(V41.env)
    manifest = env["GUNBC_ENGRAM_ROW_STORE_MANIFEST"]
    receipts = env["GUNBC_ENGRAM_TOUCH_RECEIPT_DIR"]
    directory, name = manifest.rsplit("/", 1)
    text = scenario_raw("supplied", "inputs.json")["engram_manifest"].encode()
    want = [
        ("mkdir", ("mkdir", "-p", "--", directory)),
        ("mkdir", ("mkdir", "-p", "--", receipts)),
        ("write_file", (directory, name, manifest, text, 0o644)),
    ]
    problems = []
    for host in rendered(v41_dry_run("supplied"), "the supplied inputs").hosts:
        got = [
            (s.kind, s.argv)
            if isinstance(s, MkdirStep)
            else (s.kind, (s.scope.root, s.relative_path, s.target, s.content, s.mode))
            for s in host.staging
        ]
        if got != want:
            problems.append(f"{host.realization.host_name}: {got}")
    return expect(not problems, "every host stages the manifest alike", "; ".join(problems)[:600])


@claim(ClaimKind.REFUSAL)
def a_write_escaping_its_directory_is_refused() -> Verdict:
    """A manifest write whose path leaves its sealed directory is refused, for each escape,
    saying which path escapes which directory."""
    root = V41_ENGRAM_PLACEMENT.manifest_dir
    scope = FileTreeScope(root=root)
    escapes = ("../x.json", "/etc/passwd", "a/../../b", "")
    seen: list[str] = []
    for bad in escapes:
        write = TypedFileWrite(scope=scope, relative_path=bad, content=b"{}")
        try:
            seen.append(f"not refused: {bad!r} → {write.target}")
        except ValueError as exc:
            seen.append(str(exc))
    expected = [f"{bad!r} escapes the sealed directory {root}" for bad in escapes]
    return expect_equal(expected, seen, "refusal per escaping path")


@claim(ClaimKind.REFUSAL)
def a_row_store_outside_its_directory_is_refused() -> Verdict:
    """A manifest naming a row store outside the row-store directory is refused, located,
    for each way out: up one level, up several, elsewhere, a sibling sharing the prefix."""
    accepted = []
    for escape in _ESCAPES:
        text = json.dumps({"row_stores": [{"path": escape}]})
        try:
            parse_engram_manifest(text, V41_ENGRAM_PLACEMENT, "inputs.json")
        except PlannerInputError as exc:
            if exc.where != "engram_manifest.row_stores[0].path":
                accepted.append(f"{escape} refused at {exc.where}")
            continue
        accepted.append(f"{escape} accepted")
    return expect(
        not accepted, f"{len(_ESCAPES)} escapes refused at row_stores[0].path", "; ".join(accepted)
    )


@claim(ClaimKind.PLANNED_SHAPE)
def the_manifest_lands_as_readback_verified_bytes() -> Verdict:
    """Landing the write in a real directory leaves exactly the bytes and no temp file."""
    write = _write()
    with tempfile.TemporaryDirectory(dir=_SCRATCH) as root:
        base = Path(root)
        (base / write.scope.root.lstrip("/")).mkdir(parents=True)
        landed = land_file_write(write, base)
        leftovers = sorted(p.name for p in landed.parent.iterdir() if p != landed)
        same = landed.read_bytes() == write.content
    if not same or leftovers:
        return fails(f"bytes equal: {same}; left behind: {leftovers}")
    return holds(f"{len(write.content)} bytes landed at {write.target}, nothing left behind")


# --- #12359's manifest: accepted byte for byte, refused located ----------------------------------


@claim(ClaimKind.PLANNED_SHAPE)
def an_accepted_manifest_is_returned_byte_for_byte() -> Verdict:
    """A manifest naming row stores inside the row-store directory — the supplied one, one
    with a nested store, extra fields and non-ASCII text, a minimal one — is accepted and
    returned as exactly its UTF-8 bytes (no re-serialization)."""
    texts = (
        scenario_raw("supplied", "inputs.json")["engram_manifest"],  # the supplied one
        '{"note": "Größe", "row_stores": [{"path": "' + _STORES + '/sub/a.safetensors", "x": 1}]}',
        '{"row_stores":[{"path":"' + _STORES + '/a"}]}',
    )
    seen = [parse_engram_manifest(t, V41_ENGRAM_PLACEMENT, "inputs.json") for t in texts]
    return expect_equal([t.encode("utf-8") for t in texts], seen, "returned manifest bytes")


def _malformed() -> tuple[tuple[str, str, str], ...]:
    """(manifest text, where, message): each way #12359's text can be malformed."""
    outside = f"is not inside the row-store directory {_STORES}"
    inside = f"{_STORES}/a.safetensors"
    in_text = " (in the manifest text)"
    twice = (
        "key 'row_stores' is given twice (values an array and an array): an input that says "
        "two things is corrupt"
    )
    try:
        json.loads("{row_stores")
    except json.JSONDecodeError as exc:
        not_json = f"not JSON: {exc}"
    stores, first, second = (
        "engram_manifest.row_stores",
        "engram_manifest.row_stores[0].path",
        "engram_manifest.row_stores[1].path",
    )
    return (
        ("{row_stores", "engram_manifest", not_json),
        (json.dumps([{"path": inside}]), stores, "must be a non-empty list"),
        ("{}", stores, "must be a non-empty list"),
        ('{"row_stores": []}', stores, "must be a non-empty list"),
        (json.dumps({"row_stores": inside}), stores, "must be a non-empty list"),
        (json.dumps({"row_stores": [inside]}), first, f"None {outside}"),
        (json.dumps({"row_stores": [{"path": inside}, {"path": 7}]}), second, f"7 {outside}"),
        (json.dumps({"row_stores": [{"path": f"{_STORES}/"}]}), first, f"'{_STORES}/' {outside}"),
        (json.dumps({"row_stores": [{"path": _STORES}]}), first, f"'{_STORES}' {outside}"),
        ("NaN", "engram_manifest", f"NaN is not a JSON number{in_text}"),
        ("[" * 65 + "]" * 65, "engram_manifest", f"nested deeper than 64 levels{in_text}"),
        ("[[NaN]]", "engram_manifest[0][0]", f"NaN is not a JSON number{in_text}"),
        ('{"row_stores": [], "row_stores": []}', stores, f"{twice}{in_text}"),
    )


@claim(ClaimKind.REFUSAL)
def a_malformed_manifest_is_refused_located() -> Verdict:
    """Text that is not JSON, JSON that is not an object, no row_stores, an empty list, a
    string for the list, a store that is not an object, a path that is not a string, a path
    naming the row-store directory itself, and JSON the planner will not guess at (NaN, a
    key given twice, nesting past 64 levels): each is refused naming the inputs file, the
    field (engram_manifest, .row_stores, .row_stores[i].path, [i][j] inside an array; the
    manifest itself for a NaN at its top or nesting too deep) and the bad value."""
    expected: list[tuple[str, str, str]] = []
    seen: list[tuple[str, str, str]] = []
    for text, where, message in _malformed():
        expected.append(("inputs.json", where, message))
        try:
            parse_engram_manifest(text, V41_ENGRAM_PLACEMENT, "inputs.json")
        except PlannerInputError as exc:
            seen.append((exc.source, exc.where, exc.message))
            continue
        except Exception as exc:  # a crash is a wrong answer: shown as one
            seen.append(("crashed", type(exc).__name__, str(exc)))
            continue
        seen.append(("accepted", text, ""))
    return expect_equal(expected, seen, "(source, where, message) per malformed manifest")


# --- landing a write: temp file, rename, read back, compare ---------------------------------------

_REQUIRED_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW


class _OsSpy:
    """The ``os`` module as ``planner.engram`` sees it, recording the landing's steps."""

    def __init__(self, after_replace: Callable[[str], None] | None = None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self._after_replace = after_replace

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def open(self, path: Any, flags: int, mode: int = 0o777) -> int:
        self.calls.append(("open", str(path), flags & _REQUIRED_FLAGS, mode))
        return os.open(path, flags, mode)

    def fsync(self, fd: int) -> None:
        self.calls.append(("fsync",))
        os.fsync(fd)

    def chmod(self, path: Any, mode: int) -> None:
        self.calls.append(("chmod", str(path), mode))
        os.chmod(path, mode)

    def replace(self, source: Any, target: Any) -> None:
        self.calls.append(("replace", str(source), str(target)))
        os.replace(source, target)
        if self._after_replace is not None:
            self._after_replace(str(target))


@contextmanager
def _engram_os(spy: _OsSpy) -> Iterator[None]:
    """``planner.engram`` sees ``spy`` as its ``os`` module inside the block."""
    namespace = vars(planner.engram)
    real = namespace["os"]
    namespace["os"] = spy
    try:
        yield
    finally:
        namespace["os"] = real


@contextmanager
def _filesystem(*directories: str) -> Iterator[Path]:
    """A fresh directory standing for a host's ``/``, holding ``directories``."""
    with tempfile.TemporaryDirectory(prefix="landing-", dir=_SCRATCH) as tmp:
        root = Path(tmp) / "root"
        for directory in directories:
            (root / directory.lstrip("/")).mkdir(parents=True)
        yield root


def _sealed(root: str, relative: str, content: bytes) -> TypedFileWrite:
    return TypedFileWrite(scope=FileTreeScope(root=root), relative_path=relative, content=content)


def _temp_name(target: str, content: bytes) -> str:
    """The temp file beside the target, named by the first 12 hex digits of the content's
    sha256, so a retry of the same bytes reuses it."""
    return f"{target}.landing-{hashlib.sha256(content).hexdigest()[:12]}"


@claim(ClaimKind.PLANNED_SHAPE)
def a_landing_writes_a_private_temp_then_renames_then_reads_back() -> Verdict:
    """The manifest write lands in four steps on the real filesystem: open the temp file
    beside the target (write-only, created, truncated, links not followed, mode 0600), fsync
    it, chmod it to the write's 0644, rename it onto the target; the target then holds the
    bytes with mode 0644 and nothing else is left. The step's description says the same."""
    write = _write()
    digest = "sha256:" + hashlib.sha256(write.content).hexdigest()
    temp, target = _temp_name(write.target, write.content), write.target
    spy = _OsSpy()
    with _filesystem(write.scope.root) as root, _engram_os(spy):
        landed = land_file_write(write, root)
        on_disk = (
            landed == root / target.lstrip("/"),
            landed.read_bytes() == write.content,
            oct(landed.stat().st_mode & 0o777),
            sorted(p.name for p in landed.parent.iterdir()),
        )
        calls = [tuple(str(c).removeprefix(str(root)) for c in call) for call in spy.calls]
    expected_calls = [
        ("open", temp, str(_REQUIRED_FLAGS), str(0o600)),
        ("fsync",),
        ("chmod", temp, str(0o644)),
        ("replace", temp, target),
    ]
    description = (
        f"write-file {target} ({len(write.content)} bytes, {digest}) sealed to "
        f"{write.scope.root}: write {temp}, rename onto the target, read back, compare bytes"
    )
    expected = (expected_calls, (True, True, "0o644", [target.rsplit("/", 1)[1]]), description)
    return expect_equal(
        expected, (calls, on_disk, write.describe()), "(steps, result, description)"
    )


@claim(ClaimKind.PLANNED_SHAPE)
def a_landing_replaces_stale_bytes_under_any_sealed_directory() -> Verdict:
    """Over an older, longer target and a longer temp file left by a crashed attempt, the
    landing leaves exactly the new bytes and no temp file; it lands as well under a scope
    whose path starts with an upper-case X, and into an existing subdirectory of its scope."""
    content = b'{"row_stores": []}'
    seen: list[tuple[bytes, list[str]]] = []
    cases = (
        ("/var/lib/gunbc/engram/v41/manifest", "manifest.json"),
        ("/Xfer/engram", "manifest.json"),
        ("/var/lib/gunbc/engram", "v41/manifest.json"),
    )
    for scope, relative in cases:
        write = _sealed(scope, relative, content)
        parent = str(Path(write.target).parent)
        with _filesystem(parent) as root:
            stale = b"x" * 4 * len(content)
            (root / write.target.lstrip("/")).write_bytes(stale)
            (root / _temp_name(write.target, content).lstrip("/")).write_bytes(stale)
            try:
                landed = land_file_write(write, root)
                seen.append((landed.read_bytes(), sorted(p.name for p in landed.parent.iterdir())))
            except (OSError, ValueError, LandingMismatch) as exc:
                seen.append((repr(exc).encode(), []))
    expected = [(content, [relative.rsplit("/", 1)[-1]])] * len(cases)
    return expect_equal(expected, seen, "(landed bytes, files beside it) per scope")


@claim(ClaimKind.REFUSAL)
def a_landing_never_follows_a_link_out_of_its_scope() -> Verdict:
    """A scope directory that is itself a link (even to a directory inside the root), a scope
    whose parent links outside the root, a subdirectory linking outside the scope, and a
    link planted at the temp path: each is refused before any byte lands outside, and the
    planted link is removed."""
    content = b"{}"
    seen: dict[str, tuple[str, ...]] = {}
    with tempfile.TemporaryDirectory(prefix="landing-", dir=_SCRATCH) as tmp:
        base = Path(tmp)
        root, outside = base / "root", base / "outside"
        outside.mkdir()
        victim = outside / "victim"
        victim.write_bytes(b"untouched")
        (root / "srv" / "real").mkdir(parents=True)
        (root / "srv" / "linked").symlink_to(root / "srv" / "real")
        (root / "escape").symlink_to(outside)
        (root / "srv" / "real" / "sub").symlink_to(outside)
        resolved = root.resolve()
        cases = {
            "scope is a link": _sealed("/srv/linked", "m.json", content),
            "scope's parent links out": _sealed("/escape/dir", "m.json", content),
            "subdirectory links out": _sealed("/srv/real", "sub/m.json", content),
            "temp path is a link": _sealed("/srv/real", "victim", content),
        }
        (outside / "dir").mkdir()
        temp = root / _temp_name("/srv/real/victim", content).lstrip("/")
        temp.symlink_to(victim)
        for case, write in cases.items():
            try:
                land_file_write(write, root)
                seen[case] = ("landed",)
            except ValueError as exc:
                seen[case] = ("ValueError", str(exc))
            except OSError as exc:
                seen[case] = ("OSError", errno.errorcode.get(exc.errno or 0, "?"))
        after = (
            victim.read_bytes(),
            sorted(p.name for p in outside.iterdir()),
            list((outside / "dir").iterdir()),
            temp.is_symlink() or temp.exists(),
            (root / "srv" / "real" / "victim").exists(),
        )
    link_refusal = f"is a link or resolves outside {resolved}"
    expected = {
        "scope is a link": ("ValueError", f"scope /srv/linked {link_refusal}"),
        "scope's parent links out": ("ValueError", f"scope /escape/dir {link_refusal}"),
        "subdirectory links out": ("ValueError", "/srv/real/sub/m.json resolves outside /srv/real"),
        "temp path is a link": ("OSError", "ELOOP"),
    }
    return expect_equal(
        (expected, (b"untouched", ["dir", "victim"], [], False, False)),
        (seen, after),
        "(refusal per case, (victim bytes, outside, outside/dir, temp left, target made))",
    )


@claim(ClaimKind.REFUSAL)
def a_failed_landing_raises_its_own_error_and_leaves_nothing() -> Verdict:
    """Bytes read back that differ from the planned ones raise LandingMismatch naming the
    target and the planned digest; a temp file that cannot be created raises that very
    error (no secondary error from cleanup); a rename onto a directory raises and removes
    the temp file."""
    write = _write()
    seen: list[tuple[str, ...]] = []

    def corrupt(target: str) -> None:
        Path(target).write_bytes(write.content + b" ")

    with (
        _filesystem(write.scope.root) as root,
        _engram_os(_OsSpy(after_replace=corrupt)),
    ):
        try:
            land_file_write(write, root)
            seen.append(("landed",))
        except LandingMismatch as exc:
            seen.append(("LandingMismatch", str(exc)))
    absent = _sealed(write.scope.root, "absent/m.json", write.content)
    with _filesystem(write.scope.root) as root:
        try:
            land_file_write(absent, root)
            seen.append(("landed",))
        except FileNotFoundError as exc:
            temp = str(root / _temp_name(absent.target, absent.content).lstrip("/"))
            own = exc.filename == temp and exc.__context__ is None
            seen.append(("FileNotFoundError", str(own), str(list(root.rglob("*.json*")))))
    with _filesystem(write.target) as root:
        try:
            land_file_write(write, root)
            seen.append(("landed",))
        except IsADirectoryError:
            left = sorted(p.name for p in (root / write.scope.root.lstrip("/")).iterdir())
            seen.append(("IsADirectoryError", str(left)))
    expected = [
        ("LandingMismatch", f"{write.target}: read back bytes differ from {write.digest}"),
        ("FileNotFoundError", "True", "[]"),
        ("IsADirectoryError", str([write.target.rsplit("/", 1)[1]])),
    ]
    return expect_equal(expected, seen, "(error, what it says, what is left)")
