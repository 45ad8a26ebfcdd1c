"""Witness: the apply journal as an input: what a resume refuses, who may hold it, how it is
replaced, and what a resume says.

A journal is read back by ``planner apply --resume`` after its coordinator was lost, and
what it holds is sent to every host as the ssh user: it is untrusted input. These claims
write real journals in real files (a whole transaction, answered from a table), then change
one thing — a byte, a seal, a record, the plan record, the file's mode or owner, a second
holder — and read what the journal module makes of it. ``transaction_plan`` claims what a
resume runs from each cut of a whole journal; this witness claims the journal's own rules,
and ``planner apply --resume`` run in this process on such journals with an ssh client that
answers every session 0 and records what it was sent (so the generated survey sees the
resume path that ``transaction_fleet`` runs over real hosts only in its setup).

Expected values come from the journal's contract (:mod:`planner.journal`'s docstring): a
line is ``{"sha256":"HEX","body":BODY}`` with ``HEX`` the lowercase sha256 of ``BODY``'s
bytes; the claims seal their own lines by that rule, never through the module they check.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import resource
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from claims import ClaimKind, Verdict, claim, difference, holds_unless
from fixtures.builders import run_planner, v41_dry_run
from planner import journal
from planner.refusal import PlannerInputError
from planner.transaction import (
    StepResult,
    TransactionPlan,
    TransactionStep,
    coordinate,
    parse_hosts,
    plan_transaction,
)
from witnesses.support import recording_client

HOSTS = "srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8"
SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None
"""Where the journals are written: memory where it can be (each record is synced)."""

Body = dict[str, Any]


def _plan() -> TransactionPlan:
    return plan_transaction(v41_dry_run("supplied"), parse_hosts(HOSTS))


@contextmanager
def _directory() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="gunbc-journal-", dir=SCRATCH) as name:
        yield Path(name)


def _run_step(
    fail: tuple[str, int] | None, out: str = ""
) -> Callable[[TransactionStep], StepResult]:
    """Answers 1 for ``fail``'s step, 0 for every other, each printing ``out`` (or its label)."""

    def run_step(step: TransactionStep) -> StepResult:
        code = 1 if (step.stage.value, step.rank) == fail else 0
        return StepResult(exit_code=code, stdout=out or f"{step.label}\n")

    return run_step


def _journal_at(path: Path, fail: tuple[str, int] | None = ("apply", 1), out: str = "") -> bytes:
    """A whole transaction journaled at ``path`` (``fail`` answered 1, every other step 0);
    its bytes."""
    plan = _plan()
    with journal.create(path, plan, {"ssh": "ssh"}, 3) as written:
        written.finish(coordinate(plan, _run_step(fail, out), 3, on_event=written.record))
    return path.read_bytes()


def _lost_at(path: Path) -> bytes:
    """A journal at ``path`` whose coordinator was lost after its first 12 lines, one a
    resume takes up; its bytes."""
    cut = b"".join(_journal_at(path).splitlines(keepends=True)[:12])
    path.write_bytes(cut)
    return cut


def _decided_at(path: Path) -> bytes:
    """A journal at ``path`` whose coordinator was lost just after it recorded the decision
    of a clean run (every host to commit, none committed yet); its bytes."""
    whole = _journal_at(path, None)
    at = [b["kind"] for b in _bodies(whole)].index("decided")
    cut = b"".join(whole.splitlines(keepends=True)[: at + 1])
    path.write_bytes(cut)
    return cut


def _journaled(fail: tuple[str, int] | None = ("apply", 1), out: str = "") -> bytes:
    with _directory() as directory:
        return _journal_at(directory / "apply.journal", fail, out)


def _bodies(data: bytes) -> list[Body]:
    return [json.loads(line)["body"] for line in data.splitlines()]


def _line(text: str, digest: str | None = None) -> bytes:
    """A journal line sealing ``text`` as the contract says (or with ``digest`` instead)."""
    seal = digest if digest is not None else hashlib.sha256(text.encode("ascii")).hexdigest()
    return f'{{"sha256":"{seal}","body":{text}}}\n'.encode("ascii")


def _sealed(bodies: list[Body]) -> bytes:
    return b"".join(_line(json.dumps(b, separators=(",", ":"))) for b in bodies)


def _renumbered(bodies: list[Body]) -> bytes:
    return _sealed([{**b, "seq": n} for n, b in enumerate(bodies)])


def _refusal(data: bytes) -> tuple[str, str, str]:
    """How :func:`planner.journal.parse` refuses ``data`` (source, where, message), or
    ``("read", …)`` when it reads it."""
    try:
        state = journal.parse(data, "journal")
    except PlannerInputError as error:
        return error.source, error.where, error.message
    return "read", f"{len(state.records)} records", f"torn: {state.torn}"


def _line_refusals(cases: dict[str, tuple[bytes, str]], lines: list[bytes], at: int) -> list[str]:
    problems: list[str] = []
    for label, (line, message) in cases.items():
        data = b"".join([*lines[:at], line, *lines[at + 1 :]])
        problems += difference(label, ("journal", f"line {at + 1}", message), _refusal(data))
    return problems


