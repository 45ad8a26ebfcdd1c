"""Witness: the V4.1 TP4 launch on Group A, planned through the shared mp launcher.

Shape claims plan with every frontier input supplied at the plan's interface (the
``supplied`` scenario); each refusal claim runs its own scenario and asserts the exact
refusal code and location; the pairing obligation runs the ``live`` inputs.
"""

from __future__ import annotations

import json
import re
import shlex
from datetime import datetime
from decimal import Decimal
from typing import Any

from claims import ClaimKind, Verdict, claim, expect, expect_equal, fails, holds
from fixtures.builders import (
    DATA_ROOT,
    authority_state,
    inventory,
    refusal_codes,
    rendered,
    v41_dry_run,
    v41_inputs,
    v41_manifest,
)
from planner.apply import ApplyStep, Stage
from planner.arm_launch import DryRun
from planner.arms.v41_group_a import (
    V41_ENGRAM_PLACEMENT,
    V41_FRONTIERS,
    v41_group_a_call,
    v41_group_a_launch_dry_run,
)
from planner.checkpoint import (
    load_manifest,
    local_checkpoint_directory,
)
from planner.engram import MkdirStep, TypedFileWrite
from planner.profile import VllmEngramConfigRequest
from planner.refusal import PlannerInputError
from planner.report import render_report
from witnesses.support import (
    CHECKPOINT_ROOT,
    GIB,
    group_hosts,
    manifest_weight_gib,
    read_json,
    scenario_raw,
    value_after,
)


def _supplied() -> DryRun:
    return rendered(v41_dry_run("supplied"), "the supplied inputs")


def _serve_argvs() -> tuple[tuple[str, ...], ...]:
    launch = _supplied().launch
    assert launch is not None
    return tuple(rank.serve_argv for rank in launch.ranks)


def _at(moment: str) -> datetime:
    return datetime.fromisoformat(moment)


def _temps_left_behind(steps: tuple[ApplyStep, ...]) -> list[str]:
    """Temp files (``*.landing``) a stage writes that the cleanup stage does not remove."""
    written = {t for s in steps for t in re.findall(r'> "(\$\w+\.landing)"', s.script)}
    cleanup = "".join(s.script for s in steps if s.stage is Stage.CLEANUP)
    removed = set(re.findall(r'rm -f "(\$\w+\.landing)"', cleanup))
    return sorted(written - removed) if written else ["no landing temp file found to check"]


def artifacts() -> dict[str, str]:
    """V4.1's rendered bytes, for ``claims identity v41_group_a_launch --base REV``: under the
    supplied inputs each host's unit, create argv, Engram staging steps and every apply
    stage's script; and the whole report of the supplied and the live dry run."""
    run = _supplied()
    found = {
        "report/supplied": render_report(run),
        "report/live": render_report(v41_dry_run("live")),
    }
    for host in run.hosts:
        real = host.realization
        found[f"{real.host_name}/{real.unit_name}"] = real.unit_text
        found[f"{real.host_name}/create.argv"] = "\0".join(real.create_argv)
        staged = [step.model_dump(mode="json") for step in host.staging]
        found[f"{real.host_name}/staging.json"] = json.dumps(staged, sort_keys=True)
        for step in host.steps:
            found[f"{real.host_name}/{step.stage.value}.sh"] = step.script
    return found


# --- expected values, built from the inputs and the specification -------------------------

V41_MANIFEST_FILE = DATA_ROOT / "checkpoints" / "deepseek-v41-flash-dba1be0a.manifest.json"


def _decimal(bp: int) -> str:
    """Basis points as the decimal vLLM reads (8000 → 0.8)."""
    return format((Decimal(bp) / 10000).normalize(), "f")


def _refused_exactly(scenario: str, code: str, where: str) -> Verdict:
    found = refusal_codes(v41_dry_run(scenario))
    return expect(
        found == ((code, where),),
        evidence=f"{scenario}: {found}",
        reason=f"{scenario}: expected exactly {code} at {where}, got {found}",
    )


# --- planned shape ---------------------------------------------------------------


@claim(ClaimKind.PLANNED_SHAPE)
def engram_request_renders_both_dotted_flags() -> Verdict:
    """Every rank carries --engram-config.cpu_offload true and .dp_shared_memory false."""
    pairs = {
        (
            value_after(a, "--engram-config.cpu_offload"),
            value_after(a, "--engram-config.dp_shared_memory"),
        )
        for a in _serve_argvs()
    }
    return expect_equal({("true", "false")}, pairs, "(cpu_offload, dp_shared_memory)")


