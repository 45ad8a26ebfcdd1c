"""Exact cell skipping: a (mutant, claim) cell whose mutant is not infected on any of the
claim's calls of its function is survived without a run.

1. **Record.** In the baseline, every mutated function the purity guard admits
   (:mod:`.purity`) is wrapped where mutmut's trampoline finds its original; for each claim,
   each call is kept: the arguments deep-copied before the call, and the outcome (result or
   exception type and arguments, and the arguments' state after), deep-copied too. At most
   :data:`MAX_CALLS` calls per function and claim; a claim that makes more, or a call whose
   values cannot be copied, leaves its cells to run.
2. **Replay.** For a mutant of such a function and a claim that calls it, each recorded call
   runs again from a fresh copy of its arguments: first the original, whose outcome must be
   the recorded one (else the function depends on something outside its arguments, and the
   cell runs), then the mutant with the trampolines switched to it (a recursive call reaches
   it as in a run). Outcomes compare by :func:`same`: the same types all the way down, equal
   values, the same iteration order, the result being one of the arguments in both or in
   neither. While a replay runs, an audit hook watches for I/O (a file opened, a process, a
   socket, an ``os`` call): any event leaves the cell to run; so does anything the replay
   raises that the original did not, a value :func:`same` cannot compare, and a replay past
   its time.
3. **Decide.** Every call the same: the cell is ``not_infected``, green without a run. Some
   call differs, but every call gives the same outcome as under another mutant of the same
   function this worker already ran the claim on: the cell is ``same_as:<that mutant>``, with
   its verdict. Otherwise the claim runs.

Why it is exact: the claim's execution up to each call of the function is the baseline's
(every earlier call gave the same outcome), the call's outcome is the baseline's, and a
function the guard admits has no effect beyond its outcome; so the whole execution is the
baseline's, and the baseline was green. The verdict audit (:mod:`.audit`) re-judges a sample
of these cells in a fresh process on the mutated source.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import enum
import functools
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import PurePath
from types import ModuleType
from typing import Any, TypeVar

from plugins.mutate.generated.purity import Guard
from plugins.mutate.generated.spawned import SpawnLog

MAX_CALLS = 64
"""Calls kept per function and claim; past that, the claim's cells of that function run."""
REPLAY_SECONDS = 2.0
"""The time a replay of one cell may take before the cell is left to run."""
SLOWER, SLACK_SECONDS = 2.0, 0.01
"""A mutant whose replay takes longer than twice the original's (and 10 ms) runs: the
time a claim takes is part of its verdict (a timeout is a kill)."""
WORTH_SECONDS = 0.05
"""A claim whose baseline took less runs under every mutant: its replay would cost about
as much as its run (a choice of speed, never of verdict)."""
MAX_DEPTH = 40
NOT_INFECTED = "not_infected"
SAME_AS = "same_as:"
IO_EVENTS = ("open", "os.", "subprocess.", "socket.", "shutil.", "pty.", "fcntl.", "signal.")
SWITCHING = frozenset({"os.putenv", "os.unsetenv"})
"""What switching the active mutant raises (it sets ``MUTANT_UNDER_TEST``): not the replay's
I/O. A replayed function that writes the environment is refused by the guard (``os``)."""
SPAWN_EVENTS = (
    "subprocess.",
    "os.fork",
    "os.posix_spawn",
    "os.exec",
    "os.system",
    "os.spawn",
    "pty.",
)


class Uncomparable(Exception):
    """A value :func:`same` cannot compare exactly: the cell runs."""


class Leak(Exception):
    """The replay did I/O, or did not end in time: the cell runs."""


# --- comparing ------------------------------------------------------------------------------

SCALARS = (str, bytes, int, bool, type(None), complex, range)
PLAIN_EQUAL = (Decimal, PurePath, datetime.date, datetime.time, datetime.timedelta)


