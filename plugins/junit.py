"""``claims run --junit-xml FILE``: the run as JUnit XML, for CI test-report views.

One ``testsuite`` per witness, one ``testcase`` per claim (``classname`` = witness, ``name`` =
claim function, ``file`` and ``line`` = where the claim is defined). A FAIL verdict is a
``failure``, an ERROR an ``error``; an unresolved witness is one ``testcase`` named ``setup``
holding an ``error``. The file is written atomically: a temporary file in the same
directory, then ``os.replace``.

The document keeps to the Jenkins xunit plugin's JUnit schema (``junit-10.xsd``), which CI
test-report readers accept: ``skipped`` only on ``testsuite`` (never on ``testsuites``), and
times in seconds with at most three decimals (the schema's older time pattern allows no
more).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from claims import ClaimResult, Outcome, RunReport, UsageError, WitnessReport, hookimpl

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

# The XML library and the atomic writer are imported where a document is built or written:
# this plugin loads on every ``claims`` command, and most runs write no JUnit XML.


@hookimpl
def claims_add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--junit-xml",
        metavar="FILE",
        type=Path,
        help="also write the results as JUnit XML to FILE (written atomically)",
    )


@hookimpl
def claims_run_finished(report: RunReport, args: argparse.Namespace) -> None:
    target = getattr(args, "junit_xml", None)
    if target is None:
        return
    from claims.files import write_atomically

    try:
        write_atomically(Path(target), junit_xml(report))
    except OSError as error:
        raise UsageError(
            f"cannot write JUnit XML to {target}: {error}; pick a writable --junit-xml path"
        ) from error


def junit_xml(report: RunReport) -> bytes:
    """The serialized ``testsuites`` document for ``report``."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="claims")
    suites = [_testsuite(w) for w in report.witnesses]
    root.extend(suites)
    _count(root, suites)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def _testsuite(witness: WitnessReport) -> ET.Element:
    import xml.etree.ElementTree as ET

    suite = ET.Element("testsuite", name=witness.name)
    if witness.unresolved is not None:
        case = ET.SubElement(suite, "testcase", classname=witness.name, name="setup", time="0")
        error = ET.SubElement(case, "error", message=witness.unresolved, type="unresolved")
        error.text = witness.unresolved
    suite.extend(_testcase(r) for r in witness.results)
    _count(suite, list(suite))
    return suite


def _testcase(result: ClaimResult) -> ET.Element:
    import xml.etree.ElementTree as ET

    case = ET.Element(
        "testcase",
        classname=result.witness,
        name=result.name,
        time=seconds(result.duration_ms / 1000),
    )
    if result.path is not None:
        case.set("file", result.path)
        if result.line is not None:
            case.set("line", str(result.line))
    if result.outcome is not Outcome.PASS:
        tag = "failure" if result.outcome is Outcome.FAIL else "error"
        element = ET.SubElement(case, tag, message=result.verdict.reason, type=result.kind.value)
        parts = (result.statement, result.verdict.reason, result.verdict.evidence)
        element.text = "\n".join(part for part in parts if part)
    else:
        ET.SubElement(case, "system-out").text = result.verdict.evidence
    return case


def seconds(value: float) -> str:
    """A time as the schema takes it: seconds, three decimals."""
    return f"{value:.3f}"


def _count(parent: ET.Element, children: list[ET.Element]) -> None:
    """Set tests/failures/errors/time (and skipped on a suite) on ``parent``."""
    cases = [c for child in children for c in ([child] if child.tag == "testcase" else child)]
    parent.set("tests", str(len(cases)))
    parent.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    parent.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    if parent.tag == "testsuite":
        parent.set("skipped", "0")
    parent.set("time", seconds(sum(float(c.get("time", "0")) for c in cases)))