@claim(ClaimKind.REFUSAL)
def a_line_that_is_not_a_sealed_record_is_refused_with_its_reason() -> Verdict:
    """A whole line (its line end written) that is not ``{"sha256":"HEX","body":BODY}``
    with ``HEX`` the lowercase sha256 of ``BODY``, or whose ``BODY`` is not one record read
    strictly, is refused by the line's number with its own reason — not ASCII, not a
    journal line, a sha256 that does not match, not JSON, a key given twice, a field its
    record does not have or of the wrong type — and so is a last line that is whole; the
    journal as written reads."""
    data = _journaled()
    lines = data.splitlines(keepends=True)
    body = lines[3][len('{"sha256":"') + 64 + len('","body":') : -2].decode("ascii")
    seal = hashlib.sha256(body.encode("ascii")).hexdigest()
    shape = 'not a journal line {"sha256":"…","body":…}: corrupt'
    started = '{"seq":3,"kind":"started","stage":"preflight","rank":1,"attempt":1}'
    cases: dict[str, tuple[bytes, str]] = {
        "a byte that is not ASCII": (_line(body)[:-2] + b"\xe9}\n", "not ASCII: corrupt"),
        "another key for the seal": (_line(body).replace(b"sha256", b"sha512", 1), shape),
        "another key for the body": (_line(body).replace(b'"body"', b'"bodY"', 1), shape),
        "the seal in capitals": (_line(body, seal.upper()), shape),
        "a seal that is not hex": (_line(body, "g" * 64), shape),
        "a space after the line's brace": (_line(body)[:-1] + b" \n", shape),
        "a seal of other bytes": (
            _line(body, hashlib.sha256(b"other").hexdigest()),
            "its sha256 does not match its body: corrupt",
        ),
        "a body changed under its seal": (
            _line(body, seal).replace(b'"rank":1', b'"rank":2'),
            "its sha256 does not match its body: corrupt",
        ),
        "a body that is not JSON": (
            _line("{nope"),
            "not JSON (Expecting property name enclosed in double quotes): corrupt",
        ),
        "a key given twice": (
            _line(started[:-1] + ',"rank":2}'),
            "rank: key 'rank' is given twice (values 1 and 2): an input that says two things "
            "is corrupt",
        ),
        "a rank as text": (
            _line(started.replace('"rank":1', '"rank":"1"')),
            "started.rank: Input should be a valid integer",
        ),
        "a field no record has": (
            _line(started[:-1] + ',"host":"srv6"}'),
            "started.host: Extra inputs are not permitted",
        ),
        "a body that is not an object": (_line("[1]"), "body: Input should be an object"),
    }
    problems = _line_refusals(cases, lines, 3)
    written = ("read", f"{len(lines) - 1} records", "torn: False")
    problems += difference("the journal as written", written, _refusal(data))
    last = len(lines) - 1
    whole_last = {"a whole last line cut short": (lines[last][:40] + b"\n", shape)}
    problems += _line_refusals(whole_last, lines, last)
    return holds_unless(problems, f"{len(cases) + 1} malformed lines refused by line number")


def _order_cases(bodies: list[Body]) -> dict[str, tuple[list[Body], int, str]]:
    """Journals whose every line is sealed but whose records do not follow from the ones
    before them: (records, the line refused, why). ``bodies`` is a whole run's records with
    apply@srv6 failing: plan, then started/answered pairs from line 2."""
    plan, first, answer = bodies[0], bodies[1], bodies[2]
    decided = {"kind": "decided"}
    commit = {"kind": "started", "stage": "commit", "rank": 0, "attempt": 1}
    finished = bodies[-1]
    changed_plan = json.loads(json.dumps(plan))
    changed_plan["script_sha256"][5] = hashlib.sha256(b"another script").hexdigest()
    return {
        "the first record is not the plan": (
            [first, answer],
            1,
            "a started record where the plan was due",
        ),
        "a script's sha256 differs": (
            [changed_plan, first, answer],
            1,
            "a script's sha256 differs from its record",
        ),
        "a second plan record": ([plan, plan], 2, "a second plan record"),
        "an answer before its start": (
            [plan, answer, first],
            2,
            "an answer to a step that was not started",
        ),
        "an answer to another attempt": (
            [plan, first, {**answer, "attempt": 2}],
            3,
            "an answer to a step that was not started",
        ),
        "a start before the last answer": (
            [plan, first, bodies[3]],
            3,
            "a step started before the one before it answered",
        ),
        "a step the plan does not have": (
            [plan, {**first, "rank": 4}],
            2,
            "preflight on rank 4 is not a step of the plan",
        ),
        "a commit before the decision": ([plan, commit], 2, "a commit started before the decision"),
        "a decision while a step runs": ([plan, first, decided], 3, "a decision out of place"),
        "a second decision": ([plan, decided, decided], 3, "a decision out of place"),
        "a finish without every host": (
            [plan, {**finished, "finals": finished["finals"][:3]}],
            2,
            "a finished record without every host's final state",
        ),
        "a record after the finish": (
            [plan, finished, first],
            3,
            "a record after the transaction finished",
        ),
    }