# --- the allowance pair ----------------------------------------------------------------


@claim(ClaimKind.REFUSAL)
def low_utilization_refuses_naming_the_declared_allowance() -> Verdict:
    """At 0.50 utilization the fit wall refuses and its message states the arithmetic:
    the declared allowance (242 GiB), weights plus allowance times 5/4 rounded up to whole
    GiB, the pool, and the shortfall."""
    bp = scenario_raw("low_utilization", "inputs.json")["launch_shape"]["gpu_memory_utilization_bp"]
    pool = sum(h["memory_gib"] for h in group_hosts("group_a"))  # 4 × 121
    weights = manifest_weight_gib(read_json(V41_MANIFEST_FILE))
    allowance = -(-pool * GIB * (10000 - bp) // (10000 * GIB))  # pool share outside engine
    required = -(-(weights + allowance) * 5 // 4)
    message = (
        f"declared allowance {allowance} GiB at utilization {_decimal(bp)}: "
        f"({weights} weights + {allowance} allowance) x 5/4 = {required} GiB vs pool "
        f"{pool} GiB: does not fit by {required - pool} GiB"
    )
    if allowance != 242:
        return fails(f"the spec's allowance at 0.50 is 242 GiB; the inputs give {allowance}")
    found = [(r.code, r.where, r.message) for r in v41_dry_run("low_utilization").refusals]
    return expect_equal([("fit.exceeds_pool", "plan.fit", message)], found, "refusals")


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
    """An image with no registry reading is refused, and only that: located at the
    missing reading, saying no registry reading exists for that image's digest, and
    telling the operator to take the reading inside the produced image."""
    raw = scenario_raw("unprobed_image", "inputs.json")
    digest = raw["produced_image"]["artifact"]["config_digest"]
    got = [(r.code, r.where, r.message, r.hint) for r in v41_dry_run("unprobed_image").refusals]
    want = [
        (
            "runtime.unprobed_image",
            "inputs.produced_image.registry_reading",
            f"no registry reading exists for image {digest}",
            "take the registry reading inside the produced image before planning",
        )
    ]
    return expect_equal(want, got, "(code, where, message, hint)")


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


# --- the row, the Engram request, the inputs ----------------------------------------------


@claim(ClaimKind.REFUSAL)
def a_checkpoint_is_placed_only_from_org_name_and_plain_revision() -> Verdict:
    """``org/name`` at an alphanumeric revision is placed at <root>/org--name/revision;
    a model without an org, without a name or with a deeper path, or a revision with a
    separator, is refused naming both."""
    cases = (
        ("deepseek-ai/DeepSeek-V4.1-Flash", "dba1be0a"),
        ("a/b/c", "r1"),
        ("/name", "r1"),
        ("org/", "r1"),
        ("noslash", "r1"),
        ("org/name", "dba1-be0a"),
    )
    good = f"{CHECKPOINT_ROOT}/deepseek-ai--DeepSeek-V4.1-Flash/dba1be0a"
    want = [good] + [f"cannot place model {m!r} at revision {r!r}" for m, r in cases[1:]]
    got = []
    for model, revision in cases:
        try:
            got.append(local_checkpoint_directory(model, revision))
        except ValueError as exc:
            got.append(str(exc))
    return expect_equal(want, got, "placement or refusal per (model, revision)")


@claim(ClaimKind.REFUSAL)
def an_unreadable_manifest_is_named_as_a_manifest() -> Verdict:
    """A checkpoint manifest that cannot be read is an input error naming the file,
    <file>, and that it could not read a manifest."""
    missing = DATA_ROOT / "checkpoints" / "absent.manifest.json"
    try:
        load_manifest(missing)
    except PlannerInputError as exc:
        got = (exc.source, exc.where, exc.message.split(":", 1)[0])
        return expect_equal((str(missing), "<file>", "cannot read manifest"), got, "error")
    return fails(f"{missing} loaded without an error")


@claim(ClaimKind.PLANNED_SHAPE)
def the_engram_request_renders_each_field_as_its_own_word() -> Verdict:
    """Each Engram request field renders as its own true/false word in dotted form."""
    got = [
        VllmEngramConfigRequest(cpu_offload=c, dp_shared_memory=d).flags()
        for c in (True, False)
        for d in (True, False)
    ]
    want = [
        ("--engram-config.cpu_offload", c, "--engram-config.dp_shared_memory", d)
        for c in ("true", "false")
        for d in ("true", "false")
    ]
    return expect_equal(want, got, "flags per (cpu_offload, dp_shared_memory)")


@claim(ClaimKind.PAIRING_OBLIGATION)
def without_the_engram_manifest_nothing_renders() -> Verdict:
    """Every input supplied but #12359's Engram manifest: nothing is rendered, and the one
    refusal is that obligation."""
    inputs = v41_inputs("supplied").model_copy(update={"engram_manifest": None})
    run = v41_group_a_launch_dry_run(
        inventory(), v41_manifest(), inputs, authority_state("supplied")
    )
    got = (run.launch is None, len(run.hosts), refusal_codes(run))
    want = (True, 0, (("frontier.engram_manifest", "inputs.engram_manifest"),))
    return expect_equal(want, got, "(not rendered, hosts, refusals)")


@claim(ClaimKind.REFUSAL)
def an_engram_manifest_error_names_the_file_it_came_from() -> Verdict:
    """An Engram manifest naming a row store outside the row-store directory is an input
    error located at that store's path in the inputs file the caller named, or in
    "inputs" when the caller named none."""
    text = json.dumps({"row_stores": [{"path": "/etc/passwd"}]})
    inputs = v41_inputs("supplied").model_copy(update={"engram_manifest": text})
    named = "scenarios/supplied/inputs.json"
    got = []
    for source in (None, named):
        try:
            args = (inventory(), v41_manifest(), inputs, authority_state("supplied"))
            if source is None:
                v41_group_a_launch_dry_run(*args)
            else:
                v41_group_a_launch_dry_run(*args, source=source)
            got.append(("planned", ""))
        except PlannerInputError as exc:
            got.append((exc.source, exc.where))
    try:
        v41_group_a_call(inventory(), v41_manifest(), inputs)
        got.append(("planned", ""))
    except PlannerInputError as exc:
        got.append((exc.source, exc.where))
    where = "engram_manifest.row_stores[0].path"
    want = [("inputs", where), (named, where), ("inputs", where)]
    return expect_equal(want, got, "(source, where): dry run unnamed, named; call unnamed")


# --- the apply order, each rank's host and env, staging, the candidate, the obligations ----

V41_RUNTIME_KEY = "gunbc-deepseek-v41-engram-produced"
"""#12353's produced runtime: the key the image is admitted for."""


@claim(ClaimKind.PLANNED_SHAPE)
def the_candidate_is_this_arm_its_checkpoint_and_runtime() -> Verdict:
    """The candidate the admission asks for is v41_group_a, the manifest's model at its
    revision, and #12353's runtime key — for the supplied plan and for the live one that
    does not render."""
    raw = read_json(V41_MANIFEST_FILE)
    want = ("v41_group_a", f"{raw['model']}@{raw['revision']}", V41_RUNTIME_KEY)
    got = [
        (c.arm, c.checkpoint, c.runtime_key)
        for c in (v41_dry_run(name).candidate for name in ("supplied", "live"))
    ]
    return expect_equal([want, want], got, "(arm, checkpoint, runtime key), supplied and live")


def _obligation(frontier_id: str) -> tuple[str, tuple[str, ...], str, str]:
    """A declared frontier's refusal as the user reads it: its code, the input it blocks,
    who owns it and what happens today, and when it is consumed."""
    f = next(f for f in V41_FRONTIERS if f.id == frontier_id)
    assert f.blocks_input is not None
    return (
        f"frontier.{f.id}",
        ("inputs", f.blocks_input),
        f"obligation owned by #{f.owner_pr} ({f.owner}): {f.input} is not supplied; "
        f"today: {f.today}",
        f"consumed when {f.trigger}",
    )


@claim(ClaimKind.PAIRING_OBLIGATION)
def each_open_frontier_refuses_naming_its_owner_and_trigger() -> Verdict:
    """With nothing supplied (the live inputs), the plan's refusals are the three open input
    frontiers in declaration order — produced image (#12353), launch shape (#12371), Engram
    manifest (#12359) — each located at its input, naming its owner and what happens today,
    with "consumed when #PR merges" as its hint; then the wall's unknown allowance."""
    live = v41_dry_run("live")
    want = [
        _obligation("produced_image"),
        _obligation("launch_shape"),
        _obligation("engram_manifest"),
        ("fit.allowance_unknown", ("plan", "profile")),
    ]
    got: list[tuple[Any, ...]] = [
        (r.code, r.location, r.message, r.hint) for r in live.plan_refusals[:3]
    ]
    got += [(r.code, r.location) for r in live.plan_refusals[3:]]
    return expect_equal(want, got, "the live plan's refusals")
