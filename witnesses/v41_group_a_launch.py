"""Witness: the V4.1 TP4 launch on Group A, planned through the shared mp launcher.

Shape claims plan with every frontier input supplied at the plan's interface (the
``supplied`` scenario); each refusal claim runs its own scenario and asserts the exact
refusal code and location; the pairing obligation runs the ``live`` inputs.
"""

from __future__ import annotations

import re
import shlex
from datetime import datetime

from claims import ClaimKind, Verdict, claim, expect, expect_equal, fails, holds
from fixtures.builders import refusal_codes, v41_call, v41_dry_run, v41_inputs
from planner.apply import ApplyStep, Stage
from planner.arm_launch import DryRun
from planner.engram import (
    MANIFEST_ENV,
    RECEIPT_ENV,
    V41_ENGRAM_PLACEMENT,
    MkdirStep,
    TypedFileWrite,
)
from planner.frontiers import V41_FRONTIERS

V41_NAME = "gunbc-v41-tp4"
FOREIGN_NAMES = ("gunbc-spark-pair", "glm-native")


def _supplied() -> DryRun:
    run = v41_dry_run("supplied")
    if run.launch is None:
        raise AssertionError(f"supplied inputs did not render: {refusal_codes(run)}")
    return run


def _serve_argvs() -> tuple[tuple[str, ...], ...]:
    launch = _supplied().launch
    assert launch is not None
    return tuple(rank.serve_argv for rank in launch.ranks)