@claim(ClaimKind.REFUSAL)
def a_record_that_does_not_follow_from_the_ones_before_is_refused_located() -> Verdict:
    """Sealed lines whose records a coordinator could not have written in that order are
    corrupt, refused at the first record that does not follow, with why: a sequence number
    out of turn, a first record that is not the plan, a plan whose scripts' sha256 differ
    from its record, a second plan, an answer to a step not started (or to another
    attempt), a start before the last answer, a step the plan does not have, a commit
    before the decision, a decision while a step runs or a second one, a finish without
    every host, anything after the finish. A journal with no whole line has nothing to
    resume; the same records in their order read."""
    data = _journaled()
    bodies = _bodies(data)
    problems: list[str] = []
    for label, (records, line, why) in _order_cases(bodies).items():
        got = _refusal(_renumbered(records))
        problems += difference(label, ("journal", f"line {line}", f"{why}: corrupt"), got)
    gap = b"".join(data.splitlines(keepends=True)[:4] + data.splitlines(keepends=True)[5:7])
    problems += difference(
        "a record left out",
        ("journal", "line 5", "record 5 where 4 was due: corrupt"),
        _refusal(gap),
    )
    nothing = "no whole record (its plan record never reached the disk whole, so no step was "
    nothing += "sent): nothing to resume"
    for label, cut in (("an empty journal", b""), ("a torn plan line", data[:100])):
        problems += difference(label, ("journal", "line 1", nothing), _refusal(cut))
    cases = len(_order_cases(bodies)) + 3
    problems += difference(
        "the same records in their order",
        ("read", "5 records", "torn: False"),
        _refusal(_renumbered(bodies[:6])),
    )
    return holds_unless(problems, f"{cases} journals out of order refused where they go wrong")


def _plan_edits() -> dict[str, tuple[Callable[[Body], None], str]]:
    """Edits of a plan record's transaction that no ``--hosts`` and no planner would make,
    with the start of the reason a resume refuses it."""

    def host(field: str, value: object) -> Callable[[Body], None]:
        return lambda t: t["hosts"][1].__setitem__(field, value)

    def swap(key: str) -> Callable[[Body], None]:
        return lambda t: t.__setitem__(key, [t[key][1], t[key][0], *t[key][2:]])

    def set_(key: str, index: int, field: str, value: object) -> Callable[[Body], None]:
        return lambda t: t[key][index].__setitem__(field, value)

    shape = "transaction: "
    one_each = shape + "not one preserve dir, rollback and cleanup per host"
    forward = shape + "a forward step twice, an undo step among them, or one on no planned host"
    return {
        "a host named as a path": (
            host("host_name", "../../tmp/x"),
            "transaction: '../../tmp/x' is not a safe name",
        ),
        "an address that is an ssh option": (
            host("address", "-oProxyCommand=x"),
            "transaction: --hosts: srv6=root@-oProxyCommand=x",
        ),
        "a user that is not a user name": (
            host("user", "r;m"),
            "transaction: --hosts: srv6=r;m@10.0.0.6:22: 'r;m' is not a user name",
        ),
        "a port --hosts refuses": (host("port", 0), "transaction: --hosts: srv6="),
        "an address --hosts writes otherwise": (
            host("address", "10.0.0.6 "),
            "transaction: --hosts: srv6=root@10.0.0.6 :22",
        ),
        "an arm named as a path": (
            lambda t: t.__setitem__("arm", "a/b"),
            "transaction: 'a/b' is not a safe name",
        ),
        "a container named with a space": (
            set_("forward", 3, "container_name", "a b"),
            "transaction: 'a b' is not a safe name",
        ),
        "a preserve dir that is not absolute": (
            lambda t: t["preserve_dirs"].__setitem__(2, "var/lib/x"),
            "transaction: 'var/lib/x' is not a safe absolute path",
        ),
        "a preserve dir missing": (lambda t: t["preserve_dirs"].pop(), one_each),
        "a rollback missing": (lambda t: t["rollbacks"].pop(), one_each),
        "a cleanup missing": (lambda t: t["cleanups"].pop(), one_each),
        "the rollbacks out of rank order": (
            swap("rollbacks"),
            shape + "the rollback steps are not one per rank, in rank order",
        ),
        "the cleanups out of rank order": (
            swap("cleanups"),
            shape + "the cleanup steps are not one per rank, in rank order",
        ),
        "a forward step twice": (lambda t: t["forward"].__setitem__(1, t["forward"][0]), forward),
        "a rollback among the forward steps": (
            lambda t: t["forward"].__setitem__(0, t["rollbacks"][0]),
            forward,
        ),
        "a forward step on no planned host": (set_("forward", 0, "rank", 4), forward),
        "a forward step on a negative rank": (set_("forward", 0, "rank", -1), forward),
        "a step naming another host": (
            set_("forward", 1, "host_name", "srv7"),
            shape + "a step names another host than its rank's",
        ),
        "a cleanup naming another host": (
            set_("cleanups", 3, "host_name", "srv5"),
            shape + "a step names another host than its rank's",
        ),
    }


