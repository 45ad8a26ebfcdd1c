"""planner.arms: what adding an arm takes.

Each arm's values and dry run are stated by the claims every arm shares
(witnesses/arms/arm_launch.py, against each arm's literal values in witnesses/arms/expected/)
and by its own witness (witnesses/arms/v41_group_a_launch.py,
witnesses/arms/glm_group_b_launch.py); the registry's names and its misnamed-module error by
witnesses/arms/arm_registry.py. This file keeps what no claim runs: a copy
of the project with a third arm added (its planner module, its expected values and its floors,
nothing else), the arm registry's and the shared claims run over it and the shared mutants
exact over it, and the two rules that keep every arm's values in its module: no shared module
holds one, nor imports an arm.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import planner
from planner import data
from planner.arms import arms
from planner.checkpoint import CheckpointVllmParsers
from planner.engram import EngramPlacement
from planner.fit import ResidentBet
from planner.frontiers import DeclaredFrontier
from planner.identity import ArmContainerIdentity, ArmUnitIdentity
from planner.launch import ServingRoute
from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest
from planner.runtime import ProducedImage

PLANNER = Path(sys.executable).parent / "planner"
CLAIMS = Path(sys.executable).parent / "claims"
REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "planner"
PLANNER_PATH = list(planner.__path__)
IGNORED = shutil.ignore_patterns("__pycache__")

THIRD_ARM = '''"""A third arm, for the test: GLM-4.6 planned over Group A, every value its own."""

from planner.arm_launch import ArmCall, DryRun, plan_arm
from planner.arms import Arm, ArmSources
from planner.checkpoint import CheckpointVllmParsers, NothingBeyondWeights, checkpoint_row
from planner.identity import ArmContainerIdentity, ArmUnitIdentity
from planner.launch import ServingRoute
from planner.profile import ServingLaunchProfile
from planner.runtime import ImageArtifact, ProducedImage, RegistryReading

NAME = "glm_group_a"
RUNTIME_KEY = "gunbc-glm-group-a"
MANIFEST = "checkpoints/glm-4.6-fp8-5c7e1f3b.manifest.json"
CONTAINER = ArmContainerIdentity(name="glm-a-tp4", rendezvous_port=29530, shm_size="16g")
UNITS = ArmUnitIdentity(
    head_unit="glm-a-tp4-head.service",
    rank_unit="glm-a-tp4-rank.service",
    description="GLM serving arm (Group A)",
)
ROUTE = ServingRoute(serve_port=8200, served_model_name="glm-a")
PARSERS = CheckpointVllmParsers(tool_call="glm45", reasoning="glm45")
PROFILE = ServingLaunchProfile(
    gpu_memory_utilization_bp=8000,
    max_model_len=65536,
    max_num_seqs=4,
    max_num_batched_tokens=4096,
    kv_cache_dtype="fp8",
    prefix_caching=False,
)
IMAGE = ProducedImage(
    artifact=ImageArtifact(config_digest="sha256:" + "a1" * 32, runtime_key=RUNTIME_KEY),
    registry_reading=RegistryReading(vllm_version="0.33.0"),
)


def _dry_run(sources: ArmSources) -> DryRun:
    call = ArmCall(
        arm=NAME,
        group=sources.fabric.group("group_a"),
        row=checkpoint_row(sources.manifest(MANIFEST), PARSERS, NothingBeyondWeights()),
        container=CONTAINER,
        units=UNITS,
        route=ROUTE,
        runtime_key=RUNTIME_KEY,
        profile=PROFILE,
        image=IMAGE,
    )
    return plan_arm(call, sources.state)


ARM = Arm(
    name=NAME,
    group="group_a",
    report="target/glm-group-a-launch-dry-run.txt",
    uses_inputs=False,
    plan=_dry_run,
)
'''
"""A whole arm: the values it names and the call that gives them to the shared launcher. It
imports types and rules only (no other arm's module): no value of an arm is shared."""

THIRD_ARM_EXPECTED = '''"""GLM on Group A (srv5-8), the test's third arm: its values, literally."""

from witnesses.arms.expected import Expected, unit_text

_CHECKPOINT = "/var/lib/gunbc/checkpoints/zai-org--GLM-4.6-FP8/5c7e1f3b"
_DESCRIPTION = "GLM serving arm (Group A)"
EXPECTED = Expected(
    hosts=("srv5", "srv6", "srv7", "srv8"),
    container="glm-a-tp4",
    head_unit="glm-a-tp4-head",
    rank_unit="glm-a-tp4-rank",
    head_create=(
        "docker", "create", "--name", "glm-a-tp4", "--network", "host", "--ipc", "host",
        "--gpus", "all", "--shm-size", "16g",
        "--label", "gunbc.arm=glm_group_a", "--label", "gunbc.rank=0",
        "--mount", f"type=bind,source={_CHECKPOINT},target={_CHECKPOINT},readonly",
        "--env", "VLLM_HOST_IP=10.77.1.15",
        "--env", "NCCL_SOCKET_IFNAME=enp1s0f1np1",
        "--env", "GLOO_SOCKET_IFNAME=enp1s0f1np1",
        "--entrypoint", "vllm", "sha256:" + "a1" * 32,
    ),
    head_serve=(
        "serve", _CHECKPOINT, "--served-model-name", "glm-a",
        "--distributed-executor-backend", "mp", "--tensor-parallel-size", "4", "--nnodes", "4",
        "--node-rank", "0", "--master-addr", "10.77.1.15", "--master-port", "29530",
        "--host", "0.0.0.0", "--port", "8200", "--gpu-memory-utilization", "0.8",
        "--max-model-len", "65536", "--max-num-seqs", "4", "--max-num-batched-tokens", "4096",
        "--kv-cache-dtype", "fp8", "--no-enable-prefix-caching",
        "--tool-call-parser", "glm45", "--enable-auto-tool-choice", "--reasoning-parser", "glm45",
    ),
    env=(),
    head_unit_text=unit_text(f"{_DESCRIPTION}: head (node rank 0)", "glm-a-tp4", "glm-a-tp4-head"),
    rank_unit_text=unit_text(f"{_DESCRIPTION}: follower", "glm-a-tp4", "glm-a-tp4-rank"),
    health="http://10.77.1.15:8200/health",
    candidate=("glm_group_a", "zai-org/GLM-4.6-FP8@5c7e1f3b", "gunbc-glm-group-a"),
    manifest="checkpoints/glm-4.6-fp8-5c7e1f3b.manifest.json",
    weight_gib=331,
    allowance_gib=0,
    pinned=True,
    admitted=False,
    report="target/glm-group-a-launch-dry-run.txt",
)
'''
"""The third arm's expected values, beside the two arms' in witnesses/arms/expected/."""

THIRD_ARM_FLOOR = '"planner/arms/glm_group_a.py" = 98\n'
"""Its floor, in each table of mutation/floors.toml that floors the other arms."""


def _imported_modules(text: str) -> set[str]:
    """The modules a module's text imports from."""
    tree = ast.parse(text)
    found = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    return found | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_the_third_arm_takes_no_other_arms_value() -> None:
    """The third arm imports the shared modules (types and rules) and the registry only."""
    imported = _imported_modules(THIRD_ARM)
    arm_modules = {f"planner.arms.{name}" for name in arms()}
    assert imported <= {f"planner.{m.name}" for m in pkgutil.iter_modules(PLANNER_PATH)}
    assert "planner.arms" in imported and not imported & arm_modules


ARM_VALUE_TYPES = (
    ArmContainerIdentity,
    ArmUnitIdentity,
    ServingRoute,
    ServingLaunchProfile,
    VllmEngramConfigRequest,
    CheckpointVllmParsers,
    EngramPlacement,
    ProducedImage,
    DeclaredFrontier,
    ResidentBet,
)
"""The types of what an arm names for the launcher (its :class:`ArmCall`'s fields and the
declarations beside them)."""


def test_no_shared_module_holds_a_value_of_an_arm() -> None:
    """Every module of the planner outside ``planner/arms/`` keeps types and rules: none binds
    an identity, route, profile, parsers, placement, image, frontier or bet at module level,
    alone or in a tuple (a recipe's are built from its file)."""
    held = []
    for info in pkgutil.iter_modules(PLANNER_PATH):
        if info.ispkg:
            continue
        module = importlib.import_module(f"planner.{info.name}")
        for name, value in vars(module).items():
            items = value if isinstance(value, tuple) else (value,)
            if any(isinstance(item, ARM_VALUE_TYPES) for item in items):
                held.append(f"planner.{info.name}.{name}")
    assert held == []


def test_no_shared_module_imports_an_arm() -> None:
    """Arms import the shared modules, never the reverse: outside ``planner/arms/`` only the
    registry itself (:mod:`planner.arms`) is imported, by the command line."""
    arm_modules = {f"planner.arms.{name}" for name in arms()}
    importers = {
        path.name: _imported_modules(path.read_text(encoding="utf-8")) & arm_modules
        for path in sorted(PACKAGE.glob("*.py"))
    }
    assert {name: found for name, found in importers.items() if found} == {}


@pytest.mark.skipif(not PLANNER.is_file(), reason="planner is not installed")
def test_adding_an_arm_is_adding_its_module_its_values_and_its_floors(tmp_path: Path) -> None:
    """A copy of the project with a third arm's planner module, expected values and floors
    added and every other file byte for byte the same: the command line offers the arm, plans
    it over its group with its own values and writes its own report; the arm registry's
    claims and the claims every arm shares hold over it, and the shared mutants are exact."""
    before: dict[str, bytes] = {}
    for package in ("planner", "witnesses", "mutation"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=IGNORED)
        before |= {f"{package}/{k}": v for k, v in _tree(REPO / package).items()}
    (tmp_path / "planner/arms/glm_group_a.py").write_text(THIRD_ARM, encoding="utf-8")
    expected = tmp_path / "witnesses/arms/expected/glm_group_a.py"
    expected.write_text(THIRD_ARM_EXPECTED, encoding="utf-8")
    floors = tmp_path / "mutation/floors.toml"
    other = '"planner/arms/glm_group_b.py" = 98\n'
    floors.write_text(floors.read_text("utf-8").replace(other, other + THIRD_ARM_FLOOR), "utf-8")
    after: dict[str, bytes] = {}
    for package in ("planner", "witnesses", "mutation"):
        after |= {f"{package}/{k}": v for k, v in _tree(tmp_path / package).items()}
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {
        "planner/arms/glm_group_a.py",
        "witnesses/arms/expected/glm_group_a.py",
        "mutation/floors.toml",
    }
    assert before.keys() <= after.keys()
    tables = tomllib.loads(floors.read_text("utf-8"))
    assert [t["planner/arms/glm_group_a.py"] for t in tables.values()] == [98, 98]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join((str(tmp_path), str(REPO))),
        data.DATA_ENV: str(data.default_data_root()),
    }

    def run(program: Path, *args: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(program), *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    assert "{glm_group_a,glm_group_b,v41_group_a}" in run(PLANNER, "dry-run", "--help").stdout
    assert "{glm_group_a,glm_group_b,v41_group_a}" in run(PLANNER, "apply", "--help").stdout
    ran = run(PLANNER, "dry-run", "glm_group_a", "--scenario", "supplied")
    lines = ran.stdout.splitlines()
    assert lines[0] == (
        "glm_group_a: report written to target/glm-group-a-launch-dry-run-supplied.txt "
        "(4 hosts rendered)"
    ), ran.stderr
    # Group A is suspended for V4.1's successor in this scenario: admission refuses it.
    assert (ran.returncode, lines[-1]) == (1, "glm_group_a: REFUSED")
    # every witness that goes over the arms, or names them (a --all run with this arm passes
    # every witness but one that needs the fixtures beside the copied planner)
    over: tuple[str, ...] = ("arm_registry", "arm_launch", "dry_run_cli", "planner_process")
    over += ("coordinator_cli", "native_serving_apply")
    claimed = run(CLAIMS, "run", *over, cwd=REPO)
    assert claimed.returncode == 0, claimed.stdout + claimed.stderr
    assert "arm_registry: 2/2 PASS" in claimed.stdout
    assert "dry_run_cli: 24/24 PASS" in claimed.stdout  # its default report among them
    assert "arm_launch: 27/27 PASS" in claimed.stdout
    assert "arm_launch[glm_group_a].every_rank_serve_argv_is_planned_whole" in claimed.stdout
    mutated = run(CLAIMS, "mutate", "arm_launch", cwd=REPO)
    assert mutated.returncode == 0, mutated.stdout[-3000:] + mutated.stderr
    assert "claims witnessed 27/27" in mutated.stdout
