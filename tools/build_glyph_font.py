"""Cut the pages' symbol font (src/ristiseiska/web/static/fonts/rs-symbols.woff) from DejaVu
Sans: only the characters of ``ristiseiska.web.glyphs.CHARS``. A maintainer's tool, run after
adding a symbol to a page or a catalog (fontTools comes with the test tools):

    python tools/build_glyph_font.py
"""

from __future__ import annotations

from pathlib import Path

from ristiseiska.web.glyphs import CHARS, FONT, SOURCE, used_chars


def build(source: str = SOURCE, target: Path = FONT) -> int:
    from fontTools import subset  # type: ignore[import-untyped]

    options = subset.Options()
    options.flavor = "woff"  # zlib: needs no brotli
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 13, 14]  # copyright, family, style, licence and its address
    options.notdef_outline = True
    font = subset.load_font(source, options)
    sub = subset.Subsetter(options)
    sub.populate(unicodes=[ord(c) for c in CHARS])
    sub.subset(font)
    target.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(target), options)
    return target.stat().st_size


if __name__ == "__main__":
    missing = sorted(set(used_chars()) - set(CHARS))
    if missing:
        raise SystemExit(f"add to ristiseiska.web.glyphs.CHARS first: {''.join(missing)}")
    print(FONT, build(), "bytes")
