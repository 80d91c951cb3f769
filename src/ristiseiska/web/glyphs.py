"""The symbols the web pages draw, shipped with them (issue 60): a small font cut from DejaVu
Sans (free licence: Bitstream Vera and public-domain changes) holding only the characters
outside Latin-1 that the pages and the catalogs use — the suits, the star, the tick, the
arrows, dashes and quotes. ``style.css`` names it last in every font stack, so the system's own
font draws what it has and this one fills in whatever it lacks: no empty boxes on a machine
without a symbol font. Icons that are not text (the clock, plus, menu, download, note) are
inline SVG in ``static/ui/icons.js`` instead.

After adding a symbol to a page or a catalog, add it to :data:`CHARS` and rebuild the font with
``python tools/build_glyph_font.py`` (a maintainer's tool: it needs fontTools, which the game
itself does not); tests/test_web_glyphs.py checks that every such character is in
:data:`CHARS` and in the font.
"""

from __future__ import annotations

from pathlib import Path

CHARS = "–—…“”’←→▶●★✓♠♣♥♦"
SOURCE = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT = Path(__file__).parent / "static" / "fonts" / "rs-symbols.woff"


def used_chars(root: Path | None = None) -> dict[str, set[str]]:
    """Every character above Latin-1 in the static files (vendored code aside) and the
    catalogs, with the files that use it."""
    pkg = Path(__file__).parent.parent
    static = Path(__file__).parent / "static"
    files = [p for p in static.rglob("*") if p.suffix in (".js", ".mjs", ".css", ".html", ".json")
             and "vendor" not in p.relative_to(static).parts]
    files += sorted((pkg / "i18n").glob("*.json"))
    out: dict[str, set[str]] = {}
    for p in files:
        for ch in p.read_text("utf-8"):
            if ord(ch) > 0xFF:
                out.setdefault(ch, set()).add(str(p.relative_to(pkg)))
    return out
