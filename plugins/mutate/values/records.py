"""The frozen records the value survey reads and rebuilds, whatever made them.

A **record** is an instance of a frozen pydantic model (``frozen=True``), a frozen dataclass
(``@dataclass(frozen=True)``), a frozen attrs class (``@attrs.frozen``,
``@attr.s(frozen=True)``; attrs 25.4 or later, which says whether a class is frozen) or a
``typing.NamedTuple``: a value whose named fields the survey walks, and which it rebuilds with
one field changed (``model_copy``, a field-by-field copy, ``_replace``) without touching the
original, and as ``model_copy`` does, without validating (no ``__init__``,
``__post_init__``, attrs validator or converter is run). attrs is never imported here: a
class made by attrs exists only once attrs is imported.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
import typing
from typing import Any

from pydantic import BaseModel


def is_record_type(annotation: Any) -> bool:
    """Whether ``annotation`` is a class whose instances are records."""
    if not isinstance(annotation, type):
        return False
    if issubclass(annotation, BaseModel):
        return bool(annotation.model_config.get("frozen"))
    if dataclasses.is_dataclass(annotation):
        params = getattr(annotation, "__dataclass_params__", None)
        return bool(getattr(params, "frozen", False))
    if _is_attrs(annotation):
        props = getattr(annotation, "__attrs_props__", None)  # attrs.inspect(cls), 25.4+
        return bool(getattr(props, "is_frozen", False))
    return issubclass(annotation, tuple) and hasattr(annotation, "_fields")


def _is_attrs(kind: type) -> bool:
    attr = sys.modules.get("attr")  # both of attrs' namespaces import it
    return attr is not None and bool(attr.has(kind))


def record_fields(value: Any) -> list[tuple[str, Any]] | None:
    """``(name, declared annotation)`` of each field of a record, in order; ``None`` for a
    value that is not one. An annotation that does not resolve reads as ``Any``."""
    kind = type(value)
    if not is_record_type(kind):
        return None
    if isinstance(value, BaseModel):
        return [(n, f.annotation) for n, f in type(value).model_fields.items()]
    try:
        hints = typing.get_type_hints(kind)
    except (NameError, TypeError):
        hints = {}
    if dataclasses.is_dataclass(value):
        return [(f.name, hints.get(f.name, Any)) for f in dataclasses.fields(value)]
    if _is_attrs(kind):
        return [(a.name, hints.get(a.name, Any)) for a in sys.modules["attr"].fields(kind)]
    return [(name, hints.get(name, Any)) for name in kind._fields]


def replaced(value: Any, updates: dict[str, Any]) -> Any:
    """A copy of the record ``value`` with ``updates``; the original is left as it was."""
    if isinstance(value, BaseModel):
        return value.model_copy(update=updates)
    if (dataclasses.is_dataclass(value) and not isinstance(value, type)) or _is_attrs(type(value)):
        copied = copy.copy(value)
        for name, new in updates.items():
            object.__setattr__(copied, name, new)  # how a frozen class's own __init__ sets
        return copied
    return value._replace(**updates)
