"""Cell keys: what a (mutant, claim) cell's verdict depends on, as one digest, so a survey
given an earlier report (``--reuse REPORT``) takes a cell's verdict from it when nothing the
cell depends on changed, and runs the cell otherwise.

A cell's key is the digest of

- the **mutant's code**: the mutated function as mutmut (or the deletion operator) wrote it
  in ``mutants/``, under its original name (:func:`variant_digests`);
- the **claim's key** (:func:`claim_key`): the code of every project function the claim
  executed in the baseline (:class:`Tracer`; a function is its definition in the project's
  own source, its nested functions and decorators included, line numbers not), every
  project file it opened and every project directory it listed (their bytes and names), and
  the *skeleton* — the file with each function's body left out — of every project module
  loaded in the worker when the claim ran (its **scope**, :class:`Scope`), so a change at
  such a module's top level (a constant, a class attribute, a default, a decorator, an
  import, a function added or removed) changes the key; and the survey's **base**: the
  interpreter and every installed distribution with its version;
- for an **opaque** claim — one that started a process, or was given a value a memo kept
  (:func:`claims.memo.recalled`; in the survey's shared memo or in a witness's own dict:
  the work that made it ran elsewhere), whose execution the tracer cannot see — the digest
  of every file of the project instead of its trace: any change at all reruns its cells.

A claim's scope leaves out the modules of *other* witnesses — unless the claim ran a function
of one, or its own witness's module imports one (directly or through the modules it imports)
— and every file the worker never loaded (tests, tools, declared mutants): a claim added to
one witness changes the keys of that witness's claims only.

What the key leaves out, and why that is judged acceptable: code the mutant's own run
reaches and the original never did (a branch only the mutant takes) is not in the claim's
trace; the environment variables and the clock a claim reads are not in it either; nor is
what another witness's module does to shared state when it is imported (a registry it fills
at its top level): no witness module here calls a function for its effect or assigns into
another module at its top level. The verdict audit samples reused cells like
every other kind of decided cell and re-judges each on the mutated source in a fresh process.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from claims.memo import RECALL_EVENT
from plugins.mutate.generated.infection import SPAWN_EVENTS

REUSED = "reused:"
"""The reason of a cell whose verdict a ``--reuse`` report gave (``reused:<cell key>``)."""
ABSENT = "absent"
"""The digest of a function, file or directory that is not there."""
MUTMUT_PREFIXES = ("_mutmut", "mutmut_")
"""Functions of mutmut's own that ``mutants/`` adds (the trampoline): the distribution's
version in the base stands for them."""
LISTING_EVENTS = frozenset({"os.listdir", "os.scandir", "glob.glob"})
SKIPPED_DIRS = frozenset({".git", "mutants", "target", "__pycache__", "node_modules"})


def digest(*parts: str) -> str:
    """sha256 of the parts, each ended by a NUL (no two part lists share a digest)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def cell_key(variant: str, claim: str) -> str:
    """The key of the cell of a mutant (its variant digest) and a claim (its claim key)."""
    return digest("cell", variant, claim)[:32]


# --- the project's source: functions and skeletons ------------------------------------------


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=True, include_attributes=False)


