"""Short reasons for a move in every language (hint button, open-cards teaching mode)."""

from __future__ import annotations

from typing import Any

from .. import i18n
from ..cards import Card
from ..i18n.grammar import card_forms

# The texts live in the catalogs (``bots.reason.<key>`` of src/ristiseiska/i18n/bots.*.json),
# one per language of i18n.LANGS. Imperatives take the nominative in Finnish ("Pelaa
# herttakuutonen"); {card} is nominative, {card_acc} the object form for indicative sentences,
# and every case of ristiseiska.i18n.grammar is there by its suffix ({card_ade}: "Jatka
# ruutukolmosella"). {mine_cards}/{theirs_cards} are counts of cards in words, {end_word} the
# end of the row, {suit} a suit's plural.
_PREFIX = "bots.reason."
_KEYS = sorted({k[len(_PREFIX):] for k in i18n.catalog(i18n.FALLBACK_LANG)
                if k.startswith(_PREFIX) and k.count(".") == 2})
# {reason key: {language: template}} of every language (for tests and tools).
TEXTS: dict[str, dict[str, str]] = {
    key: {lang: i18n.t(_PREFIX + key, lang) for lang in i18n.LANGS} for key in _KEYS}


def render(key: str, params: dict[str, Any], lang: str = "fi") -> str:
    """The reason ``key`` with ``params`` in ``lang`` (one of i18n.LANGS)."""
    if lang not in i18n.LANGS:
        raise ValueError(f"language must be one of {', '.join(i18n.LANGS)}, not {lang!r}")
    if key == "unlock_own" and "mine" in params and "theirs" in params:
        if params["theirs"] == 0:
            key = "unlock_own_none"
        elif params["theirs"] == params["mine"]:
            key = "unlock_even"
    texts = TEXTS.get(key) or TEXTS["move_generic"]
    fmt: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, Card):
            fmt.update(card_forms(v, lang, k))
        elif k == "move" and isinstance(v, str):  # a move's text ("token") in words
            from ..i18n import move_words

            fmt[k] = move_words(v, lang)
        elif isinstance(v, float):  # a decimal comma where the language writes one
            fmt[k] = str(v).replace(".", i18n.decimal_sep(lang))
        else:
            fmt[k] = v
    for k in ("mine", "theirs"):
        if isinstance(params.get(k), int):
            fmt[k + "_cards"] = i18n.tn(_PREFIX + "cards", params[k], lang)
    if "suit_id" in params:
        fmt["suit"] = i18n.t(f"{_PREFIX}suit.{params['suit_id']}", lang)
    if "end" in params:
        fmt["end_word"] = i18n.t(_PREFIX + "end." + ("low" if params["end"] == "low" else "high"),
                                 lang)
    if "base" in params and isinstance(params["base"], tuple):
        bkey, bparams = params["base"]
        fmt["base"] = render(bkey, bparams, lang).rstrip(".") + "."
    try:
        return texts[lang].format(**fmt)
    except (KeyError, IndexError):
        return TEXTS["move_generic"][lang].format(move=params.get("move", "?"))