def same(a: object, b: object, depth: int = 0) -> bool:
    """Whether ``a`` and ``b`` are indistinguishable to code that reads them: the same type
    at every level, equal scalars (floats by ``repr``: ``-0.0`` and ``nan`` too), the same
    items in the same order, the same fields; raises :class:`Uncomparable` for a value of
    any other kind (a stream, a lock, a function)."""
    if depth > MAX_DEPTH:
        raise Uncomparable("nested too deep")
    if type(a) is not type(b):
        return False
    if isinstance(a, SCALARS):
        return a == b
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, enum.Enum):
        return a is b
    if isinstance(a, PLAIN_EQUAL) or isinstance(a, re.Pattern):
        return a == b and repr(a) == repr(b)
    if isinstance(a, (tuple, list, set, frozenset)):
        return _same_items(list(a), list(b), depth)  # type: ignore[call-overload]
    if isinstance(a, dict):
        return _same_items(list(a.items()), list(b.items()), depth)  # type: ignore[attr-defined]
    if isinstance(a, type) or isinstance(a, ModuleType):
        return a is b
    return _same_object(a, b, depth)


def _same_items(a: list[Any], b: list[Any], depth: int) -> bool:
    return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b, strict=True))


def _same_object(a: object, b: object, depth: int) -> bool:
    """Instances of one class: their fields (dataclass fields, ``__dict__``, ``__slots__``)."""
    if dataclasses.is_dataclass(a) or hasattr(a, "__dict__"):
        state_a = getattr(a, "__dict__", None)
        state_b = getattr(b, "__dict__", None)
        if state_a is None or state_b is None:
            raise Uncomparable(f"a {type(a).__name__} without __dict__")
        slots_a, slots_b = _slots(a), _slots(b)
        return same(state_a, state_b, depth + 1) and same(slots_a, slots_b, depth + 1)
    if _slots(a):
        return same(_slots(a), _slots(b), depth + 1)
    raise Uncomparable(f"a {type(a).__module__}.{type(a).__qualname__}")


def _slots(value: object) -> dict[str, object]:
    names = [n for c in type(value).__mro__ for n in getattr(c, "__slots__", ())]
    wanted = [n for n in names if n not in ("__dict__", "__weakref__")]
    return {n: getattr(value, n) for n in wanted if hasattr(value, n)}


# --- outcomes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one call did: its result or exception, and its arguments' state after."""

    result: object
    raised: type[BaseException] | None
    after: object
    aliases: tuple[int, ...]
    """Which arguments the result is (an identity the caller may rely on)."""

    def matches(self, other: Outcome) -> bool:
        return (
            self.raised is other.raised
            and self.aliases == other.aliases
            and same(self.result, other.result)
            and same(self.after, other.after)
        )


@dataclass(frozen=True)
class Call:
    """One recorded call: its arguments before, and what it did."""

    before: tuple[tuple[object, ...], dict[str, object]]
    outcome: Outcome


def outcome_of(function: Callable[..., Any], before: tuple[Any, dict[str, Any]]) -> Outcome:
    """Call ``function`` on a fresh copy of ``before``; its outcome, copied. A
    ``BaseException`` (a timeout, an exit) is no outcome: it propagates."""
    args, kwargs = copy.deepcopy(before)
    try:
        result = function(*args, **kwargs)
    except Exception as error:
        return copy.deepcopy(_raised(error, args, kwargs))
    return copy.deepcopy(_returned(result, args, kwargs))


# --- the I/O watch --------------------------------------------------------------------------


class Watch:
    """A process-wide audit hook that notes the events it is armed for (any thread)."""

    installed = False
    seen: list[str] | None = None
    prefixes: tuple[str, ...] = ()
    kept: Callable[[str, tuple[object, ...]], bool] | None = None

    @classmethod
    def _hook(cls, event: str, args: tuple[object, ...]) -> None:
        if cls.seen is not None and event.startswith(cls.prefixes) and event not in SWITCHING:
            if cls.kept is None or cls.kept(event, args):
                cls.seen.append(event)

    @classmethod
    @contextmanager
    def watching(
        cls,
        prefixes: tuple[str, ...],
        kept: Callable[[str, tuple[object, ...]], bool] | None = None,
    ) -> Iterator[list[str]]:
        """The events starting with ``prefixes`` raised during the block (those ``kept``
        says yes to, given the event and its arguments, when it is given)."""
        if not cls.installed:
            sys.addaudithook(cls._hook)  # audit hooks cannot be removed: it idles unarmed
            cls.installed = True
        cls.seen, cls.prefixes, cls.kept = [], prefixes, kept
        try:
            yield cls.seen
        finally:
            cls.seen, cls.kept = None, None


