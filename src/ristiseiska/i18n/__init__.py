"""Texts in every language of the game (Finnish, English, Swedish …): catalogs, event
sentences, move labels.

The languages are data: ``languages.json`` next to this module lists each one (code, native
name, decimal separator, the browser-language prefixes that pick it); :data:`LANGS` and
:data:`LANGUAGES` are read from it, and every interface reads them. A new language is a line
there, a catalog per area and a rule book (``docs/rules.<code>.md``).

Catalogs are flat JSON files next to this module, ``<area>.<lang>.json`` (areas: ``core`` for
the engine's words, ``tui`` for the terminal UI, ``web`` for the browser app). Every key starts
with its area (``core.move.token``). All files of one language are merged when first used::

    >>> from ristiseiska.i18n import t, describe_move
    >>> t("core.move.token", "fi"), t("core.move.token", "en")
    ('Ota pantti', 'Take the token')
    >>> t("no.such.key")
    'no.such.key'

``t`` never raises: a missing key falls back to English, then to the key itself, and a missing
placeholder is left as ``{name}`` in the text. Plural forms are separate keys ending in
``.one`` and ``.other`` (see :func:`tn`).
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from ..cards import Card, CardError, parse_card
from ..moves import Move, MoveError, parse_move
from .grammar import CASES

# First names the interfaces give computer players at the table (never a level name), so that
# the log reads like a family game.
PLAYER_NAMES: tuple[str, ...] = ("Aino", "Olli", "Sara", "Ville", "Leena", "Toni", "Sanna", "Eero")


def _languages() -> tuple[dict[str, Any], ...]:
    data = json.loads(resources.files(__name__).joinpath("languages.json").read_text("utf-8"))
    out = []
    for item in data:
        out.append({"code": str(item["code"]), "name": str(item["name"]),
                    "decimal": str(item.get("decimal", ".")),
                    "prefixes": [str(p).lower() for p in item.get("prefixes", [item["code"]])]})
    return tuple(out)


# Every language: {"code", "name" (in itself), "decimal", "prefixes"}; the first is the default.
LANGUAGES: tuple[dict[str, Any], ...] = _languages()
LANGS: tuple[str, ...] = tuple(x["code"] for x in LANGUAGES)
DEFAULT_LANG = LANGS[0]
FALLBACK_LANG = "en" if "en" in LANGS else LANGS[0]
_DECIMAL: dict[str, str] = {str(x["code"]): str(x["decimal"]) for x in LANGUAGES}
_PREFIXES: list[tuple[str, str]] = [(str(p), str(x["code"])) for x in LANGUAGES
                                    for p in x["prefixes"]]
AREAS: tuple[str, ...] = ("core", "tui", "web")

__all__ = [
    "LANGS", "LANGUAGES", "DEFAULT_LANG", "FALLBACK_LANG", "lang_from_prefs", "lang_name", "AREAS", "t", "tn", "catalog", "reload", "norm_lang",
    "card_name", "player_name", "describe_event", "describe_move", "move_words", "phase_label",
    "reader_names", "you_words",
    "points_label", "token_label", "chips_label", "cards_left_label", "end_label",
    "result_lines", "catalog_files", "placeholders", "number", "decimal_sep",
]


def norm_lang(lang: str | None) -> str:
    """A code of :data:`LANGS` from anything (``'fi_FI.UTF-8'``, ``'SV-se'``, ``None``: the
    default); an unknown language → English."""
    if lang in _DECIMAL:  # the usual case first (this runs for every text)
        return lang
    if not lang:
        return DEFAULT_LANG
    code = str(lang).strip().lower().replace("-", "_").split("_")[0].split(".")[0]
    return code if code in LANGS else FALLBACK_LANG


def lang_from_prefs(prefs: str | Sequence[str] | None) -> str:
    """The language a browser asks for: an ``Accept-Language`` header (``'sv-SE,sv;q=0.9'``)
    or ``navigator.languages``; the first preference with a language of ours wins, else
    English::

        >>> lang_from_prefs("sv-FI,fi;q=0.8")
        'sv'
        >>> lang_from_prefs(["de-DE"])
        'en'
    """
    if isinstance(prefs, str):
        items = [p.split(";")[0] for p in prefs.split(",")]
    else:
        items = [str(p) for p in (prefs or [])]
    for item in items:
        tag = item.strip().lower().replace("_", "-")
        for prefix, code in _PREFIXES:
            if tag == prefix or tag.startswith(prefix + "-"):
                return code
    return FALLBACK_LANG


def lang_name(lang: str) -> str:
    """A language's name in itself (``suomi``, ``svenska``)."""
    code = norm_lang(lang)
    return next(str(x["name"]) for x in LANGUAGES if x["code"] == code)


