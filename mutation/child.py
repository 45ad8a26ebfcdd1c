"""One isolated run: ``python -m mutation.child`` reads a request on stdin, prints JSON.

The request names the plugins to load, the witnesses and claims to run, and the patches
(target plus a mutant ``module:function``, or a forced failure). The child resolves the
witnesses first (importing every module that binds planner names), installs the patches in
memory, runs each selected claim through the kernel, and prints one JSON object on the
stdout it was started with: the outcome of every claim. Anything the claims print goes to
stderr. A child that dies before printing is a crash; one that never finishes, a timeout.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from claims import Outcome, Session, Unresolved
from claims.witness import Witness
from mutation.patching import Target, forced_failure, patched, resolve
from mutation.profile import load_verdict_profile
from mutation.runs import PatchSpec, RunRequest


def _replacement(spec: PatchSpec, target: Target) -> Callable[..., Any]:
    if spec.mutant is None:
        return forced_failure(target)
    module, _, name = spec.mutant.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


def _run_witness(
    session: Session, witness: Witness, wanted: set[str] | None
) -> dict[str, dict[str, str]]:
    chosen = [c for c in witness.claims if wanted is None or c.id in wanted]
    if not chosen:
        return {}
    unresolved = session.prepare(witness)
    if unresolved is not None:
        return {c.id: {"outcome": Outcome.ERROR.value, "reason": unresolved} for c in chosen}
    found: dict[str, dict[str, str]] = {}
    for claim in chosen:
        verdict = session.run_claim(claim).verdict
        found[claim.id] = {"outcome": verdict.outcome.value, "reason": verdict.reason}
    return found


def execute(request: RunRequest) -> dict[str, Any]:
    """Run ``request`` in this process and return the JSON-ready result."""
    load_verdict_profile()
    session = Session.start(request.plugins)
    resolutions = session.resolve_all(request.witnesses)
    replacements = [(t, _replacement(p, t)) for p in request.patches for t in [resolve(p.target)]]
    wanted = set(request.claims) if request.claims is not None else None
    outcomes: dict[str, dict[str, str]] = {}
    unresolved: dict[str, str] = {}
    start = time.perf_counter()
    with patched(replacements):
        for resolution in resolutions:
            if isinstance(resolution, Unresolved):
                unresolved[resolution.name] = resolution.reason
                continue
            outcomes.update(_run_witness(session, resolution, wanted))
    return {
        "outcomes": outcomes,
        "unresolved": unresolved,
        "seconds": round(time.perf_counter() - start, 4),
    }


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None) -> int:
    """Read the request, keep stdout for the result, run, print the result."""
    request = RunRequest.model_validate_json((stdin or sys.stdin).read())
    result_stream = sys.stdout
    sys.stdout = sys.stderr
    try:
        result = execute(request)
    finally:
        sys.stdout = result_stream
    print(json.dumps(result), file=result_stream, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