def _value_after(argv: tuple[str, ...], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def _at(moment: str) -> datetime:
    return datetime.fromisoformat(moment)


def _temps_left_behind(steps: tuple[ApplyStep, ...]) -> list[str]:
    """Temp files (``*.landing``) a stage writes that the cleanup stage does not remove."""
    written = {t for s in steps for t in re.findall(r'> "(\$\w+\.landing)"', s.script)}
    cleanup = "".join(s.script for s in steps if s.stage is Stage.CLEANUP)
    removed = set(re.findall(r'rm -f "(\$\w+\.landing)"', cleanup))
    return sorted(written - removed) if written else ["no landing temp file found to check"]


def _refused_exactly(scenario: str, code: str, where: str) -> Verdict:
    found = refusal_codes(v41_dry_run(scenario))
    return expect(
        found == ((code, where),),
        evidence=f"{scenario}: {found}",
        reason=f"{scenario}: expected exactly {code} at {where}, got {found}",
    )


# --- planned shape ---------------------------------------------------------------


@claim(ClaimKind.PLANNED_SHAPE)
def four_mp_ranks_rank_zero_serves_three_headless() -> Verdict:
    """Four mp ranks: rank 0 serves on the route's port, ranks 1-3 run --headless."""
    argvs = _serve_argvs()
    shape = [
        (
            _value_after(a, "--distributed-executor-backend"),
            _value_after(a, "--node-rank"),
            _value_after(a, "--port"),
            "--headless" in a,
        )
        for a in argvs
    ]
    expected = [("mp", "0", "8000", False)] + [("mp", str(r), None, True) for r in (1, 2, 3)]
    return expect_equal(expected, shape, "(backend, node rank, port, headless) per rank")


@claim(ClaimKind.PLANNED_SHAPE)
def kv_cache_dtype_is_fp8_ds_mla() -> Verdict:
    """Every rank is told --kv-cache-dtype fp8_ds_mla."""
    dtypes = {_value_after(a, "--kv-cache-dtype") for a in _serve_argvs()}
    return expect_equal({"fp8_ds_mla"}, dtypes, "kv-cache dtypes across ranks")


@claim(ClaimKind.PLANNED_SHAPE)
def engram_request_renders_both_dotted_flags() -> Verdict:
    """Every rank carries --engram-config.cpu_offload true and .dp_shared_memory false."""
    pairs = {
        (
            _value_after(a, "--engram-config.cpu_offload"),
            _value_after(a, "--engram-config.dp_shared_memory"),
        )
        for a in _serve_argvs()
    }
    return expect_equal({("true", "false")}, pairs, "(cpu_offload, dp_shared_memory)")


@claim(ClaimKind.PLANNED_SHAPE)
def one_serve_covers_the_staircase() -> Verdict:
    """Max model len is the measurement's 262144 and max num seqs the staircase's 16."""
    lengths = {
        (_value_after(a, "--max-model-len"), _value_after(a, "--max-num-seqs"))
        for a in _serve_argvs()
    }
    return expect_equal({("262144", "16")}, lengths, "(max-model-len, max-num-seqs)")


@claim(ClaimKind.PLANNED_SHAPE)
def recipe_parsers_and_tokenizer_mode_are_rendered() -> Verdict:
    """The recipe's deepseek_v41 tool and reasoning parsers and tokenizer mode are rendered."""
    flags = {
        tuple(
            _value_after(a, f)
            for f in ("--tool-call-parser", "--reasoning-parser", "--tokenizer-mode")
        )
        for a in _serve_argvs()
    }
    return expect_equal({("deepseek_v41",) * 3}, flags, "(tool, reasoning, tokenizer mode)")


@claim(ClaimKind.PLANNED_SHAPE)
def prefix_caching_is_explicitly_off() -> Verdict:
    """Every rank says --no-enable-prefix-caching, and none enables it."""
    argvs = _serve_argvs()
    off = all(
        "--no-enable-prefix-caching" in a and "--enable-prefix-caching" not in a for a in argvs
    )
    return expect(
        off,
        "--no-enable-prefix-caching on all 4 ranks",
        "prefix caching is not explicitly off on every rank",
    )


@claim(ClaimKind.PLANNED_SHAPE)
def image_is_the_produced_config_digest() -> Verdict:
    """Each host's create argv runs the produced image by its config digest."""
    produced = v41_inputs("supplied").produced_image
    digest = produced.artifact.config_digest if produced else None
    images = {_value_after(h.realization.create_argv, "vllm") for h in _supplied().hosts}
    return expect_equal({digest}, images, "image after --entrypoint vllm on every host")


@claim(ClaimKind.PLANNED_SHAPE)
def engram_env_and_mounts_under_v41_names_only() -> Verdict:
    """Engram env and three mounts are present under gunbc-v41-tp4; no foreign arm named."""
    problems: list[str] = []
    for host in _supplied().hosts:
        argv = host.realization.create_argv
        text = " ".join(argv) + host.realization.unit_text
        mounts = [argv[i + 1] for i, a in enumerate(argv) if a == "--mount"]
        engram = [m for m in mounts if "/engram" in m]
        envs = {argv[i + 1].split("=", 1)[0] for i, a in enumerate(argv) if a == "--env"}
        if _value_after(argv, "--name") != V41_NAME:
            problems.append(f"{host.realization.host_name}: name {_value_after(argv, '--name')}")
        if len(engram) != 3 or not {MANIFEST_ENV, RECEIPT_ENV} <= envs:
            problems.append(f"{host.realization.host_name}: engram mounts {engram}, env {envs}")
        problems += [f"{host.realization.host_name} names {n}" for n in FOREIGN_NAMES if n in text]
    if problems:
        return fails("; ".join(problems))
    return holds(f"4 hosts × {V41_NAME}: 3 Engram mounts, {MANIFEST_ENV}, {RECEIPT_ENV}")


@claim(ClaimKind.PLANNED_SHAPE)
def every_host_mounts_the_checkpoint_read_only() -> Verdict:
    """Every host mounts the checkpoint directory read-only at its own path."""
    run = _supplied()
    assert run.launch is not None
    place = v41_call("supplied").row.placement
    wanted = f"type=bind,source={place},target={place},readonly"
    mounted = [wanted in h.realization.create_argv for h in run.hosts]
    return expect_equal([True] * 4, mounted, f"{place} mounted read-only, per host")


@claim(ClaimKind.PLANNED_SHAPE)
def rank_zero_runs_the_head_unit_and_followers_the_rank_unit() -> Verdict:
    """srv5 (node rank 0) runs gunbc-v41-tp4-head.service; srv6-8 run the rank unit."""
    units = [(h.realization.host_name, h.realization.unit_name) for h in _supplied().hosts]
    head, rank = "gunbc-v41-tp4-head.service", "gunbc-v41-tp4-rank.service"
    expected = [("srv5", head), ("srv6", rank), ("srv7", rank), ("srv8", rank)]
    return expect_equal(expected, units, "(host, unit)")


@claim(ClaimKind.PLANNED_SHAPE)
def each_rank_uses_its_own_rail_address_and_interface() -> Verdict:
    """Each host's container gets VLLM_HOST_IP = its rail address and NCCL/Gloo on its rail."""
    run = _supplied()
    assert run.launch is not None
    wrong = []
    for rank in run.launch.ranks:
        env = dict(rank.env)
        mine = (rank.host.rail_address, rank.host.rail_interface, rank.host.rail_interface)
        got = (
            env.get("VLLM_HOST_IP"),
            env.get("NCCL_SOCKET_IFNAME"),
            env.get("GLOO_SOCKET_IFNAME"),
        )
        if got != mine:
            wrong.append(f"{rank.host.name}: {got} != {mine}")
    return expect(not wrong, "4 ranks on their own rail address and interface", "; ".join(wrong))


@claim(ClaimKind.PLANNED_SHAPE)
def containers_are_labelled_with_their_arm_and_rank() -> Verdict:
    """Each container carries gunbc.arm=v41_group_a and its gunbc.rank: the labels the
    preflight's occupancy check reads."""
    argvs = [h.realization.create_argv for h in _supplied().hosts]
    labels = [[argv[i + 1] for i, a in enumerate(argv) if a == "--label"] for argv in argvs]
    expected = [["gunbc.arm=v41_group_a", f"gunbc.rank={r}"] for r in range(4)]
    return expect_equal(expected, labels, "labels per host")


# --- the allowance pair ----------------------------------------------------------------


@claim(ClaimKind.REFUSAL)
def low_utilization_refuses_naming_the_declared_allowance() -> Verdict:
    """At 0.50 utilization the fit wall refuses and names the declared allowance (242 GiB)."""
    run = v41_dry_run("low_utilization")
    found = [(r.code, r.where, "declared allowance 242 GiB" in r.message) for r in run.refusals]
    return expect_equal(
        [("fit.exceeds_pool", "plan.fit", True)], found, "(code, location, names the allowance)"
    )


@claim(ClaimKind.REFUSAL)
def without_a_profile_the_wall_refuses() -> Verdict:
    """With no launch profile the wall refuses: the allowance is unknown, not zero."""
    found = refusal_codes(v41_dry_run("no_profile"))
    # The scenario also lacks #12371's launch shape, so its obligation is named too.
    wanted = (
        ("frontier.launch_shape", "inputs.launch_shape"),
        ("fit.allowance_unknown", "plan.profile"),
    )
    return expect_equal(wanted, found, "refusals without a profile")


# --- the six refusals --------------------------------------------------------------------


@claim(ClaimKind.REFUSAL)
def unprobed_image_is_refused_by_the_arm_wall() -> Verdict:
    """An image with no registry reading is refused: no registry reading exists."""
    run = v41_dry_run("unprobed_image")
    verdict = _refused_exactly(
        "unprobed_image", "runtime.unprobed_image", "inputs.produced_image.registry_reading"
    )
    if verdict.passed and "no registry reading exists" not in run.refusals[0].message:
        return fails(f"message does not say why: {run.refusals[0].message}")
    return verdict


@claim(ClaimKind.REFUSAL)
def active_incumbent_is_refused() -> Verdict:
    """Group A still Active with its incumbent refuses the launch."""
    return _refused_exactly(
        "active_incumbent", "admission.active_incumbent", "authority.groups.group_a"
    )


@claim(ClaimKind.REFUSAL)
def expired_lease_is_refused() -> Verdict:
    """A suspension whose lease expired before the read refuses the launch, and so does one
    read at the very instant it expires (a lease is live strictly before its expiry)."""
    where = (("admission.lease_expired", "authority.groups.group_a.lease_expires_at"),)
    before = refusal_codes(v41_dry_run("expired_lease"))
    at_expiry = refusal_codes(v41_dry_run("supplied", now=_at("2026-11-29T18:00:00+00:00")))
    return expect_equal((where, where), (before, at_expiry), "(expired before, at expiry)")


@claim(ClaimKind.REFUSAL)
def suspension_for_another_successor_is_refused() -> Verdict:
    """A suspension authorizing another successor refuses this candidate."""
    return _refused_exactly(
        "other_successor", "admission.other_successor", "authority.groups.group_a.candidate"
    )


@claim(ClaimKind.REFUSAL)
def image_admitted_for_another_runtime_is_refused() -> Verdict:
    """An image admitted only for another runtime key refuses the launch."""
    return _refused_exactly(
        "image_other_runtime",
        "admission.image_not_admitted",
        "authority.admitted_images.gunbc-deepseek-v41-engram-produced",
    )


@claim(ClaimKind.REFUSAL)
def host_not_held_by_the_subject_is_refused() -> Verdict:
    """A host the subject does not hold refuses the launch, located at that host: srv7 held
    by another subject, and srv8 released by Group A's."""
    other = refusal_codes(v41_dry_run("host_not_held"))
    released = refusal_codes(v41_dry_run("host_released"))
    code = "admission.host_not_held"
    wanted = (((code, "authority.holdings.srv7"),), ((code, "authority.holdings.srv8"),))
    return expect_equal(wanted, (other, released), "(held by another, released)")


@claim(ClaimKind.REFUSAL)
def the_log_is_read_at_its_time() -> Verdict:
    """Read before the suspension was logged, Group A is still Active: what happens after
    the read time has not happened."""
    found = refusal_codes(v41_dry_run("supplied", now=_at("2026-11-29T09:30:00+00:00")))
    wanted = (("admission.active_incumbent", "authority.groups.group_a"),)
    return expect_equal(wanted, found, "refusals read at 09:30")


# --- positive control and pairing obligation ---------------------------------------------


@claim(ClaimKind.POSITIVE_CONTROL)
def the_correct_suspension_admits() -> Verdict:
    """Suspended for exactly this candidate under a live lease, image and hosts right: admitted."""
    run = v41_dry_run("supplied")
    return expect(
        run.admitted,
        evidence=f"admitted {run.candidate.key}",
        reason=f"refused: {refusal_codes(run)}",
    )


@claim(ClaimKind.PAIRING_OBLIGATION)
def live_inputs_name_exactly_the_open_frontiers() -> Verdict:
    """The live inputs reach the planner, which names exactly the ledger's open input
    obligations, #12353, #12371 and #12359: no more, no fewer."""
    run = v41_dry_run("live")
    by_code = {f"frontier.{f.id}": f.owner_pr for f in V41_FRONTIERS}
    named = sorted(
        by_code[r.code]
        for r in run.refusals
        if r.code in by_code and f"#{by_code[r.code]}" in r.message
    )
    ledger = sorted(f.owner_pr for f in V41_FRONTIERS if f.blocks_input is not None)
    return expect(
        named == ledger == [12353, 12359, 12371],
        evidence=f"the live plan names {named}",
        reason=f"the live plan names {named}; the ledger's open inputs are {ledger}",
    )


# --- the dry run -------------------------------------------------------------------------


@claim(ClaimKind.PLANNED_SHAPE)
def dry_run_renders_every_host_artifact() -> Verdict:
    """Four hosts × (create, unit, staging, preflight, apply); the manifest is a modeled
    write-file step that no script writes, and every temp file a script lands is removed
    by cleanup."""
    run = _supplied()
    manifest = V41_ENGRAM_PLACEMENT.manifest_path
    problems: list[str] = []
    for host in run.hosts:
        name = host.realization.host_name
        stages = {s.stage.value for s in host.steps}
        kinds = [type(s).__name__ for s in host.staging]
        if not host.realization.create_argv[:2] == ("docker", "create"):
            problems.append(f"{name}: create argv {shlex.join(host.realization.create_argv[:2])}")
        if "[Service]" not in host.realization.unit_text:
            problems.append(f"{name}: no unit")
        if kinds != [MkdirStep.__name__, MkdirStep.__name__, TypedFileWrite.__name__]:
            problems.append(f"{name}: staging {kinds}")
        if not {"preflight", "apply"} <= stages:
            problems.append(f"{name}: stages {sorted(stages)}")
        if any(re.search(rf">\s*['\"]?{re.escape(manifest)}", s.script) for s in host.steps):
            problems.append(f"{name}: a stage script writes the Engram manifest itself")
        left = _temps_left_behind(host.steps)
        if left:
            problems.append(f"{name}: temp files cleanup leaves behind: {left}")
    if len(run.hosts) != 4 or problems:
        return fails(f"{len(run.hosts)} hosts; " + "; ".join(problems))
    return holds("4 hosts × create, unit, 3 staging steps (2 mkdir + sealed write), all stages")
