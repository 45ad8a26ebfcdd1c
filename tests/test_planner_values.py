"""planner.values: frozen values, safe names and paths, located JSON loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from planner.refusal import PlannerInputError
from planner.values import BulkSafeName, Frozen, SafeName, SafePath, load_json_model, located


class Sample(Frozen):
    name: SafeName
    path: SafePath
    count: int = 0


def sample(name: str = "srv5", path: str = "/var/lib/gunbc") -> Sample:
    return Sample(name=name, path=path)


@pytest.mark.parametrize(
    "name", ["srv5", "gunbc-v41-tp4", "gunbc-v41-tp4-head.service", "a_b", "user@host", "x:y", "9a"]
)
def test_safe_name_accepts(name: str) -> None:
    assert sample(name=name).name == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        "srv1;rm",
        "srv1 rm",
        "$(id)",
        "a`b`",
        "-rf",
        ".hidden",
        "a/b",
        "a'b",
        'a"b',
        "a\nb",
        "é",
        "srv1\n",
        "gunbc-v41-tp4\n",
    ],
)
def test_safe_name_refuses_whitespace_and_shell_metacharacters(name: str) -> None:
    with pytest.raises(ValidationError, match="not a safe name"):
        sample(name=name)


@pytest.mark.parametrize(
    "path", ["/", "/var/lib/gunbc", "/var/tmp/engram-local/DeepSeek-V4.1-Flash", "/a/b@c+d_e"]
)
def test_safe_path_accepts(path: str) -> None:
    assert sample(path=path).path == path


@pytest.mark.parametrize(
    "path",
    [
        "",
        "relative/path",
        "/a/../b",
        "/a/..",
        "/..",
        "/a//b",
        "/a b",
        "/a;b",
        "/a$b",
        "/a\nb",
        "/var/lib/gunbc\n",
    ],
)
def test_safe_path_refuses_relative_dotdot_empty_segments_and_metacharacters(path: str) -> None:
    with pytest.raises(ValidationError, match="not a safe absolute path"):
        sample(path=path)


def test_frozen_values_are_immutable_and_forbid_unknown_fields() -> None:
    value = sample()
    with pytest.raises(ValidationError):
        value.count = 1  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Sample.model_validate({"name": "a", "path": "/a", "colour": "red"})


def test_located_names_the_dotted_field_and_quotes_the_value() -> None:
    with pytest.raises(ValidationError) as info:
        Sample.model_validate({"name": "srv1;rm", "path": "/a"})
    where, message = located(info.value)
    assert where == "name"
    assert "'srv1;rm'" in message


def test_load_json_model_reads_a_real_file(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_text(json.dumps({"name": "srv5", "path": "/x", "count": 3}), encoding="utf-8")
    assert load_json_model(Sample, path, "sample") == Sample(name="srv5", path="/x", count=3)


def test_load_json_model_malformed_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_text('{"name": "srv5",', encoding="utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_json_model(Sample, path, "sample")
    assert info.value.source == str(path)
    assert info.value.where == "<file>"
    assert "cannot read sample" in info.value.message


def test_load_json_model_missing_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(PlannerInputError) as info:
        load_json_model(Sample, path, "sample")
    assert (info.value.source, info.value.where) == (str(path), "<file>")


def test_load_json_model_invalid_field_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_text(json.dumps({"name": "srv5", "path": "relative"}), encoding="utf-8")
    with pytest.raises(PlannerInputError) as info:
        load_json_model(Sample, path, "sample")
    assert (info.value.source, info.value.where) == (str(path), "path")
    assert "'relative'" in info.value.message


@pytest.mark.parametrize("value", ["has space", "-dash-first", "semi;colon", "", "ünï"])
def test_a_bulk_safe_name_is_refused_in_safe_names_words(value: str) -> None:
    """BulkSafeName (checked by pydantic's engine) refuses exactly what SafeName refuses, and
    :func:`located` words both refusals alike."""

    class Plain(BaseModel):
        name: SafeName

    class Bulk(BaseModel):
        name: BulkSafeName

    refusals = []
    for model in (Plain, Bulk):
        with pytest.raises(ValidationError) as caught:
            model.model_validate({"name": value})
        refusals.append(located(caught.value))
    assert refusals[0] == refusals[1]
    assert "is not a safe name" in refusals[1][1]
    assert Bulk.model_validate({"name": "ok-1.2@x:y_z"}).name == "ok-1.2@x:y_z"
