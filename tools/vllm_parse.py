"""Parse `vllm serve` argument vectors with vLLM's own parser (no model, no GPU).

Run with the interpreter of the separate vLLM venv (see tools/make-vllm-venv):

    echo '[["org/model", "--tensor-parallel-size", "4"]]' \
        | .venv-vllm/bin/python tools/vllm_parse.py

stdin: a JSON list of argvs; each argv is the part after `vllm serve`, model
positional included. stdout: one JSON object per argv, one per line, in order:

    {"index": 0, "argv": [...], "ok": true|false, "stage": null|"<stage>",
     "error": null|"<message>", "warnings": [...], "abbreviated": [...],
     "explicit": {...}, "values": {...}}

`stage` names the first check that failed:

- "parse": the parser itself, as `vllm serve` builds it (a `vllm` top parser
  with a `serve` subparser from `make_arg_parser`): unknown flag, bad int, ...
- "validate_serve": `validate_parsed_serve_args` (what `vllm serve` runs next).
- "api_server": `validate_api_server_args` (tool/reasoning parser registries,
  run by the API server at startup).
- "parser_names": the named --tool-call-parser / --reasoning-parser are
  loaded from vLLM's registries (serving does this later; `vllm serve`
  itself checks the reasoning parser name only once the engine is up).
- "engine_args": `AsyncEngineArgs.from_cli_args` (nested configs such as
  `--engram-config` become config objects and are validated).
- "tokenizer_mode": the tokenizer registry has no tokenizer for the mode.
- "engine_config": the real `EngineArgs.create_engine_config`, run with a
  stub model config up to the point where it has built the `ParallelConfig`:
  `CacheConfig` (kv-cache dtype, memory utilization), the multi-node launch
  checks (nnodes divides the world size, node rank in range, mp
  data-parallel backend) and the `ParallelConfig` validators (executor
  backend). Model-dependent checks (architecture, speculative config, Engram
  layers) need the model's HF config and are not run.
- "harness": a package missing from the venv (ImportError) or something the
  stub model config lacks; a failure of this script or of the venv, never a
  verdict on the argv (tests/realtools.py raises on it).

`values` holds every namespace value (non-JSON values serialized with str());
`explicit` holds only those that differ from the parser's defaults;
`abbreviated` lists flags argparse took as a prefix of a longer option
(`--nnode 4` is read as `--nnodes 4`); `warnings` holds vLLM's log warnings
(e.g. "Found duplicate keys").

`--facts` instead prints one JSON object describing what this vLLM accepts:
tokenizer modes, tool/reasoning parser names, kv-cache dtypes, version, the serve
parser's option table and the fields of each config flag it checks (`config_fields`).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import io
import json
import logging
import os
import sys
from contextlib import redirect_stderr
from types import SimpleNamespace
from typing import Any, NoReturn

# vLLM cannot infer a device on a machine without a GPU; the parser needs one.
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
# Keep vLLM's logging off stdout: stdout carries only our JSON lines.
_REAL_STDOUT = sys.stdout
sys.stdout = sys.stderr

from vllm.entrypoints.common.cli_args import (  # noqa: E402
    make_arg_parser,
    validate_api_server_args,
    validate_parsed_serve_args,
)
from vllm.utils.argparse_utils import FlexibleArgumentParser  # noqa: E402


class ParseFailed(Exception):
    """argparse wanted to exit (error or --help); carries its message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class RaisingParser(FlexibleArgumentParser):
    """vLLM's parser, but errors raise instead of exiting the process."""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise ParseFailed(status, (message or "").strip())


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.levelname}: {record.getMessage()}")


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def build_top_parser() -> tuple[RaisingParser, RaisingParser]:
    """The `vllm` parser with its `serve` subparser, as vllm's CLI main builds them."""
    top = RaisingParser(prog="vllm", description="vLLM CLI")
    subparsers = top.add_subparsers(required=False, dest="subparser")
    serve = subparsers.add_parser(
        "serve",
        description="Launch a local OpenAI-compatible API server",
        usage="vllm serve [model_tag] [options]",
    )
    serve = make_arg_parser(serve)
    return top, serve


def _abbreviated_flags(serve: RaisingParser, argv: list[str]) -> list[str]:
    """Flags argparse accepted only as prefixes of a real option (`--nnode`)."""
    known = set(serve._option_string_actions)
    found = []
    for arg in argv:
        if not arg.startswith("--") or arg == "--":
            continue
        key = arg.split("=", 1)[0].split(".", 1)[0]
        key = "--" + key[2:].replace("_", "-")
        if key.endswith("+"):
            key = key[:-1]
        if key not in known:
            found.append(arg)
    return found


