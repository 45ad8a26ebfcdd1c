"""The project's own declared mutants: they mirror the witnesses, keep the floor, name every
claim, include the seed's four, and `claims mutate v41_group_a_launch` shows the seed's controls."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from claims import Session
from claims.config import find_config
from mutation.plugin import MUTANT_MODULES
from plugins.mutate.declared.loading import Declared, claim_book, load
from plugins.mutate.ledgers import load_debt
from tests.fakes_mutation.support import CLAIMS_EXE, REPO
from witnesses.plugin import MODULES, WITNESSES

V41 = "v41_group_a_launch"
SEED = {
    "engram_request_dropped_from_the_mint": (
        "planner.arms.v41_group_a.deepseek_v41_measurement_profile",
        {f"{V41}.engram_request_renders_both_dotted_flags"},
    ),
    "held_host_conjunct_removed": (
        "planner.admission.hosts_held_by_subject",
        {f"{V41}.host_not_held_by_the_subject_is_refused"},
    ),
    "lease_check_removed": (
        "planner.admission.successor_may_launch",
        {f"{V41}.expired_lease_is_refused"},
    ),
}


@pytest.fixture(scope="module")
def session() -> Session:
    return Session.start()


@pytest.fixture(scope="module")
def declared(session: Session) -> Declared:
    scope = session.witness_names
    return load(session, scope, claim_book(session, scope))


def test_mutation_mirrors_witnesses_file_for_file() -> None:
    assert [w for w, _ in MUTANT_MODULES] == list(WITNESSES)
    for witness, module in MUTANT_MODULES:
        mirrored = Path(*module.split(".")[1:]).with_suffix(".py")
        assert (REPO / "mutation" / mirrored).is_file()
        assert (REPO / Path(*MODULES[witness].split("."))).with_suffix(".py") == (
            REPO / "witnesses" / mirrored
        )


def test_every_claim_is_declared_red_by_some_mutant_or_owed(
    session: Session, declared: Declared
) -> None:
    book = claim_book(session, session.witness_names)
    named = {c for m in declared.mutants for c in m.turns_red}
    owed = set(load_debt(find_config(REPO).debt))
    missing = [c.id for c in book.of(session.witness_names) if c.id not in named | owed]
    assert missing == []


def test_the_seed_mutants_are_declared_as_the_seed_states_them(declared: Declared) -> None:
    mine = {m.name: m for m in declared.of_witness(V41)}
    for name, (target, red) in SEED.items():
        own = {c for c in mine[name].turns_red if c.startswith(f"{V41}.")}
        assert (mine[name].replaces, own, mine[name].independent) == (target, red, True)
    zero = mine["zero_allowance"]
    assert zero.replaces == "planner.fit.page_cache_allowance_gib"
    assert {c for c in zero.turns_red if c.startswith(f"{V41}.")} == {
        f"{V41}.low_utilization_refuses_naming_the_declared_allowance"
    }


def test_every_mutant_states_its_defect_in_a_sentence(declared: Declared) -> None:
    bad = [m.id for m in declared.mutants if not m.headline.endswith(".")]
    assert bad == []


def test_claims_mutate_v41_shows_the_seed_controls_and_exits_zero() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run(
        [str(CLAIMS_EXE), "mutate", V41],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    control = out[out.index("[control] seed_mutation_control") :].split("\n\n")[0]
    rows = re.findall(r"(\w+)\s+(red|green)\s+(red|green)\s+([a-z ]+)$", control, re.M)
    assert {(claim, actual) for claim, _, actual, _ in rows} == {
        ("engram_request_renders_both_dotted_flags", "red"),
        ("host_not_held_by_the_subject_is_refused", "red"),
        ("expired_lease_is_refused", "red"),
        ("the_correct_suspension_admits", "green"),
    }
    zero = re.findall(r"^zero_allowance\s+(\w+)\s+red\s+red\s+red as declared$", out, re.M)
    assert zero == ["low_utilization_refuses_naming_the_declared_allowance"]
    assert re.search(
        rf"^{V41}: (\d+)/\1 mutants exact, combined exact, positive controls green, "
        r"claims witnessed (\d+)/\2$",
        out,
        re.M,
    )
