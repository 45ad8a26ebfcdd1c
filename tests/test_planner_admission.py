"""planner.admission: four conjuncts, each its own located refusal, all reported together."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from planner import data
from planner.admission import (
    AdmissionVerdict,
    Candidate,
    arm_launch_admission,
    hosts_held_by_subject,
    image_admitted_for_runtime,
    successor_is_candidate,
    successor_may_launch,
)
from planner.authority import AuthorityState, fold, read_log
from planner.fabric import FabricGroup
from planner.refusal import refusal
from planner.scenarios import load_scenario

GROUP_A: FabricGroup = data.fabric().group("group_a")
CANDIDATE = Candidate(
    arm="v41_group_a",
    checkpoint="deepseek-ai/DeepSeek-V4.1-Flash@dba1be0a",
    runtime_key="gunbc-deepseek-v41-engram-produced",
)
DIGEST = "sha256:ab10f46a89cb5ae9b00a3a7dc3a6b8d6315eac94a8d1b51e94adab1b58b05f22"
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def scenario_state(name: str) -> AuthorityState:
    scenario = load_scenario(data.default_data_root(), name)
    return fold(read_log(scenario.authority), scenario.now)


def admit(state: AuthorityState) -> AdmissionVerdict:
    return arm_launch_admission(state, GROUP_A, CANDIDATE, DIGEST)


def codes_and_places(verdict: AdmissionVerdict) -> list[tuple[str, str]]:
    return [(r.code, r.where) for r in verdict.refusals]


def test_candidate_key() -> None:
    assert CANDIDATE.key == (
        "v41_group_a:deepseek-ai/DeepSeek-V4.1-Flash@dba1be0a:gunbc-deepseek-v41-engram-produced"
    )


def test_positive_control_the_correct_suspension_admits() -> None:
    verdict = admit(scenario_state("supplied"))
    assert verdict.admitted
    assert verdict.refusals == ()


@pytest.mark.parametrize(
    ("scenario", "code", "where", "quoted"),
    [
        (
            "active_incumbent",
            "admission.active_incumbent",
            "authority.groups.group_a",
            "v4_pair_group_a:deepseek-ai/DeepSeek-V4-Flash@7c41e0b2",
        ),
        (
            "expired_lease",
            "admission.lease_expired",
            "authority.groups.group_a.lease_expires_at",
            "2026-11-29T11:00:00+00:00",
        ),
        (
            "other_successor",
            "admission.other_successor",
            "authority.groups.group_a.candidate",
            "DeepSeek-V4.1-Flash@4e02c9d7",
        ),
        (
            "image_other_runtime",
            "admission.image_not_admitted",
            "authority.admitted_images.gunbc-deepseek-v41-engram-produced",
            "admitted only for gunbc-deepseek-v4-pair",
        ),
        (
            "host_not_held",
            "admission.host_not_held",
            "authority.holdings.srv7",
            "'group-b-serving'",
        ),
    ],
)
def test_each_conjunct_alone(scenario: str, code: str, where: str, quoted: str) -> None:
    verdict = admit(scenario_state(scenario))
    assert not verdict.admitted
    assert codes_and_places(verdict) == [(code, where)]
    assert quoted in verdict.refusals[0].message


def test_active_incumbent_hints_at_the_transition() -> None:
    (refused,) = admit(scenario_state("active_incumbent")).refusals
    assert "#12370" in refused.hint


def _log(tmp_path: Path, events: list[dict[str, Any]]) -> AuthorityState:
    path = tmp_path / "authority.jsonl"
    lines = [
        json.dumps({"seq": i, "at": "2026-11-29T09:00:00Z", **e})
        for i, e in enumerate(events, start=1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return fold(read_log(path), T0)


def _held(*hosts: str, subject: str = "group-a-serving") -> list[dict[str, Any]]:
    return [{"event": "host_held", "host": h, "subject": subject} for h in hosts]


def test_every_failure_is_reported_together(tmp_path: Path) -> None:
    state = _log(
        tmp_path,
        [
            {"event": "group_active", "group": "group_a", "incumbent": "v4"},
            {
                "event": "image_admitted",
                "runtime_key": "gunbc-deepseek-v4-pair",
                "config_digest": DIGEST,
            },
            *_held("srv5", "srv6", "srv8"),
            *_held("srv7", subject="group-b-serving"),
        ],
    )
    assert codes_and_places(admit(state)) == [
        ("admission.active_incumbent", "authority.groups.group_a"),
        (
            "admission.image_not_admitted",
            "authority.admitted_images.gunbc-deepseek-v41-engram-produced",
        ),
        ("admission.host_not_held", "authority.holdings.srv7"),
    ]


def test_an_expired_lease_for_another_successor_names_both(tmp_path: Path) -> None:
    state = _log(
        tmp_path,
        [
            {
                "event": "group_suspended",
                "group": "group_a",
                "successor": "someone-else",
                "lease_expires_at": "2026-11-29T11:59:59Z",
            },
            {
                "event": "image_admitted",
                "runtime_key": CANDIDATE.runtime_key,
                "config_digest": DIGEST,
            },
            *_held("srv5", "srv6", "srv7", "srv8"),
        ],
    )
    assert [r.code for r in admit(state).refusals] == [
        "admission.lease_expired",
        "admission.other_successor",
    ]


def test_an_empty_log_refuses_every_conjunct(tmp_path: Path) -> None:
    path = tmp_path / "authority.jsonl"
    path.write_text("", encoding="utf-8")
    verdict = admit(fold(read_log(path), T0))
    assert codes_and_places(verdict) == [
        ("admission.group_unknown", "authority.groups.group_a"),
        (
            "admission.image_not_admitted",
            "authority.admitted_images.gunbc-deepseek-v41-engram-produced",
        ),
        *[("admission.host_not_held", f"authority.holdings.srv{i}") for i in (5, 6, 7, 8)],
    ]
    assert "None" in verdict.refusals[-1].message


def test_a_released_host_is_not_held(tmp_path: Path) -> None:
    state = _log(
        tmp_path,
        [
            {
                "event": "group_suspended",
                "group": "group_a",
                "successor": CANDIDATE.key,
                "lease_expires_at": "2026-11-29T18:00:00Z",
            },
            {
                "event": "image_admitted",
                "runtime_key": CANDIDATE.runtime_key,
                "config_digest": DIGEST,
            },
            *_held("srv5", "srv6", "srv7", "srv8"),
            {"event": "host_released", "host": "srv6"},
        ],
    )
    assert codes_and_places(admit(state)) == [
        ("admission.host_not_held", "authority.holdings.srv6")
    ]


def test_lease_ending_exactly_at_read_time_is_expired(tmp_path: Path) -> None:
    state = _log(
        tmp_path,
        [
            {
                "event": "group_suspended",
                "group": "group_a",
                "successor": CANDIDATE.key,
                "lease_expires_at": T0.isoformat(),
            }
        ],
    )
    assert [r.code for r in successor_may_launch(state, GROUP_A)] == ["admission.lease_expired"]
    later = state.model_copy(update={"read_at": T0 - timedelta(seconds=1)})
    assert successor_may_launch(later, GROUP_A) == ()


def test_the_conjuncts_one_by_one_on_the_supplied_log() -> None:
    state = scenario_state("supplied")
    assert successor_may_launch(state, GROUP_A) == ()
    assert successor_is_candidate(state, GROUP_A, CANDIDATE) == ()
    assert image_admitted_for_runtime(state, CANDIDATE, DIGEST) == ()
    assert hosts_held_by_subject(state, GROUP_A) == ()


def test_another_image_is_not_admitted() -> None:
    other = "sha256:" + "0" * 64
    (refused,) = image_admitted_for_runtime(scenario_state("supplied"), CANDIDATE, other)
    assert refused.code == "admission.image_not_admitted"
    assert other in refused.message
    assert "admitted only for" not in refused.message


def test_successor_check_is_silent_for_an_active_group() -> None:
    assert successor_is_candidate(scenario_state("active_incumbent"), GROUP_A, CANDIDATE) == ()


def test_verdict_is_admitted_only_without_refusals() -> None:
    assert AdmissionVerdict(refusals=()).admitted
    assert not AdmissionVerdict(refusals=(refusal("x", (), "m"),)).admitted
