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
