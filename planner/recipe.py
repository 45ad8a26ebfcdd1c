"""Launcher recipes (TOML): read and validated with every problem located; the serve argv
and composed-model steps each node runs. :mod:`planner.recipe_launch` plans a recipe through
the arms' own path (fit, realization, apply scripts, admission, report).

A recipe names an image, a model, vLLM args and env, and optionally a composed model: a
per-node directory where the repo snapshot is symlinked from the HF cache and local files
are hardlinked over it (local files win at the same name). The launcher owns the
multi-node flags (``--nnodes/--node-rank/--master-addr/--master-port/--headless``), the
head's ``--port`` and the per-node fabric env; a recipe that sets them is refused, located,
with every other problem.

The args are read as vLLM's own parser reads them (:func:`read_args`): its rewrite of
``_`` to ``-`` in flag names and of dotted config keys, then argparse's exact, ``=value``,
unambiguous-prefix and short-alias forms over vLLM's option table
(:mod:`planner.vllm_serve_options`). So ``--node_rank``, ``--nnode``, ``-r1`` are the
launcher's flags too, a flag set twice in any two spellings is refused (vLLM keeps the last
silently), and TP, PP or the backend in the args must agree with the recipe's fields.

Every text a recipe gives that reaches an argv or the report is one line of printable text
(args, entrypoint words, env values, name, build profile, image dir, parent model). The
entrypoint's words after its program hold no option (vLLM's options go in ``args``, where
they are read and checked), and the checks are linear in the recipe's size (settings are
looked up in indexes, never searched for among the args before).
"""

from __future__ import annotations

import json
import re
import tomllib
from bisect import bisect_left
from collections.abc import Sequence
from decimal import Decimal
from itertools import islice
from pathlib import Path, PurePosixPath
from typing import Literal, NamedTuple, get_args

from pydantic import BaseModel, Field, ValidationError
from pydantic_core import ErrorDetails

from planner.checkpoint import CheckpointManifest
from planner.engram import FileTreeScope
from planner.fabric import FabricGroup, serving_head
from planner.recipe_extensions import ImageExtensions, declaration_problems
from planner.refusal import PlannerInputError, Refusal, refusal, render_location
from planner.values import (
    INT_RANGE,
    Frozen,
    OneLine,
    SafeName,
    SafePath,
    did_you_mean,
    printable,
    read_text_file,
    safe_name,
    safe_path,
)
from planner.vllm_serve_options import APPEND_DESTS, SERVE_ACTIONS, VLLM_VERSION

