"""Pending witness: the SUFFICIENT FOR claim of each declared frontier.

Each claim states what must hold once its frontier's PR has landed and the obligation has
been consumed; while the PR is open it is red, by design. ``claims frontiers`` runs them:
green while open means the obligation is obsolete or the claim is hollow; red after the
obligation was consumed means the landing did not deliver. The live inputs are the
``live`` scenario, which tracks what main supplies today.
"""

from __future__ import annotations

from claims import ClaimKind, Verdict, claim, expect, expect_equal
from fixtures.builders import authority_state, refusal_codes, v41_call, v41_dry_run, v41_inputs
from planner.authority import SuspendedForAuthorizedSuccessor
from planner.engram import TypedFileWrite


@claim(ClaimKind.PAIRING_OBLIGATION)
def the_live_plan_runs_the_produced_image() -> Verdict:
    """#12353: the live inputs carry the produced image, read inside, and the plan runs it
    by its config digest."""
    produced = v41_inputs("live").produced_image
    run = v41_dry_run("live")
    digest = produced.artifact.config_digest if produced else None
    ran = {
        h.realization.create_argv[h.realization.create_argv.index("vllm") + 1] for h in run.hosts
    }
    ok = produced is not None and produced.registry_reading is not None and ran == {digest}
    why = f"live inputs supply no probed produced image (hosts run {ran or 'nothing'})"
    return expect(ok, f"live plan runs {digest}", why)


@claim(ClaimKind.PAIRING_OBLIGATION)
def the_live_profile_carries_the_measurement_axes() -> Verdict:
    """#12371: the live plan's minted profile has 8192 batched tokens, 8000 bp utilization
    and prefix caching explicitly off."""
    profile = v41_call("live").profile
    axes = None
    if profile is not None:
        axes = (
            profile.max_num_batched_tokens,
            profile.gpu_memory_utilization_bp,
            profile.prefix_caching,
        )
    return expect_equal((8192, 8000, False), axes, "live (batched tokens, utilization bp, prefix)")


@claim(ClaimKind.PAIRING_OBLIGATION)
def every_live_host_stages_the_manifest() -> Verdict:
    """#12359: with the live inputs every host stages the Engram manifest as a sealed write."""
    hosts = v41_dry_run("live").hosts
    staged = [any(isinstance(s, TypedFileWrite) for s in h.staging) for h in hosts]
    return expect(
        len(staged) == 4 and all(staged),
        "4 live hosts stage the manifest",
        f"live hosts staging the manifest: {staged}",
    )


@claim(ClaimKind.REFUSAL)
def an_occupied_host_refuses_the_launch() -> Verdict:
    """#12351: a host whose V4 unit or any GPU process is live, or whose available memory
    is short, refuses this launch (srv6 runs the V4 pair's unit and a GPU process)."""
    found = refusal_codes(v41_dry_run("occupied_host"))
    wanted = ("admission.host_occupied", "occupancy.hosts.srv6")
    return expect(
        wanted in found,
        f"refused: {found}",
        f"expected {wanted}; the plan found {found or 'nothing to refuse'}",
    )


@claim(ClaimKind.PAIRING_OBLIGATION)
def the_live_log_suspends_group_a_for_this_candidate() -> Verdict:
    """#12370: the live authority log holds Group A SuspendedForAuthorizedSuccessor for
    exactly the V4.1 candidate."""
    state = authority_state("live").group("group_a")
    candidate = v41_call("live").candidate.key
    found = state.candidate if isinstance(state, SuspendedForAuthorizedSuccessor) else state
    return expect_equal(candidate, found, "Group A's live authority state")
