"""Witness: Group B's GLM arm through the same launcher, with GLM's own values.

Its rendered artifacts (:func:`artifacts`) are the regression control for any refactor
of the shared launcher: ``claims identity glm_group_b_launch --base REV`` compares them
byte for byte against another revision's own rendering.
"""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, expect, expect_equal, fails, holds
from fixtures.builders import DATA_ROOT, glm_call, glm_dry_run, refusal_codes
from planner.apply import Stage
from planner.arm_launch import DryRun
from planner.arms.glm_group_b import GLM_GROUP_B_PROFILE
from planner.arms.v41_group_a import V41_ENGRAM_REQUEST
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest

GLM_NAMES = ("glm-native-tp4", "glm-native-head.service", "glm-native-rank.service")


def _rendered() -> DryRun:
    run = glm_dry_run()
    if run.launch is None:
        raise AssertionError(f"GLM did not render: {refusal_codes(run)}")
    return run


def _key_as_before_the_engram_field(profile: ServingLaunchProfile) -> str:
    """The content key of the profile as it was before the Engram field existed: the
    documented recipe (sha256 over the canonical JSON of the other fields), recomputed here
    independently of ``content_key``. Across revisions, ``claims identity`` compares the
    subject key against the earlier revision's own rendering."""
    body = profile.model_dump(exclude={"engram"})
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


# --- GLM's own values, stated; the rest built from the inputs ----------------------------

GLM_CONTAINER = "glm-native-tp4"
GLM_HEAD_UNIT, GLM_RANK_UNIT = "glm-native-head", "glm-native-rank"
GLM_RENDEZVOUS_PORT = "29500"
"""Group B's unchanged rendezvous port (V4.1 has its own, 29511)."""
GLM_SERVE_PORT = "8100"
"""Group B's route: GLM keeps serving where its clients reach it."""
GLM_RUNTIME_KEY = "gunbc-glm-native"
GLM_MANIFEST_FILE = DATA_ROOT / "checkpoints" / "glm-4.6-fp8-5c7e1f3b.manifest.json"
CHECKPOINT_ROOT = "/var/lib/gunbc/checkpoints"
"""Where the materializer installs every checkpoint (DESIGN §3, one placement rule)."""


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _group_b_hosts() -> list[dict[str, Any]]:
    """Group B's hosts as fixtures/fabric.json lists them: that order is node-rank order."""
    raw = _json(DATA_ROOT / "fabric.json")
    by_name = {h["name"]: h for h in raw["hosts"]}
    names = next(g["hosts"] for g in raw["groups"] if g["name"] == "group_b")
    return [by_name[n] for n in names]


def _glm_placement() -> str:
    raw = _json(GLM_MANIFEST_FILE)
    org, name = raw["model"].split("/")
    return f"{CHECKPOINT_ROOT}/{org}--{name}/{raw['revision']}"


def _admitted_glm_digest() -> str:
    """The image the supplied authority log admitted for GLM's runtime key."""
    log = (DATA_ROOT / "scenarios" / "supplied" / "authority.jsonl").read_text(encoding="utf-8")
    events = [json.loads(line) for line in log.splitlines() if line.strip()]
    return next(
        str(e["config_digest"])
        for e in events
        if e["event"] == "image_admitted" and e["runtime_key"] == GLM_RUNTIME_KEY
    )


def _expected_glm_serve_argv(rank: int) -> tuple[str, ...]:
    """GLM rank ``rank``'s whole serve argv, in the launcher's order, with GLM's own
    profile (0.85, 131072, 8 seqs, 8192 batched, fp8, prefix caching on, no Engram
    request) and parsers (glm45, no tokenizer mode)."""
    hosts = _group_b_hosts()
    size = str(len(hosts))
    serving = ("--host", "0.0.0.0", "--port", GLM_SERVE_PORT) if rank == 0 else ("--headless",)
    return (
        "serve", _glm_placement(),
        "--served-model-name", "glm",
        "--distributed-executor-backend", "mp",
        "--tensor-parallel-size", size,
        "--nnodes", size,
        "--node-rank", str(rank),
        "--master-addr", hosts[0]["rail_address"],  # srv1, node rank 0
        "--master-port", GLM_RENDEZVOUS_PORT,
        *serving,
        "--gpu-memory-utilization", format(Decimal("0.85"), "f"),
        "--max-model-len", "131072",
        "--max-num-seqs", "8",
        "--max-num-batched-tokens", "8192",
        "--kv-cache-dtype", "fp8",
        "--enable-prefix-caching",
        "--tool-call-parser", "glm45",
        "--enable-auto-tool-choice",
        "--reasoning-parser", "glm45",
    )  # fmt: skip


