"""JUnit XML: parses with xml.etree, one suite per witness, counts right, written atomically."""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from claims import RunReport
from claims.files import write_atomically
from plugins.junit import claims_run_finished, junit_xml
from tests.fakes.support import fake_session


@pytest.fixture(scope="module")
def report() -> RunReport:
    return fake_session().run(["fake_green", "fake_red", "fake_import_error"])


@pytest.fixture(scope="module")
def root(report: RunReport) -> ET.Element:
    return ET.fromstring(junit_xml(report))


def test_one_testsuite_per_witness(root: ET.Element) -> None:
    assert root.tag == "testsuites"
    assert [s.get("name") for s in root] == ["fake_green", "fake_red", "fake_import_error"]


def test_counts(root: ET.Element) -> None:
    counts = {s.get("name"): (s.get("tests"), s.get("failures"), s.get("errors")) for s in root}
    assert counts == {
        "fake_green": ("4", "0", "0"),
        "fake_red": ("7", "4", "2"),
        "fake_import_error": ("1", "0", "1"),
    }
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("12", "4", "3")


def test_one_testcase_per_claim_named_by_witness_and_function(root: ET.Element) -> None:
    red = root[1]
    cases = [(c.get("classname"), c.get("name")) for c in red.iter("testcase")]
    assert cases[0] == ("fake_red", "this_one_passes")
    assert len(cases) == 7
    failure = red.find("testcase[@name='fails_by_verdict']/failure")
    assert failure is not None
    assert failure.get("message") == "sum: expected 5, got 4"
    error = red.find("testcase[@name='raises_an_error']/error")
    assert error is not None and error.get("message", "").startswith("KeyError: 'srv9' (raised at ")


def test_an_unresolved_witness_is_an_error_case_named_setup(root: ET.Element) -> None:
    error = root[2].find("testcase[@name='setup']/error")
    assert error is not None
    assert "ModuleNotFoundError" in (error.get("message") or "")


def test_the_file_is_written_atomically_and_replaces_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "out" / "claims.xml"
    write_atomically(target, b"old")
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["claims.xml"]


def test_the_run_finished_hook_writes_only_when_asked(report: RunReport, tmp_path: Path) -> None:
    target = tmp_path / "claims.xml"
    claims_run_finished(report, argparse.Namespace(junit_xml=None))
    assert not target.exists()
    claims_run_finished(report, argparse.Namespace(junit_xml=target))
    assert ET.parse(target).getroot().get("tests") == "12"
