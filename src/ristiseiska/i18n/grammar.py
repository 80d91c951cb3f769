"""Card names in the grammatical cases Finnish sentences need (issue 21).

A Finnish card name is a compound of the suit and the rank word (``risti`` + ``kolmonen``); it
inflects like its last part, so one table of the rank words' forms gives every card in every
case: ``ristikolmonen`` → ``ristikolmosella`` (adessive), ``ristikolmosen`` (genitive),
``ristikolmosta`` (partitive), ``ristikolmoselle`` (allative). English and Swedish need no
cases: every form is the plain name (``six of clubs``, ``klöver sex``), built from the
catalog's words (``core.card.name``, ``core.card.suit.<0-3>``, ``core.card.rank.<1-13>``,
``core.card.joker``), and the sentences carry the prepositions. A new language names its
cards in its catalog the same way.

Templates name the form they need with a suffix on the placeholder: ``{card_ade}``,
``{card_gen}``, ``{card_par}`` … (see :data:`CASES`); :func:`card_forms` fills them all::

    >>> from ristiseiska.cards import parse_card
    >>> card_forms(parse_card("D3"), "fi")["card_ade"]
    'ruutukolmosella'
    >>> card_forms(parse_card("CA"), "fi", "best")["best_all"]
    'ristiässälle'
    >>> card_forms(parse_card("C6"), "en")["card_ade"]
    'six of clubs'
    >>> card_forms(parse_card("H7"), "sv")["card_gen"]
    'hjärter sju'

Sentences with players' names are written so that a name never needs inflecting: the name
stands as the subject or after a colon ("Aino sai sinulta ristikympin"), never in a case
ending ("pelaajalle Aino").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import SUIT_EN, SUIT_FI, Card, CardError, parse_card

# nominative, genitive (also the object of a finished action: "pelasi ristikolmosen"),
# partitive, adessive (-lla), allative (-lle), ablative (-lta), inessive (-ssa), elative
# (-sta), illative (into), essive (-na), translative (-ksi).
CASES: tuple[str, ...] = ("nom", "gen", "par", "ade", "all", "abl", "ine", "ela", "ill", "ess",
                          "tra")
# The older name of the genitive-form object, kept for existing callers.
ALIASES = {"acc": "gen"}

# The rank words' forms, in the order of CASES; rank 0 is the joker.
_FORMS = {
    0: "jokeri jokerin jokeria jokerilla jokerille jokerilta jokerissa jokerista jokeriin "
       "jokerina jokeriksi",
    1: "ässä ässän ässää ässällä ässälle ässältä ässässä ässästä ässään ässänä ässäksi",
    2: "kakkonen kakkosen kakkosta kakkosella kakkoselle kakkoselta kakkosessa kakkosesta "
       "kakkoseen kakkosena kakkoseksi",
    3: "kolmonen kolmosen kolmosta kolmosella kolmoselle kolmoselta kolmosessa kolmosesta "
       "kolmoseen kolmosena kolmoseksi",
    4: "nelonen nelosen nelosta nelosella neloselle neloselta nelosessa nelosesta neloseen "
       "nelosena neloseksi",
    5: "viitonen viitosen viitosta viitosella viitoselle viitoselta viitosessa viitosesta "
       "viitoseen viitosena viitoseksi",
    6: "kuutonen kuutosen kuutosta kuutosella kuutoselle kuutoselta kuutosessa kuutosesta "
       "kuutoseen kuutosena kuutoseksi",
    7: "seiska seiskan seiskaa seiskalla seiskalle seiskalta seiskassa seiskasta seiskaan "
       "seiskana seiskaksi",
    8: "kasi kasin kasia kasilla kasille kasilta kasissa kasista kasiin kasina kasiksi",
    9: "ysi ysin ysiä ysillä ysille ysiltä ysissä ysistä ysiin ysinä ysiksi",
    10: "kymppi kympin kymppiä kympillä kympille kympiltä kympissä kympistä kymppiin kymppinä "
        "kympiksi",
    11: "jätkä jätkän jätkää jätkällä jätkälle jätkältä jätkässä jätkästä jätkään jätkänä "
        "jätkäksi",
    12: "kuningatar kuningattaren kuningatarta kuningattarella kuningattarelle "
        "kuningattarelta kuningattaressa kuningattaresta kuningattareen kuningattarena "
        "kuningattareksi",
    13: "kuningas kuninkaan kuningasta kuninkaalla kuninkaalle kuninkaalta kuninkaassa "
        "kuninkaasta kuninkaaseen kuninkaana kuninkaaksi",
}
RANK_FORMS_FI: dict[int, dict[str, str]] = {
    rank: dict(zip(CASES, words.split(), strict=True)) for rank, words in _FORMS.items()
}
_RANK_EN = {
    0: "joker", 1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king",
}


def norm_case(case: str) -> str:
    case = ALIASES.get(case, case)
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; the cases are {', '.join(CASES)}")
    return case



class _Catalog:
    """The catalogs' lookups, handed in by the package (``ristiseiska.i18n`` sets them when it
    loads, and importing this module loads the package first), so that the other languages'
    card words come from their catalogs without this module importing its package back."""

    t: Callable[..., str]
    norm_lang: Callable[[str], str]


_catalog = _Catalog()


def rank_word(rank: int, lang: str = "fi", case: str = "nom") -> str:
    """The rank's word (0: the joker) in ``case``: ``rank_word(3, "fi", "ade")`` is
    ``kolmosella``."""
    if lang == "fi":
        return RANK_FORMS_FI[rank][norm_case(case)]
    norm_case(case)
    if lang == "en":
        return _RANK_EN[rank]
    key = "core.card.joker" if rank == 0 else f"core.card.rank.{rank}"
    return _catalog.t(key, lang)


def card_case(card: Card | str, lang: str = "fi", case: str = "nom") -> str:
    """A card's name in ``case`` (Finnish; English has one form). A text card is parsed first
    (``"H6+"``, the second of two different decks, says which deck)."""
    t = _catalog.t
    c = card if isinstance(card, Card) else parse_card(str(card))
    lang = _catalog.norm_lang(lang)
    if c.is_joker:
        name = rank_word(0, lang, case)
    elif lang == "fi":
        name = SUIT_FI[c.suit] + rank_word(c.rank, lang, case)
    elif lang == "en":
        name = f"{rank_word(c.rank, lang, case)} of {SUIT_EN[c.suit]}"
    else:
        name = t("core.card.name", lang, rank=rank_word(c.rank, lang, case),
                 suit=t(f"core.card.suit.{c.suit}", lang))
    if isinstance(card, str) and card.strip().endswith("+") and not c.is_joker:
        name += t("core.card.second_deck", lang)
    return name


def card_forms(card: Card | str, lang: str = "fi", key: str = "card",
               default: str = "nom") -> dict[str, Any]:
    """Every form of ``card`` for a template: ``{key}`` (in the ``default`` case, for the
    templates written before the cases were named), ``{key}_nom``, ``{key}_gen``,
    ``{key}_acc`` (= genitive), ``{key}_par``, ``{key}_ade`` …"""
    out: dict[str, Any] = {f"{key}_{case}": card_case(card, lang, case) for case in CASES}
    out[f"{key}_acc"] = out[f"{key}_gen"]
    out[key] = out[f"{key}_{norm_case(default)}"]
    return out


def try_card_forms(text: str, lang: str = "fi", key: str = "card",
                   default: str = "nom") -> dict[str, Any] | None:
    """:func:`card_forms` of a text that names a card, else None."""
    try:
        return card_forms(text, lang, key, default)
    except (CardError, ValueError):
        return None


__all__ = ["CASES", "RANK_FORMS_FI", "rank_word", "card_case", "card_forms", "try_card_forms",
           "norm_case"]