def _defs(body: Iterable[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """Every function of a module, methods of nested classes included, by qualified name
    (functions inside functions are part of theirs)."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _defs(node.body, f"{prefix}{node.name}.")


def function_digests(source: str) -> dict[str, str]:
    """Qualified name -> digest of each function of ``source`` (two definitions of one name,
    a property's getter and setter, are digested together, in order)."""
    found: dict[str, list[str]] = {}
    for name, node in _defs(ast.parse(source).body, ""):
        found.setdefault(name, []).append(_dump(node))
    return {name: digest(*dumps) for name, dumps in found.items()}


class _Bodiless(ast.NodeTransformer):
    def _strip(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.body = [ast.Pass()]
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self._strip(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return self._strip(node)


def skeleton_digest(source: str) -> str:
    """The digest of ``source`` with every function's body left out."""
    return digest(_dump(_Bodiless().visit(ast.parse(source))))


def project_files(root: Path) -> list[str]:
    """Every file of the project, relative to ``root``: what git tracks or would (ignored
    files left out) when ``root`` is a work tree, otherwise every file under it but hidden
    ones, ``mutants/``, ``target/`` and caches."""
    listed = _git_files(root)
    if listed is not None:
        return sorted(f for f in listed if (root / f).is_file())
    found: list[str] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        found += [
            (Path(here) / f).relative_to(root).as_posix() for f in files if not f.startswith(".")
        ]
    return sorted(found)


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [f for f in done.stdout.decode("utf-8", "surrogateescape").split("\0") if f]


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, NotADirectoryError):
        return ABSENT
    except IsADirectoryError:
        return "directory"


def base_key(root: Path) -> tuple[str, str]:
    """``(base, tree)``: the base every claim key holds (the interpreter and every installed
    distribution), and the digest of every project file (an opaque claim's)."""
    files = project_files(root)
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())
    base = digest("base", sys.version, sys.platform, *dists)
    tree = digest("tree", *(part for f in files for part in (f, _file_digest(root / f))))
    return base, tree


# --- the mutants' code ----------------------------------------------------------------------


def _original_name(name: str) -> str:
    """``x_f__mutmut_3`` -> ``f``; ``xǁCǁm__mutmut_orig`` -> ``m``; other names unchanged."""
    stem = name.rpartition("__mutmut_")[0] if "__mutmut_" in name else name
    if stem.startswith("xǁ"):
        return stem.rpartition("ǁ")[2]
    return stem[2:] if stem.startswith("x_") and stem != name else stem


def variant_digests(root: Path, path: str, names: Iterable[str]) -> dict[str, str]:
    """Mutant name -> the digest of its function in ``mutants/PATH`` (named as the original,
    so two mutants with the same code share it); ``absent`` for one not found there."""
    wanted = {n.rpartition(".")[2]: n for n in names}
    found: dict[str, str] = {n: ABSENT for n in wanted.values()}
    source = (root / "mutants" / path).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in wanted:
            name = wanted[node.name]
            node.name = _original_name(node.name)
            found[name] = digest("variant", path, _dump(node))
    return found


# --- what a claim executed ------------------------------------------------------------------


@dataclass
class Trace:
    """What one claim touched: project functions (file, qualified name), files opened,
    directories listed, why it is opaque (if it is), and the project modules whose top
    level its key holds (its scope: :meth:`Scope.narrow`)."""

    functions: set[tuple[str, str]] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    dirs: set[str] = field(default_factory=set)
    opaque: str = ""
    modules: set[str] = field(default_factory=set)

    def __or__(self, other: Trace) -> Trace:
        return Trace(
            self.functions | other.functions,
            self.files | other.files,
            self.dirs | other.dirs,
            self.opaque or other.opaque,
            self.modules | other.modules,
        )


def function_of(code: CodeType) -> str | None:
    """The project function a code object belongs to (its qualified name in the original
    source: nested code is its outermost function's; mutmut's renamed originals and variants
    are the function they stand for); ``None`` for module and class bodies and mutmut's own."""
    parts: list[str] = []
    for part in code.co_qualname.split("."):
        if part == "<locals>":
            break
        parts.append(_original_name(part))
    if not parts or parts[-1].startswith("<") or parts[-1].startswith(MUTMUT_PREFIXES):
        return None
    return ".".join(parts)


IMPORTER = "<frozen importlib._bootstrap_external>"


def _importing() -> bool:
    """Whether the ``open`` being audited is the import system's (reading a module's source
    to compile it), not code reading a source file as data."""
    frame = sys._getframe(3)  # this, _opened, _audit, then who opened
    while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        if frame.f_code.co_filename == IMPORTER:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class Tracer:
    """Records, while a claim runs, the project functions it calls (a trace function on
    ``call`` events only) and, through an audit hook, the project files it opens, the
    directories it lists, and whether it starts a process, reads ``memo`` or is given a value
    a memo kept (:data:`claims.memo.RECALL_EVENT`).

    ``roots``: where the project's files are seen (``mutants/`` first, then the project);
    paths are recorded relative to the first root that holds them. Audit hooks cannot be
    removed: one hook per process idles when nothing records.
    """

    _hooked = False
    _active: Tracer | None = None

    def __init__(self, roots: Sequence[Path], memo: Path | None = None) -> None:
        self.roots = [str(r.resolve()) + os.sep for r in roots]
        self.memo = str(memo.resolve()) + os.sep if memo is not None else None
        self.trace = Trace()
        self._codes: set[CodeType] = set()
        if not Tracer._hooked:
            sys.addaudithook(Tracer._audit)
            Tracer._hooked = True

    def relative(self, path: str) -> str | None:
        for root in self.roots:
            if path.startswith(root):
                return path[len(root) :]
        return None

    @staticmethod
    def _audit(event: str, args: tuple[Any, ...]) -> None:
        tracer = Tracer._active
        if tracer is None:
            return
        if event == "open":
            tracer._opened(args[0])
        elif event in LISTING_EVENTS and args:
            tracer._listed(args[0])
        elif event.startswith(SPAWN_EVENTS) and not tracer.trace.opaque:
            tracer.trace.opaque = f"it started a process ({event})"
        elif event == RECALL_EVENT and not tracer.trace.opaque:
            tracer.trace.opaque = "it was given a value a memo kept (made where no trace saw)"

    def _opened(self, path: object) -> None:
        if not isinstance(path, str | bytes | os.PathLike):
            return  # a file descriptor: its opening was seen
        full = os.path.abspath(os.fsdecode(path))
        if full.endswith(".pyc") or (full.endswith(".py") and _importing()):
            return  # the import system loading code: the function digests and skeletons
        if self.memo is not None and full.startswith(self.memo) and not self.trace.opaque:
            self.trace.opaque = "it read the survey's shared memo"
        relative = self.relative(full)
        if relative is not None:
            self.trace.files.add(relative)

    def _listed(self, path: object) -> None:
        if path is None:
            path = "."
        if isinstance(path, str | bytes | os.PathLike):
            relative = self.relative(os.path.abspath(os.fsdecode(path)) + os.sep)
            if relative is not None:
                self.trace.dirs.add(relative.rstrip(os.sep) or ".")

    def _call(self, frame: FrameType, event: str, arg: object) -> None:
        self._codes.add(frame.f_code)

    @contextmanager
    def recording(self) -> Iterator[Trace]:
        """Record the block (and the threads it starts) into a fresh :class:`Trace`."""
        self.trace, self._codes = Trace(), set()
        previous = sys.gettrace()
        sys.settrace(self._call)
        threading.settrace(self._call)
        Tracer._active = self
        try:
            yield self.trace
        finally:
            Tracer._active = None
            sys.settrace(previous)
            threading.settrace(None)
            self.trace.functions = self._functions()

    def _functions(self) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        for code in self._codes:
            relative = self.relative(code.co_filename)
            name = function_of(code) if relative is not None else None
            if relative is not None and name is not None:
                found.add((relative, name))
        return found


# --- a claim's scope ------------------------------------------------------------------------


def imported_modules(source: str, module: str, package: bool) -> set[str]:
    """The module names ``source`` (module ``module``, a package's ``__init__`` when
    ``package``) imports anywhere in it, functions' bodies included: ``from M import N`` as
    both ``M`` and ``M.N`` (``N`` may be a module), relative imports resolved."""
    here = module.split(".") if package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here[: max(0, len(here) - (node.level - 1))]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


class Scope:
    """The project modules whose top level a claim's key holds: every project module loaded
    in the worker when the claim's key is taken, but the modules of other witnesses that
    the claim does not reach — none of their functions ran in the claim or in its witness's
    resolution and ``setup()``, and its own witness's module does not import them (directly
    or through the project modules it imports). The functions those modules ran while the
    worker imported them leave the key with them."""

    def __init__(self, tracer: Tracer, root: Path, witnesses: Mapping[str, str]) -> None:
        self.tracer, self.root = tracer, root
        self.witnesses = dict(witnesses)
        """Witness -> the module it registered."""
        self.project = frozenset(f for f in project_files(root) if f.endswith(".py"))

    def loaded(self) -> dict[str, str]:
        """Module name -> project file, for every project module loaded now."""
        found: dict[str, str] = {}
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str):
                relative = self.tracer.relative(os.path.abspath(file))
                if relative in self.project:
                    found[name] = relative
        return found

    @functools.cache  # noqa: B019 - one Scope per survey worker
    def _imports(self, path: str, module: str) -> frozenset[str]:
        try:
            source = (self.root / path).read_text(encoding="utf-8")
            return frozenset(imported_modules(source, module, path.endswith("__init__.py")))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return frozenset()

    def imported(self, start: str, loaded: Mapping[str, str]) -> set[str]:
        """``start`` and every loaded project file it imports, directly or not (importing a
        module runs its packages' ``__init__`` first: what those import is reached too)."""
        module_of = {f: m for m, f in loaded.items()}
        seen, todo = {start}, [start]
        while todo:
            path = todo.pop()
            module = module_of.get(path, "")
            parents = [module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)]
            for name in [*self._imports(path, module), *parents]:
                found = loaded.get(name)
                if found is not None and found not in seen:
                    seen.add(found)
                    todo.append(found)
        return seen

    def narrow(self, whole: Trace, own: Trace, witness: str) -> Trace:
        """``whole`` (what the claim, the worker's imports and its witness's ``setup()``
        ran) with its scope, and without what the modules left out of it ran; ``own``: what
        the claim and its witness's resolution ran."""
        loaded = self.loaded()
        mine = loaded.get(self.witnesses.get(witness, ""))
        others = {loaded[m] for w, m in self.witnesses.items() if w != witness and m in loaded}
        reached = {path for path, _ in own.functions}
        if mine is not None:
            reached |= self.imported(mine, loaded)
        out = others - reached
        return Trace(
            {(path, name) for path, name in whole.functions if path not in out},
            set(whole.files),
            set(whole.dirs),
            whole.opaque,
            set(loaded.values()) - out,
        )


# --- a claim's key --------------------------------------------------------------------------


class Keys:
    """Claim keys of one tree (the project's own sources at ``root``; digests are cached)."""

    def __init__(self, root: Path, base: str, tree: str) -> None:
        self.root, self.base, self.tree = root, base, tree

    @functools.cache  # noqa: B019 - one Keys per survey process
    def functions(self, path: str) -> Mapping[str, str]:
        try:
            return function_digests((self.root / path).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return {}

    @functools.cache  # noqa: B019
    def file(self, path: str) -> str:
        return _file_digest(self.root / path)

    @functools.cache  # noqa: B019
    def skeleton(self, path: str) -> str:
        try:
            return skeleton_digest((self.root / path).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return self.file(path)

    @functools.cache  # noqa: B019
    def listing(self, path: str) -> str:
        try:
            names = sorted(
                n for n in os.listdir(self.root / path) if n != "__pycache__" and n != "mutants"
            )
        except (FileNotFoundError, NotADirectoryError):
            return ABSENT
        return digest("listing", *names)

    def claim_key(self, trace: Trace, setup: Trace) -> str:
        """The claim's key from what it touched and what the worker's setup touched (the
        imports and ``setup()`` that built what the claim starts from; see the module
        docstring)."""
        whole = trace | setup
        if whole.opaque:
            return digest("opaque", self.base, self.tree)
        parts = ["claim", self.base]
        for path in sorted(whole.modules):
            parts += ["module", path, self.skeleton(path)]
        for path, name in sorted(whole.functions):
            parts += [path, name, self.functions(path).get(name, ABSENT)]
        for path in sorted(whole.files):
            parts += ["file", path, self.file(path)]
        for path in sorted(whole.dirs):
            parts += ["dir", path, self.listing(path)]
        return digest(*parts)


# --- a trace in the report -------------------------------------------------------------------


def trace_json(trace: Trace) -> dict[str, Any]:
    """A trace as the report's ``claimTraces`` holds it (functions grouped by file)."""
    functions: dict[str, list[str]] = {}
    for path, name in sorted(trace.functions):
        functions.setdefault(path, []).append(name)
    found: dict[str, Any] = {"functions": functions, "files": sorted(trace.files)}
    found["dirs"] = sorted(trace.dirs)
    found["modules"] = sorted(trace.modules)
    if trace.opaque:
        found["opaque"] = trace.opaque
    return found


def trace_of(body: object) -> Trace | None:
    """The trace a report's ``claimTraces`` entry holds; ``None`` for one that is not one."""
    if not isinstance(body, dict):
        return None
    functions, files, dirs = body.get("functions"), body.get("files"), body.get("dirs")
    modules = body.get("modules")
    if not (isinstance(functions, dict) and _strings(files) and _strings(dirs)):
        return None
    if not _strings(modules) or not all(
        isinstance(p, str) and _strings(n) for p, n in functions.items()
    ):
        return None
    opaque = body.get("opaque", "")
    return Trace(
        {(path, name) for path, names in functions.items() for name in names},
        {str(f) for f in files or ()},
        {str(d) for d in dirs or ()},
        opaque if isinstance(opaque, str) else "opaque",
        {str(m) for m in modules or ()},
    )


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


@dataclass(frozen=True)
class Settled:
    """A claim whose key the reused report recorded and whose recorded trace still gives that
    key in this tree: it runs as it ran then, so the baseline need not run it again."""

    key: str
    seconds: float
    covers: tuple[str, ...]
    """The mutated functions it calls (coverage keys)."""
    trace: Mapping[str, Any]
    """Its ``claimTraces`` entry, carried into the new report."""
    forced_red: bool
    """Whether it went red when every trampoline raised."""


def settled_claims(report: Mapping[str, Any], keys: Keys) -> dict[str, Settled]:
    """The claims of ``report`` whose recorded trace gives, in ``keys``'s tree, the key the
    report recorded (an opaque claim's key holds every file, so any change unsettles it)."""
    traces, recorded = report.get("claimTraces"), report.get("claimKeys")
    if not isinstance(traces, dict) or not isinstance(recorded, dict):
        return {}
    config = report.get("config")
    forced = set(config.get("forcedFailRed", ())) if isinstance(config, dict) else set()
    found: dict[str, Settled] = {}
    for claim, body in traces.items():
        trace, key = trace_of(body), recorded.get(claim)
        seconds, covers = body.get("seconds"), body.get("covers")
        if trace is None or not isinstance(key, str) or not _strings(covers):
            continue
        if isinstance(seconds, int | float) and keys.claim_key(trace, Trace()) == key:
            found[claim] = Settled(key, float(seconds), tuple(covers), body, claim in forced)
    return found


# --- reuse ----------------------------------------------------------------------------------


def reuse_table(report: Mapping[str, Any]) -> dict[str, bool]:
    """Cell key -> whether the cell was red, for every cell ``report`` decided: each claim
    covering a mutant the survey judged whole (killed, survived, or equivalent), whose
    claim key and variant digest the report recorded."""
    claims = report.get("claimKeys")
    table: dict[str, bool] = {}
    if not isinstance(claims, dict):
        return table
    for entry in report.get("files", {}).values():
        for mutant in entry.get("mutants", ()):
            variant = mutant.get("variantKey")
            if not isinstance(variant, str) or mutant.get("status") not in WHOLE:
                continue
            killed = set(mutant.get("killedBy", ()))
            for claim in mutant.get("coveredBy", ()):
                key = claims.get(claim)
                if isinstance(key, str):
                    table[cell_key(variant, key)] = claim in killed
    return table


WHOLE = frozenset({"Killed", "Survived", "Ignored"})
"""Statuses whose every covering cell was decided (a timeout or a crash decided none)."""


def write_table(table: Mapping[str, bool], path: Path) -> None:
    path.write_text(json.dumps(table, sort_keys=True), encoding="utf-8")
