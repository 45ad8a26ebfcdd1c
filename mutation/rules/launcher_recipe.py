"""Declared mutants of the recipe ingestion (witness ``launcher_recipe``)."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from mutation import mutant
from planner.admission import AdmissionVerdict, Candidate, recipe_launch_admission
from planner.arm_launch import DryRun
from planner.authority import AuthorityState
from planner.checkpoint import CheckpointManifest
from planner.fabric import FabricGroup, serving_head
from planner.fit import Fit
from planner.identity import ArmContainerIdentity, ArmUnitIdentity, BindMount, arm_name
from planner.launch import LaunchPlan
from planner.recipe import (
    HF_CACHE_ROOT,
    LAUNCHER_OWNED_ENV,
    LAUNCHER_OWNED_FLAGS,
    RECIPE_RENDEZVOUS_PORT,
    RECIPE_SERVE_PORT,
    ArgReading,
    ComposedModel,
    Recipe,
    RecipeInvalid,
    RecipeProblem,
    SettingsSeen,
    arg_and_env_problems,
    arg_problem,
    composed_problems,
    composed_source_problems,
    composed_steps,
    entrypoint_problems,
    env_problem,
    group_refusals,
    load_recipe,
    local_file_problems,
    mount_problems,
    normalize_arg,
    normalized_args,
    recipe_serve_argv,
    resolve_option,
    shape_problems,
    structure_problems,
    value_problems,
)
from planner.recipe_extensions import (
    DeclaredNames,
    Reader,
    StockParserFinding,
    Unknown,
    declaration_problems,
    unknown_settings,
)
from planner.recipe_launch import (
    VLLM_DEFAULT_UTILIZATION_BP,
    RecipeSources,
    RecipeUtilization,
    RecipeWeight,
    recipe_dry_run,
    recipe_fit,
    recipe_identities,
    recipe_key,
    recipe_launch_plan,
    recipe_mounts,
    recipe_weight,
)
from planner.refusal import PlannerInputError, Refusal, render_location
from planner.values import safe_name
from planner.vllm_serve_options import CONFIG_FIELDS, SERVE_ACTIONS

W = "launcher_recipe"
STRICT = f"{W}.a_recipe_is_read_strictly_and_every_place_named"
WHOLE_ARGV = f"{W}.every_seed_rank_gets_its_whole_create_argv"
SEED_STEPS = f"{W}.the_seed_composed_model_is_the_snapshot_then_the_local_shards"
PLAIN = f"{W}.a_plain_recipe_serves_its_model_id_with_nothing_composed"
PARALLEL = f"{W}.parallel_sizes_set_in_the_args_are_not_repeated"
QUOTING = f"{W}.shell_quoting_is_stripped_once"
SPELLINGS = f"{W}.launcher_owned_flags_are_refused_in_every_spelling_vllm_reads"
TWICE = f"{W}.a_flag_set_twice_is_refused_where_it_is_set_again"
FIELDS = f"{W}.args_may_not_override_the_checked_parallel_fields"
NOT_SETTABLE = f"{W}.flags_no_recipe_may_set_are_refused"
POSITIONALS = f"{W}.positionals_docker_or_vllm_would_read_as_options_are_refused"
SEALED = f"{W}.composed_model_paths_stay_inside_the_composed_directory"
GROUP = f"{W}.a_recipe_for_another_group_size_is_refused_with_its_hint"
READING = f"{W}.args_are_read_as_vllms_own_parser_reads_them"
IN_ORDER = f"{W}.every_problem_of_a_recipe_is_listed_in_order"
SHAPE_WITH_OTHERS = f"{W}.a_tp_that_does_not_cover_the_nodes_is_reported_with_the_other_problems"
TP_PP_ACCEPTED = f"{W}.tp_times_pp_covering_the_nodes_is_accepted"
MESSAGE = f"{W}.the_refusal_names_the_file_and_lists_every_problem"
FILES = f"{W}.unreadable_and_malformed_files_are_located"
SNAPSHOT = f"{W}.a_composed_model_is_not_planned_without_its_own_snapshot"
LINKS = f"{W}.composed_links_resolve_into_the_hf_cache_folder_of_the_repo"
SEED_WARNS = f"{W}.the_seed_recipe_warns_of_each_flag_and_field_stock_vllm_refuses"
DECLARED = f"{W}.a_declared_extension_is_recorded_instead_of_a_warning"
BAD_DECLARATION = f"{W}.a_stale_or_stock_declaration_is_a_located_problem"
UNKNOWN_SPELLINGS = f"{W}.an_unknown_flag_or_field_is_found_in_every_spelling_vllm_reads"
KNOWN_SILENT = f"{W}.flags_and_fields_vllm_knows_yield_nothing"
IGNORED = f"{W}.composed_sources_that_would_be_ignored_are_refused"
FIT = f"{W}.the_fit_weighs_the_manifest_at_the_recipes_utilization"
UTILIZATION = f"{W}.a_utilization_the_fit_cannot_read_is_refused_where_it_stands"
ADMITTED = f"{W}.with_a_log_the_recipe_is_admitted_by_its_group_and_hosts"
NOT_APPLIED = f"{W}.a_recipe_planned_without_a_log_is_not_applied"
SIXTEEN = f"{W}.a_sixteen_host_group_plans_as_four_do"
READBACK = f"{W}.readback_compares_a_tag_with_the_name_created_from"
ENV = f"{W}.env_and_entrypoint_that_would_break_the_argv_are_refused"
KEY = f"{W}.the_profile_key_digests_what_the_recipe_tells_the_engine"
SEED_ACCEPTED = f"{W}.the_seed_recipe_is_accepted"
ARG_ENV_PROBLEMS = "planner.recipe.arg_and_env_problems"
SERVE_ARGV = "planner.recipe.recipe_serve_argv"
COMPOSED_STEPS = "planner.recipe.composed_steps"


@mutant(
    replaces=SERVE_ARGV,
    turns_red={
        SIXTEEN,
        WHOLE_ARGV,
        PLAIN,
        PARALLEL,  # its rank 1 serves on a port instead of being headless
        FIELDS,  # so does the agreeing recipe's rank 1
    },
)
def every_node_told_it_is_rank_zero(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """Every node is planned as node rank 0, so all of them serve and none rendezvous."""
    return recipe_serve_argv(recipe, group, 0, model_path)


@mutant(
    replaces="planner.recipe.normalized_args",
    # the seed's quoted Engram JSON is not read as JSON, so its table_memory is not found
    turns_red={WHOLE_ARGV, QUOTING, SEED_WARNS, DECLARED},
)
def recipe_args_passed_with_their_shell_quotes(recipe: Recipe) -> tuple[str, ...]:
    """The args keep the recipe's shell quoting, so vLLM receives '...' around its JSON."""
    return recipe.args


