"""The recipe reads launcher-owned and field-owned flags as vLLM 0.33.0's own parser does.

``planner/vllm_serve_options.py`` holds vLLM's option lookup table; here it is compared with
the table of the real parser (``tools/vllm_parse.py --facts``), and every spelling of the
flags the launcher owns or the recipe's fields set (each option string, its underscore
form, every prefix of it, ``=value``, a short alias with its value glued on) is parsed by
the real parser: the flag vLLM sets is the one :func:`planner.recipe.read_args` names, an
ambiguous prefix is ambiguous to both with the same candidates, and what vLLM does not
take as that flag the planner does not either. Skipped only when the vLLM venv is not built
(tools/make-vllm-venv).
"""

from __future__ import annotations

import re

import pytest

from planner.recipe import FIELD_DESTS, LAUNCHER_OWNED_DESTS, read_args
from planner.vllm_serve_options import APPEND_DESTS, CONFIG_FIELDS, SERVE_ACTIONS, VLLM_VERSION
from tests.realtools import VllmParse, vllm_serve_parser_facts, vllm_serve_parses, vllm_venv_python

pytestmark = pytest.mark.skipif(
    vllm_venv_python() is None,
    reason="the vLLM venv (.venv-vllm or $VLLM_VENV) is not built: run tools/make-vllm-venv",
)

# a value of each flag that differs from vLLM's default, so that setting it shows
VALUES = {
    "nnodes": "2",
    "node_rank": "1",
    "master_addr": "10.0.0.9",
    "master_port": "29599",
    "headless": None,
    "port": "9000",
    "tensor_parallel_size": "2",
    "pipeline_parallel_size": "2",
    "distributed_executor_backend": "mp",
}
DESTS = (*LAUNCHER_OWNED_DESTS, *FIELD_DESTS)


def _spellings() -> list[list[str]]:
    """Every way of writing each flag of DESTS, each as the args after the model."""
    out: list[list[str]] = []
    for dest, options in SERVE_ACTIONS:
        if dest not in DESTS:
            continue
        value = VALUES[dest]
        for option in options:
            forms = {option}
            if option.startswith("--"):
                forms |= {option[:n] for n in range(3, len(option))}  # argparse's prefixes
                forms.add("--" + option[2:].replace("-", "_"))  # vLLM rewrites _ to -
            elif len(option) == 2 and value is not None:
                out.append([option + value])  # a short flag with its value glued on
            else:
                forms |= {option[:n] for n in range(2, len(option))}
            for form in sorted(forms):
                out.append([form] if value is None else [form, value])
                out.append([f"{form}={value or 'x'}"])
    return out


def test_the_option_table_is_vllms_own() -> None:
    facts = vllm_serve_parser_facts()
    assert facts.vllm_version == VLLM_VERSION
    assert facts.actions == SERVE_ACTIONS
    assert frozenset(facts.append_dests) == APPEND_DESTS
    assert facts.config_fields == CONFIG_FIELDS


def _vllm_reading(parsed: VllmParse) -> tuple[str, ...]:
    """What vLLM made of the flag: the dests it set, or why it refused it."""
    if parsed.stage != "parse" or parsed.ok:
        return tuple(sorted(k for k in parsed.explicit if k != "model_tag"))
    error = parsed.error or ""
    ambiguous = re.search(r"ambiguous option: \S+ could match (.*)$", error)
    if ambiguous:
        return ("ambiguous", *ambiguous.group(1).split(", "))
    named = re.search(r"argument (\S+?):", error)
    if named:  # the flag was taken as this option, then its value refused
        return ("refused value of", named.group(1).split("/")[0])
    return ("error", error)


def _planner_reading(args: list[str]) -> tuple[str, ...]:
    reading = read_args(args)[0]
    if reading.matches:
        return ("ambiguous", *reading.matches)
    return (reading.dest,) if reading.dest else ()


def test_every_spelling_of_the_launchers_flags_is_read_as_vllm_reads_it() -> None:
    corpus = _spellings()
    assert len(corpus) > 250
    parsed = vllm_serve_parses([["org/tiny", *args] for args in corpus])
    canonical = {dest: next(o for o in opts if o.startswith("--")) for dest, opts in SERVE_ACTIONS}
    by_option = {o: dest for dest, opts in SERVE_ACTIONS for o in opts}
    mismatches = []
    for args, result in zip(corpus, parsed, strict=True):
        vllm, planner = _vllm_reading(result), _planner_reading(args)
        if vllm[:1] == ("refused value of",):
            # vLLM took the flag as this option, then refused its value (`--headless=x`,
            # `-rx`): the planner must name the same flag (and refuses it as the launcher's)
            vllm = (by_option.get(vllm[1], vllm[1]),)
        agree = vllm == planner or (vllm[:1] == ("error",) and planner == ())
        if not agree:
            mismatches.append(f"{args}: vLLM {vllm}, planner {planner}")
    assert not mismatches, "\n".join(mismatches[:20])
    # and the corpus holds what docs/recipes.md promises: underscores, prefixes, short aliases
    written = {args[0].split("=")[0] for args in corpus}
    assert {"--node_rank", "--master_addr", "--nnode", "--head", "-r", "-n"} <= written
    assert canonical["node_rank"] == "--node-rank"
