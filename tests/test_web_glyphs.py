"""The pages ship what they draw (issue 60): every character above Latin-1 in the static files
and the catalogs is one the page's own symbol font has (web/glyphs.py), the style sheet loads
that font for exactly those characters, and the symbols that showed as empty boxes (the
stopwatch on the clock, the full-width plus on Invite …) are inline SVG icons now."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ristiseiska.web import glyphs

STATIC = Path(glyphs.__file__).parent / "static"


def test_every_symbol_used_is_one_the_page_ships() -> None:
    used = glyphs.used_chars()
    extra = {ch: sorted(files) for ch, files in used.items() if ch not in glyphs.CHARS}
    assert extra == {}, f"add these to web/glyphs.py CHARS and rebuild the font: {extra}"
    for gone in "⏱＋☰⤓♪":  # drawn as SVG (ui/icons.js): no font needed
        assert gone not in used, (gone, used.get(gone))


def test_the_shipped_font_has_every_symbol_and_the_css_names_them() -> None:
    ttlib = pytest.importorskip("fontTools.ttLib")
    font = ttlib.TTFont(str(glyphs.FONT))
    cmap = font.getBestCmap()
    assert [ch for ch in glyphs.CHARS if ord(ch) not in cmap] == []
    assert glyphs.FONT.stat().st_size < 20_000  # a subset, not the whole font
    css = (STATIC / "style.css").read_text("utf-8")
    face = re.search(r'@font-face \{ font-family: "RS Symbols";[^}]*\}', css)
    assert face and "/static/fonts/rs-symbols.woff" in face.group(0)
    ranges = re.search(r"unicode-range:([^;]*);", face.group(0))
    assert ranges
    covered: set[int] = set()
    for part in ranges.group(1).split(","):
        lo, _, hi = part.strip()[2:].partition("-")
        covered.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    assert [ch for ch in glyphs.CHARS if ord(ch) not in covered] == []
    # the font is the last resort of the page's font stack
    assert re.search(r'body \{[^}]*font-family:[^;]*sans-serif, "RS Symbols";', css)


def test_the_pages_are_served_the_font(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from ristiseiska.web.app import create_app

    with TestClient(create_app(f"sqlite+aiosqlite:///{tmp_path / 'g.db'}")) as client:
        r = client.get("/static/fonts/rs-symbols.woff")
        assert r.status_code == 200 and r.content[:4] == b"wOFF"
        assert "/static/fonts/rs-symbols.woff" in client.get("/sw.js").text  # kept offline too