def _expected_glm_create_prefix(rank: int) -> tuple[str, ...]:
    """GLM rank ``rank``'s create argv up to its serve argv: glm-native-tp4 with 16g shm,
    its labels, the checkpoint read-only and nothing else mounted, that host's own rail
    env and no Engram env, the admitted GLM image."""
    host = _group_b_hosts()[rank]
    place = _glm_placement()
    return (
        "docker", "create",
        "--name", GLM_CONTAINER,
        "--network", "host",
        "--ipc", "host",
        "--gpus", "all",
        "--shm-size", "16g",
        "--label", "gunbc.arm=glm_group_b",
        "--label", f"gunbc.rank={rank}",
        "--mount", f"type=bind,source={place},target={place},readonly",
        "--env", f"VLLM_HOST_IP={host['rail_address']}",
        "--env", f"NCCL_SOCKET_IFNAME={host['rail_interface']}",
        "--env", f"GLOO_SOCKET_IFNAME={host['rail_interface']}",
        "--entrypoint", "vllm",
        _admitted_glm_digest(),
    )  # fmt: skip


def _expected_glm_unit(rank: int) -> list[tuple[str, list[tuple[str, str]]]]:
    unit = GLM_HEAD_UNIT if rank == 0 else GLM_RANK_UNIT
    role = "head (node rank 0)" if rank == 0 else "follower"
    docker = "/usr/bin/docker"
    return [
        (
            "Unit",
            [
                ("Description", f"GLM native serving arm (Group B): {role}"),
                ("Requires", "docker.service"),
                ("After", "docker.service network-online.target"),
                ("Wants", "network-online.target"),
            ],
        ),
        (
            "Service",
            [
                ("Type", "simple"),
                ("ExecStart", f"{docker} start --attach {GLM_CONTAINER}"),
                ("ExecStop", f"{docker} stop --time 120 {GLM_CONTAINER}"),
                ("TimeoutStopSec", "150"),
                ("Restart", "no"),
                ("StandardOutput", f"append:/var/log/gunbc/{unit}.log"),
                ("StandardError", "inherit"),
            ],
        ),
        ("Install", [("WantedBy", "multi-user.target")]),
    ]


def _unit_sections(text: str) -> list[tuple[str, list[tuple[str, str]]]] | str:
    """The unit as systemd reads it: sections in order, each with its keys in order."""
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for line in text.splitlines():
        header = re.fullmatch(r"\[(\w+)\]", line)
        if header:
            sections.append((header.group(1), []))
        elif line and re.fullmatch(r"[A-Z]\w*=.*", line) and sections:
            key, value = line.split("=", 1)
            sections[-1][1].append((key, value))
        elif line:
            return f"not a unit line: {line!r}"
    return sections


def _first_difference(expected: tuple[str, ...], got: tuple[str, ...]) -> str | None:
    if expected == got:
        return None
    at = next(
        (i for i, (e, g) in enumerate(zip(expected, got, strict=False)) if e != g),
        min(len(expected), len(got)),
    )
    want = expected[at] if at < len(expected) else "<end>"
    found = got[at] if at < len(got) else "<end>"
    return f"at [{at}] expected {want!r}, got {found!r} (lengths {len(expected)}/{len(got)})"


def artifacts() -> dict[str, str]:
    """Group B's rendered bytes: units, create argvs, every apply stage's script, subject key."""
    run = _rendered()
    found: dict[str, str] = {"subject_key": GLM_GROUP_B_PROFILE.content_key()}
    for host in run.hosts:
        real = host.realization
        found[f"{real.host_name}/{real.unit_name}"] = real.unit_text
        found[f"{real.host_name}/create.argv"] = "\0".join(real.create_argv)
        for step in host.steps:
            found[f"{real.host_name}/{step.stage.value}.sh"] = step.script
    return found


