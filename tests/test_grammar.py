"""Finnish card names in the cases the sentences need, and every sentence template rendered
with every card in both languages (issue 21, point 5)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ristiseiska.bots.reasons import TEXTS, render
from ristiseiska.cards import CARDS, Card, parse_card
from ristiseiska.i18n import card_name, catalog, describe_event, describe_move, placeholders
from ristiseiska.i18n.grammar import CASES, RANK_FORMS_FI, card_case, card_forms, rank_word

# Placeholders that stand for a card (with an optional case suffix: {card_ade}).
CARD_KEYS = ("card", "as_card", "block", "need")
CARD_FIELD = re.compile(rf"^({'|'.join(CARD_KEYS)})(?:_({'|'.join(CASES)}|acc))?$")
DECKS = list(CARDS) + ["H6+", "CA+"]  # every card, the jokers and second-deck cards


def test_the_rank_table_has_every_case_of_every_rank() -> None:
    assert set(RANK_FORMS_FI) == set(range(14))
    for forms in RANK_FORMS_FI.values():
        assert tuple(forms) == CASES and all(forms.values())


@pytest.mark.parametrize(("rank", "case", "word"), [
    (3, "ade", "kolmosella"), (3, "gen", "kolmosen"), (3, "par", "kolmosta"),
    (3, "all", "kolmoselle"), (1, "ade", "ässällä"), (1, "all", "ässälle"), (1, "par", "ässää"),
    (10, "gen", "kympin"), (10, "ade", "kympillä"), (13, "gen", "kuninkaan"),
    (13, "ade", "kuninkaalla"), (12, "ade", "kuningattarella"), (9, "par", "ysiä"),
    (7, "ela", "seiskasta"), (0, "ade", "jokerilla"),
])
def test_rank_words(rank: int, case: str, word: str) -> None:
    assert rank_word(rank, "fi", case) == word


def test_vowel_harmony_follows_the_rank_word() -> None:
    # front-vowel words (ässä, ysi, jätkä) take ä endings, back-vowel words a endings
    for rank, forms in RANK_FORMS_FI.items():
        back = any(v in forms["nom"] for v in "aou")
        for case in ("par", "ade", "abl", "ine", "ela", "ess"):
            ending = forms[case][-1]
            assert ending == ("a" if back else "ä"), (rank, case, forms[case])


def test_card_names_in_cases() -> None:
    assert card_case(parse_card("D3"), "fi", "ade") == "ruutukolmosella"
    assert card_case(parse_card("C10"), "fi", "gen") == "ristikympin"
    assert card_case(parse_card("C6"), "fi") == "ristikuutonen"
    assert card_case(parse_card("C6"), "en", "ade") == "six of clubs"
    assert card_case("H6+", "fi", "ade") == "herttakuutosella (toinen pakka)"
    assert card_name("SK", "fi", "all") == "patakuninkaalle"
    # the old two-form names are unchanged
    for c in CARDS:
        for case in ("nom", "acc", "par"):
            assert card_name(c, "fi", case) == c.name("fi", case)
    with pytest.raises(ValueError, match="unknown case"):
        card_case(parse_card("D3"), "fi", "dative")


def _sample(field: str, card: Card | str, lang: str) -> Any:
    m = CARD_FIELD.match(field)
    if m:
        return card_forms(card, lang, m.group(1))[field]
    return {"suit": "ristit", "name": "Aino", "other": "Olli", "player": "Sara"}.get(field, "7")


def _templates() -> list[tuple[str, str, str]]:
    """(source, language, template) of every sentence that names a card."""
    out = []
    for lang in ("fi", "en"):
        for key, text in catalog(lang).items():
            if any(CARD_FIELD.match(p) for p in placeholders(text)):
                out.append((key, lang, text))
        for key, texts in TEXTS.items():
            if any(CARD_FIELD.match(p) for p in placeholders(texts[lang])):
                out.append(("reasons." + key, lang, texts[lang]))
    return out


def test_there_are_templates_to_render() -> None:
    keys = {k for k, _lang, _t in _templates()}
    assert {"core.event.play", "core.move.play", "reasons.continue", "tui.event.you_give"} <= keys


@pytest.mark.parametrize("source,lang,template", _templates(), ids=lambda x: str(x)[:40])
def test_every_template_with_every_card(source: str, lang: str, template: str) -> None:
    fields = placeholders(template)
    for card in DECKS:
        kw = {f: _sample(f, card, lang) for f in fields}
        text = template.format(**kw)
        assert "{" not in text and "}" not in text
        assert card_case(card, lang, "nom").split(" (")[0].split()[0][:3] in text.lower()
        if lang == "fi":
            # a card after "kortilla" would need the adessive; "Jatka ruutukolmosella" instead
            assert not re.search(r"\bkortilla \S+(nen|ssä|ska|si|ppi|tkä|tar|gas)\b", text), text


def test_reasons_render_the_needed_cases_for_every_card() -> None:
    for c in CARDS:
        fi = render("continue", {"card": c}, "fi")
        assert fi.startswith("Jatka " + card_case(c, "fi", "ade") + ":")
        assert render("continue", {"card": c}, "en").startswith("Go on with the " + c.name("en"))
    assert render("continue", {"card": parse_card("D3")}, "fi").startswith("Jatka ruutukolmosella:")


NAME_FIELDS = {"name", "other", "player", "names", "winner", "dealer"}
# A Finnish word in a case ending right before a name would ask the name to agree with it
# ("pelaajalle Aino"): the name must stand as it is, as the subject or after a colon.
NAMES_RE = "|".join(NAME_FIELDS)
INFLECTING = re.compile(rf"\b\w{{2,}}(lle|lta|ltä|lla|llä|n|ssa|ssä|sta|stä) \{{({NAMES_RE})\}}")
GLUED = re.compile(rf"\{{({NAMES_RE})\}}[a-zäö]")  # an ending glued onto a name


def test_no_finnish_sentence_inflects_a_players_name() -> None:
    bad = []
    for key, text in catalog("fi").items():
        if INFLECTING.search(text) or GLUED.search(text):
            bad.append((key, text))
    for key, texts in TEXTS.items():
        if INFLECTING.search(texts["fi"]):
            bad.append((key, texts["fi"]))
    # "nyt vuorossa on {name}" is a subject, not an inflected name
    assert bad == [], bad


def test_the_sentences_of_the_issue() -> None:
    assert "Jatka ruutukolmosella" in render("continue", {"card": parse_card("D3")}, "fi")
    from ristiseiska.i18n import t

    assert t("tui.event.you_give", "fi", card=card_name("C10", "fi", "gen"), other="Aino") == \
        "Aino sai sinulta ristikympin."
    assert describe_event({"seat": 0, "type": "give", "card": "C10", "to": 1}, ["Olli", "Aino"],
                          "fi") == "Olli antoi ristikympin, ja Aino sai sen."
    assert describe_move("C6", "fi") == "Pelaa ristikuutonen"


def test_every_reason_renders_with_every_card_through_the_real_functions() -> None:
    from ristiseiska.analysis import _reason_words
    from ristiseiska.i18n import move_words

    for lang in ("fi", "en"):
        for c in DECKS:
            card = c if isinstance(c, Card) else parse_card(c)
            other = parse_card("S2") if card != parse_card("S2") else parse_card("S3")
            for key in TEXTS:
                params: dict[str, Any] = {"card": card, "block": other, "player": "Aino",
                                          "value": 10, "suit_id": 0, "end": "low",
                                          "mine": 2, "theirs": 1, "move": str(card),
                                          "worlds": 100, "points": "3.0", "pct": 40}
                if key.startswith("master"):
                    params["base"] = ("play_generic", {"card": card})
                text = render(key, params, lang)
                assert "{" not in text and "}" not in text, (key, text)
                if "{card" in TEXTS[key][lang]:  # the card is named, in some case of its name
                    stem = card_case(card, lang)[:5]
                    assert stem in text.lower(), (key, text)
            code = card.notation() if card.is_joker else str(c)
            for key in ("analysis.reason.out", "analysis.reason.out_likely", "analysis.reason.dump"):
                text = _reason_words(key, {"best": code, "diff": 5}, lang)
                assert "{" not in text and move_words(code, lang) in text, text
