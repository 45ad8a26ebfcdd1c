"""The planner's public names: what witnesses, mutants and fixtures use, each from the module
that defines it (``from planner import DryRun, render_report``).

Every name is imported when first asked for (module ``__getattr__``): importing one planner
module imports this package first, and the planner's start-up is measured, so the face costs
nothing until it is used. A name an arm owns (its manifests, profiles, frontiers, rows) is
the arm's, in ``planner/arms/<arm>.py``, and not here. ``summary`` and ``Verdict`` are
``planner apply --check``'s (:mod:`planner.check`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.admission import Candidate, arm_launch_admission
    from planner.apply import (
        PRESERVE_ROOT,
        UNIT_DIR,
        ApplyContext,
        ApplyStep,
        Stage,
        apply_contexts,
        stage_script,
    )
    from planner.arm_launch import DryRun, RenderedHost, fit_wall
    from planner.authority import (
        Active,
        AuthorityState,
        GroupState,
        SuspendedForAuthorizedSuccessor,
        fold,
        parse_log,
        read_log,
        read_state,
        stream_log,
    )
    from planner.check import (
        DIFF_LINES,
        LINE_WIDTH,
        UNIT_READ_LIMIT,
        Change,
        Difference,
        HostCheck,
        ProbeUnreadable,
        Verdict,
        drift,
        exit_code,
        parse_probe,
        planned_hosts,
        summary,
    )
    from planner.checkpoint import (
        CheckpointManifest,
        CheckpointRow,
        CheckpointVllmParsers,
        ManifestFile,
        NothingBeyondWeights,
        PageCacheFromNonKvHeadroom,
        ResidentBeyondWeights,
        load_manifest,
        local_checkpoint_directory,
    )
    from planner.cli import build_parser, dry_run, main, parse
    from planner.coordinator import (
        REMOTE_SCRIPT,
        SshSettings,
        SshTransport,
        admission_gate,
        caught,
        exit_argv,
        master_argv,
        render_dry_run,
        session_argv,
        wait_seconds,
    )
    from planner.data import snapshot_manifest
    from planner.engram import (
        MANIFEST_ENV,
        RECEIPT_ENV,
        FileTreeScope,
        LandingMismatch,
        MkdirStep,
        TypedFileWrite,
        land_file_write,
        parse_engram_manifest,
    )
    from planner.fabric import FabricGroup, load_fabric, serving_head
    from planner.fit import (
        Fit,
        ResidentBet,
        bets_above_allowance,
        serving_arm_admits,
        serving_arm_admits_under,
    )
    from planner.formats import DOCUMENTS
    from planner.frontiers import PlanInputs
    from planner.measure import GIB
    from planner.profile import ServingLaunchProfile, VllmEngramConfigRequest, utilization_text
    from planner.realize import STOP_GRACE_SECONDS
    from planner.recipe import (
        COMPOSED_DIR_SCRIPT,
        COMPOSED_FILES_SCRIPT,
        ArgReading,
        ComposedLocalFile,
        Recipe,
        RecipeInvalid,
        composed_dir,
        composed_steps,
        load_recipe,
        read_args,
    )
    from planner.recipe_extensions import stock_parser_findings
    from planner.recipe_launch import RecipeSources, recipe_dry_run
    from planner.refusal import PlannerInputError, Refusal
    from planner.report import render_report, write_atomically
    from planner.scenarios import load_inputs
    from planner.transaction import (
        HostAddress,
        OnEvent,
        StepResult,
        TransactionPlan,
        TransactionReport,
        TransactionStep,
        coordinate,
        parse_hosts,
        plan_transaction,
    )
    from planner.values import JsonProblem, one_line, printable, safe_name, safe_path, strict_json
    from planner.version import code_digest, planner_version

__all__ = [
    "COMPOSED_DIR_SCRIPT",
    "COMPOSED_FILES_SCRIPT",
    "DIFF_LINES",
    "DOCUMENTS",
    "GIB",
    "LINE_WIDTH",
    "MANIFEST_ENV",
    "PRESERVE_ROOT",
    "RECEIPT_ENV",
    "REMOTE_SCRIPT",
    "STOP_GRACE_SECONDS",
    "UNIT_DIR",
    "UNIT_READ_LIMIT",
    "Active",
    "ApplyContext",
    "ApplyStep",
    "ArgReading",
    "AuthorityState",
    "Candidate",
    "Change",
    "CheckpointManifest",
    "CheckpointRow",
    "CheckpointVllmParsers",
    "ComposedLocalFile",
    "Difference",
    "DryRun",
    "FabricGroup",
    "FileTreeScope",
    "Fit",
    "GroupState",
    "HostAddress",
    "HostCheck",
    "JsonProblem",
    "LandingMismatch",
    "ManifestFile",
    "MkdirStep",
    "NothingBeyondWeights",
    "OnEvent",
    "PageCacheFromNonKvHeadroom",
    "PlanInputs",
    "PlannerInputError",
    "ProbeUnreadable",
    "Recipe",
    "RecipeInvalid",
    "RecipeSources",
    "Refusal",
    "RenderedHost",
    "ResidentBet",
    "ResidentBeyondWeights",
    "ServingLaunchProfile",
    "SshSettings",
    "SshTransport",
    "Stage",
    "StepResult",
    "SuspendedForAuthorizedSuccessor",
    "TransactionPlan",
    "TransactionReport",
    "TransactionStep",
    "TypedFileWrite",
    "Verdict",
    "VllmEngramConfigRequest",
    "admission_gate",
    "apply_contexts",
    "arm_launch_admission",
    "bets_above_allowance",
    "build_parser",
    "caught",
    "code_digest",
    "composed_dir",
    "composed_steps",
    "coordinate",
    "drift",
    "dry_run",
    "exit_argv",
    "exit_code",
    "fit_wall",
    "fold",
    "land_file_write",
    "load_fabric",
    "load_inputs",
    "load_manifest",
    "load_recipe",
    "local_checkpoint_directory",
    "main",
    "master_argv",
    "one_line",
    "parse",
    "parse_engram_manifest",
    "parse_hosts",
    "parse_log",
    "parse_probe",
    "plan_transaction",
    "planned_hosts",
    "planner_version",
    "printable",
    "read_args",
    "read_log",
    "read_state",
    "recipe_dry_run",
    "render_dry_run",
    "render_report",
    "safe_name",
    "safe_path",
    "serving_arm_admits",
    "serving_arm_admits_under",
    "serving_head",
    "session_argv",
    "snapshot_manifest",
    "stage_script",
    "stock_parser_findings",
    "stream_log",
    "strict_json",
    "summary",
    "utilization_text",
    "wait_seconds",
    "write_atomically",
]


_HOMES: dict[str, str] = {
    "admission": "Candidate arm_launch_admission",
    "apply": "ApplyContext ApplyStep PRESERVE_ROOT Stage UNIT_DIR apply_contexts stage_script",
    "arm_launch": "DryRun RenderedHost fit_wall",
    "authority": (
        "Active AuthorityState GroupState SuspendedForAuthorizedSuccessor fold parse_log read_log "
        "read_state stream_log"
    ),
    "check": (
        "Change DIFF_LINES Difference HostCheck LINE_WIDTH ProbeUnreadable UNIT_READ_LIMIT Verdict "
        "drift exit_code parse_probe planned_hosts summary"
    ),
    "checkpoint": (
        "CheckpointManifest CheckpointRow CheckpointVllmParsers ManifestFile NothingBeyondWeights "
        "PageCacheFromNonKvHeadroom ResidentBeyondWeights load_manifest local_checkpoint_directory"
    ),
    "cli": "build_parser dry_run main parse",
    "coordinator": (
        "REMOTE_SCRIPT SshSettings SshTransport admission_gate caught exit_argv master_argv "
        "render_dry_run session_argv wait_seconds"
    ),
    "data": "snapshot_manifest",
    "engram": (
        "FileTreeScope LandingMismatch MANIFEST_ENV MkdirStep RECEIPT_ENV TypedFileWrite "
        "land_file_write parse_engram_manifest"
    ),
    "fabric": "FabricGroup load_fabric serving_head",
    "fit": "Fit ResidentBet bets_above_allowance serving_arm_admits serving_arm_admits_under",
    "formats": "DOCUMENTS",
    "frontiers": "PlanInputs",
    "measure": "GIB",
    "profile": "ServingLaunchProfile VllmEngramConfigRequest utilization_text",
    "realize": "STOP_GRACE_SECONDS",
    "recipe": (
        "ArgReading COMPOSED_DIR_SCRIPT COMPOSED_FILES_SCRIPT ComposedLocalFile Recipe "
        "RecipeInvalid composed_dir composed_steps load_recipe read_args"
    ),
    "recipe_extensions": "stock_parser_findings",
    "recipe_launch": "RecipeSources recipe_dry_run",
    "refusal": "PlannerInputError Refusal",
    "report": "render_report write_atomically",
    "scenarios": "load_inputs",
    "transaction": (
        "HostAddress OnEvent StepResult TransactionPlan TransactionReport TransactionStep "
        "coordinate parse_hosts plan_transaction"
    ),
    "values": "JsonProblem one_line printable safe_name safe_path strict_json",
    "version": "code_digest planner_version",
}
"""Each name's defining module (under ``planner.``): what :func:`__getattr__` imports."""

_HOME = {name: module for module, names in _HOMES.items() for name in names.split()}


def __getattr__(name: str) -> object:
    """``name``, imported from its module on first use and kept here after."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'planner' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"planner.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