INTERPRETERS = ("python", "sh", "bash", "dash", "env")
"""Programs that may run this project's Python code (a shell may start an interpreter)."""


def may_run_python(event: str, args: tuple[object, ...]) -> bool:
    """Whether a process event may run Python code of this project: a fork, a shell command,
    or a program whose name starts with one of :data:`INTERPRETERS` (an ``sshd`` or a
    ``git`` may not: what it runs is no code a mutant reaches)."""
    # the program: subprocess.Popen (executable, ...), os.exec and os.posix_spawn (path, ...),
    # os.spawn (mode, path, ...)
    where = {"subprocess.Popen": 0, "os.exec": 0, "os.posix_spawn": 0, "os.spawn": 1}
    if event not in where or len(args) <= where[event]:
        return True  # os.fork, os.forkpty, os.system, pty.spawn and the rest
    program = args[where[event]]
    if not isinstance(program, bytes | str | os.PathLike):
        return True
    name = os.path.basename(os.fsdecode(program))
    return name.startswith(INTERPRETERS) or name == os.path.basename(sys.executable)


# --- recording ------------------------------------------------------------------------------


@dataclass
class Recording:
    """Per admitted function (its coverage key) and claim, the calls the baseline made; a
    ``None`` list is a claim whose calls could not all be kept."""

    calls: dict[str, dict[str, list[Call] | None]] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    """Key -> why the guard refused it (its cells always run)."""
    spawning: set[str] = field(default_factory=set)
    """Claims that started a process in the baseline that may have run the project's
    Python (:mod:`.spawned`): calls there are not recorded, so none of their cells is
    skipped."""
    claim: str | None = None

    def wanted(self, key: str) -> bool:
        """Whether a call of ``key`` now is kept (a claim is recorded, and its calls of
        ``key`` are not already given up)."""
        if self.claim is None:
            return False
        return self.calls.get(key, {}).get(self.claim, []) is not None

    def add(self, key: str, call: Call | None) -> None:
        if self.claim is None:
            return
        per_claim = self.calls.setdefault(key, {})
        kept = per_claim.setdefault(self.claim, [])
        if kept is None:
            return
        if call is None or len(kept) >= MAX_CALLS:
            per_claim[self.claim] = None
        else:
            kept.append(call)