@claim(ClaimKind.REFUSAL)
def a_plan_record_no_planner_would_write_is_refused() -> Verdict:
    """A journal sealed whole whose plan record holds what ``--hosts`` or the planner would
    refuse or never make — a host, arm or container name that is not a safe name, an
    address or user ``--hosts`` refuses, a host that does not read back as itself, a
    preserve dir that is not a safe absolute path, not one preserve dir, rollback and
    cleanup per host in rank order, a forward step twice, an undo step among them or one on
    no planned host, a step naming another host than its rank's — is refused at line 1,
    corrupt: what a resume hands to ssh is held to the rules a new apply is."""
    data = _journaled()
    bodies = _bodies(data)[:12]
    problems: list[str] = []
    edits = _plan_edits()
    for label, (edit, reason) in edits.items():
        changed = json.loads(json.dumps(bodies))
        edit(changed[0]["transaction"])
        digests = [
            hashlib.sha256(s["script"].encode()).hexdigest()
            for s in (
                *changed[0]["transaction"]["forward"],
                *changed[0]["transaction"]["rollbacks"],
                *changed[0]["transaction"]["cleanups"],
            )
        ]
        changed[0]["script_sha256"] = digests
        source, where, message = _refusal(_sealed(changed))
        got = (source, where, message.startswith(reason), message.endswith(": corrupt"))
        problems += difference(label, ("journal", "line 1", True, True), got)
        if not got[2]:
            problems.append(f"{label}: said {message!r}")
    problems += difference(
        "the plan as written", ("read", "11 records", "torn: False"), _refusal(_sealed(bodies))
    )
    return holds_unless(problems, f"{len(edits)} plan records refused at line 1")


def _open_refusal(path: Path) -> tuple[str, ...]:
    try:
        held, _ = journal.take_up(path)
    except PlannerInputError as error:
        return error.source, error.where, error.message
    held.close()
    return ("taken up",)


@claim(ClaimKind.REFUSAL)
def a_journal_is_taken_up_only_as_its_owner_left_it() -> Verdict:
    """A resume takes up only a regular file its own user owns and no one else can write
    (the journal says what runs on every host as the ssh user): a missing path, a
    directory, a pipe, a file writable by its group or by others, or one another user owns
    is a located error naming the path, and the file is left as it was."""
    problems: list[str] = []
    with _directory() as directory:
        path = directory / "apply.journal"
        cut = _lost_at(path)
        where = str(path)
        problems += difference("mode 600, owned here", ("taken up",), _open_refusal(path))
        for mode in (0o620, 0o606, 0o666):
            path.chmod(mode)
            want = (where, "open", f"writable by others (mode {mode:o})")
            problems += difference(f"mode {mode:o}", want, _open_refusal(path))
        path.chmod(0o644)
        problems += difference("mode 644", ("taken up",), _open_refusal(path))
        owners = 0
        if os.geteuid() == 0:  # only root can give a file away; another user's run skips it
            os.chown(path, 1, -1)
            want = (where, "open", "owned by uid 1, not by this user (uid 0)")
            problems += difference("owned by uid 1", want, _open_refusal(path))
            os.chown(path, 0, -1)
            owners = 1
        problems += difference("the file", cut, path.read_bytes())
        missing = directory / "none"
        problems += difference(
            "missing", (str(missing), "open", "No such file or directory"), _open_refusal(missing)
        )
        problems += difference(
            "a directory",
            (where + ".d", "open", "Is a directory"),
            _open_refusal(_made(Path(where + ".d"), os.mkdir)),
        )
        fifo = _made(directory / "fifo", os.mkfifo)
        problems += difference(
            "a pipe", (str(fifo), "open", "not a regular file"), _open_refusal(fifo)
        )
    return holds_unless(problems, f"{6 + owners} journals refused as opened; 2 taken up")


def _made(path: Path, make: Callable[[Path], None]) -> Path:
    make(path)
    return path


@claim(ClaimKind.REFUSAL)
def one_coordinator_at_a_time_holds_a_journal() -> Verdict:
    """A journal is locked by whoever writes it — a new apply from the moment it exists, a
    resume from when it takes it up — until that one closes it: a second resume, and a new
    apply over it, are refused by name (``lock``), the journal left as it was; once the
    holder closed it, it is taken up again."""
    problems: list[str] = []
    lock = (
        "another coordinator holds this journal (it is running or resuming this "
        "transaction): wait for it to end"
    )
    with _directory() as directory:
        path = directory / "apply.journal"
        cut = _lost_at(path)
        held, _ = journal.take_up(path)
        with held:
            problems += difference(
                "a second resume", (str(path), "lock", lock), _open_refusal(path)
            )
            problems += difference("a new apply", (str(path), "lock", lock), _created(path))
        problems += difference("the held journal", cut, path.read_bytes())
        problems += difference("once closed", ("taken up",), _open_refusal(path))
        fresh = directory / "fresh.journal"
        with journal.create(fresh, _plan(), {}, 3):
            problems += difference(
                "a new journal, still open", (str(fresh), "lock", lock), _open_refusal(fresh)
            )
        problems += difference("a new journal, closed", ("taken up",), _open_refusal(fresh))
    return holds_unless(problems, "a second holder refused while the first held it")


