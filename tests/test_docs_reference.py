"""The docs are a reference a newcomer reads in ten minutes, and the lab notebook is kept apart
(issue 48): the README and the two long pages stay short, every local link in the docs leads
somewhere, and every note is in the notes' index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.mark.parametrize("path, limit", [("README.md", 250), ("docs/web.md", 400),
                                         ("docs/strength.md", 400)])
def test_the_reference_pages_stay_short(path: str, limit: int) -> None:
    lines = (ROOT / path).read_text(encoding="utf-8").count("\n")
    assert lines < limit, f"{path} has {lines} lines; move history to docs/notes/"


@pytest.mark.parametrize("path, limit", [("docs/strength.md", 2500), ("docs/hosting.md", 3200),
                                         ("docs/web.md", 3000)])
def test_the_players_pages_read_in_ten_minutes(path: str, limit: int) -> None:
    """About 250 words a minute (a host's page a little longer): the algorithms, mechanisms,
    tests and measurements go to programmers' pages (docs/bots-internals.md,
    docs/hosting-internals.md, docs/web-internals.md) and the history to docs/notes/."""
    words = len((ROOT / path).read_text(encoding="utf-8").split())
    assert words <= limit, f"{path} has {words} words; move details to a programmers' page"


def test_the_reference_pages_are_not_a_diary() -> None:
    for path in ("README.md", "docs/web.md", "docs/strength.md"):
        text = (ROOT / path).read_text(encoding="utf-8")
        passes = re.findall(r"^#+ .*\b(?:First|Second|Third|Fourth|Fifth|Sixth) pass\b", text, re.M)
        assert not passes, (path, passes)


def test_every_local_link_in_the_docs_exists() -> None:
    missing = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for link in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text):
            if not (page.parent / link).exists():
                missing.append(f"{page.relative_to(ROOT)}: {link}")
    assert not missing, missing


def test_every_note_is_indexed() -> None:
    notes = sorted(p.name for p in (DOCS / "notes").glob("*.md") if p.name != "README.md")
    assert notes
    index = (DOCS / "notes" / "README.md").read_text(encoding="utf-8")
    assert all(f"]({n})" in index for n in notes), "every note is listed in docs/notes/README.md"


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    heads = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_every_anchor_in_the_reference_pages_exists() -> None:
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    missing = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#:\s]*\.md)#([^)\s]+)\)", text):
            if anchor not in _anchors(page.parent / target):
                missing.append(f"{page.relative_to(ROOT)}: {target}#{anchor}")
    assert not missing, missing


def test_the_web_guide_names_every_level_the_lobby_offers() -> None:
    from ristiseiska.web.bots import levels

    text = (DOCS / "web.md").read_text(encoding="utf-8")
    lobby = text[:text.index("*Create table*")]
    assert all(f"`{level}`" in lobby for level in levels()), levels()
