"""planner.checkpoint: the placement root as written, and parsers refusing unsafe names.

The manifests, the rows (weights rounded once, the Engram shards left out, parsers, what
stays resident), the placement rule's refusals and bad manifests are the claims of
witnesses/arms/arm_launch.py, v41_group_a_launch.py, serving_fit.py and fabric_inventory.py.
"""

from __future__ import annotations

import pytest

from planner.checkpoint import CHECKPOINT_ROOT, CheckpointVllmParsers, local_checkpoint_directory


def test_parsers_refuse_unsafe_names() -> None:
    with pytest.raises(ValueError, match="not a safe name"):
        CheckpointVllmParsers(tool_call="x; rm -rf /", reasoning="r")


def test_local_checkpoint_directory() -> None:
    """The placement under the root is v41_group_a_launch's
    ``a_checkpoint_is_placed_only_from_org_name_and_plain_revision``."""
    assert CHECKPOINT_ROOT == "/var/lib/gunbc/checkpoints"
    assert local_checkpoint_directory("a/b", "r1", root="/srv/ckpt") == "/srv/ckpt/a--b/r1"
