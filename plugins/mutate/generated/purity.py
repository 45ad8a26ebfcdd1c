"""The purity guard: which functions the survey may judge by replaying their calls.

A cell may be decided without a run only when the mutated function's behaviour is wholly
its arguments in, its result, its exception and its arguments' state out. The guard reads
the function's source, and the source of every function of the project it can reach, and
refuses, naming the first reason, a function that

- reads a module global other than a module, a class, a function or an immutable constant
  (a number, string, bytes, ``None``, an enum member, a compiled pattern, a tuple or frozenset
  of those), or a name some function of its module declares ``global``;
- uses a module outside :data:`PURE_MODULES` (``os``, ``sys``, ``time``, ``random``,
  ``subprocess``, ``socket``, ``pathlib``, ``shutil`` …; a pure module's C accelerator, such
  as ``_hashlib`` for ``hashlib.sha256``, counts as the module), a class of one (but the pure
  paths of :data:`PURE_CLASSES` and any exception class), a builtin outside
  :data:`PURE_BUILTINS` (``open``, ``print``, ``input``, ``id``, ``setattr`` …), or calls a
  method named in :data:`IMPURE_METHODS` (a clock, randomness, the file system, a process,
  a socket, a stream, a thread, a cache);
- declares ``global`` or ``nonlocal``, yields or awaits, has a closure or a mutable default;
- calls a name it holds locally that it did not define (a callable passed in).

Method calls on values are resolved by name: a project method of that name anywhere is
checked too. What the static reading cannot see (a method of a library type doing I/O under
an innocent name) the replay's audit hook sees (:mod:`.infection`).
"""

from __future__ import annotations

import ast
import builtins
import enum
import inspect
import re
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from types import FunctionType, ModuleType
from typing import Any

PURE_MODULES = frozenset(
    {
        "abc",
        "base64",
        "bisect",
        "collections",
        "copy",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "enum",
        "fnmatch",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "ipaddress",
        "itertools",
        "json",
        "keyword",
        "math",
        "operator",
        "pydantic",
        "pydantic_core",
        "re",
        "shlex",
        "string",
        "textwrap",
        "types",
        "typing",
        "typing_extensions",
        "unicodedata",
        "zoneinfo",
    }
)
PURE_CLASSES = frozenset({"pathlib.PurePath", "pathlib.PurePosixPath", "pathlib.PureWindowsPath"})
"""Classes of a module that is not pure which do no I/O themselves: pure paths are names."""
PURE_BUILTINS = frozenset(
    {
        "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "dict",
        "divmod", "enumerate", "filter", "float", "format", "frozenset", "getattr", "hasattr",
        "hex", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min",
        "next", "object", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set",
        "slice", "sorted", "str", "sum", "super", "tuple", "type", "zip", "NotImplemented",
        "Ellipsis", "__name__", "property", "staticmethod", "classmethod",
    }
)  # fmt: skip
IMPURE_METHODS = frozenset(
    {
        "now", "today", "utcnow", "time", "monotonic", "perf_counter", "process_time", "sleep",
        "random", "randint", "randrange", "choice", "choices", "shuffle", "uniform", "getenv",
        "putenv", "read", "read_text", "read_bytes", "readline", "readlines", "write",
        "write_text", "write_bytes", "writelines", "open", "unlink", "mkdir", "makedirs",
        "rmdir", "touch", "rename", "exists", "is_file", "is_dir", "is_symlink", "stat",
        "lstat", "glob", "rglob", "iterdir", "resolve", "absolute", "cwd", "home",
        "expanduser", "chmod", "chown", "symlink_to", "hardlink_to", "readlink", "samefile",
        "owner", "group", "send", "sendall", "recv", "connect", "run", "call", "check_call",
        "check_output", "communicate", "poll", "wait", "kill", "terminate", "flush", "fileno",
        "seek", "tell", "close", "fsync", "print", "cache_clear", "acquire", "release",
        "start", "environ", "input",
    }
)  # fmt: skip
IMMUTABLE = (
    int, float, complex, str, bytes, bool, type(None), range, enum.Enum, re.Pattern,
    types.UnionType, types.GenericAlias, typing.TypeVar,
)  # fmt: skip
MAX_CONSTANT_DEPTH = 4


def immutable(value: object, depth: int = 0) -> bool:
    """A value no one can change: a scalar, an enum member, a pattern, a class, a function,
    a module, or a tuple or frozenset of those."""
    if isinstance(value, (*IMMUTABLE, type, FunctionType, ModuleType)):
        return True
    if isinstance(value, (tuple, frozenset)) and depth < MAX_CONSTANT_DEPTH:
        return all(immutable(item, depth + 1) for item in value)
    return False