def _check_parser_names(ns: argparse.Namespace) -> None:
    """Load the named tool-call and reasoning parsers from vLLM's registries.

    The API server checks the tool parser only with --enable-auto-tool-choice
    and the reasoning parser not at all before the engine is up; loading both
    here is what serving does with them later (and catches broken imports).
    """
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    if ns.tool_call_parser:
        ToolParserManager.get_tool_parser(ns.tool_call_parser)
    if ns.reasoning_parser:
        ReasoningParserManager.get_reasoning_parser(ns.reasoning_parser)


def _check_tokenizer_mode(mode: str) -> None:
    from vllm.tokenizers.registry import TokenizerRegistry

    if mode == "auto":
        return
    # Same lookup the engine does when it loads the tokenizer.
    TokenizerRegistry.load_tokenizer_cls(mode)


class HarnessError(Exception):
    """vLLM asked the stub model config for something it does not carry."""


class _Reached(Exception):
    """create_engine_config built the real ParallelConfig; stop there."""


class _StubModelConfig:
    """Stands in for ModelConfig, which needs the model's HF config (a download).

    It carries no opinion: a MoE, generate-runner, attention model with no
    sliding window and no quantization config, so no model-dependent check
    fires. Anything else vLLM asks for is a harness error, never a pass.
    """

    def __init__(self, engine_args: Any) -> None:
        self.model = engine_args.model
        self.model_weights = ""
        self.tokenizer = engine_args.tokenizer or engine_args.model
        self.is_chunked_prefill_supported = True
        self.is_prefix_caching_supported = True
        self.runner_type = "generate"
        self.hf_text_config = SimpleNamespace()
        self.hf_config = None
        self.is_attention_free = False
        self.is_moe = True
        self.is_multimodal_model = False
        self.skip_tokenizer_init = False
        self.max_model_len = engine_args.max_model_len or 4096

    def get_sliding_window(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        raise HarnessError(f"stub model config has no attribute {name!r}")


def _check_engine_config(engine_args: Any, headless: bool) -> None:
    """Run the real `EngineArgs.create_engine_config` up to its ParallelConfig.

    That covers CacheConfig (kv-cache dtype, memory utilization) and the
    multi-node launch checks (nnodes divides the world size, node rank in
    range, mp data-parallel backend), then the ParallelConfig validators
    (executor backend). Only the model-dependent inputs are stubbed; the run
    stops once the real ParallelConfig object exists.
    """
    import vllm.engine.arg_utils as arg_utils

    real_parallel_config = arg_utils.ParallelConfig

    class _Meta(type):
        def __getattr__(cls, name: str) -> Any:
            return getattr(real_parallel_config, name)

    class _ProbeParallelConfig(metaclass=_Meta):
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            raise _Reached(real_parallel_config(*args, **kwargs))

    def _no_speculator_lookup(
        model: str, tokenizer: str | None, *args: Any, **kwargs: Any
    ) -> tuple[Any, Any, Any]:
        # The real one reads the model's HF config to detect a speculator.
        return model, tokenizer, kwargs.get("vllm_speculative_config")

    saved = (arg_utils.ParallelConfig, arg_utils.maybe_override_with_speculators)
    arg_utils.ParallelConfig = _ProbeParallelConfig  # type: ignore[misc]
    arg_utils.maybe_override_with_speculators = _no_speculator_lookup
    engine_args.create_model_config = lambda: _StubModelConfig(engine_args)
    try:
        engine_args.create_engine_config(headless=headless)
    except _Reached:
        return
    finally:
        arg_utils.ParallelConfig, arg_utils.maybe_override_with_speculators = saved
    raise HarnessError("create_engine_config returned without building ParallelConfig")


def check_one(top: RaisingParser, serve: RaisingParser, argv: list[str]) -> dict[str, Any]:
    collect = _Collect()
    vllm_logger = logging.getLogger("vllm")
    vllm_logger.addHandler(collect)
    result: dict[str, Any] = {
        "argv": argv,
        "ok": False,
        "stage": None,
        "error": None,
        "warnings": collect.records,
        "explicit": {},
        "abbreviated": [],
        "values": {},
    }
    stage = "parse"
    try:
        usage = io.StringIO()
        with redirect_stderr(usage):
            ns = top.parse_args(["serve", *argv])
        values = {k: _jsonable(v) for k, v in sorted(vars(ns).items())}
        result["values"] = values
        result["explicit"] = {
            k: v
            for k, v in values.items()
            if k not in ("subparser",) and v != _jsonable(serve.get_default(k))
        }
        result["abbreviated"] = _abbreviated_flags(serve, argv)
        stage = "validate_serve"
        validate_parsed_serve_args(ns)
        stage = "api_server"
        validate_api_server_args(ns)
        stage = "parser_names"
        _check_parser_names(ns)
        stage = "engine_args"
        import vllm

        if getattr(ns, "model_tag", None) is not None:
            ns.model = ns.model_tag
        engine_args = vllm.AsyncEngineArgs.from_cli_args(ns)
        stage = "tokenizer_mode"
        _check_tokenizer_mode(str(ns.tokenizer_mode))
        stage = "engine_config"
        _check_engine_config(engine_args, headless=bool(ns.headless))
    except (HarnessError, ImportError) as exc:
        # A missing package in the venv or a stub gap: not a verdict on argv.
        result["stage"] = "harness"
        result["error"] = f"{type(exc).__name__} at {stage}: {exc}"
    except ParseFailed as exc:
        result["stage"] = stage
        result["error"] = exc.message or f"parser exited with status {exc.status}"
    except Exception as exc:
        result["stage"] = stage
        result["error"] = f"{type(exc).__name__}: {exc}"
    else:
        result["ok"] = True
    finally:
        vllm_logger.removeHandler(collect)
    return result


def facts(serve: RaisingParser) -> dict[str, Any]:
    import importlib.metadata

    from vllm.config.cache import KV_CACHE_DTYPES
    from vllm.reasoning import ReasoningParserManager
    from vllm.tokenizers.registry import TokenizerRegistry
    from vllm.tool_parsers import ToolParserManager

    options = sorted(s for a in serve._actions for s in a.option_strings if s.startswith("--"))
    # argparse's lookup table (the --no- forms vLLM hides from option_strings included), each
    # action's strings together, in lookup order: what planner/vllm_serve_options.py holds
    actions: list[list[Any]] = []
    for option, action in serve._option_string_actions.items():
        if actions and actions[-1][0] == action.dest:
            actions[-1][1].append(option)
        else:
            actions.append([action.dest, [option]])
    appending = sorted(a.dest for a in serve._actions if isinstance(a, argparse._AppendAction))
    return {
        "actions": actions,
        "append_dests": appending,
        "config_fields": config_fields(serve),
        "vllm_version": importlib.metadata.version("vllm"),
        "tokenizer_modes": sorted(["auto", *TokenizerRegistry.tokenizers]),
        "tool_call_parsers": sorted(ToolParserManager.list_registered()),
        "reasoning_parsers": sorted(ReasoningParserManager.list_registered()),
        "kv_cache_dtypes": list(KV_CACHE_DTYPES),
        "options": options,
    }


def _checked_config_class(parse: Any) -> Any:
    """The config class whose fields the parser itself checks for this action's value, or
    None: vLLM types a config flag with `parse_dataclass` (its class the default of `cls`),
    possibly wrapped in `optional_type` (the wrapped type in the closure's `return_type`)."""
    while inspect.isfunction(parse):
        if getattr(parse, "__name__", "") == "parse_dataclass":
            return (parse.__defaults__ or (None,))[0]
        parse = inspect.getclosurevars(parse).nonlocals.get("return_type")
    return None


def config_fields(serve: RaisingParser) -> list[list[Any]]:
    """[dest, class name, [field names]] of each config flag whose JSON value (or dotted key)
    the parser validates against a config class that forbids unknown fields, in action order:
    a key not listed is refused at parse time (`Unexpected keyword argument`)."""
    found: list[list[Any]] = []
    for action in serve._actions:
        cls = _checked_config_class(action.type)
        config = getattr(cls, "__pydantic_config__", None) or {}
        if cls is not None and config.get("extra") == "forbid":
            names = [f.name for f in dataclasses.fields(cls)]
            found.append([action.dest, cls.__name__, names])
    return found


def main(args: list[str]) -> int:
    top, serve = build_top_parser()
    if args == ["--facts"]:
        _REAL_STDOUT.write(json.dumps(facts(serve), sort_keys=True) + "\n")
        return 0
    if args:
        sys.stderr.write("usage: vllm_parse.py [--facts] < argvs.json\n")
        return 2
    argvs = json.load(sys.stdin)
    if not isinstance(argvs, list) or not all(
        isinstance(a, list) and all(isinstance(s, str) for s in a) for a in argvs
    ):
        sys.stderr.write("stdin must be a JSON list of lists of strings\n")
        return 2
    for index, argv in enumerate(argvs):
        result = {"index": index, **check_one(top, serve, argv)}
        _REAL_STDOUT.write(json.dumps(result, sort_keys=True) + "\n")
        _REAL_STDOUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
