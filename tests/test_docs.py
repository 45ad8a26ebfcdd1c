"""The README is a front door to docs/: every relative link it or a docs page holds resolves
to a file of the checkout (and, with ``#anchor``, to a heading of that file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from claims.model import BUILTIN_KINDS

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
README_LINES = 200
"""The front door's budget: what it is, the two commands, a short tour, links."""


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to -."""
    text = heading.strip().lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    fenced, found = False, set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(_anchor(line))
    return found


def _links(page: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if "://" not in target and not target.startswith("mailto:")
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_file():
            broken.append(f"{target}: no file {file.relative_to(REPO)}")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(REPO)}")
    assert broken == []


def test_the_readme_is_a_front_door_and_links_every_docs_page() -> None:
    readme = REPO / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= README_LINES
    linked = {(REPO / t.partition("#")[0]).resolve() for t in _links(readme)}
    assert [p.name for p in PAGES[1:] if p.resolve() not in linked] == []


def test_the_kinds_table_says_what_the_kernel_says() -> None:
    text = (REPO / "docs" / "claims.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", text, re.MULTILINE))
    assert {k.value: rows.get(k.value) for k in BUILTIN_KINDS} == {
        k.value: states for k, states in BUILTIN_KINDS.items()
    }