@dataclass
class Guard:
    """Judges functions of the packages ``roots`` (their top-level names), memoized."""

    roots: frozenset[str]
    verdicts: dict[object, str | None] = field(default_factory=dict)

    def refusal(self, function: Callable[..., Any]) -> str | None:
        """Why ``function`` may not be replayed, or None when it may."""
        target = inspect.unwrap(function)
        if target in self.verdicts:
            return self.verdicts[target]
        self.verdicts[target] = None  # a cycle is judged by the rest of its members
        found = self._judge(target)
        self.verdicts[target] = found
        return found

    def _judge(self, function: Callable[..., Any]) -> str | None:
        if not isinstance(function, FunctionType):
            return f"{function!r} is not a plain function"
        name = function.__qualname__
        if function.__closure__:
            return f"{name} has a closure"
        defaults = (*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values())
        if not all(immutable(d) for d in defaults):
            return f"{name} has a mutable default"
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        except (OSError, TypeError, SyntaxError) as error:
            return f"{name}: no source to read ({error})"
        reading = Reading(self, function, tree)
        return next(reading.refusals(), None)

    def written(self, member: object) -> bool:
        """A function of the project written in a file: not one a library generated for a
        class (a dataclass's ``__eq__``, a protocol's hook), which is judged by its library."""
        if not isinstance(member, FunctionType) or not self.in_project(member):
            return False
        return not member.__code__.co_filename.startswith("<")

    def in_project(self, value: object) -> bool:
        module = getattr(value, "__module__", None) or getattr(value, "__name__", "")
        return isinstance(module, str) and module.partition(".")[0] in self.roots

    @cached_property
    def methods(self) -> dict[str, list[FunctionType]]:
        """Every method and property getter defined in a class of the project, by name."""
        found: dict[str, list[FunctionType]] = {}
        for name, module in list(sys.modules.items()):
            if name.partition(".")[0] not in self.roots or not isinstance(module, ModuleType):
                continue
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__ == name:
                    for key, member in vars(value).items():
                        member = getattr(member, "__func__", getattr(member, "fget", member))
                        if self.written(member):
                            found.setdefault(key, []).append(member)
        return found

    def declared_global(self, module: ModuleType) -> frozenset[str]:
        """Names a function of ``module`` declares ``global``: module state that changes."""
        key = ("global", module.__name__)
        if key not in self.verdicts:
            try:
                tree = ast.parse(inspect.getsource(module))
            except (OSError, TypeError, SyntaxError):
                tree = ast.Module(body=[], type_ignores=[])
            names = {
                n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names
            }
            self.verdicts[key] = ",".join(sorted(names))
        return frozenset(filter(None, (self.verdicts[key] or "").split(",")))


