"""The value survey's worker: claims under value mutants, in one process.

``python -m plugins.mutate.values.survey REQUEST.json`` runs at the project root (the planner
imported as it is; nothing is written anywhere) and streams one JSON object per line on
stdout, like :mod:`..generated.survey`, whose :class:`~..generated.survey.Worker` it extends:

- ``baseline``: every claim with nothing patched, and its time; a red claim stops here.

Enumeration (``enumerate``; one process, before the mutants are chosen):

- ``sites``: every boundary (:mod:`.boundaries`) patched with a recorder, each
  claim run once; every value a boundary returned is walked for its sites
  (:mod:`.operators`), each site with the claims that saw it (an index into
  ``claim_sets``, the distinct sets of claim ids);
- ``boundaries``: per boundary, its file, def line and the claims that called it.

Survey (the chosen mutants, a share per worker, watched by :mod:`..generated.workers`):

- ``coverage``: per mutant, the claims whose values held its site (from the enumeration);
- ``forced_fail``: the claims that go red when every boundary raises;
- ``mutant``: per mutant, its boundary patched (every call returns the value with the site
  applied where its path exists, unchanged otherwise) and only the claims that reach the
  site run, every verdict recorded; budget and timeout as in :mod:`..generated.survey`; after
  each mutant the boundary's original is back in every module that bound it (checked) and
  the environment and working directory are restored;
- ``canary``: every so often and at the end, the claims that ran under a mutant since the
  last canary, again with nothing patched;
- ``done``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO, cast

from pydantic import Field

from claims.exits import Exit
from plugins.mutate.generated.survey import (
    MUTANT_ENV,
    SurveyRequest,
    Worker,
    event_stream,
    survey,
)
from plugins.mutate.patching import Restore, Target, forced_failure, install, resolve, restore
from plugins.mutate.profile import load_verdict_profile
from plugins.mutate.values.boundaries import Boundary, discover
from plugins.mutate.values.operators import Found, Site, apply, enumerate_sites

NONE = ""
FAIL = "fail"
RECORD = "record"


class ValueSurveyRequest(SurveyRequest):
    """A value survey worker's job: enumerate sites, or survey the named mutants."""

    packages: tuple[str, ...]
    files: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    """Files (relative to the root) whose functions are never boundaries: the evidence."""
    enumerate: bool = False
    covered: dict[str, tuple[str, ...]] = Field(default_factory=dict)


def _key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return ("unhashable", repr(value))
    return value


class ValueWorker(Worker):
    """The survey worker with boundaries patched in memory instead of mutmut trampolines."""

    baseline_mode = NONE
    """Nothing patched: the coverage comes from the enumeration, not from the baseline."""

    def __init__(self, request: ValueSurveyRequest, out: TextIO) -> None:
        super().__init__(request, out)
        self.value_request = request
        root = Path(request.project_root)
        found = discover(request.packages, root, skip=frozenset(request.evidence))
        self.boundaries: dict[str, Boundary] = {
            b.path: b for b in found if not request.files or b.file in request.files
        }
        self.targets: dict[str, Target] = {p: resolve(p) for p in self.boundaries}
        self.undo: Restore = []
        self.patched: list[Target] = []
        self.seen: list[tuple[str, Any]] = []

    def coverage_key(self, mutant: str) -> str:
        return mutant

    def _packages(self) -> tuple[str, ...]:
        return cast(ValueSurveyRequest, self.request).packages

    def hits(self) -> set[str]:
        return set()

    def clear_hits(self) -> None:
        pass

    def switch(self, name: str) -> None:
        self._unpatch()
        if name == NONE:
            return
        if name == FAIL:
            self._patch([(t, forced_failure(t)) for t in self.targets.values()])
        elif name == RECORD:
            self._patch([(t, self._recorder(p, t)) for p, t in self.targets.items()])
        else:
            site = Site.parse(name)
            target = self.targets[site.boundary]
            self._patch([(target, _mutated(site, target))])

    def _patch(self, replacements: Sequence[tuple[Target, Callable[..., Any]]]) -> None:
        for target, replacement in replacements:
            self.patched.append(target)
            self.undo += install(target, replacement)

    def _unpatch(self) -> None:
        restore(self.undo)
        leaked = [t.path for t in self.patched if resolve(t.path).original is not t.original]
        self.undo, self.patched = [], []
        if leaked:
            raise RuntimeError(f"not restored after the mutant: {', '.join(leaked)}")

    def _recorder(self, path: str, target: Target) -> Callable[..., Any]:
        original = target.callable()

        def record(*args: Any, **kwargs: Any) -> Any:
            value = original(*args, **kwargs)
            self.seen.append((path, value))
            return value

        return record

    def coverage(self) -> dict[str, list[str]]:
        covered = {m: list(self.value_request.covered.get(m, ())) for m in self.request.mutants}
        self.emit("coverage", functions=covered)
        return covered

    def forced_fail(self) -> None:
        self.switch(FAIL)
        try:
            red = self.run(self.claims)
        finally:
            self.switch(NONE)
        self.emit("forced_fail", red=sorted(red))

    def enumerate(self) -> None:
        """Run each claim once with every boundary recording; emit the sites it saw."""
        cache: dict[str, dict[Any, list[Found]]] = {p: {} for p in self.boundaries}
        sites: dict[str, tuple[Found, list[str]]] = {}
        callers: dict[str, list[str]] = {p: [] for p in self.boundaries}
        for claim in self.claims:
            self.seen = []
            self.switch(RECORD)
            try:
                self.run([claim])
            finally:
                self.switch(NONE)
            for path, value in self.seen:
                if claim.id not in callers[path]:
                    callers[path].append(claim.id)
                key = _key(value)
                if key not in cache[path]:
                    returns = self.boundaries[path].returns
                    cache[path][key] = list(enumerate_sites(path, value, returns))
                for found in cache[path][key]:
                    entry = sites.setdefault(found.site.id, (found, []))
                    if claim.id not in entry[1]:
                        entry[1].append(claim.id)
        self.seen = []
        claim_sets: dict[tuple[str, ...], int] = {}
        self.emit(
            "sites",
            sites=[
                {
                    "id": site_id,
                    "boundary": found.site.boundary,
                    "operator": found.site.operator,
                    "shape": found.site.shape,
                    "change": found.change,
                    "claims": claim_sets.setdefault(tuple(claims), len(claim_sets)),
                }
                for site_id, (found, claims) in sites.items()
            ],
            claim_sets=list(claim_sets),
        )
        self.emit(
            "boundaries",
            boundaries={
                p: {"file": b.file, "line": b.line, "claims": callers[p]}
                for p, b in self.boundaries.items()
            },
        )
        self.emit("done")


def _mutated(site: Site, target: Target) -> Callable[..., Any]:
    original = target.callable()

    def mutated(*args: Any, **kwargs: Any) -> Any:
        return apply(site, original(*args, **kwargs))

    return mutated


def run(request: ValueSurveyRequest, out: TextIO) -> int:
    """Enumerate (baseline, sites) or survey (see :func:`..generated.survey.survey`)."""
    worker = ValueWorker(request, out)
    if not request.enumerate:
        return survey(request, out, worker)
    if not worker.baseline():
        return Exit.BASELINE
    worker.enumerate()
    return Exit.OK


def main(argv: Sequence[str]) -> int:
    """``python -m plugins.mutate.values.survey REQUEST.json`` (working directory: the project)."""
    request = ValueSurveyRequest.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    os.environ.pop(MUTANT_ENV, None)
    load_verdict_profile()
    with event_stream() as out:
        return run(request, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
