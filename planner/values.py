"""Base class and field types shared by the planner's frozen values."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from planner.refusal import PlannerInputError


class Frozen(BaseModel):
    """A planner value: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:-]*$")
_SAFE_PATH = re.compile(r"^/[A-Za-z0-9_.@+/-]*$")


def safe_name(value: str) -> str:
    """``value`` when it is safe to render unquoted into scripts, units and argv; else raises."""
    if not _SAFE_NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a safe name: start with a letter or digit and use letters, "
            "digits and _ . @ : - only "
            "(it is rendered into shell scripts, units and docker argv)"
        )
    return value


def safe_path(value: str) -> str:
    """``value`` when it is an absolute, normalized path safe to render unquoted; else raises."""
    segments = value.split("/")[1:]
    normal = value == "/" or all(s not in ("", ".", "..") for s in segments)
    if not _SAFE_PATH.fullmatch(value) or not normal:
        raise ValueError(
            f"{value!r} is not a safe absolute path: it must start with '/', hold no '.' or "
            "'..' segment, no empty segment (no '//', no trailing '/') and no shell "
            "metacharacters"
        )
    return value


SafeName = Annotated[str, AfterValidator(safe_name)]
"""A name that is rendered unquoted-safe: no whitespace or shell metacharacters."""

SafePath = Annotated[str, AfterValidator(safe_path)]
"""An absolute, normalized path with no shell metacharacters."""


M = TypeVar("M", bound=BaseModel)


def located(exc: ValidationError) -> tuple[str, str]:
    """The first validation error as (dotted field, message quoting the bad value)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "<root>"
    return where, f"{first['msg']} (value {first.get('input')!r})"


def load_json_model(model: type[M], path: Path, what: str) -> M:
    """Read ``path`` as JSON into ``model``; any error names the file and the field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlannerInputError(str(path), "<file>", f"cannot read {what}: {exc}") from exc
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise PlannerInputError(str(path), *located(exc)) from exc
