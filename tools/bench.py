"""Benchmarks, as ratios against a baseline measured in the same run (machines are noisy).

- claims framework overhead: every claim run through the session (pluggy hook, timing,
  verdict capture) against the same claim functions called directly;
- planning cost: one full V4.1 dry run (plan, render four hosts, admit) against reading
  and folding its inputs alone.

Run with ``.venv/bin/python tools/bench.py`` (``make bench``). It prints the medians and
the ratios; it asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from claims import Session
from claims.witness import Witness
from fixtures.builders import authority_state, v41_dry_run, v41_inputs

REPEATS = 15
FAST_WITNESSES = ("v41_group_a_launch", "glm_group_b_launch", "engram_staging")


def _median_ms(action: Callable[[], object], repeats: int = REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _witnesses(session: Session) -> list[Witness]:
    resolved = session.resolve_all(FAST_WITNESSES)
    return [w for w in resolved if isinstance(w, Witness)]


def bench_claims_overhead() -> tuple[float, float]:
    session = Session.start()
    witnesses = _witnesses(session)
    claims = [c for w in witnesses for c in w.claims]

    def direct() -> None:
        for c in claims:
            c.function()

    def through_session() -> None:
        session.run(list(FAST_WITNESSES))

    return _median_ms(direct), _median_ms(through_session)


def bench_planning() -> tuple[float, float]:
    def inputs_only() -> None:
        v41_inputs("supplied")
        authority_state("supplied")

    return _median_ms(inputs_only), _median_ms(lambda: v41_dry_run("supplied"))


def main() -> int:
    direct, session = bench_claims_overhead()
    print(
        f"claims: direct {direct:.1f} ms, through the session {session:.1f} ms, "
        f"ratio {session / direct:.2f}x"
    )
    inputs, plan = bench_planning()
    print(
        f"planning: inputs {inputs:.2f} ms, full V4.1 dry run {plan:.2f} ms, "
        f"ratio {plan / inputs:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