@claim(ClaimKind.PLANNED_SHAPE)
def glm_keeps_its_own_names_on_four_hosts() -> Verdict:
    """Four Group B hosts run glm-native-tp4 under glm-native units; nothing names V4.1."""
    problems: list[str] = []
    for host in _rendered().hosts:
        real = host.realization
        text = " ".join(real.create_argv) + real.unit_text + "".join(s.script for s in host.steps)
        if real.container_name != GLM_NAMES[0] or real.unit_name not in GLM_NAMES[1:]:
            problems.append(f"{real.host_name}: {real.container_name}, {real.unit_name}")
        if "v41" in text:
            problems.append(f"{real.host_name}: names v41")
    hosts = [h.realization.host_name for h in _rendered().hosts]
    if problems or hosts != ["srv1", "srv2", "srv3", "srv4"]:
        return fails(f"hosts {hosts}; " + "; ".join(problems))
    return holds(f"srv1-4 × {GLM_NAMES[0]}, head unit {GLM_NAMES[1]}")


@claim(ClaimKind.PLANNED_SHAPE)
def glm_parsers_render_and_no_tokenizer_flag() -> Verdict:
    """GLM's glm45 tool and reasoning parsers render; no --tokenizer-mode flag at all."""
    launch = _rendered().launch
    assert launch is not None
    seen = {
        (
            a[a.index("--tool-call-parser") + 1],
            a[a.index("--reasoning-parser") + 1],
            "--tokenizer-mode" in a,
        )
        for a in (r.serve_argv for r in launch.ranks)
    }
    return expect_equal({("glm45", "glm45", False)}, seen, "(tool, reasoning, tokenizer flag)")


@claim(ClaimKind.PLANNED_SHAPE)
def glm_carries_no_engram_request() -> Verdict:
    """No GLM rank carries an --engram-config flag or Engram env."""
    launch = _rendered().launch
    assert launch is not None
    leaked = [
        a
        for r in launch.ranks
        for a in (*r.serve_argv, *(k for k, _ in r.env))
        if "engram" in a.lower()
    ]
    return expect(not leaked, "no Engram flag or env on 4 ranks", f"Engram leaked: {leaked}")


@claim(ClaimKind.PLANNED_SHAPE)
def glm_subject_key_is_unchanged_by_the_engram_field() -> Verdict:
    """GLM's subject key equals the key of its profile computed without the Engram field."""
    before = _key_as_before_the_engram_field(GLM_GROUP_B_PROFILE)
    return expect_equal(before, GLM_GROUP_B_PROFILE.content_key(), "GLM subject key")


@claim(ClaimKind.PLANNED_SHAPE)
def an_explicit_engram_request_enters_the_key() -> Verdict:
    """The same profile with an Engram request set has a different content key."""
    with_engram = GLM_GROUP_B_PROFILE.model_copy(update={"engram": V41_ENGRAM_REQUEST})
    differs = with_engram.content_key() != GLM_GROUP_B_PROFILE.content_key()
    return expect(
        differs,
        "setting the Engram request changes the key",
        "an explicit Engram request left the key unchanged",
    )


@claim(ClaimKind.PLANNED_SHAPE)
def glm_followers_are_headless_behind_srv1() -> Verdict:
    """Rank 0 (srv1) serves; ranks 1-3 are --headless and rendezvous at srv1's rail address."""
    launch = _rendered().launch
    assert launch is not None
    head_addr = launch.ranks[0].host.rail_address
    shape = [
        ("--headless" in r.serve_argv, r.serve_argv[r.serve_argv.index("--master-addr") + 1])
        for r in launch.ranks
    ]
    expected = [(False, head_addr)] + [(True, head_addr)] * 3
    return expect_equal(expected, shape, "(headless, master addr) per rank")


@claim(ClaimKind.PLANNED_SHAPE)
def glm_enables_prefix_caching() -> Verdict:
    """GLM's profile keeps prefix caching on: every rank says --enable-prefix-caching."""
    launch = _rendered().launch
    assert launch is not None
    on = [
        ("--enable-prefix-caching" in r.serve_argv, "--no-enable-prefix-caching" in r.serve_argv)
        for r in launch.ranks
    ]
    return expect_equal([(True, False)] * 4, on, "(enable, no-enable) per rank")


@claim(ClaimKind.POSITIVE_CONTROL)
def glm_supplied_admits() -> Verdict:
    """Group B suspended for exactly the GLM candidate, image and hosts right: admitted."""
    run = glm_dry_run()
    return expect(run.admitted, f"admitted {run.candidate.key}", f"refused: {refusal_codes(run)}")