def catalog_files() -> list[tuple[str, str, str]]:
    """``(area, lang, filename)`` of every catalog file shipped with the package."""
    out = []
    for entry in resources.files(__name__).iterdir():
        name = entry.name
        if not name.endswith(".json"):
            continue
        parts = name[: -len(".json")].split(".")
        if len(parts) == 2:
            out.append((parts[0], parts[1], name))
    return sorted(out)


def _read(filename: str) -> dict[str, str]:
    data = json.loads(resources.files(__name__).joinpath(filename).read_text("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{filename}: a catalog must be a JSON object of key: text")
    return {str(k): str(v) for k, v in data.items()}


@cache
def _catalog(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for _area, file_lang, filename in catalog_files():
        if file_lang == lang:
            merged.update(_read(filename))
    return merged


def reload() -> None:
    """Forget loaded catalogs (after editing a JSON file in a running program)."""
    _catalog.cache_clear()
    _CARD_NAMES.clear()
    _MOVE_LABELS.clear()


def catalog(lang: str) -> dict[str, str]:
    """Every text of ``lang`` (English texts fill keys the language lacks): for the browser."""
    lang = norm_lang(lang)
    merged = dict(_catalog(FALLBACK_LANG))
    merged.update(_catalog(lang))
    return merged


class _Keep(dict[str, Any]):
    """format_map helper: an unknown placeholder stays as written instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _format(text: str, kw: Mapping[str, Any]) -> str:
    if not kw and "{" not in text:
        return text
    try:
        return text.format_map(_Keep(kw))
    except (ValueError, IndexError, AttributeError, KeyError, TypeError):
        return text  # a malformed template: show it rather than fail


def t(key: str, lang: str = DEFAULT_LANG, **kw: Any) -> str:
    """The text of ``key`` in ``lang`` with ``{placeholders}`` filled from ``kw``. Falls back
    to English, then to the key itself; never raises."""
    lang = norm_lang(lang)
    text = _catalog(lang).get(key)
    if text is None:
        text = _catalog(FALLBACK_LANG).get(key)
    if text is None:
        return key
    return _format(text, kw)


def tn(key: str, n: int, lang: str = DEFAULT_LANG, **kw: Any) -> str:
    """Plural-aware text: ``key.one`` when ``n`` is 1 (or -1), else ``key.other``; ``{n}`` is
    filled in. Finnish, English and Swedish all use this two-form rule."""
    form = "one" if abs(n) == 1 else "other"
    return t(f"{key}.{form}", lang, n=n, **kw)


def placeholders(text: str) -> set[str]:
    """The placeholder names used in a template (for the catalog consistency test)."""
    names = set()
    for _lit, field, _spec, _conv in string.Formatter().parse(text):
        if field is not None:
            names.add(field.split(".")[0].split("[")[0])
    return names


# --- cards and players ----------------------------------------------------------------------

def _as_card(card: Card | str | None) -> Card | None:
    if card is None or isinstance(card, Card):
        return card
    text = str(card)
    try:
        return _PARSED[text]  # every log sentence reads its event's card text
    except KeyError:
        pass
    try:
        c: Card | None = parse_card(text)
    except CardError:
        c = None
    if len(_PARSED) < 20000:  # bounded: arbitrary texts must not grow it without end
        _PARSED[text] = c
    return c


_PARSED: dict[str, Card | None] = {}  # card text -> the card (None: not a card)


# (card's type, card, language, case) -> name: the web server names the same few cards for
# every event of every table's log (a dozen case forms each), so each name is worked out once
_CARD_NAMES: dict[tuple[type, Any, str, str], str] = {}
_MOVE_LABELS: dict[tuple[str, str], str] = {}  # (move text, language) -> describe_move's label


def card_name(card: Card | str, lang: str = DEFAULT_LANG, case: str = "nom") -> str:
    """The natural name of a card (``herttakuutonen``, ``herttakuutosen`` with ``case='acc'``
    or ``'gen'``, ``herttakuutosella`` with ``'ade'``: every case of :mod:`.grammar`;
    ``six of hearts``); a second-deck card written ``H6+`` says which deck."""
    key = (type(card), card, lang, case)  # the type too: a Card equals its int id
    try:
        return _CARD_NAMES[key]
    except (KeyError, TypeError):  # TypeError: an unhashable argument, named below
        pass
    name = _card_name(card, lang, case)
    if len(_CARD_NAMES) < 20000 and isinstance(card, (str, Card)):
        # (bounded: a program naming arbitrary texts must not grow it without end)
        _CARD_NAMES[key] = name
    return name


def _card_name(card: Card | str, lang: str, case: str) -> str:
    from .grammar import card_case

    lang = norm_lang(lang)
    c = _as_card(card)
    if c is None:
        return str(card)
    try:
        name = card_case(c, lang, case)
    except ValueError:  # an unknown case: the plain name
        name = card_case(c, lang)
    if (isinstance(card, str) and card.strip().endswith("+")) and not c.is_joker:
        name += t("core.card.second_deck", lang)
    return name


def player_name(seat: Any, names: Sequence[str] | None, lang: str = DEFAULT_LANG) -> str:
    """The name at ``seat``, or "Pelaaja 2" / "Player 2" (seats count from 1 for people)."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        if names and 0 <= seat < len(names) and names[seat]:
            return str(names[seat])
        return t("core.player", lang, n=seat + 1)
    return t("core.player_unknown", lang)


# --- events ---------------------------------------------------------------------------------

def _event_dict(event: Any) -> dict[str, Any]:
    if isinstance(event, Mapping):
        return dict(event)
    to_dict = getattr(event, "to_dict", None)
    if callable(to_dict):
        d = to_dict()
        if isinstance(d, Mapping):
            return dict(d)
    return {}


def you_words() -> set[str]:
    """The words the interfaces call the person at the screen ("Sinä", "You")."""
    return {t("tui.you", lang) for lang in LANGS}


def reader_names(names: Sequence[str] | None, you: Any, lang: str = DEFAULT_LANG) -> list[str]:
    """The players' names as the reader of their own record sees them: the seat ``you`` (the
    record's ``you`` key: the person who played it) is "Sinä"/"You" in the reader's language
    when the person played without a name of their own; every other name as it was."""
    out = [str(x) for x in (names or [])]
    if isinstance(you, int) and not isinstance(you, bool) and 0 <= you < len(out):
        if not out[you] or out[you] in you_words():
            out[you] = t("tui.you", lang)
    return out


def _describe_you(ev: dict[str, Any], names: Sequence[str] | None, lang: str, you: int,
                  general: str) -> str:
    """The reader's own moves in the second person ("Pelasit herttakuutosen.") and the moves
    that ask them or give them a card; the general sentence where no such text exists."""
    kind = str(ev.get("type", ""))
    kw: dict[str, Any] = {}
    if ev.get("card") is not None and _as_card(str(ev["card"])) is not None:
        kw["card"] = card_name(str(ev["card"]), lang, "acc")
    if ev.get("as") is not None:
        kw["as_card"] = card_name(str(ev["as"]), lang, "acc")
    if ev.get("seat") != you:
        if kind not in ("ask", "give") or ev.get("from", ev.get("to")) != you:
            return general
        kw["name"] = player_name(ev.get("seat"), names, lang)
        key = f"tui.event.{kind}_you" + ("" if "card" in kw or kind == "ask" else "_hidden")
    else:
        if kind in ("ask", "give"):
            kw["other"] = player_name(ev.get("from", ev.get("to")), names, lang)
        key = f"tui.event.you_{kind}" + ("_joker" if kind == "play" and "as_card" in kw else "")
        if kind in ("play", "give", "draw", "swap") and "card" not in kw:
            return general
    text = t(key, lang, **kw)
    if text == key:
        return general
    if kind == "play" and "(" in general:  # the row or end, as the general sentence words it
        text = text.rstrip(".") + " " + general[general.rindex("("):]
    return text


class _EventWords(dict[str, Any]):
    """The placeholders of an event's sentence: a card's name in a case (``{card_ade}``;
    ``{card}`` and ``{card_acc}`` are the genitive, as Finnish objects of these verbs) is
    worked out only when the template names it — a sentence needs one or two of the
    thirteen. Unknown placeholders stay as written (as :class:`_Keep`)."""

    def __init__(self, card: Card | str | None, lang: str, **kw: Any) -> None:
        super().__init__(kw)
        self.card = card
        self.lang = lang

    def __missing__(self, key: str) -> str:
        if self.card is not None and key.startswith("card"):
            case = "gen" if key in ("card", "card_acc") else key[5:]
            if key == "card" or key[4:5] == "_" and case in CASES:
                value = self[key] = card_name(self.card, self.lang, case)
                return value
        return "{" + key + "}"


def _t_words(key: str, lang: str, words: _EventWords) -> str:
    """:func:`t` with its placeholders from ``words`` (looked up lazily)."""
    text = _catalog(lang).get(key)
    if text is None:
        text = _catalog(FALLBACK_LANG).get(key)
    if text is None:
        return key
    try:
        return text.format_map(words)
    except (ValueError, IndexError, AttributeError, KeyError, TypeError):
        return text  # a malformed template: show it rather than fail


def describe_event(event: Mapping[str, Any] | Any, names: Sequence[str] | None = None,
                   lang: str = DEFAULT_LANG, you: int | None = None) -> str:
    """One event of the history (record form, docs/records.md) as a sentence:
    ``Aino pelasi herttakuutosen.`` / ``Aino played the six of hearts.`` A give or draw whose
    card is hidden from this viewer (no ``card`` key) is described without the card. With
    ``you`` (the reader's own seat) that seat's moves are in the second person ("Pelasit
    herttakuutosen."). Never raises: an unknown or malformed event gets a plain generic
    sentence."""
    lang = norm_lang(lang)
    if you is not None:
        ev = _event_dict(event)
        return _describe_you(ev, names, lang, you, describe_event(ev, names, lang))
    ev = _event_dict(event)
    kind = str(ev.get("type", ""))
    name = player_name(ev.get("seat"), names, lang)
    raw = ev.get("card")
    raw_card: Card | str = raw if isinstance(raw, Card) else str(raw)
    card = _as_card(raw_card) if raw is not None else None
    # {card_ade}, {card_par}, … are named only when the template asks (_EventWords)
    kw = _EventWords(raw_card if card is not None else None, lang, name=name)
    if kind == "ask":
        kw["other"] = player_name(ev.get("from"), names, lang)
    elif kind == "give":
        kw["other"] = player_name(ev.get("to"), names, lang)

    if kind == "play":
        if card is None:
            return _t_words("core.event.play_hidden", lang, kw)
        as_card = ev.get("as")
        if card.is_joker and as_card is not None:
            kw["as_card"] = card_name(as_card if isinstance(as_card, Card) else str(as_card),
                                      lang, "acc")
            text = _t_words("core.event.play_joker", lang, kw)
        else:
            text = _t_words("core.event.play", lang, kw)
        extras = []
        if ev.get("end") in ("low", "high"):
            extras.append(t(f"core.event.end_{ev['end']}", lang))
        if isinstance(ev.get("row"), int) and not isinstance(ev.get("row"), bool):
            extras.append(t("core.event.row", lang, row=ev["row"] + 1))
        if extras:
            text = text.rstrip(".") + " (" + ", ".join(extras) + ")."
        return text
    if kind in ("give", "draw", "swap"):
        key = f"core.event.{kind}" if card is not None else f"core.event.{kind}_hidden"
        return _t_words(key, lang, kw)
    if kind in ("token", "pass", "stop", "ask", "chip"):
        return _t_words(f"core.event.{kind}", lang, kw)
    return t("core.event.other", lang, name=name, type=kind or "?")


# --- moves ----------------------------------------------------------------------------------

def describe_move(move: Move | str, lang: str = DEFAULT_LANG) -> str:
    """A button label for a move: ``Pelaa herttakuutonen``, ``Lopeta vuoro``, ``Ota pantti``;
    ``Play the six of hearts``, ``End turn``, ``Take the token``. A text move is parsed first;
    an unreadable one is returned as it was given."""
    if isinstance(move, str):  # the web server labels the same few moves for every state
        key = (move, lang)
        label = _MOVE_LABELS.get(key)
        if label is None:
            label = _describe_move(move, lang)
            if len(_MOVE_LABELS) < 20000:
                _MOVE_LABELS[key] = label
        return label
    return _describe_move(move, lang)


def _describe_move(move: Move | str, lang: str) -> str:
    lang = norm_lang(lang)
    if isinstance(move, str):
        try:
            move = parse_move(move)
        except MoveError:
            return str(move)
    kind = move.kind
    if kind == "play" and move.card is not None:
        kw: dict[str, Any] = {"card": card_name(move.card, lang, "nom")}
        if move.card.is_joker and move.as_ is not None:
            kw["as_card"] = card_name(move.as_, lang, "acc")
            text = t("core.move.play_joker", lang, **kw)
        else:
            text = t("core.move.play", lang, **kw)
        if move.end in ("low", "high"):
            text += " " + t(f"core.move.end_{move.end}", lang)
        if move.row is not None:
            text += " " + t("core.move.row", lang, row=move.row + 1)
        return text
    if kind in ("give", "swap") and move.card is not None:
        return t(f"core.move.{kind}", lang, card=card_name(move.card, lang, "nom"),
                 card_acc=card_name(move.card, lang, "acc"))
    return t(f"core.move.{kind}", lang)


def move_words(move: Move | str, lang: str = DEFAULT_LANG) -> str:
    """A move as a player says it in a sentence or a table: the card's name for a play
    (``ristikuutonen``, ``six of clubs``; the end or the row after it), the action in words
    otherwise (``ota pantti``, ``lopeta vuoro``, ``take the token``). An unreadable move is
    returned as it was given."""
    lang = norm_lang(lang)
    if isinstance(move, str):
        try:
            move = parse_move(move)
        except MoveError:
            return str(move)
    if move.kind == "play" and move.card is not None and not (move.card.is_joker and move.as_):
        text = card_name(move.card, lang, "nom")
        if move.end in ("low", "high"):
            text += " " + t(f"core.move.end_{move.end}", lang)
        if move.row is not None:
            text += " " + t("core.move.row", lang, row=move.row + 1)
        return text
    text = describe_move(move, lang)
    return text[:1].lower() + text[1:]


# --- numbers --------------------------------------------------------------------------------

def number(x: float, lang: str = DEFAULT_LANG, digits: int = 1) -> str:
    """A number for a reader of ``lang``, with ``digits`` decimals: Finnish and Swedish write a
    decimal comma (``3,3``), English a point (``3.3``) — the language's ``decimal`` in
    ``languages.json``; not-a-number is a dash. The one home of this rule: the analysis, the
    hints, the replay and the puzzles all write numbers through it::

        >>> number(13.46, "fi"), number(13.46, "en"), number(2.0, "sv", 0)
        ('13,5', '13.5', '2')
    """
    import math

    if isinstance(x, float) and math.isnan(x):
        return "–"
    text = f"{x:.{digits}f}"
    return text.replace(".", decimal_sep(lang))


def decimal_sep(lang: str) -> str:
    """The decimal separator of ``lang`` (``,`` or ``.``)."""
    return _DECIMAL[norm_lang(lang)]


# --- short labels ---------------------------------------------------------------------------

def phase_label(phase: str, lang: str = DEFAULT_LANG) -> str:
    """``turn``/``more``/``give``/``over`` as a short label."""
    return t(f"core.phase.{phase}", lang)


def points_label(card_points: int, token_points: int = 0, penalty_points: int = 0) -> str:
    """A deal's points with the token (and hoarding penalty) part shown: ``10 + 21``."""
    parts = [str(card_points)]
    if token_points:
        parts.append(str(token_points))
    if penalty_points:
        parts.append(str(penalty_points))
    return " + ".join(parts)


def token_label(holder: int | None, names: Sequence[str] | None = None,
                lang: str = DEFAULT_LANG) -> str:
    """``Pantti: Aino`` / ``Token: Aino``; ``Pantti: ei kenelläkään`` when nobody holds it."""
    if holder is None:
        return t("core.token.nobody", lang)
    return t("core.token.holder", lang, name=player_name(holder, names, lang))


def chips_label(n: int, lang: str = DEFAULT_LANG) -> str:
    """``3 pelimerkkiä`` / ``3 chips``."""
    return tn("core.chips", n, lang)


def cards_left_label(n: int, lang: str = DEFAULT_LANG) -> str:
    """``5 korttia`` / ``5 cards``."""
    return tn("core.cards", n, lang)


def end_label(end: str, lang: str = DEFAULT_LANG) -> str:
    """Why a deal ended (``Result.end``: out, last, stall, blocked)."""
    return t(f"core.end.{end}", lang)


def result_lines(result: Mapping[str, Any] | Any, names: Sequence[str] | None = None,
                 lang: str = DEFAULT_LANG, you: int | None = None) -> list[str]:
    """A deal's result (``Result`` or its ``to_dict()``) as short lines: who won, then each
    seat's points with the token part (``Olli: 10 + 21 = 31``), chips where used. With
    ``you`` (the reader's own seat) a win of that seat reads "Voitit jaon!"."""
    lang = norm_lang(lang)
    r = _event_dict(result)
    lines: list[str] = []
    winner = r.get("winner")
    if winner is not None and you is not None and winner == you:
        lines.append(t("tui.result.you_won", lang))
    elif winner is not None:
        lines.append(t("core.result.winner", lang, name=player_name(winner, names, lang)))
    loser = r.get("loser")
    if loser is not None:
        losers = [player_name(s, names, lang)
                  for s in (loser if isinstance(loser, list | tuple) else [loser])]
        if len(losers) == 1:
            lines.append(t("core.result.loser", lang, name=losers[0]))
        else:  # "Aino ja Olli hävisivät jaon": the verb agrees
            lines.append(t("core.result.losers", lang, names=", ".join(losers[:-1]),
                           last=losers[-1]))
    if r.get("end") and r.get("end") not in ("out", "last"):
        lines.append(end_label(str(r["end"]), lang))
    cards = list(r.get("card_points") or [])
    tokens = list(r.get("token_points") or [])
    pens = list(r.get("penalty_points") or [])
    totals = list(r.get("points") or [])
    chips = r.get("chips")
    for seat, total in enumerate(totals):
        who = player_name(seat, names, lang)
        if chips is not None and seat < len(chips):
            net = int(chips[seat])  # net chips paid; negative for the winner who collects
            key = "core.result.chips_won" if net < 0 else "core.result.chips_paid"
            lines.append(t(key, lang, name=who, chips=chips_label(abs(net), lang)))
            continue
        c = cards[seat] if seat < len(cards) else total
        tok = tokens[seat] if seat < len(tokens) else 0
        pen = pens[seat] if seat < len(pens) else 0
        label = points_label(c, tok, pen)
        if label != str(total):
            label = f"{label} = {total}"
        lines.append(t("core.result.points_line", lang, name=who, points=label))
    return lines


# the grammar module names other languages' cards from the catalogs (without importing back)
from . import grammar as _grammar  # noqa: E402

_grammar._catalog.t = t
_grammar._catalog.norm_lang = norm_lang
