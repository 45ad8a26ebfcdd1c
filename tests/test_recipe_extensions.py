"""What a recipe's image adds to stock vLLM: a warning per flag or config field in each
spelling vLLM reads; the declaration validated with locations; the real parser agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.builders import SEED_RECIPE, TINY_RECIPE
from planner.recipe import Recipe, RecipeInvalid, load_recipe, normalized_args
from planner.recipe_extensions import stock_parser_findings
from tests.realtools import vllm_serve_parses, vllm_venv_python


def _load(tmp_path: Path, text: str) -> Recipe:
    path = tmp_path / "recipe.toml"
    path.write_text(text, encoding="utf-8")
    return load_recipe(path)


def _problems(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    with pytest.raises(RecipeInvalid) as caught:
        _load(tmp_path, text)
    return [(p.where, p.message) for p in caught.value.problems]


def _tiny(args: list[str], declared: str = "") -> str:
    listed = ", ".join(f"'{a}'" for a in args)
    return TINY_RECIPE.read_text(encoding="utf-8") + f"args = [{listed}]\n" + declared


@pytest.mark.parametrize(
    ("args", "spelling", "written"),
    [
        (["--x-y.z", "1"], "--x-y", "--x-y.z"),
        (['--engram-config={"table_memory": 1}'], "--engram-config.table_memory", None),
        (["-cc.zzz", "1"], "--compilation-config.zzz", "-cc.zzz"),
    ],
)
def test_every_spelling_vllm_reads_is_found(
    tmp_path: Path, args: list[str], spelling: str, written: str | None
) -> None:
    """Underscores, ``=value``, a dotted Engram key and ``+`` are launcher_recipe's
    ``an_unknown_flag_or_field_is_found_in_every_spelling_vllm_reads``."""
    (finding,) = stock_parser_findings(_load(tmp_path, _tiny(args)))
    assert (finding.at, finding.spelling, finding.declared_at) == (0, spelling, None)
    if written is not None:
        assert finding.written == written
    assert finding.line().endswith("; image tiny:local (no build profile) must add it")


def test_every_bad_declaration_is_a_located_problem(tmp_path: Path) -> None:
    flags = ["--max-model-len", "--max-model", "--foo", "--x_y", "-z", "--zq", "--zq"]
    fields = ["--engram-config.cpu_offload", "--engram-config.zzz", "--engram.table_memory"]
    fields += ["--speculative-config.x", "nope", "--zq.x"]
    declared = f"[image_extensions]\nflags = {flags}\nconfig_fields = {fields}\n"
    at = "image_extensions.flags"
    fat = "image_extensions.config_fields"
    hides = "declaring it hides nothing"
    assert _problems(tmp_path, _tiny(["--zq", "1"], declared)) == [
        (f"{at}[0]", f"--max-model-len is an option of vLLM 0.33.0's serve parser: {hides}"),
        (
            f"{at}[1]",
            f"vLLM 0.33.0's serve parser reads --max-model as its own --max-model-len: {hides}",
        ),
        (f"{at}[2]", "no arg sets --foo: a stale declaration (remove it)"),
        (
            f"{at}[3]",
            "'--x_y' is not a flag as vLLM reads it ('--', then letters, digits, '-'): write --x-y",
        ),
        (f"{at}[4]", "'-z' is not a flag as vLLM reads it ('--', then letters, digits, '-')"),
        (f"{at}[6]", "--zq is declared again (first at flags[5])"),
        (f"{fat}[0]", f"cpu_offload is a field of vLLM 0.33.0's EngramConfig: {hides}"),
        (f"{fat}[1]", "no arg sets --engram-config.zzz: a stale declaration (remove it)"),
        (f"{fat}[2]", "write the option as vLLM names it: --engram-config.table_memory"),
        (
            f"{fat}[3]",
            "vLLM 0.33.0's serve parser checks no fields of --speculative-config: "
            "nothing to declare",
        ),
        (f"{fat}[4]", "'nope' is not <option>.<field> (as in --engram-config.table_memory)"),
        (f"{fat}[5]", "--zq is not an option of vLLM 0.33.0's serve parser: declare it in flags"),
    ]


def test_a_declaration_of_the_wrong_type_is_a_structure_problem(tmp_path: Path) -> None:
    text = _tiny([], "[image_extensions]\nflags = [1]\nother = []\n")
    wheres = [where for where, _ in _problems(tmp_path, text)]
    assert wheres == ["image_extensions.flags[0]", "image_extensions.other"]


@pytest.mark.skipif(vllm_venv_python() is None, reason="the vLLM venv is not built")
def test_stock_vllm_refuses_exactly_what_the_findings_name() -> None:
    """Each finding's arg is refused by the real parser; the seed args without them pass it."""
    recipe = load_recipe(SEED_RECIPE)
    args = list(normalized_args(recipe))
    findings = stock_parser_findings(recipe)
    flag, field = (f.at for f in findings)
    alone = [[recipe.model, *args[flag : flag + 2]], [recipe.model, *args[field : field + 2]]]
    rest = [a for i, a in enumerate(args) if i not in {flag, flag + 1, field, field + 1}]
    refused_flag, refused_field, accepted = vllm_serve_parses([*alone, [recipe.model, *rest]])
    assert "unrecognized arguments: --prefill-compute-share" in (refused_flag.error or "")
    assert "EngramConfig" in (refused_field.error or "")
    assert "table_memory" in (refused_field.error or "")
    assert accepted.stage != "parse", str(accepted)