# every flag recipe_serve_argv renders but the fields' TP/PP (the head's --port too: a recipe's
# own would be overridden by it silently); tests check each is a vLLM option of its dest
LAUNCHER_OWNED_FLAGS = (
    "--nnodes",
    "--node-rank",
    "--master-addr",
    "--master-port",
    "--headless",
    "--port",
)
LAUNCHER_OWNED_DESTS = ("nnodes", "node_rank", "master_addr", "master_port", "headless", "port")
# vLLM dests a recipe field sets: an arg setting one must agree with the field
FIELD_DESTS: dict[str | None, str] = {
    "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size",
    "distributed_executor_backend": "distributed_backend",
}
# vLLM dests no recipe arg may set, and why
REFUSED_DESTS = {
    "model": "names the model, which is the recipe's model field",
    "config": "reads more flags from a file the launcher cannot check",
    "help": "makes vLLM print its help and exit",
}
LAUNCHER_OWNED_ENV = ("VLLM_HOST_IP", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")
HF_CACHE_ROOT = "/var/lib/gunbc/hf-cache"
COMPOSED_ROOT = "/var/lib/gunbc/composed"
"""Beside the HF cache, never in a world-writable /tmp (another local user who made the
directory first would own the model); on /var, so local files under /var/tmp hardlink."""
RECIPE_RENDEZVOUS_PORT = 29521
RECIPE_SERVE_PORT = 8000
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


class ComposedSource(Frozen):
    repo: str


class ComposedLocalFile(Frozen):
    host: SafePath


class ComposedModel(Frozen):
    mount: SafePath
    sources: tuple[ComposedSource, ...] = Field(min_length=1)
    local_files: tuple[ComposedLocalFile, ...] = ()


class Recipe(Frozen):
    """A launcher recipe as written; ``args`` are normalized by :func:`normalized_args`."""

    engine: Literal["vllm"]
    name: OneLine
    docker_image: str
    # texts the report shows (the build profile is the candidate's runtime key): one line
    docker_image_dir: OneLine | None = None
    build_profile: OneLine | None = None
    model: str
    parent_model: OneLine | None = None
    required_nodes: int = Field(ge=1)
    tensor_parallel_size: int = Field(ge=1)
    pipeline_parallel_size: int = Field(default=1, ge=1)
    distributed_backend: Literal["mp"]
    shm_size: SafeName
    entrypoint: tuple[str, ...] = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    composed_model: ComposedModel | None = None
    image_extensions: ImageExtensions | None = None

    def arg_readings(self) -> tuple[ArgReading, ...]:
        """The args as vLLM's serve parser reads them (:func:`read_args`)."""
        return read_args(normalized_args(self))


class RecipeProblem(Frozen):
    where: str
    message: str


class RecipeInvalid(PlannerInputError):
    """Every problem of a recipe, each located; raised once, with all of them."""

    def __init__(self, source: str, problems: tuple[RecipeProblem, ...]) -> None:
        self.problems = problems
        listing = "".join(f"\n  {p.where}: {p.message}" for p in problems)
        super().__init__(source, f"{len(problems)} problem(s)", listing.removeprefix("\n  "))


def normalize_arg(arg: str) -> str:
    """Strip the shell quoting a recipe's multi-line values carry: whitespace, one '…' pair."""
    text = arg.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        text = text[1:-1]
    return text


def normalized_args(recipe: Recipe) -> tuple[str, ...]:
    return tuple(normalize_arg(a) for a in recipe.args)


_OPTION_DEST = {option: dest for dest, options in SERVE_ACTIONS for option in options}
_CANONICAL = {
    dest: next(o for o in options if o.startswith("--")) for dest, options in SERVE_ACTIONS
}
# the options sorted, so the ones a prefix starts are found by bisection, not by a scan of the
# table per arg; then listed in the table's order (argparse's, for an ambiguous prefix)
_SORTED_OPTIONS = sorted(_OPTION_DEST)
_TABLE_ORDER = {option: i for i, option in enumerate(_OPTION_DEST)}
# argparse's own pattern (Python 3.11): what looks like a negative number is a value
_NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")
_FLAG_NAME = re.compile(r"(?<=--)[^.]*")
_LEVELS = ("0", "1", "2", "3")


class ArgReading(NamedTuple):
    """What vLLM's serve parser makes of ``args[at]``.

    ``dest`` is the action it sets (``None``: a flag vLLM does not know, or ``--``);
    ``option`` the option string it resolved to (a flag vLLM does not know keeps its own
    name; ``""`` for a value); ``value`` the part after ``=`` or a short flag's tail, else
    the next arg when that is a value; ``key`` a dotted config key's path; ``matches`` the
    options an ambiguous prefix could be."""

    at: int
    arg: str
    dest: str | None
    option: str
    value: str | None
    key: tuple[str, ...] = ()
    matches: tuple[str, ...] = ()


def _flexible(arg: str) -> str:
    """vLLM's rewrite of a ``--`` flag: ``_`` to ``-`` in its name, before any ``.``/``=``."""
    if not arg.startswith("--"):
        return arg
    name, eq, value = arg.partition("=")
    return _FLAG_NAME.sub(lambda m: m.group(0).replace("_", "-"), name, count=1) + eq + value


def resolve_option(arg: str) -> tuple[str | None, str, str | None, tuple[str, ...]]:
    """(dest, option, explicit value, ambiguous matches) of one rewritten arg, as argparse
    (Python 3.11, abbreviations allowed) resolves it against vLLM's option table."""
    if not arg.startswith("-") or len(arg) == 1:
        return None, "", None, ()
    if arg in _OPTION_DEST:
        return _OPTION_DEST[arg], arg, None, ()
    name, eq, explicit = arg.partition("=")
    if eq and name in _OPTION_DEST:
        return _OPTION_DEST[name], name, explicit, ()
    if arg[1] == "-":  # a long flag: any option it is a prefix of (before '=')
        found = [(o, explicit if eq else None) for o in _options_starting(name)]
    else:  # a short one: a two-character option with its value glued on, or a prefix
        glued = {arg[:2]} & _OPTION_DEST.keys()
        found = [
            (o, arg[2:] if o == arg[:2] else None)
            for o in sorted(glued | set(_options_starting(arg)), key=_TABLE_ORDER.__getitem__)
        ]
    if len(found) > 1:
        return None, name, None, tuple(o for o, _ in found)
    if found:
        return _OPTION_DEST[found[0][0]], found[0][0], found[0][1], ()
    if _NEGATIVE.match(arg) or " " in arg:
        return None, "", None, ()
    return None, name, None, ()


def _options_starting(prefix: str) -> list[str]:
    """The options ``prefix`` starts, in the table's order."""
    found = []
    for option in islice(_SORTED_OPTIONS, bisect_left(_SORTED_OPTIONS, prefix), None):
        if not option.startswith(prefix):
            break
        found.append(option)
    return sorted(found, key=_TABLE_ORDER.__getitem__)


def read_args(args: Sequence[str]) -> tuple[ArgReading, ...]:
    """Each option of ``args`` as vLLM's serve parser reads it (:func:`read_spelled`)."""
    return tuple(reading for reading, _ in read_spelled(args))


def read_spelled(args: Sequence[str]) -> tuple[tuple[ArgReading, bool], ...]:
    """Each option of ``args`` as vLLM's serve parser reads it (values are not listed), and
    whether its value is spelled inside the arg itself (``--x=v``, ``-cc{…}``, ``-O3``)
    rather than taken from the next arg.

    First vLLM's own rewrite (``FlexibleArgumentParser.parse_args``): ``_`` to ``-`` in a
    ``--`` flag's name, ``-O3``/``-O 3`` as ``--optimization-level``, a dotted key
    (``--engram-config.cpu_offload true``) as its config flag, taking the next arg as its
    value; then argparse's resolution (:func:`resolve_option`). After ``--`` every arg is
    positional."""
    readings: list[tuple[ArgReading, bool]] = []
    taken: set[int] = set()  # the args a dotted key took as its value
    for index, arg in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else None
        if index in taken:
            continue
        if arg == "--":
            readings.append((ArgReading(index, arg, None, "--", None), False))
            break
        name = _flexible(arg)
        if arg.startswith("-O") and arg != "-O":
            name = "--optimization-level=" + (arg[3:] if arg[2] == "=" else arg[2:])
        elif arg == "-O" and following in _LEVELS:
            name = "--optimization-level"
        head, eq, tail = name.partition("=")
        key: tuple[str, ...] = ()
        if name.startswith("-") and "." in head:
            name, *path = head.split(".")
            key = tuple(path)
            if eq:
                following = tail
            else:
                taken.add(index + 1)
        dest, option, value, matches = resolve_option(name)
        if option == "":
            continue
        inline = value is not None or bool(key and eq)
        if value is None and following is not None and (key or _is_value(following)):
            value = following
        readings.append((ArgReading(index, arg, dest, option, value, key, matches), inline))
    return tuple(readings)


def _is_value(arg: str) -> bool:
    return resolve_option(_flexible(arg))[1] == ""


_LONG_INTEGER = re.compile(r"[0-9][0-9_]{4299,}|0[xob][0-9A-Fa-f_]{4299,}")


def load_recipe(path: Path) -> Recipe:
    """Parse and validate a recipe file; any problem raises with every location.

    Values are validated strictly (TOML has real types: ``"4"`` is not a node count and
    ``true`` is not one either); integers beyond signed 64 bits are problems at their key."""
    source = str(path)
    text = read_text_file(path, "recipe")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = _TOML_AT.search(str(exc))
        where = f"line {at.group(1)}, column {at.group(2)}" if at else "end of file"
        raise PlannerInputError(source, where, f"malformed TOML: {exc}") from exc
    except ValueError as exc:  # an integer Python will not convert (over 4,300 digits)
        raise PlannerInputError(source, _position(text), f"unreadable integer: {exc}") from exc
    except RecursionError as exc:
        raise PlannerInputError(source, "<file>", "arrays or tables nested too deeply") from exc
    structure = structure_problems(raw)
    # TP × PP is checked once every field is well-typed, and reported with the arg/env problems
    recipe = None if structure else Recipe.model_validate(_as_tuples(raw), strict=True)
    problems = (
        structure
        + value_problems(raw)
        + arg_and_env_problems(raw.get("args"), raw.get("env"))
        + field_problems(raw)
        + composed_problems(raw)
        + mount_problems(raw)
        + extension_problems(raw)
        + (shape_problems(recipe) if recipe is not None else ())
    )
    if problems or recipe is None:
        raise RecipeInvalid(source, problems)
    return recipe


def _position(text: str) -> str:
    found = _LONG_INTEGER.search(text)
    if found is None:
        return "<file>"
    line = text.count("\n", 0, found.start()) + 1
    return f"line {line}, column {found.start() - text.rfind(chr(10), 0, found.start())}"


def _as_tuples(value: object) -> object:
    """TOML arrays as tuples (the recipe's frozen fields are tuples; strict validation takes
    a tuple for a tuple only)."""
    if isinstance(value, list):
        return tuple(_as_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _as_tuples(item) for key, item in value.items()}
    return value


def _out_of_range(value: object, where: tuple[str | int, ...]) -> list[RecipeProblem]:
    if isinstance(value, int) and not isinstance(value, bool) and value not in INT_RANGE:
        digits = len(str(abs(value)))
        message = f"an integer of {digits:,} digits is out of range (signed 64-bit at most)"
        return [RecipeProblem(where=render_location(where), message=message)]
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    return [p for key, item in items for p in _out_of_range(item, (*where, key))]


def structure_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """Every field that is missing or of the wrong type, located by its key path
    (``composed_model.sources[0].repo``: list items by index, as the args problems are)."""
    huge = _out_of_range(raw, ())
    if huge:
        return tuple(huge)
    try:
        Recipe.model_validate(_as_tuples(raw), strict=True)
    except ValidationError as exc:
        return tuple(
            RecipeProblem(where=render_location(e["loc"]), message=_structure_message(e))
            for e in exc.errors()
        )
    return ()


def _structure_message(error: ErrorDetails) -> str:
    """One field's problem quoting its value; a key the recipe does not know names the
    closest key allowed there (a typo is found at once, not by reading the docs)."""
    if error["type"] == "missing":
        return "required, missing"
    message = f"{error['msg']} (value {_as_lists(error.get('input'))!r})"
    if error["type"] == "extra_forbidden":
        message += _closest_key(error["loc"])
    return message


def _closest_key(loc: tuple[str | int, ...]) -> str:
    """``did you mean`` the key of the model at ``loc``'s table (its last part the unknown
    key) closest to it; ``""`` when none is close or the place holds no model."""
    model: type[BaseModel] | None = Recipe
    for part in loc[:-1]:
        if isinstance(part, str) and model is not None:
            field = model.model_fields.get(part)
            model = None if field is None else _model_in(field.annotation)
    return "" if model is None else did_you_mean(str(loc[-1]), model.model_fields)


def _model_in(annotation: object) -> type[BaseModel] | None:
    """The model a field holds, through ``X | None`` and ``tuple[X, ...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next(filter(None, (_model_in(arg) for arg in get_args(annotation))), None)


def _as_lists(value: object) -> object:
    """A value as the recipe wrote it (its arrays as lists), for a message."""
    if isinstance(value, tuple):
        return [_as_lists(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_lists(item) for key, item in value.items()}
    return value


def arg_and_env_problems(args: object, env: object) -> tuple[RecipeProblem, ...]:
    """Per arg, as vLLM reads it (:func:`read_spelled`): a NUL byte, a line break or another
    control character (an arg is one line of the report and of its argv), a ``--`` that
    would make the launcher's flags positional, an ambiguous prefix, a launcher-owned flag,
    a flag no recipe may set, a flag set again, or a value that is not JSON in any spelling
    (``--x {…}``, ``--x={…}``, ``-cc{…}``, a dotted key's); then the launcher-owned env. Each
    located, one problem per arg at most."""
    found: list[RecipeProblem] = []
    items = args if isinstance(args, list) else []
    served = [normalize_arg(a) if isinstance(a, str) else "" for a in items]
    readings = {r.at: (r, inline) for r, inline in read_spelled(served)}
    seen = SettingsSeen()
    for i, arg in enumerate(served):
        reading, inline = readings.get(i, (None, False))
        message = _text_problem(arg)
        if message is None and reading is not None:
            message = arg_problem(arg, reading, seen)
            if message is None and inline and reading.value is not None:
                message = _json_problem(reading.value)
        elif message is None:
            message = _json_problem(arg)
        if message is not None:
            found.append(RecipeProblem(where=f"args[{i}]", message=message))
    for key, value in env.items() if isinstance(env, dict) else ():
        message = env_problem(key, value)
        if message is not None:
            found.append(RecipeProblem(where=f"env.{printable(key)}", message=message))
    return tuple(found)


def _text_problem(arg: str) -> str | None:
    """An arg is one line of printable text: it reaches the argv, the report and readback's
    comparison, where a NUL cannot pass and a line break or a control character would
    forge or hide a line."""
    if "\0" in arg:
        return "holds a NUL byte"
    bad = next((char for char in arg if not char.isprintable()), None)
    if bad is not None:
        return f"holds U+{ord(bad):04X}, a line break or control character: an arg is one line"
    return None


def _json_problem(value: str) -> str | None:
    """A value that opens a JSON object or array is JSON (vLLM reads it so)."""
    if value[:1] not in ("{", "["):
        return None
    try:
        json.loads(value)
    except json.JSONDecodeError as exc:
        return f"not JSON: {exc.msg}"
    return None


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def env_problem(key: str, value: object) -> str | None:
    """An env entry reaches ``docker create --env KEY=value``, the report and readback's
    line match: a name of letters, digits and ``_``, a value of one line of printable text."""
    if key in LAUNCHER_OWNED_ENV:
        return "set per node by the launcher"
    if _ENV_NAME.fullmatch(key) is None:
        return f"{key!r} is not an environment variable name (letters, digits, _)"
    if isinstance(value, str) and not value.isprintable():
        return f"{value!r} holds a NUL byte, a line break or a control character"
    return None


class SettingsSeen:
    """What the args before one set, indexed so a setting is looked up, never scanned for
    (a recipe of 200,000 args is read in linear time): per setting (an action, or a flag
    vLLM does not know by its name), the first arg that set it, and the first that set each
    dotted key of it (the key ``()``: the whole config)."""

    def __init__(self) -> None:
        self.first: dict[str, int] = {}
        self.first_key: dict[tuple[str, tuple[str, ...]], int] = {}

    def earlier(self, reading: ArgReading) -> int | None:
        """The first earlier arg that sets what ``reading`` sets: the same setting, and the
        same dotted key, or one of the two the whole config."""
        name = reading.dest or reading.option
        if not reading.key:
            return self.first.get(name)
        found = (self.first_key.get((name, ())), self.first_key.get((name, reading.key)))
        return min((at for at in found if at is not None), default=None)

    def add(self, reading: ArgReading) -> None:
        name = reading.dest or reading.option
        self.first.setdefault(name, reading.at)
        self.first_key.setdefault((name, reading.key), reading.at)


def arg_problem(arg: str, reading: ArgReading, seen: SettingsSeen) -> str | None:
    """The problem of one option as vLLM reads it; ``seen`` holds the options before it."""
    if reading.option == "--":
        return "-- ends vLLM's options: the launcher's flags after it would be read as models"
    if reading.matches:
        return f"{arg} is ambiguous to vLLM {VLLM_VERSION}'s parser: it could be " + ", ".join(
            reading.matches
        )
    dest = reading.dest
    canonical = _CANONICAL[dest] if dest else reading.option
    if dest in LAUNCHER_OWNED_DESTS:
        read_as = "" if arg.partition("=")[0] == canonical else f" (vLLM reads it as {canonical})"
        return f"{arg} is launcher-owned{read_as}"
    if dest in REFUSED_DESTS:
        return f"{arg} {REFUSED_DESTS[dest]}"
    if dest == "gpu_memory_utilization":
        if reading.value is None:
            return f"{arg} needs a value (the fit wall reads it)"
        try:
            utilization_bp(reading.value)
        except ValueError as exc:
            return f"{arg}: {exc} (the fit wall reads it)"
    if dest in APPEND_DESTS:
        return None
    earlier = seen.earlier(reading)
    seen.add(reading)
    if earlier is None:
        return None
    shown = ".".join((canonical, *reading.key))
    return f"{arg} sets {shown} again (first at args[{earlier}]); vLLM keeps only the last"


_DECIMAL = re.compile(r"[01]?\.[0-9]{1,4}|[01]")


def utilization_bp(text: str) -> int:
    """``--gpu-memory-utilization`` as basis points: a decimal above 0 and at most 1, with at
    most four places (``0.88`` → 8800), read exactly, so no float decides a fit; anything
    else raises."""
    if _DECIMAL.fullmatch(text) is None:
        raise ValueError(f"{text!r} is not a decimal of at most four places")
    points = int(Decimal(text) * 10000)
    if not 0 < points <= 10000:
        raise ValueError(f"{text} is not above 0 and at most 1")
    return points


def field_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """An arg that sets TP, PP or the backend (in any spelling vLLM reads) must agree with
    the recipe's field, which the launcher checked: it may not silently override it. A
    dotted key of one (``--tensor-parallel-size.x 4``) never agrees: vLLM would read a JSON
    object as the size. Args that are not all strings are a type problem, reported once."""
    args = raw.get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return ()
    fields = {"pipeline_parallel_size": 1, **raw}
    found: list[RecipeProblem] = []
    for reading in read_args([normalize_arg(a) for a in args]):
        field = FIELD_DESTS.get(reading.dest)
        if field is None:
            continue
        want = fields.get(field)
        if not isinstance(want, int | str) or (not reading.key and _agrees(reading.value, want)):
            continue
        shown = reading.arg
        if "=" not in reading.arg:
            shown += " with no value" if reading.value is None else f" {reading.value}"
        message = f"{shown} contradicts {field} = {json.dumps(want)}"
        found.append(RecipeProblem(where=f"args[{reading.at}]", message=message))
    return tuple(found)


def _agrees(value: str | None, want: int | str) -> bool:
    """An arg's value is the field's: the same text, or for a size the same integer."""
    if value is None or isinstance(want, str):
        return value == want
    try:
        return int(value) == want
    except ValueError:
        return False


def value_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """The image and the model are positionals (of ``docker create`` and of ``vllm serve``):
    one starting with ``-`` would be read as an option (``--privileged``), and neither may
    hold a NUL byte or break a line; each is one printable word."""
    found: list[RecipeProblem] = []
    for field, reader in (("docker_image", "docker"), ("model", "vLLM")):
        value = raw.get(field)
        if not isinstance(value, str):
            continue
        message = None
        if value.startswith("-"):
            message = f"{value!r} starts with '-': {reader} would read it as an option"
        elif "\0" in value:
            message = f"{value!r} holds a NUL byte"
        elif not value.isprintable() or " " in value:
            message = f"{value!r} holds a space or a control character: it is one word"
        if message is not None:
            found.append(RecipeProblem(where=field, message=message))
    entrypoint = raw.get("entrypoint")
    return (*found, *entrypoint_problems(entrypoint if isinstance(entrypoint, list) else []))


def entrypoint_problems(entrypoint: list[object]) -> tuple[RecipeProblem, ...]:
    """The program is ``--entrypoint``'s value, a safe name. The words after it bring the
    program to vLLM's serve (``serve``; ``/usr/local/bin/vllm serve`` for ``python3``) and
    hold no option: the model and the args follow them, so an option there (``--headless``,
    ``--config FILE``, a bare ``--``, ``-m``) would be read by vLLM's parser outside every
    rule the args are held to. vLLM's options go in ``args``. Each word is one printable
    word (no NUL, space, line break or control character)."""
    found: list[RecipeProblem] = []
    for i, word in enumerate(entrypoint):
        if not isinstance(word, str):
            continue  # a type problem, reported by the structure check
        if i == 0:
            try:
                safe_name(word)
            except ValueError as exc:
                found.append(RecipeProblem(where="entrypoint[0]", message=str(exc)))
        elif word.startswith("-"):
            message = (
                f"{word!r} is an option before the model, outside the args' checks: "
                "give vLLM's options in args"
            )
            found.append(RecipeProblem(where=f"entrypoint[{i}]", message=message))
        elif not word or not word.isprintable() or " " in word:
            message = f"{word!r} is not one printable word (no space or control character)"
            found.append(RecipeProblem(where=f"entrypoint[{i}]", message=message))
    return tuple(found)


def extension_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """``image_extensions`` against the args as vLLM reads them: each declared flag or config
    field well-formed, declared once, unknown to stock vLLM and used by an arg
    (:func:`planner.recipe_extensions.declaration_problems`); with no args, each is stale."""
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return ()
    readings = read_args([normalize_arg(a) for a in args])
    found = declaration_problems(raw.get("image_extensions"), readings, read_args)
    return tuple(RecipeProblem(where=where, message=message) for where, message in found)


def composed_dir(model: str, composed_root: str = COMPOSED_ROOT) -> str:
    """``<root>/<model, '/' as '--'>``: sealed to ``root`` as Engram staging seals its writes
    (:meth:`FileTreeScope.seal`), and a safe path, since it is a ``--mount`` source."""
    return safe_path(FileTreeScope(root=composed_root).seal(model.replace("/", "--")))


def composed_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """A composed model's directory, named after the model, stays inside the composed root;
    its one source is the recipe's model (whose snapshot is linked: any other source would
    be ignored); and each local file is linked at a name inside it that no other local file
    takes. Where it is mounted is :func:`mount_problems`'s."""
    composed, model = raw.get("composed_model"), raw.get("model")
    if not isinstance(composed, dict) or not isinstance(model, str):
        return ()
    try:
        where = composed_dir(model)
    except ValueError as exc:
        return (RecipeProblem(where="model", message=str(exc)),)
    return composed_source_problems(composed.get("sources"), model) + local_file_problems(
        composed.get("local_files"), where
    )


def composed_source_problems(sources: object, model: str) -> tuple[RecipeProblem, ...]:
    found: list[RecipeProblem] = []
    for i, item in enumerate(sources if isinstance(sources, list) else []):
        repo = item.get("repo") if isinstance(item, dict) else None
        if not isinstance(repo, str):
            continue
        if i == 0 and repo != model:
            message = f"{repo!r} is not the recipe's model {model!r}, whose snapshot is linked"
            found.append(RecipeProblem(where="composed_model.sources[0].repo", message=message))
        elif i > 0:
            message = (
                f"{repo!r} would be ignored: only the recipe's model's snapshot "
                "(sources[0]) is linked"
            )
            found.append(RecipeProblem(where=f"composed_model.sources[{i}]", message=message))
    return tuple(found)


def local_file_problems(files: object, where: str) -> tuple[RecipeProblem, ...]:
    found: list[RecipeProblem] = []
    names: dict[str, int] = {}
    for i, item in enumerate(files if isinstance(files, list) else []):
        host = item.get("host") if isinstance(item, dict) else None
        if not isinstance(host, str):
            continue
        at = f"composed_model.local_files[{i}].host"
        name = PurePosixPath(host).name
        try:
            FileTreeScope(root=where).seal(name)
        except ValueError as exc:
            found.append(RecipeProblem(where=at, message=str(exc)))
            continue
        if name in names:
            message = (
                f"{host!r} links at {name}, as local_files[{names[name]}] does: "
                "the later would silently replace it"
            )
            found.append(RecipeProblem(where=at, message=message))
        names.setdefault(name, i)
    return tuple(found)


def mount_problems(raw: dict[str, object]) -> tuple[RecipeProblem, ...]:
    """Where the composed model is mounted in the container (a safe path, checked by its
    type): not ``/``, which would hide the image's whole file system, and not the HF cache
    its links point into, inside it or around it (the cache's own read-only mount would
    collide with it or nest in it)."""
    composed = raw.get("composed_model")
    mount = composed.get("mount") if isinstance(composed, dict) else None
    if not isinstance(mount, str):
        return ()
    message = None
    if mount == "/":
        message = f"{mount!r} would hide the image's whole file system"
    elif _nested(mount, HF_CACHE_ROOT) or _nested(HF_CACHE_ROOT, mount):
        message = f"{mount!r} collides with the HF cache's own mount at {HF_CACHE_ROOT}"
    return (
        () if message is None else (RecipeProblem(where="composed_model.mount", message=message),)
    )


def _nested(path: str, root: str) -> bool:
    """``path`` is ``root`` or inside it."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def group_refusals(recipe: Recipe, group: FabricGroup, source: str) -> tuple[Refusal, ...]:
    """A valid recipe this group cannot run: it plans over exactly the group's hosts."""
    if recipe.required_nodes == group.size:
        return ()
    return (
        refusal(
            "recipe.group_size",
            ("required_nodes",),
            f"{source} needs {recipe.required_nodes} nodes; {group.name} has {group.size} hosts",
            hint=f"plan it over a group of {recipe.required_nodes} hosts (--group)",
        ),
    )


def shape_problems(recipe: Recipe) -> tuple[RecipeProblem, ...]:
    """TP × PP must cover the nodes: one GB10 GPU per node."""
    if recipe.tensor_parallel_size * recipe.pipeline_parallel_size == recipe.required_nodes:
        return ()
    return (
        RecipeProblem(
            where="tensor_parallel_size",
            message=f"TP {recipe.tensor_parallel_size} × PP {recipe.pipeline_parallel_size} "
            f"must equal required_nodes {recipe.required_nodes} (one GB10 GPU per node)",
        ),
    )


def _snapshot_dir(manifest: CheckpointManifest, hf_cache_root: str) -> str:
    """The snapshot dir in the HF cache; the repo folder is ``models--`` then the repo id with
    '/' as '--', so a namespace-free id such as ``gpt2`` lives in ``models--gpt2``."""
    folder = "--".join(("models", *manifest.model.split("/")))
    return f"{hf_cache_root}/{folder}/snapshots/{manifest.revision}"


_REFUSE = "no() { printf 'composed model: %s\\n' \"$*\" >&2; exit 1; }"
_ROOT_ONLY = (
    'root_only() { info=$(stat -c \'%u %a\' -- "$1") || no "cannot read $1"; '
    'read -r owner mode <<<"$info"; '
    '[ "$owner" = 0 ] || no "$1 is owned by uid $owner, not root"; '
    'if (( 8#$mode & 8#022 )) && { [ "$2" = 0 ] || (( ! (8#$mode & 8#1000) )); }; then '
    'no "$1 is writable by group or others (mode $mode)"; fi; }'
)
COMPOSED_DIR_SCRIPT = "; ".join(
    (
        "set -eu",
        _REFUSE,
        _ROOT_ONLY,
        'real=$(realpath -m -- "$1")',
        "here=/",
        "rest=${real#/}",
        "root_only / 1",
        'while [ -n "$rest" ]; do part=${rest%%/*}; rest=${rest#"$part"}; rest=${rest#/}',
        "parent=$here; here=${here%/}/$part",
        'if [ ! -e "$here" ] && [ ! -L "$here" ]; then '
        'if (( 8#$(stat -c %a -- "$parent") & 8#022 )); then '
        'no "$parent is writable by others: $here is made only where no one else can write"; fi',
        'mkdir -m 0755 -- "$here"; fi',
        '{ [ -d "$here" ] && [ ! -L "$here" ]; } || no "$here is not a directory"',
        'above=1; [ -n "$rest" ] || above=0; root_only "$here" "$above"; done',
    )
)
"""The composed dir's first step (``bash -c SCRIPT compose DIR``): every directory of DIR's
real path, from ``/`` down, must be root's and writable by no group or other (one above DIR
may be a root-owned sticky one); each missing one is made ``mkdir -m 0755`` (as root: owned
by root, whatever the umask) only inside a directory no one else can write, since anyone
could have made the name first in one they can. A directory another user made first, or
may write, is refused by name before anything is linked."""
COMPOSED_FILES_SCRIPT = "; ".join(
    (
        "set -eu",
        _REFUSE,
        _ROOT_ONLY,
        'for file in "$@"; do { [ -f "$file" ] && [ ! -L "$file" ]; } '
        '|| no "$file is not a regular file"',
        'root_only "$file" 0; done',
    )
)
"""The composed dir's last step when it hardlinks local files (``bash -c SCRIPT compose
FILE…``): a hardlink is the file itself, so each must be root's and writable by no group or
other (its owner could change the weights in place). Checked on the links, once made: the
inode in the root-only dir is the one the container reads."""


def composed_steps(
    composed: ComposedModel, snapshot: CheckpointManifest, composed_dir: str, hf_cache_root: str
) -> tuple[tuple[str, ...], ...]:
    """Make the composed dir root's alone (:data:`COMPOSED_DIR_SCRIPT`), symlink the whole
    snapshot, then hardlink each local file over its name (local wins) and check each link
    is root's alone (:data:`COMPOSED_FILES_SCRIPT`). ``snapshot`` is the manifest of the
    recipe's model, which its first source names (checked when the recipe was read)."""
    source = _snapshot_dir(snapshot, hf_cache_root)
    scope = FileTreeScope(root=composed_dir)
    links = []
    for i, f in enumerate(snapshot.files):
        try:
            if "\0" in f.path:
                raise ValueError(f"{f.path!r} holds a NUL byte")
            target = scope.seal(f.path)
        except ValueError as exc:
            raise PlannerInputError(
                f"the snapshot manifest of {snapshot.model}", f"files[{i}].path", str(exc)
            ) from exc
        relative = target.removeprefix(f"{composed_dir}/")
        links.append(("ln", "-sfn", "--", f"{source}/{relative}", target))
    linked = tuple(f"{composed_dir}/{PurePosixPath(f.host).name}" for f in composed.local_files)
    locals_ = tuple(
        ("ln", "-f", "--", f.host, at) for f, at in zip(composed.local_files, linked, strict=True)
    )
    check = (("bash", "-c", COMPOSED_FILES_SCRIPT, "compose", *linked),) if linked else ()
    make = ("bash", "-c", COMPOSED_DIR_SCRIPT, "compose", composed_dir)
    return (make, *links, *locals_, *check)


def recipe_serve_argv(
    recipe: Recipe, group: FabricGroup, rank: int, model_path: str
) -> tuple[str, ...]:
    """The serve argv of node ``rank``: the recipe's args, then TP and PP from the recipe's
    fields unless the args set them, then the flags the launcher owns."""
    args = normalized_args(recipe)
    set_by_args = {r.dest for r in read_args(args)}
    owned = (
        "--nnodes",
        str(group.size),
        "--node-rank",
        str(rank),
        "--master-addr",
        serving_head(group).rail_address,
        "--master-port",
        str(RECIPE_RENDEZVOUS_PORT),
    )
    tp = (
        ()
        if "tensor_parallel_size" in set_by_args
        else ("--tensor-parallel-size", str(recipe.tensor_parallel_size))
    )
    pp = (
        ()
        if "pipeline_parallel_size" in set_by_args
        else ("--pipeline-parallel-size", str(recipe.pipeline_parallel_size))
    )
    role = ("--port", str(RECIPE_SERVE_PORT)) if rank == 0 else ("--headless",)
    return (*recipe.entrypoint[1:], model_path, *args, *tp, *pp, *owned, *role)