class Reading:
    """One function's source, read for what makes it impure."""

    def __init__(self, guard: Guard, function: FunctionType, tree: ast.Module) -> None:
        self.guard, self.function, self.tree = guard, function, tree
        self.name = function.__qualname__
        self.module = sys.modules.get(function.__module__)
        self.local = _local_names(tree)
        self.defined = {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            and hasattr(n, "name")
        }

    def refusals(self) -> Iterator[str]:
        body = self.tree.body[0] if self.tree.body else None
        if isinstance(body, ast.AsyncFunctionDef):
            yield f"{self.name} is a coroutine"
        _unevaluated(self.tree)
        for node in ast.walk(self.tree):
            found = self._node(node)
            if found:
                yield found

    def _node(self, node: ast.AST) -> str | None:
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return f"{self.name} declares {type(node).__name__.lower()}"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return f"{self.name} yields or awaits"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return self._name(node.id)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return self._import(node)
        return None

    def _import(self, node: ast.Import | ast.ImportFrom) -> str | None:
        names = (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
        for name in names:
            root = name.partition(".")[0]
            if root not in PURE_MODULES and root not in self.guard.roots:
                return f"{self.name} imports {name}"
        return None

    def _name(self, name: str) -> str | None:
        if name in self.local:
            return None
        globals_ = self.function.__globals__
        if name in globals_:
            if self.module is not None and name in self.guard.declared_global(self.module):
                return f"{self.name} reads {name}, which its module rebinds (global)"
            return self._value(name, globals_[name])
        if hasattr(builtins, name):
            return (
                None
                if name in PURE_BUILTINS or _is_exception(name)
                else f"{self.name} uses {name}()"
            )
        return f"{self.name} reads {name}, which it neither defines nor imports"

    def _value(self, name: str, value: object) -> str | None:
        """What a global or a module attribute the function reads may be."""
        if isinstance(value, ModuleType):
            root = value.__name__.partition(".")[0]
            ok = root in PURE_MODULES or root in self.guard.roots
            return None if ok else f"{self.name} uses the module {value.__name__}"
        if isinstance(value, type):
            return self._class(value)
        if callable(value) and not isinstance(value, type):
            return self._callable(name, value)
        return None if immutable(value) else f"{self.name} reads the mutable global {name}"

    def _class(self, cls: type) -> str | None:
        if not self.guard.in_project(cls):
            root = cls.__module__.partition(".")[0]
            named = f"{cls.__module__}.{cls.__qualname__}"
            exception = issubclass(cls, BaseException)  # made and raised, it does no I/O
            ok = _pure_module(root) or root == "builtins" or named in PURE_CLASSES or exception
            return (
                None if ok else f"{self.name} uses the class {cls.__qualname__} of {cls.__module__}"
            )
        for name, member in vars(cls).items():
            member = getattr(member, "__func__", member)
            dunder = name.startswith("__") and name.endswith("__")
            if dunder and self.guard.written(member) and (why := self.guard.refusal(member)):
                return why
        return None

    def _callable(self, name: str, value: Callable[..., Any]) -> str | None:
        if self.guard.in_project(value):
            return self.guard.refusal(value)
        root = str(getattr(value, "__module__", "") or "").partition(".")[0]
        if _pure_module(root) or (root == "builtins" and name in PURE_BUILTINS):
            return None
        return f"{self.name} uses {name} (module {root or 'unknown'}, not a pure one)"

    def _call(self, node: ast.Call) -> str | None:
        callee = node.func
        if (
            isinstance(callee, ast.Name)
            and callee.id in self.local
            and callee.id not in self.defined
        ):
            return f"{self.name} calls {callee.id}, a callable it was given"
        if isinstance(callee, ast.Attribute) and not self._module_attribute(callee):
            if callee.attr in IMPURE_METHODS:
                return f"{self.name} calls .{callee.attr}()"
            for method in self.guard.methods.get(callee.attr, ()):
                if why := self.guard.refusal(method):
                    return why
        return None

    def _attribute(self, node: ast.Attribute) -> str | None:
        """``module.attr``: what the module holds under that name."""
        owner = self._module_attribute(node)
        if owner is None:  # a value's attribute: a project property of that name is read
            for getter in self.guard.methods.get(node.attr, ()):
                if why := self.guard.refusal(getter):
                    return why
            return None
        if not hasattr(owner, node.attr):
            return f"{self.name} reads {owner.__name__}.{node.attr}, which does not exist"
        return self._value(f"{owner.__name__}.{node.attr}", getattr(owner, node.attr))

    def _module_attribute(self, node: ast.Attribute) -> ModuleType | None:
        if isinstance(node.value, ast.Name) and node.value.id not in self.local:
            owner = self.function.__globals__.get(node.value.id)
            return owner if isinstance(owner, ModuleType) else None
        return None


def _pure_module(root: str) -> bool:
    """A module of :data:`PURE_MODULES`, or its accelerator written in C, which the pure
    module's own functions and classes name as theirs (``_hashlib`` for ``hashlib.sha256``,
    ``_bisect.bisect_left``, ``_functools.reduce``)."""
    return root in PURE_MODULES or (root.startswith("_") and root[1:] in PURE_MODULES)


def _unevaluated(tree: ast.Module) -> None:
    """Drop what a call never evaluates: the function's decorators (they ran when it was
    defined: mutmut's trampoline is one; a cache's state is dropped at every switch) and
    every annotation (strings under ``from __future__ import annotations``)."""
    body = tree.body[0] if tree.body else None
    if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body.decorator_list = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(value=None)


def _is_exception(name: str) -> bool:
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def _local_names(tree: ast.Module) -> set[str]:
    """Every name the function binds: parameters, assignments, loop and comprehension
    targets, imports, nested definitions, ``except … as`` names."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(a.asname or a.name).partition(".")[0] for a in node.names}
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            found.add(node.name)
    body = tree.body[0] if tree.body else None
    if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found.discard(body.name)  # the function's own name is a global (a recursive call)
    return found
