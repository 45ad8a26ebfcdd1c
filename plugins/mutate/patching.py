"""In-memory patching: put a replacement where the claims will call it, and take it back.

A target is a dotted path: ``pkg.mod.function``, ``pkg.mod.Class.method`` or
``pkg.mod.Class.prop``. A module-level function is replaced in its defining module *and* in
every loaded module that bound the same object (``from pkg.mod import function``), so a
claim that imported the name calls the replacement too. A method or property is replaced on
its class. Nothing is ever written to disk.

What is installed is a dispatcher: a call from outside the replacement runs the replacement,
and a call the replacement makes (in its own thread) runs the original. So a mutant may delegate
to the function it replaces by its ordinary name, while another mutant of the same run that
calls that function reaches the replacement (combined runs compose).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any


class ForcedFailure(Exception):
    """Raised by a target replaced for the forced-fail sanity run.

    A plain ``Exception`` (not a ``ValueError`` or any planner error), so no claim or planner
    code that handles an expected error can swallow it.
    """


class TargetError(LookupError):
    """A ``replaces`` path that does not name a function, method or property."""


@dataclass(frozen=True)
class Target:
    """A resolved target: where it lives, under which name, and what is there now."""

    path: str
    owner: ModuleType | type
    attribute: str
    original: Any

    @property
    def on_class(self) -> bool:
        return isinstance(self.owner, type)

    def callable(self) -> Callable[..., Any]:
        """The function a caller reaches: the getter of a property, else the function."""
        if isinstance(self.original, property):
            assert self.original.fget is not None
            return self.original.fget
        if isinstance(self.original, (staticmethod, classmethod)):
            found: Callable[..., Any] = self.original.__func__
            return found
        return self.original  # type: ignore[no-any-return]


def resolve(path: str) -> Target:
    """Import the longest module prefix of ``path`` and walk the rest as attributes."""
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        return _walk(path, module, parts[split:])
    raise TargetError(f"{path!r}: no importable module prefix")


def _walk(path: str, module: ModuleType, rest: list[str]) -> Target:
    owner: ModuleType | type = module
    for name in rest[:-1]:
        found = getattr(owner, name, None)
        if not isinstance(found, type):
            raise TargetError(f"{path!r}: {name!r} is not a class of {owner.__name__}")
        owner = found
    attribute = rest[-1]
    namespace = vars(owner)
    if attribute not in namespace:
        raise TargetError(f"{path!r}: {owner.__name__} defines no {attribute!r}")
    original = namespace[attribute]
    if not (
        inspect.isfunction(original) or isinstance(original, (property, staticmethod, classmethod))
    ):
        raise TargetError(f"{path!r} is a {type(original).__name__}, not a function")
    return Target(path=path, owner=owner, attribute=attribute, original=original)


def signature_mismatch(target: Target, replacement: Callable[..., Any]) -> str | None:
    """Why ``replacement`` cannot stand in for ``target`` (parameter names), or None."""
    want = list(inspect.signature(target.callable()).parameters)
    got = list(inspect.signature(replacement).parameters)
    if want == got:
        return None
    return f"takes ({', '.join(got)}) but {target.path} takes ({', '.join(want)})"


def forced_failure(target: Target) -> Callable[..., Any]:
    """A stand-in for ``target`` that raises :class:`ForcedFailure` whenever it is reached."""

    def fail(*args: object, **kwargs: object) -> Any:
        raise ForcedFailure(f"forced failure: {target.path} was reached")

    return fail


def dispatcher(target: Target, replacement: Callable[..., Any]) -> Callable[..., Any]:
    """Call ``replacement``, except from inside it, where the original is called.

    "Inside" is per thread: code that runs one host per thread calls the target from several
    threads at once, and a call from another thread while one is inside the replacement is
    still a call from outside it (a shared flag would hand that call the original)."""
    original = target.callable()
    state = threading.local()

    @functools.wraps(original)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if getattr(state, "inside", False):
            return original(*args, **kwargs)
        state.inside = True
        try:
            return replacement(*args, **kwargs)
        finally:
            state.inside = False

    return dispatch


def _installed(target: Target, replacement: Callable[..., Any]) -> Any:
    dispatch = dispatcher(target, replacement)
    if isinstance(target.original, property):
        return property(dispatch)
    if isinstance(target.original, staticmethod):
        return staticmethod(dispatch)
    if isinstance(target.original, classmethod):
        return classmethod(dispatch)
    return dispatch


Restore = list[tuple[MutableMapping[str, Any] | type, str, Any]]


def drop_caches(names: Iterable[str]) -> None:
    """Empty every ``functools`` cache of the loaded modules of the packages ``names`` lie in
    (each a dotted name: a package, a module or a target), and of the classes they define.

    The code under test may keep what it computed from its inputs (a parser, a parsed file).
    A cache filled before a patch or a mutant switch would answer with what the code
    computed before it, so the engines drop them whenever the code changes: on every
    install and restore here, and on every switch of the generated survey. A pass that
    records which code each claim calls drops them before each claim too, or a claim served
    from another's cache would be recorded as calling less than it does."""
    roots = {_package(n) for n in names}
    for name, module in list(sys.modules.items()):
        if not isinstance(module, ModuleType) or _package(name) not in roots:
            continue
        for value in list(vars(module).values()):
            _clear(value)
            if isinstance(value, type) and value.__module__ == name:
                for member in list(vars(value).values()):
                    _clear(member)


def _clear(value: object) -> None:
    """Empty ``value`` if it is a cache: a ``functools`` cache, or any object (not a class,
    whose methods these would be) answering ``cache_info`` and ``cache_clear``."""
    if isinstance(value, type) or not hasattr(value, "cache_info"):
        return
    clear = getattr(value, "cache_clear", None)
    if callable(clear):
        clear()


def _package(dotted: str) -> str:
    """The top-level package a dotted name lies in."""
    return dotted.partition(".")[0]


def install(target: Target, replacement: Callable[..., Any]) -> Restore:
    """Install ``replacement``; returns what :func:`restore` needs to undo it. The target's
    package's caches are dropped (:func:`drop_caches`)."""
    new = _installed(target, replacement)
    undo: Restore = []
    if target.on_class:
        setattr(target.owner, target.attribute, new)
        undo.append((target.owner, target.attribute, target.original))  # type: ignore[arg-type]
    else:
        for module in _binding_modules(target.original):
            namespace = vars(module)
            for name in [n for n, v in namespace.items() if v is target.original]:
                undo.append((namespace, name, target.original))
                namespace[name] = new
    drop_caches([target.path])
    return undo


def _binding_modules(original: object) -> list[ModuleType]:
    return [
        m for m in list(sys.modules.values()) if isinstance(m, ModuleType) and _binds(m, original)
    ]


def _binds(module: ModuleType, original: object) -> bool:
    try:
        return any(v is original for v in vars(module).values())
    except TypeError:
        return False


def restore(undo: Restore) -> None:
    """Put every original back, last installed first, and drop the caches of the packages
    it touched (:func:`drop_caches`)."""
    touched: set[str] = set()
    for where, name, original in reversed(undo):
        if isinstance(where, type):
            setattr(where, name, original)
            touched.add(where.__module__)
        else:
            where[name] = original
            touched.add(str(where.get("__name__", "")))
    drop_caches(touched)


@contextmanager
def patched(replacements: list[tuple[Target, Callable[..., Any]]]) -> Iterator[None]:
    """Install every replacement for the duration of the block."""
    undo: Restore = []
    try:
        for target, replacement in replacements:
            undo += install(target, replacement)
        yield
    finally:
        restore(undo)