def _created(path: Path) -> tuple[str, ...]:
    try:
        journal.create(path, _plan(), {"ssh": "ssh"}, 3).close()
    except PlannerInputError as error:
        return error.source, error.where, error.message
    return ("created",)


@claim(ClaimKind.REFUSAL)
def a_new_journal_replaces_only_a_finished_one_whole() -> Verdict:
    """A new apply's journal is made whole beside its path and renamed into place: a
    journal holding only its plan record, readable and writable by its owner alone, its
    directory made if missing and nothing else left in it; it replaces a journal whose
    transaction finished, and refuses one that did not (``create``, naming how to finish
    it) and a path under a file, leaving what was there as it was."""
    problems: list[str] = []
    unfinished = "holds a transaction that did not finish: finish it first (planner apply "
    with _directory() as directory:
        path = directory / "new" / "apply.journal"
        problems += difference("a new journal", ("created",), _created(path))
        data = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
        problems += difference(
            "a new journal: records", ["plan"], [b["kind"] for b in _bodies(data)]
        )
        problems += difference("a new journal: mode", "600", f"{mode:o}")
        want = (str(path), "create", f"{unfinished}--resume {path}, or --rollback)")
        problems += difference("over an unfinished one", want, _created(path))
        problems += difference("over an unfinished one: the journal", data, path.read_bytes())
        path.unlink()
        _journal_at(path)
        problems += difference("over a finished one", ("created",), _created(path))
        problems += difference(
            "over a finished one: records",
            ["plan"],
            [b["kind"] for b in _bodies(path.read_bytes())],
        )
        problems += difference(
            "left beside it", ["apply.journal"], sorted(p.name for p in path.parent.iterdir())
        )
        under = directory / "new" / "apply.journal" / "x.journal"
        problems += difference(
            "under a file",
            (str(under), "create", f"Not a directory: {under.parent}"),
            _created(under),
        )
    return holds_unless(problems, "a new journal made whole; an unfinished one kept")


def _resumed(path: Path, *argv: str) -> tuple[object, str, list[str], bool, bool]:
    """``planner apply ARGV`` with a recording ssh client: its exit, stderr, stdout lines,
    whether the client ran and whether ``path`` is as it was."""
    before = path.read_bytes()
    with tempfile.TemporaryDirectory() as bin_dir:
        client = recording_client(Path(bin_dir))
        ran = run_planner("apply", *argv, "--ssh", client.path)
        return ran.code, ran.err, ran.lines, client.ran, path.read_bytes() == before


@claim(ClaimKind.REFUSAL)
def a_journal_that_leaves_nothing_to_run_is_said_so_before_anything_connects() -> Verdict:
    """Through ``planner apply``, before any ssh client runs and leaving the journal byte for
    byte: ``--resume`` of a finished journal prints ``apply ARM: JOURNAL: the transaction
    already finished (exit N); nothing to do`` and exits 0, and so does ``--rollback`` of one
    that rolled back; ``--rollback`` once the journal records the decision (finished or not)
    exits 2 with ``planner: error: --rollback JOURNAL: the commit point was passed (the
    journal records the decision): the transaction commits; finish it with --resume``; and
    a journal with a line that is not a sealed record exits 2 naming the file and line."""
    problems: list[str] = []
    passed = (
        "the commit point was passed (the journal records the decision): the transaction "
        "commits; finish it with --resume"
    )
    with _directory() as directory:
        rolled, committed = directory / "rolled", directory / "committed"
        decided = directory / "decided"
        _journal_at(rolled)
        _journal_at(committed, None)
        _decided_at(decided)
        corrupt = directory / "corrupt"
        lines = _lost_at(corrupt).splitlines(keepends=True)
        corrupt.write_bytes(b"".join([*lines[:4], b"garbage\n", *lines[5:]]))
        done = "apply v41_group_a: {}: the transaction already finished (exit {}); nothing to do"
        shape = 'not a journal line {"sha256":"…","body":…}'
        error = "planner: error: {}\n".format
        cases = {
            "resume, rolled back": (("--resume", rolled), 0, "", [done.format(rolled, 10)]),
            "resume, committed": (("--resume", committed), 0, "", [done.format(committed, 0)]),
            "rollback, rolled back": (("--rollback", rolled), 0, "", [done.format(rolled, 10)]),
            "rollback, committed": (
                ("--rollback", committed), 2, error(f"--rollback {committed}: {passed}"), []
            ),
            "rollback, decided": (
                ("--rollback", decided), 2, error(f"--rollback {decided}: {passed}"), []
            ),
            "resume, corrupt": (
                ("--resume", corrupt), 2, error(f"{corrupt}: line 5: {shape}: corrupt"), []
            ),
        }  # fmt: skip
        for label, ((mode, path), code, err, out) in cases.items():
            want = (code, err, out, False, True)
            problems += difference(label, want, _resumed(path, mode, str(path)))
    return holds_unless(problems, f"{len(cases)} journals with nothing to run said so or refused")


SENT = re.compile(r" -- (\S+) exec sh -c .* gunbc-apply (\w+) ([0-9a-f]{64}) \d+ \d+ (\S+)$")
HOST_LINE = re.compile(r"^  (\S+) \(rank (\d+)\): (\w+): .*; ran: (.*)$")
"""A host's line of the report: its name, rank, final state and the stages run there."""
ROLLBACK_ORDER = "rollback, last changed first: "
"""A session the coordinator sends: destination, stage, the script's sha256, container."""