@mutant(replaces="planner.recipe_launch.recipe_launch_plan", turns_red={KEY, WHOLE_ARGV})
def recipe_env_dropped(recipe: Recipe, group: FabricGroup) -> LaunchPlan:
    """The recipe's [env] table never reaches the containers."""
    return recipe_launch_plan(recipe.model_copy(update={"env": {}}), group)


@mutant(replaces=COMPOSED_STEPS, turns_red={f"{W}.local_files_win_over_the_snapshot", SEED_STEPS})
def local_files_linked_before_the_snapshot(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """Local files are hardlinked first and the snapshot's links then replace them."""
    steps = composed_steps(composed, snapshot, composed_dir, hf_cache_root)
    mkdir, rest = steps[0], steps[1:]
    return (mkdir, *(s for s in rest if s[1] == "-f"), *(s for s in rest if s[1] != "-f"))


@mutant(
    replaces=ARG_ENV_PROBLEMS,
    turns_red={
        UTILIZATION,
        ENV,
        SPELLINGS,
        IN_ORDER,
        SHAPE_WITH_OTHERS,
        MESSAGE,
        TWICE,
        NOT_SETTABLE,
    },
)
def launcher_owned_settings_let_through(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """A recipe may set the launcher's own flags and env: only bad JSON is reported."""
    return tuple(p for p in arg_and_env_problems(args, env) if p.message.startswith("not JSON"))


@mutant(
    replaces=ARG_ENV_PROBLEMS,
    # the bad JSON args of the all-problems claims are then reported twice, and the quoting
    # claim's JSON value is refused
    turns_red={
        KEY,
        NOT_APPLIED,
        READBACK,
        FIT,
        ADMITTED,
        SEED_ACCEPTED,
        WHOLE_ARGV,
        SEED_STEPS,
        IN_ORDER,
        QUOTING,
        TWICE,
        SEED_WARNS,
        DECLARED,
        UNKNOWN_SPELLINGS,
        KNOWN_SILENT,
        IGNORED,
    },
    independent=False,
)
def every_json_config_value_refused(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """Any JSON-valued arg is refused as not JSON, so a valid recipe is rejected."""
    items = args if isinstance(args, list) else []
    jsonish = tuple(
        RecipeProblem(where=f"args[{i}]", message="not JSON")
        for i, a in enumerate(items)
        if isinstance(a, str) and a.strip().strip("'")[:1] in ("{", "[")
    )
    return (*arg_and_env_problems(args, env), *jsonish)


@mutant(
    replaces="planner.recipe.load_recipe",
    # the hostile-positional and sealed-path claims also pair a type problem with their own
    turns_red={
        IN_ORDER,
        STRICT,
        POSITIONALS,
        SEALED,
        BAD_DECLARATION,  # a declared flag that is not a string, with the other problems
    },
)
def argument_problems_hidden_behind_structure(path: Path) -> Recipe:
    """When a field is missing, the problems of the args are not reported with it."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return load_recipe(path)  # unreadable files are not this defect
    found = structure_problems(raw)
    if found:
        raise RecipeInvalid(str(path), found)
    return load_recipe(path)


@mutant(
    replaces="planner.recipe.shape_problems",
    turns_red={SHAPE_WITH_OTHERS},
    independent=False,
)
def tp_not_checked_against_the_nodes(recipe: Recipe) -> tuple[RecipeProblem, ...]:
    """TP × PP is never compared with the node count."""
    return ()


@mutant(replaces="planner.recipe_launch.recipe_mounts", turns_red={WHOLE_ARGV}, independent=False)
def composed_mounts_writable(recipe: Recipe) -> tuple[BindMount, ...]:
    """The composed dir and the HF cache are bind-mounted writable, so a container can
    change the shared cache under every other node."""
    return tuple(m.model_copy(update={"read_only": False}) for m in recipe_mounts(recipe))


@mutant(replaces="planner.recipe_launch.recipe_mounts", turns_red={PLAIN}, independent=False)
def hf_cache_mounted_for_a_plain_recipe(recipe: Recipe) -> tuple[BindMount, ...]:
    """A recipe without a composed model still gets the HF cache mounted."""
    return recipe_mounts(recipe) or (BindMount(source=HF_CACHE_ROOT),)


@mutant(
    replaces="planner.recipe_launch.recipe_dry_run",
    turns_red={GROUP},
    independent=False,
)
def a_smaller_recipe_planned_on_the_first_hosts(sources: RecipeSources) -> DryRun:
    """A recipe for fewer nodes than the group is planned on the group's first hosts."""
    group, nodes = sources.group, sources.recipe.required_nodes
    part = group.model_copy(update={"hosts": group.hosts[:nodes]})
    return recipe_dry_run(sources.model_copy(update={"group": part}))


@mutant(replaces="planner.recipe_launch.recipe_dry_run", turns_red={SNAPSHOT}, independent=False)
def composed_model_served_by_id_without_a_manifest(sources: RecipeSources) -> DryRun:
    """Without its model's manifest the composed model is silently dropped and the repo id
    served instead of the composed dir."""
    if sources.manifest is not None:
        return recipe_dry_run(sources)
    recipe = sources.recipe.model_copy(update={"composed_model": None})
    return recipe_dry_run(sources.model_copy(update={"recipe": recipe}))


@mutant(replaces=COMPOSED_STEPS, turns_red={SEED_STEPS, LINKS}, independent=False)
def snapshot_linked_from_main_not_its_revision(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """The links point into snapshots/main instead of the manifest's revision."""
    moved = snapshot.model_copy(update={"revision": "main"})
    return composed_steps(composed, moved, composed_dir, hf_cache_root)


@mutant(
    replaces="planner.recipe._snapshot_dir",
    turns_red={LINKS},
)
def repo_folder_split_at_the_first_slash(manifest: CheckpointManifest, hf_cache_root: str) -> str:
    """The repo folder is always models--ORG--NAME, so a namespace-free id such as gpt2 gets
    models--gpt2-- and every link dangles."""
    org, _, name = manifest.model.partition("/")
    return f"{hf_cache_root}/models--{org}--{name}/snapshots/{manifest.revision}"


@mutant(replaces=SERVE_ARGV, turns_red={PARALLEL, FIELDS}, independent=False)
def parallel_sizes_repeated_after_the_args(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """TP and PP are appended from the fields even when the args already set them."""
    argv = recipe_serve_argv(recipe.model_copy(update={"args": ()}), group, rank, model_path)
    at = argv.index(model_path) + 1
    args = tuple(normalize_arg(a) for a in recipe.args)
    return (*argv[:at], *args, *argv[at:])


@mutant(replaces=SERVE_ARGV, turns_red={WHOLE_ARGV, PLAIN, PARALLEL, FIELDS}, independent=False)
def pipeline_parallel_size_dropped(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """The recipe's pipeline_parallel_size is validated but never rendered, so vLLM runs PP1."""
    argv = recipe_serve_argv(recipe, group, rank, model_path)
    if "--pipeline-parallel-size" in tuple(normalize_arg(a) for a in recipe.args):
        return argv
    at = argv.index("--pipeline-parallel-size")
    return (*argv[:at], *argv[at + 2 :])


@mutant(
    replaces="planner.recipe.normalize_arg",
    turns_red={QUOTING},
)
def every_surrounding_quote_stripped(arg: str) -> str:
    """All single quotes around an arg are stripped, not one pair: ''x'' loses both pairs
    and a lone quote vanishes."""
    return arg.strip().strip("'")


@mutant(replaces=ARG_ENV_PROBLEMS, turns_red={SPELLINGS}, independent=False)
def only_the_bare_flag_is_refused(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """--flag=value, a quoted or a whitespace-padded launcher flag slips through."""
    items = args if isinstance(args, list) else []
    return tuple(
        p
        for p in arg_and_env_problems(args, env)
        if not p.message.endswith("is launcher-owned")
        or items[int(p.where[5:-1])] in LAUNCHER_OWNED_FLAGS
    )


@mutant(replaces=ARG_ENV_PROBLEMS, turns_red={SPELLINGS}, independent=False)
def gloo_interface_left_to_the_recipe(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """A recipe may set GLOO_SOCKET_IFNAME, so Gloo can rendezvous off the fabric rail."""
    return tuple(p for p in arg_and_env_problems(args, env) if p.where != "env.GLOO_SOCKET_IFNAME")


@mutant(
    replaces="planner.recipe.structure_problems",
    # each locates a list item's type problem too
    turns_red={
        ENV,
        IN_ORDER,
        FIELDS,
        SEALED,
        BAD_DECLARATION,
    },
)
def list_items_located_with_dots(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """Structure problems locate list items as args.1 while arg problems say args[1]."""
    return tuple(
        p.model_copy(update={"where": re.sub(r"\[(\d+)\]", r".\1", p.where)})
        for p in structure_problems(raw)
    )


@mutant(
    replaces="planner.recipe.load_recipe",
    turns_red={SHAPE_WITH_OTHERS},
    independent=False,
)
def tp_problem_held_back_until_the_rest_is_clean(path: Path) -> Recipe:
    """A TP × PP that does not cover the nodes is reported only once nothing else is wrong,
    so the user fixes the flag and is refused again."""
    try:
        return load_recipe(path)
    except RecipeInvalid as invalid:
        others = tuple(p for p in invalid.problems if not p.message.startswith("TP "))
        raise RecipeInvalid(invalid.source, others or invalid.problems) from None


@mutant(
    replaces="planner.recipe.shape_problems",
    turns_red={SIXTEEN, TP_PP_ACCEPTED, PARALLEL},
    independent=False,
)
def pipeline_stages_not_counted(recipe: Recipe) -> tuple[RecipeProblem, ...]:
    """Only TP is compared with the nodes, so a TP2 × PP2 recipe over four nodes is refused."""
    return shape_problems(recipe.model_copy(update={"pipeline_parallel_size": 1}))


@mutant(
    replaces="planner.recipe.RecipeInvalid.__init__",
    turns_red={MESSAGE},
)
def message_lists_the_first_problem_only(
    self: RecipeInvalid, source: str, problems: tuple[RecipeProblem, ...]
) -> None:
    """The error's text names the count but lists only the first problem (what a program
    calling ``load_recipe`` reads; the command line prints each problem from the list, each
    escaped, so it does not see this)."""
    self.problems = problems
    first = f"{problems[0].where}: {problems[0].message}" if problems else ""
    PlannerInputError.__init__(self, source, f"{len(problems)} problem(s)", first)


@mutant(
    replaces="planner.recipe.load_recipe",
    turns_red={FILES},
    independent=False,
)
def toml_errors_located_at_the_end_of_file(path: Path) -> Recipe:
    """Every TOML syntax error is located at the end of file instead of its line and column."""
    try:
        return load_recipe(path)
    except RecipeInvalid:
        raise
    except PlannerInputError as error:
        if not error.message.startswith("malformed TOML"):
            raise
        raise PlannerInputError(error.source, "end of file", error.message) from None


@mutant(
    replaces="planner.recipe.structure_problems", turns_red={STRICT, IN_ORDER}, independent=False
)
def recipe_values_read_leniently(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """A recipe's values are validated in lax mode: ``"4"``, ``true`` and ``4.0`` are node
    counts, a date is an image name."""
    try:
        Recipe.model_validate(raw)
    except ValidationError as exc:
        return tuple(
            RecipeProblem(
                where=render_location(e["loc"]),
                message="required, missing"
                if e["type"] == "missing"
                else f"{e['msg']} (value {e.get('input')!r})",
            )
            for e in exc.errors()
        )
    return ()


# --------------------------------------------------------------- reading args as vLLM does


@mutant(
    replaces="planner.recipe._flexible",
    # the seed's --max_cudagraph_capture_size and the underscored spellings become unknown
    # (so --compilation_config={bad is a flag vLLM does not know, its JSON unchecked)
    turns_red={SPELLINGS, READING, TWICE, FIELDS, SEED_WARNS, DECLARED, UNKNOWN_SPELLINGS}
    | {KNOWN_SILENT, IN_ORDER},
)
def underscores_stay_underscores(arg: str) -> str:
    """vLLM's rewrite of ``_`` to ``-`` in a flag's name is not applied: ``--node_rank``
    passes as a flag vLLM does not know, though vLLM reads it as ``--node-rank``."""
    return arg


Resolved = tuple[str | None, str, str | None, tuple[str, ...]]


@mutant(
    replaces="planner.recipe.resolve_option",
    # --max-num-seq is unknown and the declared --max-model stale instead of stock (and
    # --override-gen={x unknown, its JSON unchecked)
    turns_red={SPELLINGS, READING, TWICE, FIELDS, KNOWN_SILENT, BAD_DECLARATION, IN_ORDER},
)
def prefixes_are_not_flags(arg: str) -> Resolved:
    """Only a flag's whole name (with or without ``=value``) is recognised: argparse's
    abbreviations (``--nnode``, ``--head``) pass, though vLLM reads them as the flag."""
    dest, option, value, matches = resolve_option(arg)
    whole = option in ("", arg.partition("=")[0]) or (len(option) == 2 and arg[:2] == option)
    if not whole:
        return None, arg.partition("=")[0], None, ()
    return dest, option, value, matches


@mutant(replaces="planner.recipe.resolve_option", turns_red={SPELLINGS, READING}, independent=False)
def a_short_flag_takes_no_glued_value(arg: str) -> Resolved:
    """``-r1`` is not read as ``-r 1``: a short alias with its value glued on passes."""
    dest, option, value, matches = resolve_option(arg)
    if len(option) == 2 and arg != option and not arg.startswith(f"{option}="):
        return None, arg, None, ()
    return dest, option, value, matches


@mutant(
    replaces="planner.recipe.resolve_option",
    turns_red={SPELLINGS, READING, BAD_DECLARATION},  # a declared --master too
    independent=False,
)
def an_ambiguous_prefix_is_its_first_match(arg: str) -> Resolved:
    """An ambiguous prefix is read as the first option it could be, where argparse refuses
    it: ``--master`` is reported as ``--master-addr``."""
    dest, option, value, matches = resolve_option(arg)
    if matches:
        return resolve_option(matches[0])[0], matches[0], None, ()
    return dest, option, value, matches


@mutant(replaces="planner.recipe.SettingsSeen.earlier", turns_red={TWICE})
def a_flag_may_be_given_twice(self: SettingsSeen, reading: ArgReading) -> int | None:
    """A repeated flag is never noticed; vLLM silently keeps the last."""
    return None


@mutant(replaces="planner.recipe.SettingsSeen.earlier", turns_red={TWICE}, independent=False)
def a_dotted_key_never_meets_its_whole_config(
    self: SettingsSeen, reading: ArgReading
) -> int | None:
    """A dotted key after its whole config (``--compilation-config {}`` then
    ``--compilation-config.mode 3``) is not a repeat, though vLLM's merged JSON replaces it."""
    return self.first_key.get((reading.dest or reading.option, reading.key))


@mutant(replaces="planner.recipe.field_problems", turns_red={FIELDS})
def args_override_the_fields(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """An arg may set TP, PP or the backend to anything: ``--tensor-parallel-size 8`` wins
    over the checked ``tensor_parallel_size = 4``."""
    return ()


@mutant(replaces=SERVE_ARGV, turns_red={FIELDS}, independent=False)
def the_fields_are_rendered_unless_spelled_in_full(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """TP and PP are rendered unless the args hold ``--tensor-parallel-size`` or
    ``--pipeline-parallel-size`` verbatim, so ``-tp 4`` gets a second TP flag."""
    args = normalized_args(recipe)
    head = serving_head(group).rail_address
    owned = ("--nnodes", str(group.size), "--node-rank", str(rank), "--master-addr", head)
    fields = (
        *(
            ()
            if "--tensor-parallel-size" in args
            else ("--tensor-parallel-size", str(recipe.tensor_parallel_size))
        ),
        *(
            ()
            if "--pipeline-parallel-size" in args
            else ("--pipeline-parallel-size", str(recipe.pipeline_parallel_size))
        ),
    )
    role = ("--port", str(RECIPE_SERVE_PORT)) if rank == 0 else ("--headless",)
    port = ("--master-port", str(RECIPE_RENDEZVOUS_PORT))
    return (*recipe.entrypoint[1:], model_path, *args, *fields, *owned, *port, *role)


@mutant(replaces="planner.recipe.arg_problem", turns_red={SPELLINGS})
def a_recipe_port_is_left_to_the_launchers(
    arg: str, reading: ArgReading, seen: SettingsSeen
) -> str | None:
    """A recipe's ``--port`` passes, and the launcher's ``--port`` after it wins silently."""
    if reading.dest == "port":
        return None
    return arg_problem(arg, reading, seen)


@mutant(replaces=ARG_ENV_PROBLEMS, turns_red={NOT_SETTABLE}, independent=False)
def model_config_help_and_double_dash_pass(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """``--model``, ``--config``, ``-h`` and ``--`` are left to vLLM."""
    return tuple(
        p
        for p in arg_and_env_problems(args, env)
        if not any(w in p.message for w in ("model field", "cannot check", "help", "ends vLLM"))
    )


@mutant(replaces=ARG_ENV_PROBLEMS, turns_red={NOT_SETTABLE}, independent=False)
def a_nul_byte_in_an_arg_passes(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """An arg holding a NUL byte is accepted (no argv can carry it)."""
    return tuple(p for p in arg_and_env_problems(args, env) if p.message != "holds a NUL byte")


@mutant(replaces="planner.recipe.value_problems", turns_red={ENV, POSITIONALS})
def the_positionals_are_not_checked(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """The image and the model are taken as written: ``--privileged`` reaches docker."""
    return ()


@mutant(
    replaces="planner.recipe.value_problems",
    turns_red={POSITIONALS},
    independent=False,
)
def only_the_image_is_checked(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """The model is taken as written: ``-tp`` as the model reaches vLLM as a flag."""
    return tuple(p for p in value_problems(raw) if p.where != "model")


_REPO = "composed_model.sources[0].repo"


@mutant(replaces="planner.recipe.composed_problems", turns_red={SEALED})
def the_composed_names_are_not_sealed(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """A model named ``..`` or a local file with no name is not refused at load."""
    return tuple(p for p in composed_problems(raw) if "escapes the sealed" not in p.message)


@mutant(
    replaces="planner.recipe.composed_problems",
    turns_red={SNAPSHOT},
    independent=False,
)
def another_repo_linked_as_the_models_snapshot(
    raw: dict[str, object],
) -> tuple[RecipeProblem, ...]:
    """A composed model whose source is another repo than the recipe's model is accepted:
    the model's snapshot is linked under the other repo's name."""
    return tuple(p for p in composed_problems(raw) if p.where != _REPO)


@mutant(replaces=COMPOSED_STEPS, turns_red={SEALED}, independent=False)
def manifest_paths_are_joined_unsealed(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """The manifest's file paths are joined to the composed dir as written, so
    ``../../etc/cron.d/x`` links outside it."""
    folder = "--".join(("models", *snapshot.model.split("/")))  # the HF cache's naming
    source = f"{hf_cache_root}/{folder}/snapshots/{snapshot.revision}"
    links = tuple(
        ("ln", "-sfn", "--", f"{source}/{f.path}", f"{composed_dir}/{f.path}")
        for f in snapshot.files
    )
    no_files = snapshot.model_copy(update={"files": ()})
    mkdir, *locals_ = composed_steps(composed, no_files, composed_dir, hf_cache_root)
    return (mkdir, *links, *locals_)


@mutant(replaces="planner.recipe.composed_source_problems", turns_red={IGNORED})
def a_second_composed_source_is_ignored(sources: object, model: str) -> tuple[RecipeProblem, ...]:
    """A composed model's sources after the first are accepted and never linked: the
    operator believes a second repo's files are in the model."""
    return tuple(
        p for p in composed_source_problems(sources, model) if p.where.endswith("[0].repo")
    )


@mutant(replaces="planner.recipe.local_file_problems", turns_red={IGNORED})
def a_local_file_at_a_taken_name_replaces_the_other(
    files: object, where: str
) -> tuple[RecipeProblem, ...]:
    """Two local files at one name are accepted: the later hardlink silently replaces the
    earlier shard."""
    return tuple(p for p in local_file_problems(files, where) if "links at" not in p.message)


OTHERS = f"{W}.a_composed_model_another_user_could_change_is_refused"


@mutant(replaces=COMPOSED_STEPS, turns_red={OTHERS, SEED_STEPS}, independent=False)
def the_composed_dir_is_made_with_mkdir_p(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """The composed dir is made with ``mkdir -p`` and never checked: a directory another
    local user made there first is theirs, and so is every weight linked into it."""
    _, *rest = composed_steps(composed, snapshot, composed_dir, hf_cache_root)
    return (("mkdir", "-p", "--", composed_dir), *rest)


@mutant(replaces=COMPOSED_STEPS, turns_red={OTHERS, SEED_STEPS}, independent=False)
def hardlinked_local_files_are_not_checked(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """Local files are hardlinked whoever owns them: the owner of a shard changes, in place,
    the weights the container reads."""
    steps = composed_steps(composed, snapshot, composed_dir, hf_cache_root)
    return steps[:-1] if composed.local_files else steps


@mutant(replaces="planner.recipe.group_refusals", turns_red={GROUP})
def any_group_size_is_planned(
    recipe: Recipe, group: FabricGroup, source: str
) -> tuple[Refusal, ...]:
    """A recipe for another node count than the group's is planned over the group anyway."""
    return ()


@mutant(replaces="planner.recipe.group_refusals", turns_red={GROUP}, independent=False)
def the_group_refusal_has_no_hint(
    recipe: Recipe, group: FabricGroup, source: str
) -> tuple[Refusal, ...]:
    """The refusal says what is wrong but not what to do about it."""
    return tuple(r.model_copy(update={"hint": ""}) for r in group_refusals(recipe, group, source))


# ------------------------------------------------------------------------ a recipe as an arm
UNKNOWN = f"{W}.a_model_without_a_manifest_is_refused_weight_unknown"


@mutant(replaces="planner.recipe_launch.recipe_utilization", turns_red={FIT})
def the_default_utilization_always(recipe: Recipe) -> RecipeUtilization:
    """The fit reads vLLM's default utilization whatever the recipe's args say."""
    return RecipeUtilization(gpu_memory_utilization_bp=VLLM_DEFAULT_UTILIZATION_BP)


@mutant(replaces="planner.recipe_launch.uses_engram", turns_red={FIT})
def engram_recipes_charged_no_page_cache(recipe: Recipe) -> bool:
    """A recipe that configures Engram is fitted as if its table rows took no page cache."""
    return False


@mutant(
    replaces="planner.recipe_launch.recipe_weight",
    turns_red={GROUP, SIXTEEN, SEED_ACCEPTED, ADMITTED, FIT},
    independent=False,
)
def every_manifest_file_weighed(recipe: Recipe, manifest: CheckpointManifest) -> RecipeWeight:
    """The config and Engram table files are weighed as weights too."""
    everything = tuple(f.model_copy(update={"role": "weights"}) for f in manifest.files)
    return recipe_weight(recipe, manifest.model_copy(update={"files": everything}))


@mutant(replaces="planner.recipe_launch.recipe_fit", turns_red={FIT, SNAPSHOT, UNKNOWN})
def an_unknown_weight_is_not_refused(sources: RecipeSources) -> tuple[Fit | None, tuple[()]]:
    """A model with no manifest is planned with no fit and no refusal: the wall is skipped."""
    fit, _ = recipe_fit(sources)
    return fit, ()


@mutant(replaces="planner.recipe.utilization_bp", turns_red={UTILIZATION})
def any_number_is_a_utilization(text: str) -> int:
    """The utilization is read as a float and rounded: 1.5 and 0.88888 pass, and 0."""
    return round(float(text) * 10000)


def _admission_without(
    code: str, state: AuthorityState, group: FabricGroup, candidate: Candidate, image: str
) -> AdmissionVerdict:
    """The recipe's admission with every refusal of ``code`` dropped: that conjunct unchecked."""
    verdict = recipe_launch_admission(state, group, candidate, image)
    kept = tuple(r for r in verdict.refusals if r.code != code)
    return verdict.model_copy(update={"refusals": kept})


@mutant(replaces="planner.admission.recipe_launch_admission", turns_red={ADMITTED})
def a_recipe_admitted_without_the_held_hosts(
    state: AuthorityState, group: FabricGroup, candidate: Candidate, image: str
) -> AdmissionVerdict:
    """A recipe's admission checks the suspension but not who holds the hosts."""
    return _admission_without("admission.host_not_held", state, group, candidate, image)


@mutant(
    replaces="planner.admission.recipe_launch_admission", turns_red={ADMITTED}, independent=False
)
def a_recipe_admitted_for_any_successor(
    state: AuthorityState, group: FabricGroup, candidate: Candidate, image: str
) -> AdmissionVerdict:
    """A recipe is admitted whichever candidate the group is suspended for."""
    return _admission_without("admission.other_successor", state, group, candidate, image)


@mutant(
    replaces="planner.admission.recipe_launch_admission", turns_red={ADMITTED}, independent=False
)
def an_image_by_tag_passes_as_admitted(
    state: AuthorityState, group: FabricGroup, candidate: Candidate, image: str
) -> AdmissionVerdict:
    """The image conjunct a tag cannot satisfy is silently dropped, not reported unchecked."""
    return recipe_launch_admission(state, group, candidate, image).model_copy(
        update={"unchecked": ()}
    )


@mutant(
    replaces="planner.arm_launch.DryRun.admitted",
    turns_red={SEED_ACCEPTED, NOT_APPLIED},
    independent=False,
)
def a_plan_with_no_log_counts_as_admitted(self: DryRun) -> bool:
    """A rendered plan with no refusal is admitted even when no log was read (a recipe with
    no --authority), so planner apply would run it."""
    return self.rendered and not self.refusals


@mutant(replaces=SERVE_ARGV, turns_red={PARALLEL, SIXTEEN}, independent=False)
def nnodes_from_the_tensor_parallel_size(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """--nnodes is rendered as the recipe's TP, which equals the node count only when PP is 1."""
    argv = recipe_serve_argv(recipe, group, rank, model_path)
    at = argv.index("--nnodes") + 1
    return (*argv[:at], str(recipe.tensor_parallel_size), *argv[at + 1 :])


@mutant(replaces="planner.apply.image_field", turns_red={READBACK})
def readback_compares_the_image_id_with_a_tag(image: str) -> str:
    """Readback compares the container's image id with the recipe's tag, which never match."""
    return "{{.Image}}"


@mutant(replaces="planner.recipe.env_problem", turns_red={ENV})
def only_launcher_owned_env_is_refused(key: str, value: object) -> str | None:
    """Env keys and values are taken as written unless the launcher owns the key."""
    return "set per node by the launcher" if key in LAUNCHER_OWNED_ENV else None


@mutant(replaces="planner.recipe.env_problem", turns_red={ENV}, independent=False)
def an_escape_in_an_env_value_passes(key: str, value: object) -> str | None:
    """Only a NUL or a line break is refused in an env value: an escape sequence reaches the
    report and the operator's terminal."""
    raw = isinstance(value, str) and not any(c in value for c in "\0\n\r")
    return env_problem(key, "x" if raw else value)


@mutant(replaces="planner.recipe.entrypoint_problems", turns_red={ENV})
def the_words_after_the_program_pass(entrypoint: list[object]) -> tuple[RecipeProblem, ...]:
    """Only the entrypoint's program is checked: ``vllm serve --headless`` or a newline after
    it reaches the argv outside every rule the args are held to."""
    return tuple(p for p in entrypoint_problems(entrypoint) if p.where == "entrypoint[0]")


def _args_problems_but(
    args: object, env: object, dropped: Callable[[str, RecipeProblem], bool]
) -> tuple[RecipeProblem, ...]:
    items = args if isinstance(args, list) else []
    served = {f"args[{i}]": normalize_arg(a) for i, a in enumerate(items) if isinstance(a, str)}
    return tuple(
        p for p in arg_and_env_problems(args, env) if not dropped(served.get(p.where, ""), p)
    )


@mutant(replaces=ARG_ENV_PROBLEMS, turns_red={NOT_SETTABLE}, independent=False)
def a_line_break_in_an_arg_passes(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """An arg may hold a line break or an escape sequence: it forges a line of the report."""
    return _args_problems_but(args, env, lambda _, p: p.message.startswith("holds U+"))


@mutant(replaces="planner.recipe._model_in", turns_red={IN_ORDER})
def a_nested_key_is_matched_only_in_a_bare_model(annotation: object) -> type[BaseModel] | None:
    """The table a misspelled key sits in is found only when its field holds a bare model,
    not through ``X | None`` or ``tuple[X, ...]``: a typo in a nested table gets no ``did
    you mean``."""
    return (
        annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    )


@mutant(replaces=ARG_ENV_PROBLEMS, turns_red={IN_ORDER}, independent=False)
def json_is_checked_only_as_the_next_arg(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """``--flag {…}`` is checked, but ``--flag={…}`` (or ``-ac=[…``) reaches vLLM unread."""
    return _args_problems_but(
        args, env, lambda arg, p: arg.startswith("-") and p.message.startswith("not JSON")
    )


# --- what the image adds to stock vLLM (planner.recipe_extensions) ---


@mutant(
    replaces="planner.recipe_extensions.unknown_settings",
    turns_red={SEED_WARNS, DECLARED, BAD_DECLARATION, UNKNOWN_SPELLINGS},
)
def config_fields_are_not_checked(readings: Sequence[ArgReading]) -> tuple[Unknown, ...]:
    """Only unknown flags are found: the seed's Engram ``table_memory`` passes silently to a
    stock parser that refuses it."""
    return tuple(u for u in unknown_settings(readings) if u.config_class is None)


@mutant(
    replaces="planner.recipe_extensions._unknown_fields",
    turns_red={SEED_WARNS, DECLARED, UNKNOWN_SPELLINGS, KNOWN_SILENT},
    # it reads the config JSON itself: combined with the mutant that keeps the args' shell
    # quotes, that JSON no longer parses and the seed recipe cannot be planned at all
    independent=False,
)
def every_config_key_is_unknown(reading: ArgReading, dest: str) -> list[Unknown]:
    """The fields stock vLLM has are not consulted: every key of a checked config flag is
    reported (``cudagraph_mode``, ``cpu_offload``), so a correct recipe is flooded with
    warnings."""
    config_class = next(name for d, name, _ in CONFIG_FIELDS if d == dest)
    long = next(o for d, options in SERVE_ACTIONS if d == dest for o in options if o[1] == "-")
    decoded = json.loads(reading.value) if reading.value and not reading.key else {}
    keys = [reading.key[0].removesuffix("+")] if reading.key else list(decoded)
    return [Unknown(reading.at, f"{long}.{k}", f"{long}.{k}", config_class) for k in keys]


@mutant(
    replaces="planner.recipe_extensions._json_keys",
    turns_red={SEED_WARNS, DECLARED, UNKNOWN_SPELLINGS},
)
def json_config_values_are_not_read(value: str | None) -> list[str]:
    """A config flag's JSON value is not looked into: only dotted keys are checked, so the
    seed's ``{"table_memory":"disk"}`` passes."""
    return []


@mutant(
    replaces="planner.recipe_extensions.StockParserFinding.line",
    turns_red={SEED_WARNS, DECLARED, UNKNOWN_SPELLINGS},
)
def the_line_does_not_name_the_build_profile(self: StockParserFinding) -> str:
    """The line names the image but not its build profile (nor that there is none)."""
    text = StockParserFinding.line(self)
    profile = f"build profile {self.build_profile}" if self.build_profile else "no build profile"
    return text.replace(f" ({profile})", "")


@mutant(
    replaces="planner.recipe_extensions.StockParserFinding.line",
    turns_red={UNKNOWN_SPELLINGS},
    independent=False,
)
def the_line_hides_how_the_arg_was_written(self: StockParserFinding) -> str:
    """An arg written ``--prefill_compute_share`` or as a prefix is shown only under its
    vLLM name, so the recipe line it came from is not recognisable."""
    return StockParserFinding.line(self.model_copy(update={"written": self.spelling}))


@mutant(
    replaces="planner.recipe_extensions._declared_at",
    turns_red={DECLARED, UNKNOWN_SPELLINGS},
)
def a_declaration_changes_nothing(
    unknown: Unknown, flags: DeclaredNames, fields: DeclaredNames
) -> tuple[str, str | None]:
    """A declared flag or field still warns: the declaration is validated but never used."""
    return unknown.spelling, None


@mutant(
    replaces="planner.recipe_extensions.declared_spelling",
    turns_red={UNKNOWN_SPELLINGS},
)
def only_a_whole_declared_flag_covers_an_arg(unknown: Unknown, flags: DeclaredNames) -> str | None:
    """A prefix of a declared flag (``--zq-long-fl``) is not read as that flag, though the
    image's argparse reads it so."""
    return unknown.spelling if unknown.spelling in flags.first else None


Found = tuple[tuple[str, str], ...]


def _declaration_problems_but(
    declared: object,
    readings: Sequence[ArgReading],
    read: Reader,
    dropped: Callable[[str, str], bool],
) -> Found:
    found = declaration_problems(declared, readings, read)
    return tuple((where, message) for where, message in found if not dropped(where, message))


@mutant(replaces="planner.recipe_extensions.declaration_problems", turns_red={BAD_DECLARATION})
def a_stale_flag_declaration_passes(
    declared: object, readings: Sequence[ArgReading], read: Reader
) -> Found:
    """A declared flag no arg sets is accepted: the declaration outlives the flag."""
    return _declaration_problems_but(
        declared, readings, read, lambda w, m: ".flags[" in w and m.startswith("no arg sets")
    )


@mutant(
    replaces="planner.recipe_extensions.declaration_problems",
    turns_red={BAD_DECLARATION},
    independent=False,
)
def a_stock_flag_may_be_declared(
    declared: object, readings: Sequence[ArgReading], read: Reader
) -> Found:
    """A flag stock vLLM has (``--max-model-len``, or the prefix ``--max-model``) may be
    declared as the image's own, where it would hide nothing."""
    return _declaration_problems_but(
        declared, readings, read, lambda w, m: ".flags[" in w and "hides nothing" in m
    )


@mutant(
    replaces="planner.recipe_extensions.declaration_problems",
    turns_red={BAD_DECLARATION},
    independent=False,
)
def any_config_field_may_be_declared(
    declared: object, readings: Sequence[ArgReading], read: Reader
) -> Found:
    """A declared config field is only checked for its shape: a field stock vLLM has or no
    arg sets passes."""
    return _declaration_problems_but(
        declared, readings, read, lambda w, m: ".config_fields[" in w and "<option>" not in m
    )


NAMED = f"{W}.a_recipe_runs_as_its_name_from_its_own_entrypoint"
NAME_GRAMMAR = f"{W}.a_name_docker_or_systemd_would_misread_is_refused"
MOUNTED = f"{W}.a_composed_model_is_not_mounted_over_the_root_or_the_cache"


@mutant(replaces="planner.recipe.mount_problems", turns_red={MOUNTED})
def a_composed_model_may_be_mounted_at_the_root(
    raw: dict[str, object],
) -> tuple[RecipeProblem, ...]:
    """A composed model mounted at ``/`` is planned: the container sees nothing of its image."""
    return tuple(p for p in mount_problems(raw) if not p.message.startswith("'/' "))


@mutant(replaces="planner.recipe.mount_problems", turns_red={MOUNTED}, independent=False)
def only_the_cache_itself_collides(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """A mount inside the HF cache or around it passes; only the cache's own path collides."""
    composed = raw.get("composed_model")
    mount = composed.get("mount") if isinstance(composed, dict) else None
    found = mount_problems(raw)
    return found if mount in ("/", HF_CACHE_ROOT) else ()


@mutant(replaces="planner.identity.arm_name", turns_red={NAME_GRAMMAR})
def a_safe_name_is_an_arm_name(value: str) -> str:
    """Any safe name is taken (the old rule): ``a@b:c`` plans a container docker refuses
    and a unit systemd reads as an instance of template ``a@.service``."""
    return safe_name(value)


@mutant(replaces="planner.identity.arm_name", turns_red={NAME_GRAMMAR}, independent=False)
def the_unit_names_length_is_not_checked(value: str) -> str:
    """Only docker's grammar is checked: a name whose unit names pass systemd's 255
    characters is planned."""
    arm_name(value[:200])  # the grammar, on all of any name its units' length allows
    return value


@mutant(replaces="planner.recipe_launch.recipe_identities", turns_red={NAMED})
def every_recipe_started_by_vllm(
    recipe: Recipe, name: str
) -> tuple[ArmContainerIdentity, ArmUnitIdentity]:
    """The recipe's entrypoint program is dropped: every container starts ``vllm``, so a
    recipe whose image runs vLLM another way starts the wrong program."""
    container, units = recipe_identities(recipe, name)
    return container.model_copy(update={"entrypoint": "vllm"}), units


@mutant(replaces="planner.recipe_launch.recipe_key", turns_red={KEY})
def the_key_ignores_the_env(recipe: Recipe) -> str:
    """The profile key leaves the env out: two recipes serving differently share a key."""
    return recipe_key(recipe.model_copy(update={"env": {}}))