@claim(ClaimKind.PLANNED_SHAPE)
def glm_every_rank_serve_argv_is_planned_whole() -> Verdict:
    """Ranks 0-3 run on srv1-4 in inventory order, and each rank's serve argv is exactly
    GLM's: its checkpoint served as glm, rendezvous at srv1's rail address on 29500, the
    head on port 8100 and every follower --headless, GLM's profile and glm45 parsers."""
    launch = _rendered().launch
    assert launch is not None
    hosts = [h["name"] for h in _group_b_hosts()]
    problems = [
        f"rank {r.rank} on {r.host.name}: {diff}"
        for r in launch.ranks
        if (diff := _first_difference(_expected_glm_serve_argv(r.rank), r.serve_argv))
    ]
    placed = [(r.rank, r.host.name) for r in launch.ranks]
    if placed != list(enumerate(hosts)):
        problems.append(f"(rank, host) {placed}, inventory order {hosts}")
    return expect(not problems, f"4 GLM ranks on {hosts}, each argv whole", "; ".join(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def glm_every_host_create_argv_is_planned_whole() -> Verdict:
    """Each Group B host's create argv is exactly glm-native-tp4 with 16g shm, its
    glm_group_b and rank labels, only the checkpoint mounted read-only, that host's own
    rail env, the image the log admitted for gunbc-glm-native, then that rank's serve argv."""
    run = _rendered()
    assert run.launch is not None
    hosts = [h["name"] for h in _group_b_hosts()]
    problems = []
    for rank, host in enumerate(run.hosts):
        real = host.realization
        want = _expected_glm_create_prefix(rank) + run.launch.ranks[rank].serve_argv
        if (real.rank, real.host_name) != (rank, hosts[rank]):
            problems.append(f"host {rank} is rank {real.rank} on {real.host_name}")
        if diff := _first_difference(want, real.create_argv):
            problems.append(f"{real.host_name}: {diff}")
    if len(run.hosts) != len(hosts):
        problems.append(f"{len(run.hosts)} hosts rendered, {len(hosts)} in the group")
    return expect(not problems, "4 GLM create argvs whole", "; ".join(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def glm_every_unit_is_planned_whole() -> Verdict:
    """srv1 runs glm-native-head.service and srv2-4 glm-native-rank.service, each logging
    to /var/log/gunbc/<unit>.log, with GLM's description and its role, ExecStart attaching
    glm-native-tp4, ExecStop with the 120 s grace, Restart=no."""
    problems = []
    for rank, host in enumerate(_rendered().hosts):
        real = host.realization
        stem = GLM_HEAD_UNIT if rank == 0 else GLM_RANK_UNIT
        named = (real.container_name, real.unit_name, real.log_path)
        want = (GLM_CONTAINER, f"{stem}.service", f"/var/log/gunbc/{stem}.log")
        if named != want:
            problems.append(f"{real.host_name}: (container, unit, log) {named} != {want}")
        parsed = _unit_sections(real.unit_text)
        if parsed != _expected_glm_unit(rank):
            problems.append(f"{real.host_name}: unit {parsed}")
    return expect(not problems, "4 GLM units whole", "; ".join(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def glm_front_doors_are_its_own() -> Verdict:
    """Every GLM step of a host is that host's: srv1's front door is /health at its rail
    address on port 8100, each follower's is its glm-native-rank unit being active, and
    each names its own rank's log."""
    hosts = _group_b_hosts()
    got, want = [], []
    for rank, host in enumerate(_rendered().hosts):
        got.append([(s.stage.value, s.rank, s.host_name, s.front_door) for s in host.steps])
        stem = GLM_HEAD_UNIT if rank == 0 else GLM_RANK_UNIT
        url = f"http://{hosts[0]['rail_address']}:{GLM_SERVE_PORT}/health"
        check = (
            ("curl", "-fsS", "--max-time", "5", url)
            if rank == 0
            else ("systemctl", "is-active", "--quiet", f"{stem}.service")
        )
        door = (check, f"/var/log/gunbc/{stem}.log")
        want.append([(stage.value, rank, hosts[rank]["name"], door) for stage in Stage])
    found = [[(a, b, c, (d.check, d.log_path)) for a, b, c, d in steps] for steps in got]
    pairs = enumerate(zip(want, found, strict=False))
    wrong = [f"{hosts[i]['name']}: {f}" for i, (w, f) in pairs if w != f]
    if len(found) != len(want):
        wrong.append(f"{len(found)} hosts rendered, {len(want)} in Group B")
    summary = "srv1 /health on 8100, srv2-4 their rank unit, each its own log"
    return expect(not wrong, summary, "; ".join(wrong))


@claim(ClaimKind.PLANNED_SHAPE)
def the_engram_request_enters_the_key_by_its_content() -> Verdict:
    """A profile's key is the digest of all its fields with the Engram request under
    "engram" when set: V4.1's measurement profile's key is that, and two requests that
    differ in one field give two keys."""
    minted = ServingLaunchProfile(
        gpu_memory_utilization_bp=8000,
        max_model_len=262144,
        max_num_seqs=16,
        max_num_batched_tokens=8192,
        kv_cache_dtype="fp8_ds_mla",
        prefix_caching=False,
        engram=VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=False),
    )
    body = minted.model_dump(exclude={"engram"})
    body["engram"] = {"cpu_offload": True, "dp_shared_memory": False}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    recipe = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    other = VllmEngramConfigRequest(cpu_offload=True, dp_shared_memory=True)
    shared = minted.model_copy(update={"engram": other})
    got = (minted.content_key(), shared.content_key() != minted.content_key())
    return expect_equal((recipe, True), got, "(V4.1 key, a changed request changes it)")


GIB = 1024**3


def _glm_weight_gib() -> int:
    """GLM's weights from its manifest: the bytes of every file whose role is weights,
    rounded up to whole GiB once (DESIGN: one byte count, rounded once)."""
    files = _json(GLM_MANIFEST_FILE)["files"]
    weights = sum(int(f["bytes"]) for f in files if f["role"] == "weights")
    return -(-weights // GIB)


def _glm_door(rank: int) -> tuple[tuple[str, ...], str]:
    """A GLM step's front door and log: srv1 answers /health on 8100, a follower's
    glm-native-rank unit is active; each rank's own log."""
    stem = GLM_HEAD_UNIT if rank == 0 else GLM_RANK_UNIT
    url = f"http://{_group_b_hosts()[0]['rail_address']}:{GLM_SERVE_PORT}/health"
    check = (
        ("curl", "-fsS", "--max-time", "5", url)
        if rank == 0
        else ("systemctl", "is-active", "--quiet", f"{stem}.service")
    )
    return check, f"/var/log/gunbc/{stem}.log"


@claim(ClaimKind.PLANNED_SHAPE)
def glm_apply_order_is_every_stage_head_first_on_group_b() -> Verdict:
    """GLM's apply order is every stage in turn (preflight, preserve, apply, readback, front
    door, commit, rollback, cleanup), each on srv1 (node rank 0) first and then srv2-4, each
    step invoked as ``bash STAGE.sh glm-native-tp4`` with its rank's front door and log; and
    each host's rendered steps are exactly the apply order's steps of its rank, in order."""
    run = _rendered()
    hosts = _group_b_hosts()
    want = [
        (
            stage.value,
            rank,
            hosts[rank]["name"],
            ("bash", f"{stage.value}.sh", GLM_CONTAINER),
            *_glm_door(rank),
        )
        for stage in Stage
        for rank in range(len(hosts))
    ]
    got = [
        (
            s.stage.value,
            s.rank,
            s.host_name,
            s.invocation,
            s.front_door.check,
            s.front_door.log_path,
        )
        for s in run.apply_order
    ]
    problems = []
    if got != want:
        at = next((i for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g), None)
        where = f"step {at}: {got[at]}" if at is not None else f"{len(got)} steps"
        problems.append(f"apply order differs at {where}")
    for rank, host in enumerate(run.hosts):
        own = tuple(s for s in run.apply_order if s.rank == rank)
        if host.steps != own:
            problems.append(f"{hosts[rank]['name']}: its steps are not the order's rank {rank}")
    return expect(
        not problems, f"{len(want)} steps, stage by stage, srv1 first", "; ".join(problems)
    )


@claim(ClaimKind.PLANNED_SHAPE)
def glm_is_fitted_on_its_manifest_weights_and_group_b_pool() -> Verdict:
    """GLM's row is its manifest's model and revision, weighing its weight files rounded up
    to GiB once, decoded by glm45 with no tokenizer mode and keeping nothing resident beyond
    its weights; its call names Group B as the inventory lists it; its candidate is
    glm_group_b with that checkpoint and the gunbc-glm-native runtime; and the dry run's fit
    is that weight, no allowance, Group B's whole pool (the sum of its hosts' memory) over
    its four ranks."""
    raw = _json(GLM_MANIFEST_FILE)
    hosts = _group_b_hosts()
    fabric = _json(DATA_ROOT / "fabric.json")
    group = next(g for g in fabric["groups"] if g["name"] == "group_b")
    reference = f"{raw['model']}@{raw['revision']}"
    call = glm_call()
    row = call.row
    got: dict[str, Any] = {
        "row": (row.model, row.revision, row.weight_gib, row.placement),
        "parsers": (row.parsers.tool_call, row.parsers.reasoning, row.parsers.tokenizer_mode),
        "beyond weights": row.resident_beyond_weights.kind,
        "group": (
            call.group.name,
            call.group.subject,
            [h.model_dump() for h in call.group.hosts],
        ),
    }
    want: dict[str, Any] = {
        "row": (raw["model"], raw["revision"], _glm_weight_gib(), _glm_placement()),
        "parsers": ("glm45", "glm45", None),
        "beyond weights": "nothing",
        "group": ("group_b", group["subject"], hosts),
    }
    run = _rendered()
    fit = run.fit
    got["candidate"] = (run.candidate.arm, run.candidate.checkpoint, run.candidate.runtime_key)
    want["candidate"] = ("glm_group_b", reference, GLM_RUNTIME_KEY)
    got["fit"] = None if fit is None else fit.model_dump()
    want["fit"] = {
        "pool_gib": sum(h["memory_gib"] for h in hosts),
        "weights_gib": _glm_weight_gib(),
        "allowance_gib": 0,
        "ranks": len(hosts),
    }
    wrong = [f"{k}: {got[k]} != {want[k]}" for k in want if got[k] != want[k]]
    summary = (
        f"{reference}: {want['fit']['weights_gib']} GiB on a {want['fit']['pool_gib']} GiB pool"
    )
    return expect(not wrong, summary, "; ".join(wrong))


@claim(ClaimKind.PLANNED_SHAPE)
def glm_every_rank_runs_on_its_inventory_host_with_its_rail_env() -> Verdict:
    """GLM's node rank i runs on Group B's i-th host exactly as the inventory lists it (name,
    memory, rail address and interface), with the env VLLM_HOST_IP=its rail address, then
    NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME=its rail interface, and nothing else."""
    launch = _rendered().launch
    assert launch is not None
    hosts = _group_b_hosts()
    want = [
        (
            rank,
            host,
            [
                ("VLLM_HOST_IP", host["rail_address"]),
                ("NCCL_SOCKET_IFNAME", host["rail_interface"]),
                ("GLOO_SOCKET_IFNAME", host["rail_interface"]),
            ],
        )
        for rank, host in enumerate(hosts)
    ]
    got = [(r.rank, r.host.model_dump(), [tuple(p) for p in r.env]) for r in launch.ranks]
    wrong = [f"rank {w[0]}: {g}" for w, g in zip(want, got, strict=False) if w != g]
    if len(got) != len(want):
        wrong.append(f"{len(got)} ranks for {len(want)} hosts")
    return expect(not wrong, "4 ranks on srv1-4, each with its own rail env", "; ".join(wrong))


HEREDOC_END = "GUNBC_UNIT_TEXT"


def _landed_unit(script: str) -> str | None:
    """The unit text an apply script writes to ``$unit_path.landing`` (its heredoc body)."""
    lines = script.splitlines()
    start = f"cat > \"$unit_path.landing\" <<'{HEREDOC_END}'"
    if start not in lines or HEREDOC_END not in lines:
        return None
    begin = lines.index(start) + 1
    return "\n".join(lines[begin : lines.index(HEREDOC_END, begin)]) + "\n"


@claim(ClaimKind.PLANNED_SHAPE)
def glm_apply_lands_each_hosts_whole_unit() -> Verdict:
    """Each GLM host's apply script lands exactly GLM's unit for its rank (every section and
    key in order: the role, docker ordering, attach/stop with the 120 s grace, no restart,
    the rank's own log) as the file it moves into place."""
    problems = []
    for rank, host in enumerate(_rendered().hosts):
        apply = next((s for s in host.steps if s.stage is Stage.APPLY), None)
        landed = _landed_unit(apply.script) if apply is not None else None
        if landed is None:
            problems.append(f"rank {rank}: no unit landed")
            continue
        parsed = _unit_sections(landed)
        if parsed != _expected_glm_unit(rank):
            problems.append(f"rank {rank}: lands {parsed}")
    return expect(not problems, "4 apply scripts land GLM's whole unit", "; ".join(problems))