def _finished_through_client(path: Path) -> dict[str, object]:
    """``planner apply --resume`` of the journal at ``path`` with an ssh client that answers
    every session 0, then a second one: what the first said and sent, and what the second
    said and sent more."""
    with tempfile.TemporaryDirectory() as bin_dir:
        client = recording_client(Path(bin_dir))
        ran = run_planner("apply", "--resume", path, "--ssh", client.path)
        calls = client.calls
        again = run_planner("apply", "--resume", path, "--ssh", client.path)
        sent_again = len(client.calls) - len(calls)
    return {
        "sent (host, stage, script sha256, container)": [
            m.groups() for line in calls if (m := SENT.search(line))
        ],
        "step lines": [x for x in ran.lines if x[:3].strip().isdigit()],
        "rollback order": [x for x in ran.lines if x.startswith(ROLLBACK_ORDER)],
        "hosts (name, rank, final, ran)": [
            m.groups() for line in ran.lines if (m := HOST_LINE.match(line))
        ],
        "exit, stderr": (ran.code, ran.err),
        "first and last line": (ran.lines[:1], ran.lines[-1:]),
        "again: exit, stdout, more sent": (again.code, again.lines, sent_again),
    }


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@claim(ClaimKind.PLANNED_SHAPE)
def a_resume_finishes_the_run_through_the_ssh_client_it_is_given() -> Verdict:
    """``planner apply --resume JOURNAL`` finishes a run its coordinator lost, through the
    ssh client it is given (here one that answers every session 0). Lost while preserve@srv6
    had no answer, it says ``apply ARM: resume JOURNAL: 4 hosts (srv5, srv6, srv7, srv8),
    before the commit point``, rolls back srv6 then srv5 (last changed first) and cleans
    each up, sending each host the plan's own script for the step (by its sha256) with the
    container's name, each on a line numbered after the journal's steps; it then says
    ``rollback, last changed first: srv6 srv5`` and each host's line (srv5 and srv6
    ``restored``, having run preflight, preserve, rollback and cleanup; srv7 and srv8
    ``untouched``, preflight only), and ends ``resumed: ROLLED BACK: the run stopped at
    preserve@srv6 (…); every touched host restored`` (exit 10). Lost just past the decision,
    it commits every host in rank order, says each one ``committed`` having run every forward
    stage, and ends ``resumed: COMMITTED on every host`` (exit 0). Either finish is journaled:
    a second ``--resume`` says the transaction already finished, exit 0, and sends nothing."""
    plan = _plan()
    problems: list[str] = []
    arm = "apply v41_group_a"
    lost_at = (
        "the run stopped at preserve@srv6 (no answer in time (its effect is unknown): no "
        "answer recorded: the coordinator was lost)"
    )
    with _directory() as directory:
        lost, decided = directory / "lost", directory / "decided"
        _lost_at(lost)
        _decided_at(decided)
        restored, untouched = "preflight, preserve, rollback, cleanup", "preflight"
        forward = "preflight, preserve, apply, readback, front_door, commit"
        cases = {
            "lost at preserve@srv6": (
                lost,
                [plan.rollbacks[1], plan.rollbacks[0], plan.cleanups[1], plan.cleanups[0]],
                10,
                "before the commit point",
                [f"{ROLLBACK_ORDER}srv6 srv5"],
                [("restored", restored)] * 2 + [("untouched", untouched)] * 2,
                f"ROLLED BACK: {lost_at}; every touched host restored",
            ),
            "lost past the decision": (
                decided,
                [s for s in plan.forward if s.stage.value == "commit"],
                0,
                "past the commit point",
                [],
                [("committed", forward)] * 4,
                "COMMITTED on every host",
            ),
        }
        for label, (path, steps, code, point, order, finals, verdict) in cases.items():
            already = sum(b["kind"] == "started" for b in _bodies(path.read_bytes()))
            head = f"{arm}: resume {path}: 4 hosts (srv5, srv6, srv7, srv8), {point}"
            done = f"{arm}: {path}: the transaction already finished (exit {code}); nothing to do"
            want = {
                "sent (host, stage, script sha256, container)": [
                    (
                        f"root@10.0.0.{5 + s.rank}",
                        s.stage.value,
                        _sha256(s.script),
                        s.container_name,
                    )
                    for s in steps
                ],
                "step lines": [
                    f"{already + n:>3} {s.stage.value:<10} {s.host_name}: ok"
                    for n, s in enumerate(steps, start=1)
                ],
                "rollback order": order,
                "hosts (name, rank, final, ran)": [
                    (f"srv{5 + rank}", str(rank), final, stages)
                    for rank, (final, stages) in enumerate(finals)
                ],
                "exit, stderr": (code, ""),
                "first and last line": ([head], [f"{arm}: resumed: {verdict}"]),
                "again: exit, stdout, more sent": (0, [done], 0),
            }
            problems += difference(label, want, _finished_through_client(path))
    return holds_unless(problems, "a lost run rolled back, a decided one committed; each journaled")


