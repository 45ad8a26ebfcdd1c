"""A survey worker whose mutants leak output: ``python -m tests.fakes_mutation.leaky_worker
REQUEST.json`` speaks the survey's event protocol, and before each mutant's event a process
it starts writes bytes that are not UTF-8 (nor JSON) straight to file descriptor 1, as a
mutated planner function that shells out might. With ``LEAK_PAST_STREAM`` set the leak goes
past :func:`~plugins.mutate.generated.survey.event_stream` into the event stream itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from plugins.mutate.generated.survey import SurveyRequest, event_stream

LEAK = b"\xff\xfe leaked by a mutant \xc3\x28\n"


def _leak() -> None:
    subprocess.run([sys.executable, "-c", f"import os; os.write(1, {LEAK!r})"], check=True)


def _run(request: SurveyRequest, out: TextIO) -> int:
    def emit(event: str, **body: object) -> None:
        print(json.dumps({"event": event, **body}), file=out, flush=True)

    emit("baseline_progress", done=1, total=1)
    emit("baseline", claims=[], red={}, seconds={"fake_door.c": 0.01})
    _leak()
    emit("coverage", functions={})
    for name in request.mutants:
        _leak()
        emit(
            "mutant",
            name=name,
            status="ok",
            ran=["fake_door.c"],
            covered=["fake_door.c"],
            red={"fake_door.c": "red"},
            ms=1.0,
        )
    emit("canary", after="the last mutant", red={})
    emit("done")
    return 0


def main(argv: list[str]) -> int:
    request = SurveyRequest.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    if os.environ.get("LEAK_PAST_STREAM"):
        return _run(request, sys.stdout)
    with event_stream() as out:
        return _run(request, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
