"""Declared frontiers: inputs still owned by open pull requests, as typed obligations.

An input a PR owns is never a placeholder. Until it is supplied at the plan's interface
the plan refuses by the obligation's name. A frontier that is not an input (occupancy is
not yet a conjunct; the authority transition arrives through the log) is declared all
the same, so tracking can tell when its PR lands.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from planner.refusal import Refusal, refusal
from planner.runtime import ProducedImage
from planner.values import Frozen

InputName = Literal["produced_image", "launch_shape", "engram_manifest"]


class DeclaredFrontier(Frozen):
    """An obligation: what is owed, by which PR, what happens today, when it is consumed."""

    id: str
    input: str
    owner_pr: int
    owner: str
    today: str
    trigger: str
    sufficient_for: str
    blocks_input: InputName | None = None


class LaunchShape(Frozen):
    """#12371's launch shape: the measurement's axes, supplied at the plan's interface."""

    gpu_memory_utilization_bp: int = Field(gt=0, le=10000)
    max_num_batched_tokens: int = Field(gt=0)
    prefix_caching: bool


class PlanInputs(Frozen):
    """Everything an open PR owns, supplied or not (``None`` = not supplied)."""

    produced_image: ProducedImage | None = None
    launch_shape: LaunchShape | None = None
    engram_manifest: str | None = None

    def supplied(self, name: InputName) -> bool:
        return getattr(self, name) is not None


V41_FRONTIERS: tuple[DeclaredFrontier, ...] = (
    DeclaredFrontier(
        id="produced_image",
        input="produced V4.1 image (config digest) + a registry reading",
        owner_pr=12353,
        owner="build lane",
        today="V41RuntimeProductionUnestablished; with no reading the arm wall refuses",
        trigger="#12353 merges",
        sufficient_for="the plan runs the produced image by its config digest",
        blocks_input="produced_image",
    ),
    DeclaredFrontier(
        id="launch_shape",
        input="max_num_batched_tokens 8192, utilization 8000 bp, prefix caching explicit off",
        owner_pr=12371,
        owner="v41_measurement_launch_shape (clever-gull-48)",
        today="obligation naming #12371",
        trigger="#12371 merges",
        sufficient_for="the minted profile carries the measurement's declared axes",
        blocks_input="launch_shape",
    ),
    DeclaredFrontier(
        id="engram_manifest",
        input="Engram manifest text",
        owner_pr=12359,
        owner="v41_engram_store_manifest",
        today="obligation naming #12359",
        trigger="#12359 merges",
        sufficient_for="each host stages the manifest as a sealed, readback-verified write",
        blocks_input="engram_manifest",
    ),
    DeclaredFrontier(
        id="host_occupancy",
        input="occupancy conjunct (a V4 unit or any GPU process is live, or memory is short)",
        owner_pr=12351,
        owner="admit_spark_host_unoccupied",
        today="not yet a conjunct",
        trigger="#12351 merges",
        sufficient_for="a host whose V4 unit or any GPU process is live, or whose available "
        "memory is short, refuses this launch",
    ),
    DeclaredFrontier(
        id="authority_transition",
        input="the authority transition itself",
        owner_pr=12370,
        owner="adhoc-f7cabf26-ca3 (bright-ant-770)",
        today="consumed as specified: SuspendedForAuthorizedSuccessor with the exact candidate, "
        "lease observed at read time",
        trigger="#12370 merges",
        sufficient_for="admission reads the suspension for exactly this candidate from the log",
    ),
)


def unmet_obligations(
    frontiers: tuple[DeclaredFrontier, ...], inputs: PlanInputs
) -> tuple[Refusal, ...]:
    """One refusal per declared input frontier whose input was not supplied."""
    return tuple(
        refusal(
            f"frontier.{f.id}",
            ("inputs", f.blocks_input),
            f"obligation owned by #{f.owner_pr} ({f.owner}): {f.input} is not supplied; "
            f"today: {f.today}",
            hint=f"consumed when {f.trigger}",
        )
        for f in frontiers
        if f.blocks_input is not None and not inputs.supplied(f.blocks_input)
    )
