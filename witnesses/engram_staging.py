"""Witness: Engram staging as planned remote steps, sealed and readback-verified."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from claims import ClaimKind, Verdict, claim, expect, expect_equal, fails, holds
from fixtures.builders import v41_call, v41_dry_run
from planner.engram import (
    V41_ENGRAM_PLACEMENT,
    FileTreeScope,
    MkdirStep,
    TypedFileWrite,
    land_file_write,
    parse_engram_manifest,
)
from planner.refusal import PlannerInputError

_STORES = V41_ENGRAM_PLACEMENT.row_store_dir
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
def staging_is_two_mkdirs_then_one_sealed_write() -> Verdict:
    """Staging is mkdir of the manifest dir, mkdir of the receipt dir, then the manifest
    written sealed to its own directory."""
    place = V41_ENGRAM_PLACEMENT
    shape = [
        s.argv if isinstance(s, MkdirStep) else ("write", s.scope.root, s.target)
        for s in _staging()
    ]
    expected = [
        ("mkdir", "-p", "--", place.manifest_dir),
        ("mkdir", "-p", "--", place.receipt_dir),
        ("write", place.manifest_dir, place.manifest_path),
    ]
    return expect_equal(expected, shape, "staging steps")


@claim(ClaimKind.PLANNED_SHAPE)
def the_manifest_written_is_the_supplied_text() -> Verdict:
    """The write carries exactly #12359's manifest text, byte for byte."""
    call = v41_call("supplied")
    return expect_equal(call.engram_manifest, _write().content, "manifest bytes")


@claim(ClaimKind.REFUSAL)
def a_write_escaping_its_directory_is_refused() -> Verdict:
    """A manifest write whose path leaves its sealed directory is refused, for each escape."""
    scope = FileTreeScope(root=V41_ENGRAM_PLACEMENT.manifest_dir)
    escaped: list[str] = []
    for bad in ("../x.json", "/etc/passwd", "a/../../b", ""):
        write = TypedFileWrite(scope=scope, relative_path=bad, content=b"{}")
        try:
            escaped.append(f"{bad!r} → {write.target}")
        except ValueError:
            continue
    return expect(not escaped, "4 escaping paths refused", f"not refused: {escaped}")


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
    with tempfile.TemporaryDirectory() as root:
        base = Path(root)
        (base / write.scope.root.lstrip("/")).mkdir(parents=True)
        landed = land_file_write(write, base)
        leftovers = sorted(p.name for p in landed.parent.iterdir() if p != landed)
        same = landed.read_bytes() == write.content
    if not same or leftovers:
        return fails(f"bytes equal: {same}; left behind: {leftovers}")
    return holds(f"{len(write.content)} bytes landed at {write.target}, nothing left behind")


@claim(ClaimKind.PLANNED_SHAPE)
def the_engram_env_points_at_what_staging_made() -> Verdict:
    """The manifest env names the staged file and the receipt env the made receipt dir."""
    run = v41_dry_run("supplied")
    mismatched: list[str] = []
    for host in run.hosts:
        argv = host.realization.create_argv
        env = dict(argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "--env")
        made = {s.argv[-1] for s in host.staging if isinstance(s, MkdirStep)}
        written = {s.target for s in host.staging if isinstance(s, TypedFileWrite)}
        if env.get("GUNBC_ENGRAM_ROW_STORE_MANIFEST") not in written:
            mismatched.append(f"{host.realization.host_name}: manifest env")
        if env.get("GUNBC_ENGRAM_TOUCH_RECEIPT_DIR") not in made:
            mismatched.append(f"{host.realization.host_name}: receipt env")
    return expect(
        not mismatched and len(run.hosts) == 4,
        "4 hosts: env names the staged manifest and receipt dir",
        f"mismatched: {mismatched}",
    )


@claim(ClaimKind.PLANNED_SHAPE)
def receipts_are_writable_and_the_manifest_read_only() -> Verdict:
    """Row stores and the manifest dir mount read-only; the receipt dir mounts writable."""
    place = V41_ENGRAM_PLACEMENT
    argv = v41_dry_run("supplied").hosts[0].realization.create_argv
    mounts = {
        m.split(",")[1].removeprefix("source="): m.endswith(",readonly")
        for m in (argv[i + 1] for i, a in enumerate(argv) if a == "--mount")
    }
    seen = (
        mounts.get(place.row_store_dir),
        mounts.get(place.manifest_dir),
        mounts.get(place.receipt_dir),
    )
    return expect_equal((True, True, False), seen, "read-only? (row stores, manifest, receipts)")