def recorder(recording: Recording, key: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """``original``, keeping each call it gets while a claim is being recorded."""

    @functools.wraps(original)
    def record(*args: Any, **kwargs: Any) -> Any:
        if not recording.wanted(key):
            return original(*args, **kwargs)
        before = _copied(lambda: (args, dict(kwargs)))
        if before is None:
            recording.add(key, None)
            return original(*args, **kwargs)
        try:
            result = original(*args, **kwargs)
        except Exception as error:
            raised = _copied(functools.partial(_raised, error, args, kwargs))
            recording.add(key, None if raised is None else Call(before, raised))
            raise
        except BaseException:
            recording.add(key, None)
            raise
        returned = _copied(functools.partial(_returned, result, args, kwargs))
        recording.add(key, None if returned is None else Call(before, returned))
        return result

    return record


def _raised(error: Exception, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Outcome:
    """An exception's outcome: its type, its arguments and attributes (a refusal's code,
    its notes), and the type and arguments of what it was raised from."""
    cause = error.__cause__ or error.__context__
    chained = None if cause is None else (type(cause), cause.args)
    return Outcome((error.args, vars(error), chained), type(error), (args, dict(kwargs)), ())


def _returned(result: object, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Outcome:
    aliases = tuple(i for i, a in enumerate([*args, *kwargs.values()]) if a is result)
    return Outcome(result, None, (args, dict(kwargs)), aliases)


T = TypeVar("T")


def _copied(make: Callable[[], T]) -> T | None:
    """A deep copy of what ``make`` returns, or None when it cannot be copied."""
    try:
        return copy.deepcopy(make())
    except Exception:
        return None


# --- the infection engine -------------------------------------------------------------------


def split_name(mutant: str) -> tuple[str, str, str]:
    """``pkg.mod.x_f__mutmut_3`` -> (module, trampoline key ``x_f``, local name)."""
    module, _, local = mutant.rpartition(".")
    return module, local.partition("__mutmut_")[0], local


def mutants_table(module: str, key: str) -> dict[str, Callable[..., Any]] | None:
    """mutmut's table of one function's original and mutants, in its loaded module."""
    table = getattr(sys.modules.get(module), f"mutants_{key}__mutmut", None)
    return table if isinstance(table, dict) and "_mutmut_orig" in table else None


Decided = dict[str, tuple[str, bool]]
"""Claim -> (why it needs no run, whether its cell is red)."""


@dataclass
class Infection:
    """Records the baseline's calls, then decides which cells need no run."""

    roots: frozenset[str]
    mutants: Sequence[str]
    recording: Recording = field(default_factory=Recording)
    ran: dict[tuple[str, str], list[tuple[str, list[Outcome], bool]]] = field(default_factory=dict)
    """(function, claim) -> each mutant run on it: its name, replay outcomes, red or not."""
    pending: dict[tuple[str, str], list[Outcome]] = field(default_factory=dict)
    repeats: dict[tuple[str, str], float | None] = field(default_factory=dict)
    """(function, claim) -> the original's replay time when it repeated every recorded
    outcome, None when it did not (checked once: it does not depend on the mutant)."""
    installed: list[tuple[dict[str, Any], Callable[..., Any]]] = field(default_factory=list)
    admitted: list[str] = field(default_factory=list)
    """The surveyed functions the guard admitted (their calls are recorded and replayed)."""
    spawns: SpawnLog | None = None
    """What the processes each claim started ran (None: every process counts)."""
    noted: list[str] = field(default_factory=list)
    """The claims recorded, in order."""

    def __post_init__(self) -> None:
        self.guard = Guard(self.roots)

    def install(self) -> None:
        """Wrap the original of every surveyed function the guard admits."""
        for module, key in sorted({split_name(m)[:2] for m in self.mutants}):
            table = mutants_table(module, key)
            if table is None:
                continue
            why = self.guard.refusal(table["_mutmut_orig"])
            if why is not None:
                self.recording.refused[f"{module}.{key}"] = why
                continue
            self.installed.append((table, table["_mutmut_orig"]))
            self.admitted.append(f"{module}.{key}")
            table["_mutmut_orig"] = recorder(
                self.recording, f"{module}.{key}", table["_mutmut_orig"]
            )

    def summary(self) -> dict[str, Any]:
        """What the baseline left replay to work with: the surveyed functions the guard
        admitted and refused (with why), and the claims that started a process."""
        refused = self.recording.refused
        return {
            "admitted": sorted(self.admitted),
            "refused": dict(sorted(refused.items())),
            "spawning": sorted(self.spawning()),
        }

    def uninstall(self) -> None:
        for table, original in self.installed:
            table["_mutmut_orig"] = original
        self.installed.clear()

    @contextmanager
    def recording_claim(self, claim: str) -> Iterator[None]:
        """Record ``claim``'s calls; a claim that starts a process the spawn log cannot
        follow is marked spawning (one it follows is judged when cells are decided)."""
        self.recording.claim = claim
        self.noted.append(claim)
        spawns = self.spawns
        try:
            if spawns is None:
                with Watch.watching(SPAWN_EVENTS) as seen:
                    yield
            else:
                with spawns.noting(claim), Watch.watching(SPAWN_EVENTS, spawns.unfollowed) as seen:
                    yield
        finally:
            self.recording.claim = None
        if seen:
            self.recording.spawning.add(claim)

    def spawning(self) -> set[str]:
        """The claims whose cells all run: those that started a process the log cannot
        follow, or one that ran the project's Python (read now: a process that started
        after its claim returned is seen)."""
        return {claim for claim in self.noted if self._spawned(claim)}

    def _spawned(self, claim: str) -> bool:
        if claim in self.recording.spawning:
            return True
        if self.spawns is not None and self.spawns.ran_python(claim):
            self.recording.spawning.add(claim)
            return True
        return False

    def decide(self, mutant: str, claims: Sequence[str], switch: Callable[[str], None]) -> Decided:
        """Claim -> (reason, red) for each of ``claims`` the mutant need not run."""
        module, key, local = split_name(mutant)
        full = f"{module}.{key}"
        table = mutants_table(module, key)
        per_claim = self.recording.calls.get(full, {})
        if table is None or local not in table or self.guard.refusal(table[local]):
            return {}
        decided: Decided = {}
        for claim in claims:
            calls = per_claim.get(claim)
            if not calls or self._spawned(claim):
                continue
            outcomes = self._replay(table, local, mutant, (full, claim), calls, switch)
            found = None if outcomes is None else self._verdict(full, claim, calls, outcomes)
            if found is not None:
                decided[claim] = found
            elif outcomes is not None:
                self.pending[(full, claim)] = outcomes
        return decided

    def _verdict(
        self, full: str, claim: str, calls: Sequence[Call], outcomes: Sequence[Outcome]
    ) -> tuple[str, bool] | None:
        try:
            if all(c.outcome.matches(o) for c, o in zip(calls, outcomes, strict=True)):
                return NOT_INFECTED, False
            for name, seen, red in self.ran.get((full, claim), ()):
                if all(a.matches(b) for a, b in zip(seen, outcomes, strict=True)):
                    return f"{SAME_AS}{name}", red
        except Uncomparable:
            return None
        return None

    def remember(self, mutant: str, red: Mapping[str, str], ran: Sequence[str]) -> None:
        """After ``mutant`` ran to the end: its replay outcomes and verdict per claim, for a
        later mutant of the same function that behaves the same (``same_as``)."""
        module, key, _ = split_name(mutant)
        full = f"{module}.{key}"
        for claim in ran:
            outcomes = self.pending.pop((full, claim), None)
            if outcomes is not None:
                self.ran.setdefault((full, claim), []).append((mutant, outcomes, claim in red))
        self.pending.clear()

    def _replay(
        self,
        table: dict[str, Callable[..., Any]],
        local: str,
        mutant: str,
        cell: tuple[str, str],
        calls: Sequence[Call],
        switch: Callable[[str], None],
    ) -> list[Outcome] | None:
        """The mutant's outcome on each call, or None when the cell must run: the original
        does not repeat the recorded outcomes, the replay did I/O, raised something no call
        raises, ran past :data:`REPLAY_SECONDS` or more than :data:`SLOWER` times the
        original's time."""
        if cell not in self.repeats:
            self.repeats[cell] = self._repeats(table["_mutmut_orig"], calls, switch)
        original = self.repeats[cell]
        if original is None:
            return None
        return self._run(table[local], mutant, calls, switch, SLOWER * original + SLACK_SECONDS)

    def _repeats(
        self, original: Callable[..., Any], calls: Sequence[Call], switch: Callable[[str], None]
    ) -> float | None:
        """The original's replay time when it gives every recorded outcome again."""
        start = time.perf_counter()
        again = self._run(original, "", calls, switch, REPLAY_SECONDS)
        try:
            same_again = again is not None and all(
                c.outcome.matches(o) for c, o in zip(calls, again, strict=True)
            )
        except Uncomparable:
            return None
        return time.perf_counter() - start if same_again else None

    def _run(
        self,
        function: Callable[..., Any],
        mutant: str,
        calls: Sequence[Call],
        switch: Callable[[str], None],
        seconds: float,
    ) -> list[Outcome] | None:
        """``function``'s outcomes on the calls, switched to ``mutant``; None when it did
        I/O, did not end within ``seconds``, or raised a ``BaseException``."""
        from plugins.mutate.generated.survey import budget

        start = time.perf_counter()
        try:
            with Watch.watching(IO_EVENTS) as seen, budget(REPLAY_SECONDS):
                switch(mutant)
                outcomes = [outcome_of(function, c.before) for c in calls]
                elapsed = time.perf_counter() - start
        except KeyboardInterrupt:
            raise
        except BaseException:  # a timeout, an exit, a value that cannot be copied
            return None
        finally:
            if mutant:
                switch("")
        return None if seen or elapsed > seconds else outcomes
