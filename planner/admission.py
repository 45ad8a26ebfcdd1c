"""Admission: a pure fold over four conjuncts, each its own located refusal.

1. the group is SuspendedForAuthorizedSuccessor under a lease live at read time;
2. the authorized successor is exactly this candidate;
3. the produced image was admitted for the candidate's runtime key;
4. every host of the group is held by the group's subject.

Every failed conjunct is reported, not the first.
"""

from __future__ import annotations

from planner.authority import Active, AuthorityState, SuspendedForAuthorizedSuccessor
from planner.fabric import FabricGroup
from planner.refusal import Refusal, refusal
from planner.values import Frozen


class Candidate(Frozen):
    """The realization asking to launch: which arm, which checkpoint, which runtime."""

    arm: str
    checkpoint: str
    runtime_key: str

    @property
    def key(self) -> str:
        return f"{self.arm}:{self.checkpoint}:{self.runtime_key}"


class AdmissionVerdict(Frozen):
    """Admitted when no conjunct failed; otherwise every failure, located."""

    refusals: tuple[Refusal, ...]
    unchecked: tuple[str, ...] = ()
    """Conjuncts this verdict could not check, each with why (a recipe's image by tag)."""

    @property
    def admitted(self) -> bool:
        return not self.refusals


def _group_location(group: FabricGroup) -> tuple[str, ...]:
    return ("authority", "groups", group.name)


def successor_may_launch(state: AuthorityState, group: FabricGroup) -> tuple[Refusal, ...]:
    """Conjunct 1: suspended for an authorized successor, lease live at read time."""
    current = state.group(group.name)
    where = _group_location(group)
    if current is None:
        return (
            refusal(
                "admission.group_unknown",
                where,
                f"the authority log says nothing of {group.name}",
                hint=f"record {group.name}'s state in the log (a group_active or "
                "group_suspended event)",
            ),
        )
    if isinstance(current, Active):
        return (
            refusal(
                "admission.active_incumbent",
                where,
                f"{group.name} is Active with incumbent {current.incumbent!r}",
                hint="suspend the group for this successor first (#12370)",
            ),
        )
    if not current.lease_live(state.read_at):
        return (
            refusal(
                "admission.lease_expired",
                (*where, "lease_expires_at"),
                f"lease expired at {current.lease_expires_at.isoformat()} "
                f"(read at {state.read_at.isoformat()})",
                hint="renew the lease: a new group_suspended event for this successor with a "
                "later lease_expires_at",
            ),
        )
    return ()


def successor_is_candidate(
    state: AuthorityState, group: FabricGroup, candidate: Candidate
) -> tuple[Refusal, ...]:
    """Conjunct 2: the suspension names exactly this candidate."""
    current = state.group(group.name)
    if isinstance(current, SuspendedForAuthorizedSuccessor) and current.candidate != candidate.key:
        where = (*_group_location(group), "candidate")
        message = f"suspended for {current.candidate!r}, not {candidate.key!r}"
        hint = "plan the successor the group is suspended for, or suspend it for this candidate"
        return (refusal("admission.other_successor", where, message, hint),)
    return ()


def image_admitted_for_runtime(
    state: AuthorityState, candidate: Candidate, image_digest: str
) -> tuple[Refusal, ...]:
    """Conjunct 3: the image was admitted against the candidate's runtime key."""
    if image_digest in state.images_for(candidate.runtime_key):
        return ()
    others = state.runtime_keys_admitting(image_digest)
    why = f" (admitted only for {', '.join(others)})" if others else ""
    return (
        refusal(
            "admission.image_not_admitted",
            ("authority", "admitted_images", candidate.runtime_key),
            f"image {image_digest} is not admitted for runtime key {candidate.runtime_key!r}{why}",
            hint="admit the image for this runtime key first (an image_admitted event)",
        ),
    )


def hosts_held_by_subject(state: AuthorityState, group: FabricGroup) -> tuple[Refusal, ...]:
    """Conjunct 4: every host of the group is held by the group's subject."""
    holders = dict(state.holdings)  # once, not once per host
    return tuple(
        refusal(
            "admission.host_not_held",
            ("authority", "holdings", host.name),
            f"{host.name} is held by {holders.get(host.name)!r}, not {group.subject!r}",
            hint=f"hold {host.name} for {group.subject} first (a host_held event)",
        )
        for host in group.hosts
        if holders.get(host.name) != group.subject
    )


def arm_launch_admission(
    state: AuthorityState, group: FabricGroup, candidate: Candidate, image_digest: str
) -> AdmissionVerdict:
    """All four conjuncts, every failure reported."""
    return AdmissionVerdict(
        refusals=(
            *successor_may_launch(state, group),
            *successor_is_candidate(state, group, candidate),
            *image_admitted_for_runtime(state, candidate, image_digest),
            *hosts_held_by_subject(state, group),
        )
    )


def recipe_launch_admission(
    state: AuthorityState, group: FabricGroup, candidate: Candidate, image: str
) -> AdmissionVerdict:
    """A recipe's admission: the arms' four conjuncts when it names its image by digest. By
    tag (``name:tag``) the image conjunct cannot be checked: a tag names no content the log
    could have admitted, so it is reported as not checked, never as holding."""
    if image.startswith("sha256:"):
        return arm_launch_admission(state, group, candidate, image)
    why = (
        f"image admitted for runtime key {candidate.runtime_key!r}: the recipe names its "
        f"image by tag ({image}), not by digest"
    )
    return AdmissionVerdict(
        refusals=(
            *successor_may_launch(state, group),
            *successor_is_candidate(state, group, candidate),
            *hosts_held_by_subject(state, group),
        ),
        unchecked=(why,),
    )