@claim(ClaimKind.REFUSAL)
def a_resume_the_disk_stops_sends_nothing_and_is_resumed_later() -> Verdict:
    """A ``planner apply --resume`` whose journal cannot take its first record (the disk full
    where the journal ends) sends no step, says on stderr ``planner: error: journal JOURNAL:
    cannot append record N: WHY; the transaction stopped and hosts may be changed: once the
    journal can be written again, finish it with planner apply --resume JOURNAL``, exits 11
    (hosts may not be restored) and leaves the journal as it was; once the disk has room the
    same command finishes the run (exit 10)."""
    problems: list[str] = []
    with _directory() as directory, tempfile.TemporaryDirectory() as bin_dir:
        path = directory / "apply.journal"
        lost = _lost_at(path)
        client = recording_client(Path(bin_dir))
        with _disk_full_at(len(lost)):
            ran = run_planner("apply", "--resume", path, "--ssh", client.path)
        said = (
            f"planner: error: journal {path}: cannot append record {len(lost.splitlines())}: "
            f"{os.strerror(errno.EFBIG)}; the transaction stopped and hosts may be changed: "
            "once the journal can be written again, finish it with planner apply --resume "
            f"{path}\n"
        )
        got = (ran.code, ran.err, client.calls, path.read_bytes() == lost)
        problems += difference("the disk full", (11, said, [], True), got)
        later = run_planner("apply", "--resume", path, "--ssh", client.path)
        problems += difference("with room again: exit", 10, later.code)
    return holds_unless(problems, "stopped before a step, said so, exit 11; finished later")


@claim(ClaimKind.PLANNED_SHAPE)
def a_torn_last_line_is_cut_off_before_a_resume_appends() -> Verdict:
    """Taking up a journal whose last line is torn (no line end) cuts that fragment off the
    file before anything is appended, so the resume's records follow the last whole line,
    numbered on from it; the resumed journal then reads whole and finished."""
    problems: list[str] = []
    with _directory() as directory:
        path = directory / "apply.journal"
        lines = _journal_at(path).splitlines(keepends=True)
        whole = b"".join(lines[:12])
        path.write_bytes(whole + lines[12][:40])
        held, state = journal.take_up(path)
        with held:
            problems += difference("taken up", whole, path.read_bytes())
            journal.resume(held, state, _run_step(None), 3)
        again = path.read_bytes()
    problems += difference("kept", whole, again[: len(whole)])
    after = _bodies(again[len(whole) :])
    problems += difference(
        "appended: seq", list(range(12, 12 + len(after))), [b["seq"] for b in after]
    )
    problems += difference("appended: first", "resumed", after[0]["kind"] if after else None)
    problems += difference(
        "read again", ("read", f"{11 + len(after)} records", "torn: False"), _refusal(again)
    )
    return holds_unless(problems, f"torn fragment cut; {len(after)} records appended after it")


