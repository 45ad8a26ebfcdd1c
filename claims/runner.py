"""The built-in claim runner: call one claim and turn whatever happens into a verdict.

A returned :class:`Verdict` is used as it is. An ``AssertionError`` is a FAIL whose reason is
the assertion message plus its ``__notes__`` (where hypothesis puts the falsifying example).
Any other exception is an ERROR reading ``Type: message`` (a ``SystemExit``, and any
``BaseException`` the code under test raises, too: only ``KeyboardInterrupt`` and
:class:`~claims.errors.PassThrough` go through), and so is a return value that is
not a Verdict, except ``None`` from a hypothesis ``@given`` claim (hypothesis requires its
tests to return None): that passes once hypothesis found no falsifying example. Timing is done
by the session around the whole ``claims_run_claim`` call.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable

from claims.errors import PassThrough, describe
from claims.markers import hookimpl
from claims.model import Outcome, Verdict
from claims.profile import deterministic_hypothesis
from claims.witness import Claim


@hookimpl(trylast=True)
def claims_run_claim(claim: Claim) -> Verdict:
    """Run ``claim`` under the deterministic hypothesis profile."""
    return execute(claim.function)


def execute(function: Callable[[], object]) -> Verdict:
    """Call a claim function and decide its verdict; never raises but for
    ``KeyboardInterrupt`` and :class:`~claims.errors.PassThrough` (a claim that exits, or
    lets any other ``BaseException`` escape, is red, and the run goes on)."""
    __tracebackhide__ = True  # pytest's traceback of a claim that raised starts in the claim
    try:
        with deterministic_hypothesis():
            returned = function()
    except AssertionError as error:
        return Verdict(outcome=Outcome.FAIL, reason=assertion_reason(error)).with_raised(error)
    except Exception as error:
        reason = _debugged(_with_notes(f"{describe(error)} {_raised_at(error)}", error), error)
        return Verdict(outcome=Outcome.ERROR, reason=reason).with_raised(error)
    except SystemExit as error:
        # argparse and sys.exit() in the code under test: a red claim, not the end of the run
        return Verdict(outcome=Outcome.ERROR, reason=f"the claim exited: {_exited(error)}")
    except (KeyboardInterrupt, PassThrough):
        raise
    except BaseException as error:  # code under test raising its own BaseException past it
        reason = f"{describe(error)} {_raised_at(error)} (a BaseException, not an Exception)"
        return Verdict(outcome=Outcome.ERROR, reason=reason).with_raised(error)
    if isinstance(returned, Verdict):
        return returned
    if returned is None and getattr(function, "is_hypothesis_test", False):
        return Verdict(outcome=Outcome.PASS, evidence="hypothesis found no falsifying example")
    return Verdict(
        outcome=Outcome.ERROR,
        reason=(
            f"the claim returned {returned!r} ({type(returned).__name__}), not a Verdict; "
            "end it with holds(...), fails(...), expect(...) or expect_equal(...)"
        ),
    )


def run_setup(setup: Callable[[], object]) -> str | None:
    """Run a witness's ``setup()``; the reason it failed, or None when it succeeded."""
    try:
        with deterministic_hypothesis():
            setup()
    except Exception as error:
        return f"setup() failed: {describe(error)}"
    except SystemExit as error:
        return f"setup() failed: it exited: {_exited(error)}"
    return None


def _exited(error: SystemExit) -> str:
    return f"SystemExit({error.code!r})"


def assertion_reason(error: AssertionError) -> str:
    """The assertion message (or where it failed, when bare) followed by its notes."""
    message = str(error) or f"assertion failed at {_where(error)}"
    return _with_notes(message, error)


def _with_notes(message: str, error: BaseException) -> str:
    notes = [str(note) for note in getattr(error, "__notes__", ())]
    return "\n".join([message, *notes])


#: Set (by ``claims --debug``, and so in every process it starts) to add the traceback to
#: the reason of a claim that raised.
DEBUG_ENV = "CLAIMS_DEBUG"


def _debugged(reason: str, error: BaseException) -> str:
    if not os.environ.get(DEBUG_ENV):
        return reason
    below = error.__traceback__.tb_next if error.__traceback__ else None  # from the claim on
    lines = traceback.format_exception(type(error), error, below)
    return f"{reason}\n{''.join(lines).rstrip()}"


def _raised_at(error: BaseException) -> str:
    """``(raised at FILE:LINE in FUNCTION)``, and the claim's own line when that is elsewhere:
    the frames below :func:`execute`, the innermost first."""
    frames = traceback.extract_tb(error.__traceback__)[1:]  # [0] is execute() itself
    if not frames:
        return "(raised where no frame shows)"
    inner, claim = frames[-1], frames[0]
    text = f"(raised at {_shown_frame(inner)}"
    if claim is not inner:
        text += f", reached from the claim at {_shown_frame(claim)}"
    return text + ")"


def _shown_frame(frame: traceback.FrameSummary) -> str:
    path = frame.filename
    try:
        path = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    except ValueError:  # another drive, on the platforms that have them
        pass
    return f"{path}:{frame.lineno} in {frame.name}"


def _where(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "an unknown line"
    last = frames[-1]
    code = f": {last.line}" if last.line else ""
    return f"{os.path.basename(last.filename)}:{last.lineno}{code}"
