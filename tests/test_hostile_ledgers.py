"""Hostile ledgers (``claims mutate --debt FILE``, ``--equivalent FILE``): a missing,
binary, malformed or mis-typed ledger is exit 2 with one line naming the file and the place,
read before any work starts; never a traceback, never read as an empty ledger."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.hostile_support import HOSTILE, claims_main, no_crash

DEBT = '[debt]\n"w.c" = "owed a mutant"\n'
EQUIVALENT = '[[equivalent]]\nmutant = "m"\nfrom = "a"\nto = "b"\nreason = "proof"\n'
_NOT_TEXT = ("1", "true", "[]", "{}", '["x"]', "1979-05-27", "1.5", '""')
_HERE = re.compile(
    r'(<file>|line \d+, column \d+|end of file|debt(\."w\.c")?|equivalent(\[0\]\.\w+)?): '
)


@st.composite
def hostile_ledgers(draw: st.DrawFn) -> tuple[str, bytes | None, str]:
    """(option, ledger bytes or None for a missing file, what the error says)."""
    option = draw(st.sampled_from(["--debt", "--equivalent"]))
    base = DEBT if option == "--debt" else EQUIVALENT
    family = draw(
        st.sampled_from(("missing", "binary", "twice", "retype", "shape", "huge", "deep", "cut"))
    )
    if family == "missing":
        return option, None, "No such file or directory"
    if family == "binary":
        cut = draw(st.integers(min_value=0, max_value=len(base)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80"]))
        return option, base.encode()[:cut] + junk + base.encode()[cut:], "can't decode"
    if family == "twice":
        key = '"w.c"' if option == "--debt" else draw(st.sampled_from(["mutant", "from", "reason"]))
        return option, (base + f'{key} = "again"\n').encode(), "not TOML"
    if family == "retype":
        value = draw(st.sampled_from(_NOT_TEXT))
        if option == "--debt":
            return option, f'[debt]\n"w.c" = {value}\n'.encode(), "must map"
        key = draw(st.sampled_from(["mutant", "from", "to", "reason"]))
        if value == '""':  # an empty text is still text for an equivalence entry
            value = "1"
        text = re.sub(rf"(?m)^{key} = .*$", f"{key} = {value}", base)
        return option, text.encode(), "needs mutant, from, to, reason"
    if family == "shape":
        if option == "--debt":
            value = draw(st.sampled_from(["1", '"x"', "[1]", "true"]))
            return option, f"debt = {value}\n".encode(), "must map"
        value = draw(st.sampled_from(["1", '"x"', "{ a = 1 }", "true"]))
        return option, f"equivalent = {value}\n".encode(), "must be an array of tables"
    if family == "huge":
        digits = draw(st.sampled_from([4301, 5000, 9000]))
        return option, (base + f"x = {'9' * digits}\n").encode(), "integer Python cannot read"
    if family == "deep":
        depth = draw(st.integers(min_value=2000, max_value=4000))
        return option, (base + "x = " + "[" * depth + "]" * depth + "\n").encode(), "nested"
    cut = draw(st.integers(min_value=1, max_value=len(base) - 2))
    text = base[:cut]
    if not text.rstrip().endswith(('"', "]")):
        return option, text.encode(), "not TOML"
    return option, (text + "=").encode(), "not TOML"


@HOSTILE
@given(case=hostile_ledgers())
def test_a_hostile_ledger_is_a_located_error_read_before_any_work(
    case: tuple[str, bytes | None, str],
) -> None:
    option, data, says = case
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Path(tmp) / "ledger.toml"
        if data is not None:
            ledger.write_bytes(data)
        extra = ["--generated"] if option == "--equivalent" else []
        # a witness nobody registers: were the ledger read after the scope, this would be the
        # error instead, and a valid ledger shows that it is (see below)
        ran = claims_main("-p", "mutation.plugin", "mutate", *extra, option, ledger, "nobody")
        no_crash(ran)
        assert (ran.code, ran.out) == (2, ""), (ran.code, ran.out, ran.err)
        head = f"claims: error: {ledger}: "
        assert ran.err.startswith(head), ran.err
        rest = ran.err[len(head) :]
        assert _HERE.match(rest), rest
        assert says in ran.err, ran.err
        assert len(ran.err.strip().splitlines()) <= 2, ran.err  # TOML's reader adds no more


def test_a_valid_ledger_passes_to_the_next_check() -> None:
    for option, text in (("--debt", DEBT), ("--equivalent", EQUIVALENT)):
        with tempfile.TemporaryDirectory() as tmp:
            ledger = Path(tmp) / "ledger.toml"
            ledger.write_text(text, encoding="utf-8")
            extra = ["--generated"] if option == "--equivalent" else []
            ran = claims_main("-p", "mutation.plugin", "mutate", *extra, option, ledger, "nobody")
            assert ran.code == 2 and "unknown witness 'nobody'" in ran.err, ran.err


def test_an_equivalence_entry_must_be_one_reasoned_entry_a_mutant() -> None:
    second = EQUIVALENT.replace('from = "a"', 'from = "c"')
    cases = (
        (EQUIVALENT.replace('"proof"', '"  "'), "equivalent[0].reason: [[equivalent]] #1: empty"),
        (EQUIVALENT.replace('mutant = "m"', 'mutant = ""'), "equivalent[0].mutant: "),
        (EQUIVALENT + 'reasn = "typo"\n', "equivalent[0].reasn: [[equivalent]] #1 has no such"),
        (
            EQUIVALENT + second,
            "equivalent[1].mutant: [[equivalent]] #2 names m again (first in #1)",
        ),
    )
    for text, says in cases:
        with tempfile.TemporaryDirectory() as tmp:
            ledger = Path(tmp) / "ledger.toml"
            ledger.write_text(text, encoding="utf-8")
            ran = claims_main(
                "-p", "mutation.plugin", "mutate", "--generated", "--equivalent", ledger, "nobody"
            )
            assert ran.code == 2 and f"claims: error: {ledger}: {says}" in ran.err, ran.err


def test_a_ledger_holds_only_its_own_table() -> None:
    for option, text, table in (
        ("--debt", DEBT.replace("[debt]", "[dept]"), "dept"),
        ("--equivalent", EQUIVALENT.replace("[[equivalent]]", "[[equivalents]]"), "equivalents"),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            ledger = Path(tmp) / "ledger.toml"
            ledger.write_text(text, encoding="utf-8")
            extra = ["--generated"] if option == "--equivalent" else []
            ran = claims_main("-p", "mutation.plugin", "mutate", *extra, option, ledger, "nobody")
            says = f"claims: error: {ledger}: {table}: not a table of this ledger"
            assert ran.code == 2 and says in ran.err, ran.err