@contextmanager
def _disk_full_at(size: int) -> Iterator[None]:
    """While the block runs, no file this process writes grows past ``size`` bytes, as on a
    disk that fills there: a write that would cross it writes what fits (a short write), one
    that starts at it fails with EFBIG (``RLIMIT_FSIZE``, its SIGXFSZ ignored). Only the soft
    limit moves, so both are put back."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    before = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, before)


def _run_until_full(path: Path, size: int) -> tuple[list[tuple[str, int]], tuple[str, ...]]:
    """The transaction run on the journal at ``path`` with the disk full at ``size``: the
    steps it sent, and the journal error it stopped on (path, what it says)."""
    sent: list[tuple[str, int]] = []

    def run_step(step: TransactionStep) -> StepResult:
        sent.append((step.stage.value, step.rank))
        return _run_step(("apply", 1))(step)

    plan = _plan()
    stopped: tuple[str, ...] = ("not stopped",)
    with journal.create(path, plan, {"ssh": "ssh"}, 3) as held, _disk_full_at(size):
        try:
            held.finish(coordinate(plan, run_step, 3, on_event=held.record))
        except OSError as error:
            stopped = (type(error).__name__, str(error.filename), str(error.strerror))
    return sent, stopped


@claim(ClaimKind.REFUSAL)
def a_record_the_disk_cannot_take_stops_the_run_before_its_step() -> Verdict:
    """When the disk fills, the journal says so by path and record, and nothing goes on as
    if it were written: a new journal whose plan record does not fit (whole or in part) is
    refused (``create``) with nothing left in its directory; on a running transaction, a
    record written in part or not at all raises ``JournalError`` naming the record and
    what the disk did (``short write: K of N bytes``, or EFBIG's words), the step it
    announces is never sent, and a resume takes the journal up with the part cut off."""
    problems: list[str] = []
    whole = _journaled().splitlines(keepends=True)
    plan_line, fifth = whole[0], whole[5]
    started = [(b["stage"], b["rank"]) for b in _bodies(b"".join(whole[1:5]))
               if b["kind"] == "started"]  # fmt: skip
    too_large = os.strerror(errno.EFBIG)
    plan = _plan()
    with _directory() as directory:
        path = directory / "apply.journal"
        for size, said in (
            (0, too_large),
            (100, f"short write: 100 of {len(plan_line)} bytes"),
        ):
            try:
                with _disk_full_at(size):
                    journal.create(path, plan, {"ssh": "ssh"}, 3).close()
                made: tuple[str, ...] = ("created",)
            except PlannerInputError as error:
                made = (error.source, error.where, error.message)
            want = (str(path), "create", f"cannot append record 0: {said}")
            problems += difference(f"a new journal, full at {size}", want, made)
            problems += difference(
                f"a new journal, full at {size}: left", [], sorted(os.listdir(directory))
            )
        head = b"".join(whole[:5])
        kept = len(head)
        for size, said in (
            (kept + 20, f"short write: 20 of {len(fifth)} bytes"),
            (kept, too_large),
        ):
            sent, stopped = _run_until_full(path, size)
            where = f"a run, full after record 4 and {size - kept} bytes"
            want_error = ("JournalError", str(path), f"cannot append record 5: {said}")
            problems += difference(f"{where}: stopped", want_error, stopped)
            problems += difference(f"{where}: sent", started, sent)
            on_disk = path.read_bytes()
            problems += difference(f"{where}: on disk", head + fifth[: size - kept], on_disk)
            held, state = journal.take_up(path)
            held.close()
            taken = (len(state.records), state.torn, path.read_bytes())
            problems += difference(f"{where}: taken up", (4, size > kept, head), taken)
            path.unlink()
    return holds_unless(problems, "a full disk refused by name; no step sent past it")


@claim(ClaimKind.PLANNED_SHAPE)
def an_answer_records_the_size_and_sha256_of_each_stream_and_a_bounded_summary() -> Verdict:
    """An ``answered`` record keeps what a step printed as the byte size and sha256 of each
    stream as the host sent it (bytes that are not UTF-8 included), and its one-line outcome
    escaped and cut to 400 characters; the journal file is ASCII whatever a host printed."""
    raw = "é\udcff" + "x" * 500 + "\n"
    sent = raw.encode("utf-8", errors="surrogateescape")
    data = _journaled(None, out=raw)
    answers = [b for b in _bodies(data) if b["kind"] == "answered"]
    first = answers[0] if answers else {}
    problems = difference(
        "stdout",
        (len(sent), hashlib.sha256(sent).hexdigest()),
        (first.get("stdout_bytes"), first.get("stdout_sha256")),
    )
    problems += difference(
        "stderr",
        (0, hashlib.sha256(b"").hexdigest()),
        (first.get("stderr_bytes"), first.get("stderr_sha256")),
    )
    summary = str(first.get("summary", ""))
    want = ("ok: é\\udcff" + "x" * 500)[:400]  # printable text kept, the rest escaped
    problems += difference("summary", want, summary)
    problems += difference("ASCII", True, data.isascii())
    return holds_unless(problems, f"{len(answers)} answers: {len(sent)} bytes, summary 400")


def _verdict(bodies: list[Body], codes: dict[str, int]) -> str:
    state = journal.parse(_renumbered(bodies), "journal")

    def run_step(step: TransactionStep) -> StepResult:
        return StepResult(exit_code=codes.get(step.label, 0))

    return journal.verdict(state, journal.finish(state, run_step, 3))


@claim(ClaimKind.PLANNED_SHAPE)
def a_resume_says_what_it_finished_from_where_the_run_stopped() -> Verdict:
    """A resume's last line says what it finished: past the decision, committed on every
    host; before it, rolled back, naming the step the run stopped at and its answer (what
    the host said escaped, never raw) — no host changed, every touched host restored, or
    the hosts not restored."""
    bodies = _bodies(_journaled())
    clean = _bodies(_journaled(None))
    failed = [*bodies[:21]]  # apply@srv6 answered 1, its rollback not started
    failed[-1] = {**failed[-1], "summary": "exit 1: \x1b[2Jgone"}
    head = "apply v41_group_a: resumed: "
    stop = "the run stopped at apply@srv6 (exit 1: \\x1b[2Jgone)"
    decided = next((k for k, b in enumerate(clean) if b["kind"] == "decided"), 0)
    cases = {
        "past the decision": (clean[: decided + 1], {}, head + "COMMITTED on every host"),
        "nothing sent": (
            bodies[:1],
            {},
            head + "ROLLED BACK: the run stopped at "
            "preflight@srv5 (never sent: the coordinator was lost before it); no "
            "host was changed",
        ),
        "a preflight lost": (
            bodies[:2],
            {},
            head + "ROLLED BACK: the run stopped at "
            "preflight@srv5 (no answer in time (its effect is unknown): no "
            "answer recorded: the coordinator was lost); no host was changed",
        ),
        "apply@srv6 failed": (
            failed,
            {},
            f"{head}ROLLED BACK: {stop}; every touched host restored",
        ),
        "a rollback failing": (
            failed,
            {"rollback@srv6": 1},
            f"{head}NOT RESTORED: {stop}; srv6 not restored",
        ),
    }
    problems: list[str] = []
    for label, (records, codes, want) in cases.items():
        problems += difference(label, want, _verdict(records, codes))
    return holds_unless(problems, f"{len(cases)} resumes said what they finished")
