"""Finnish as a Finn writes it (issue 45): phrases a native reader stumbles on stay out of every
Finnish catalog, the bots' reasons and the shipped puzzles' explanations."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from ristiseiska.bots.reasons import TEXTS
from ristiseiska.i18n import catalog_files
from ristiseiska.puzzles import shipped

# each: a pattern and what a Finn writes instead
UNNATURAL = [
    (r"kiusana\b", "pidä X kiusallasi"),
    (r"menossa ulos", "pääsee pian korteistaan eroon"),
    (r"ensimmäisenä ulos", "ensimmäisenä korteistaan eroon"),
    (r"jonka antaa \{", "pyysi korttia. Kortin antaa Olli."),
    (r"sen takaa vapautuu", "sen jälkeen vapautuu pelattavaksi"),
    (r"Reilut jako\b", "Reilut jaot"),
    (r"Katso uusinta", "Katso jako uudelleen"),
    (r"[!?]\.", "no full stop after ! or ?"),
    (r"\d\.\d", "a decimal comma"),
]


def _finnish_strings() -> list[tuple[str, str]]:
    out = []
    for _area, lang, filename in catalog_files():
        if lang != "fi":
            continue
        data = json.loads(resources.files("ristiseiska.i18n").joinpath(filename).read_text("utf-8"))
        out += [(f"{filename}:{k}", v) for k, v in data.items()]
    out += [(f"bots.reasons:{k}", v["fi"]) for k, v in TEXTS.items() if "fi" in v]
    out += [(f"puzzle {p['id']}", p["why"]["fi"]) for p in shipped()]
    return out


@pytest.mark.parametrize("pattern, instead", UNNATURAL)
def test_no_unnatural_finnish(pattern: str, instead: str) -> None:
    bad = [(where, text) for where, text in _finnish_strings() if re.search(pattern, text)
           and not (pattern == r"\d\.\d" and "--check" in text)]  # a command is not prose
    assert not bad, f"write {instead!r}: {bad[:5]}"
