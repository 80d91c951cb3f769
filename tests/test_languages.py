"""Languages are data (issue 61): one list (src/ristiseiska/i18n/languages.json) that every
interface reads, so that a new language is a catalog per area and a rule book, no code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ristiseiska import i18n

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ristiseiska"
CODES = "|".join(re.escape(c) for c in i18n.LANGS)
# two language codes side by side in a literal ("fi", "en") / ["fi", "en"] / {"fi": …, "en": …},
# or a pattern naming languages (fi|en)
_PAIR = re.compile(rf"""["']({CODES})["']\s*[,:][^\n]{{0,80}}?["']({CODES})["']\s*[,:)\]}}]""")
_ALTERNATION = re.compile(rf"\b({CODES})\|({CODES})\b")
# a dict keyed by language across lines: '    "fi": {' (texts belong in the catalogs)
_KEYED = re.compile(rf"""^\s*["']({CODES})["']\s*:""")


def _sources() -> list[Path]:
    out = [p for p in SRC.rglob("*.py")]
    static = SRC / "web" / "static"
    out += [p for p in static.rglob("*.js") if "vendor" not in p.parts and "pyodide" not in p.parts]
    return sorted(out)


def test_the_list_has_the_three_languages_with_their_data() -> None:
    data = json.loads((SRC / "i18n" / "languages.json").read_text("utf-8"))
    assert [x["code"] for x in data] == list(i18n.LANGS)
    assert {"fi", "en", "sv"} <= set(i18n.LANGS)
    assert i18n.DEFAULT_LANG == "fi" and i18n.FALLBACK_LANG == "en"
    for x in i18n.LANGUAGES:
        assert x["name"] and x["decimal"] in (",", ".") and x["prefixes"], x
    assert i18n.lang_name("sv") == "svenska"
    assert i18n.number(3.25, "sv", 1) == "3,2" or i18n.number(3.25, "sv", 1) == "3,3"


def test_no_code_path_names_languages_outside_the_list() -> None:
    """No tuple, list, dict or pattern of language codes in the code: they read i18n.LANGS."""
    found = []
    for path in _sources():
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if _PAIR.search(line) or _ALTERNATION.search(line) or (
                    path.suffix == ".py" and _KEYED.search(line)):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == [], "\n".join(found)


def test_every_language_has_every_catalog_and_a_rule_book() -> None:
    areas = {a for a, _la, _f in i18n.catalog_files()}
    have = {(a, la) for a, la, _f in i18n.catalog_files()}
    for lang in i18n.LANGS:
        assert {(a, lang) for a in areas} <= have, lang
        assert (ROOT / "docs" / f"rules.{lang}.md").is_file(), lang


@pytest.mark.parametrize(("prefs", "lang"), [
    ("sv-SE,sv;q=0.9,en;q=0.8", "sv"), ("sv-FI", "sv"), ("fi-FI,fi;q=0.9", "fi"), ("fi", "fi"),
    ("de-DE,de;q=0.9", "en"), ("", "en"), ("en-GB", "en"), ("de, sv;q=0.5", "sv"),
    (["sv-SE", "en-US"], "sv"), (["nl"], "en"), ("svx", "en"),
])
def test_the_browser_preference_picks_the_language(prefs: object, lang: str) -> None:
    assert i18n.lang_from_prefs(prefs) == lang  # type: ignore[arg-type]


def test_swedish_card_names_and_sentences() -> None:
    from ristiseiska.cards import parse_card

    assert i18n.card_name("H7", "sv") == "hjärter sju"
    assert i18n.card_name("SK", "sv", "ade") == "spader kung"
    assert i18n.card_name("CA", "sv") == "klöver ess"
    assert i18n.card_name("DJ+", "sv") == "ruter knekt (andra leken)"
    assert i18n.card_name("X1", "sv") == "joker"
    assert i18n.card_name(parse_card("H7"), "sv") == "hjärter sju"
    assert i18n.describe_move("H6", "sv") == "Lägg hjärter sex"
    assert i18n.describe_event({"seat": 0, "type": "play", "card": "DQ"}, ["Astrid"], "sv") == \
        "Astrid lade ruter dam."
    assert i18n.tn("core.cards", 3, "sv") == "3 kort"


def test_swedish_bot_reasons_and_hints() -> None:
    from ristiseiska.bots.reasons import TEXTS, render
    from ristiseiska.cards import parse_card

    assert all(set(v) == set(i18n.LANGS) for v in TEXTS.values())
    text = render("unlock_own", {"card": parse_card("H8"), "mine": 2, "theirs": 1}, "sv")
    assert text == ("Lägg hjärter åtta: då blir 2 kort av dina egna kort spelbara men bara "
                    "1 kort av de andras.")
    assert render("ace_end", {"card": parse_card("SA"), "end": "low"}, "sv").startswith(
        "Lägg spader ess i nedre änden")
    assert "spader" in render("open_long", {"card": parse_card("S6"), "suit_id": 3}, "sv")
    with pytest.raises(ValueError, match="language must be one of"):
        render("only", {}, "de")


def test_swedish_rules_explained() -> None:
    from ristiseiska.explain import explain_rules
    from ristiseiska.rules import preset

    text = explain_rules(preset("sjuan"), "sv")
    assert "Hjärter sju öppnar" in text
    assert "core." not in text and "{" not in text


def test_the_server_lists_the_languages_and_serves_swedish(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from ristiseiska.web.app import create_app

    with TestClient(create_app(f"sqlite+aiosqlite:///{tmp_path / 'l.db'}", bot_delay=0.0)) as c:
        body = c.get("/api/langs", headers={"Accept-Language": "sv-FI,sv;q=0.9,fi;q=0.8"}).json()
        assert [x["code"] for x in body["langs"]] == list(i18n.LANGS)
        assert body["preferred"] == "sv" and body["fallback"] == "en"
        assert c.get("/api/langs", headers={"Accept-Language": "de"}).json()["preferred"] == "en"
        cat = c.get("/api/i18n/sv").json()
        assert cat["lang"] == "sv" and cat["cards"]["H7"] == "hjärter sju"
        assert cat["texts"]["web.lobby.create_button"] == "Skapa bord"
        meta = c.get("/api/meta?lang=sv").json()
        sjuan = next(p for p in meta["presets"] if p["name"] == "sjuan")
        assert sjuan["description"].startswith("svenska Sjuan")
        assert meta["options"]["failure"]["choice_labels"]["pass"] == "passa"
        rules = c.get("/api/rules?preset=sjuan&lang=sv").json()
        assert "Hjärter sju öppnar" in rules["text"]
        man = c.get("/manifest.webmanifest?lang=sv").json()
        assert man["lang"] == "sv" and "spela" in man["description"]


def test_the_offline_page_has_a_section_per_language() -> None:
    pytest.importorskip("fastapi")
    from ristiseiska.web.pwa import offline_page

    page = offline_page()
    assert [m for m in re.findall(r'<section class="panel" lang="(\w+)"', page)] == list(i18n.LANGS)
    assert "Inget nätverk" in page and "<strong>Spela utan nät</strong>" in page
    assert page.count('data-testid="offline-page"') == 1
