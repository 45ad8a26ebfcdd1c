"""What CI reads from `claims run`: JUnit XML a Jenkins/GitHub report reader accepts, and
GitHub annotations that attach to the claim's source line. Run as a user runs it: the
`claims` command in a subprocess, on the fake witnesses (one green, one red)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.ecosystem import REPO_ROOT

# The Jenkins xunit plugin's JUnit schema (junit-10.xsd), restated as the rules this report
# must keep: per element, the attributes it may carry and those it must. Times follow the
# schema's older SUREFIRE_TIME pattern, which allows at most three decimals.
ATTRIBUTES = {
    "testsuites": ({"name", "time", "tests", "failures", "disabled", "errors"}, set()),
    "testsuite": (
        {
            "name",
            "tests",
            "failures",
            "errors",
            "time",
            "disabled",
            "skipped",
            "timestamp",
            "hostname",
            "id",
            "package",
            "file",
            "log",
            "url",
            "group",
        },
        {"name", "tests", "failures", "errors"},
    ),
    "testcase": (
        {"name", "time", "classname", "group", "file", "line", "status", "assertions"},
        {"name"},
    ),
    "failure": ({"type", "message"}, set()),
    "error": ({"type", "message"}, set()),
    "skipped": ({"type", "message"}, set()),
    "system-out": (set(), set()),
    "system-err": (set(), set()),
}
CHILDREN = {
    "testsuites": {"testsuite"},
    "testsuite": {"testsuite", "properties", "testcase", "system-out", "system-err"},
    "testcase": {"skipped", "error", "failure", "system-out", "system-err"},
}
TIME = re.compile(r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$")


def schema_errors(element: ET.Element, where: str = "") -> list[str]:
    """Every way ``element`` and its subtree break the rules above."""
    here = f"{where}/{element.tag}"
    if element.tag not in ATTRIBUTES:
        return [f"{here}: element not in the schema"]
    allowed, required = ATTRIBUTES[element.tag]
    errors = [f"{here}: attribute {a!r} not allowed" for a in set(element.attrib) - allowed]
    errors += [f"{here}: attribute {a!r} missing" for a in required - set(element.attrib)]
    if element.tag in ("testsuites", "testsuite") and "time" in element.attrib:
        if not TIME.match(element.attrib["time"]):
            errors.append(f"{here}: time {element.attrib['time']!r} does not match")
    for child in element:
        if child.tag not in CHILDREN.get(element.tag, set()):
            errors.append(f"{here}: child {child.tag!r} not allowed")
        else:
            errors += schema_errors(child, here)
    return errors


def claims(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAIMS_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(REPO_ROOT)}
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "claims.cli", "-p", "tests.fakes.plugin", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def junit(tmp_path_factory: pytest.TempPathFactory) -> ET.Element:
    target = tmp_path_factory.mktemp("junit") / "claims.xml"
    done = claims(target.parent, "run", "fake_green", "fake_red", "--junit-xml", str(target))
    assert done.returncode == 1, done.stderr
    return ET.parse(target).getroot()


def test_the_junit_file_keeps_to_the_jenkins_schema(junit: ET.Element) -> None:
    assert schema_errors(junit) == []


def test_the_schema_rules_catch_what_the_old_writer_did() -> None:
    # The checker is not blind: the old document's two faults are found.
    old = ET.fromstring(
        '<testsuites skipped="0" time="0.123456"><testsuite name="w" '
        'tests="0" failures="0" errors="0" time="1.000001"/></testsuites>'
    )
    assert schema_errors(old) == [
        "/testsuites: attribute 'skipped' not allowed",
        "/testsuites: time '0.123456' does not match",
        "/testsuites/testsuite: time '1.000001' does not match",
    ]


def test_every_testcase_names_the_file_and_line_of_its_claim(junit: ET.Element) -> None:
    cases = junit.findall("./testsuite/testcase")
    assert len(cases) == 11
    for case in cases:
        source = (REPO_ROOT / case.attrib["file"]).read_text().splitlines()
        defined = source[int(case.attrib["line"]) - 1 :]
        # The line is the claim's decorator or its def; its def follows within a few lines.
        assert any(f"def {case.attrib['name']}(" in ln for ln in defined[:4]), case.attrib


def test_github_annotations_carry_file_and_line_of_the_claim(tmp_path: Path) -> None:
    done = claims(tmp_path, "run", "fake_green", "fake_red", "--format", "github")
    errors = [ln for ln in done.stdout.splitlines() if ln.startswith("::error ")]
    assert len(errors) == 6, done.stdout
    for line in errors:
        found = re.match(r"^::error file=([^,]+),line=(\d+),title=(\S+) ", line)
        assert found, line
        path, number, claim_id = found.groups()
        assert path == "tests/fakes/witness_red.py"
        source = (REPO_ROOT / path).read_text().splitlines()[int(number) - 1 :]
        name = claim_id.split(".", 1)[1]
        assert any(f"def {name}(" in ln for ln in source[:4]), line
