"""The app's icons (issue 47): a white card with a black club and a red 7 on the felt green,
drawn here with Pillow and committed as PNG files under ``static/icons`` (the manifest lists
them). Pillow is a development tool only (the ``shots`` extra): run
``python -m ristiseiska.web.icons`` after changing the drawing; tests/test_web_pwa.py checks the
files and their sizes.

Sizes: 192 and 512 (the manifest's ``any`` icons Chrome asks for), 512 ``maskable`` (the
drawing inside the central 80 % safe zone, the felt to the edges) and 180 (iOS's
``apple-touch-icon``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SIZES = {"icon-192.png": (192, False), "icon-512.png": (512, False),
         "maskable-512.png": (512, True), "apple-touch-180.png": (180, False)}
GREEN = (31, 107, 67)  # --green of style.css: the theme colour
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def draw(size: int, maskable: bool) -> object:
    from PIL import Image, ImageDraw, ImageFont

    big = size * 4  # drawn large, scaled down: smooth edges
    img = Image.new("RGBA", (big, big), GREEN + (255,) if maskable else (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if not maskable:  # a rounded felt square
        d.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 5, fill=GREEN)
    inset = 0.2 if maskable else 0.12  # maskable: keep inside the safe circle
    w = big * (1 - 2 * inset) * 0.72
    h = big * (1 - 2 * inset)
    x0 = (big - w) / 2
    y0 = big * inset
    d.rounded_rectangle((x0, y0, x0 + w, y0 + h), radius=w * 0.1, fill=(255, 255, 255),
                        outline=(20, 60, 40), width=max(2, big // 120))
    # the club: three circles and a stem
    cx, cy, r = big / 2, y0 + h * 0.42, w * 0.15
    for dx, dy in ((0, -r * 1.05), (-r * 1.05, r * 0.55), (r * 1.05, r * 0.55)):
        d.ellipse((cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r), fill=(20, 20, 20))
    d.ellipse((cx - r * 0.8, cy - r * 0.6, cx + r * 0.8, cy + r), fill=(20, 20, 20))  # the middle
    d.polygon([(cx, cy), (cx - r * 0.75, cy + r * 2.3), (cx + r * 0.75, cy + r * 2.3)],
              fill=(20, 20, 20))
    font: Any
    try:
        font = ImageFont.truetype(FONT, int(h * 0.22))
    except OSError:  # pragma: no cover - Debian has DejaVu
        font = ImageFont.load_default()
    d.text((x0 + w * 0.1, y0 + h * 0.04), "7", font=font, fill=(192, 24, 43))
    return img.resize((size, size), Image.Resampling.LANCZOS)


def main(out: Path | None = None) -> None:
    out = out or Path(__file__).parent / "static" / "icons"
    out.mkdir(parents=True, exist_ok=True)
    for name, (size, maskable) in SIZES.items():
        draw(size, maskable).save(out / name, optimize=True)  # type: ignore[attr-defined]
        print(out / name)


if __name__ == "__main__":
    main()
