"""The rules in force, explained in words (Finnish or English), and labels for rule editors.

    >>> from ristiseiska.rules import preset
    >>> from ristiseiska.explain import explain_rules, option_label, option_value_label
    >>> "21" in explain_rules(preset("ristiseiska"), "fi")
    True
    >>> option_label("token_value", "en"), option_value_label("failure", "ask", "fi")
    ('Token value', 'kortin pyytäminen')

All texts live in the ``core`` catalogs (``core.explain.*``, ``core.option.*``, ``core.help.*``,
``core.value.*``, ``core.preset.*``) so that the browser can show the same words.
"""

from __future__ import annotations

from typing import Any

from .cards import RANK_EN, RANK_FI, RANK_TEXT, CardError, parse_card
from .i18n import card_name, norm_lang, t, tn
from .rules import CHOICES, OPTION_HELP, PRESETS, Rules, RulesError, preset

# Options shown as numbers of points (the others are plain numbers or choices).
_POINT_OPTIONS = ("token_value", "hoarding_penalty", "joker_value", "match_target")


def _rank(r: int) -> str:
    return RANK_TEXT.get(r, str(r))


def _rank_word(r: int, lang: str, case: str = "nom") -> str:
    if lang == "fi":
        nom, gen = RANK_FI[r]
        return gen if case == "acc" else nom
    if lang == "en":
        return RANK_EN[r]
    from .i18n.grammar import rank_word

    return rank_word(r, lang, case)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def option_label(name: str, lang: str = "fi") -> str:
    """A short label for a rule option (``token_value`` → ``Pantin arvo``)."""
    key = f"core.option.{name}"
    text = t(key, lang)
    return name if text == key else text


def option_help(name: str, lang: str = "fi") -> str:
    """The one-line meaning of a rule option (a translation of ``rules.OPTION_HELP``)."""
    key = f"core.help.{name}"
    text = t(key, lang)
    return OPTION_HELP.get(name, name) if text == key else text


def option_value_label(name: str, value: Any, lang: str = "fi") -> str:
    """A value of a rule option in words: ``failure='ask'`` → ``kortin pyytäminen``,
    ``opening='C7'`` → ``ristiseiska``, ``token_value=21`` → ``21 pistettä``, booleans →
    ``kyllä``/``ei``. Unknown values are shown as they are."""
    lang = norm_lang(lang)
    if isinstance(value, bool):
        return t(f"core.value.bool.{'true' if value else 'false'}", lang)
    if name in CHOICES:
        key = f"core.value.{name}.{value}"
        text = t(key, lang)
        return str(value) if text == key else text
    if name == "opening":
        if value == "any":
            return t("core.value.opening.any", lang)
        try:
            c = parse_card(str(value))
        except CardError:
            return str(value)
        return card_name(c, lang)
    if name == "center" and isinstance(value, int) and 1 <= value <= 13:
        return f"{_rank_word(value, lang)} ({_rank(value)})"
    if isinstance(value, int):
        if name in ("match_deals", "match_target") and value == 0:
            return t("core.value.no_limit", lang)
        if name in _POINT_OPTIONS:
            return tn("core.points", value, lang)
        if name == "stall_turns":
            return tn("core.turns", value, lang)
    return str(value)


def preset_title(name: str, lang: str = "fi") -> str:
    """A preset's display name (``ristiseiska-pyynto`` → ``Ristiseiska pyytämällä``)."""
    key = f"core.preset_title.{name}"
    text = t(key, lang)
    return name if text == key else text


def preset_summary(name: str, lang: str = "fi") -> str:
    """A preset's one-line description in ``lang`` (``rules.PRESETS`` holds it in English)."""
    key = f"core.preset.{name}"
    text = t(key, lang)
    if text == key:
        return PRESETS[name][0] if name in PRESETS else ""
    return text


def _base_of(rules: Rules) -> tuple[str | None, Rules]:
    """The preset the rules start from (``rules.name``, possibly ``preset+house``) and its
    rules; the default game when the name is not a preset."""
    base = (rules.name or "").split("+")[0]
    if base in PRESETS:
        return base, preset(base)
    return None, Rules()


def _seqs(rules: Rules) -> tuple[str, str, str, str]:
    """(low pile, high pile, low closing card, high closing card) as rank texts."""
    c = rules.center
    low = [r for r in range(c - 1, 0, -1)]
    high = [r for r in range(c + 1, 14)]
    if rules.ace == "high":
        low = [r for r in low if r != 1]
        high.append(1)
    elif rules.ace == "first-decides":
        low = [r for r in low if r != 1]
    return (", ".join(_rank(r) for r in low), ", ".join(_rank(r) for r in high),
            _rank(low[-1]) if low else "", _rank(high[-1]) if high else "")


def explain_rules(rules: Rules, lang: str = "fi") -> str:
    """The rules in force as Markdown: the preset they start from, the house-rule changes,
    then every part of the game (players and cards, layout, opening, a turn, failing to play,
    jokers, end of the deal, scoring, the match)."""
    lang = norm_lang(lang)
    r = rules
    out: list[str] = []

    def add(key: str, **kw: Any) -> None:
        out.append(t(key, lang, **kw))

    def para(*keys_kw: tuple[str, dict[str, Any]]) -> None:
        out.append(" ".join(t(k, lang, **kw) for k, kw in keys_kw))

    def head(key: str) -> None:
        out.append("## " + t(key, lang))

    def cap(text: str) -> str:  # a sentence may start with a card name
        return text if lang == "en" else _cap(text)

    base_name, base = _base_of(r)
    if base_name:
        out.append("# " + t("core.explain.title", lang, title=preset_title(base_name, lang)))
    else:
        out.append("# " + t("core.explain.house_title", lang))
    if base_name:
        add("core.explain.preset", preset=base_name, summary=preset_summary(base_name, lang))
    diff = r.differences(base)
    if diff:
        add("core.explain.changes" if base_name else "core.explain.changes_default")
        out.append("\n".join(
            t("core.explain.change_item", lang, option=option_label(k, lang),
              old=option_value_label(k, getattr(base, k), lang),
              new=option_value_label(k, v, lang))
            for k, v in diff.items()))
    elif base_name:
        add("core.explain.no_changes")

    center = _rank(r.center)
    center_gen = _rank_word(r.center, lang, "acc")
    opening_nom = card_name(r.opening, lang) if r.opening != "any" else ""
    opening_acc = card_name(r.opening, lang, "acc") if r.opening != "any" else ""
    low_seq, high_seq, low_end, high_end = _seqs(r)
    below = _rank(r.center - 1)
    above = _rank(r.center + 1)

    # -- players and cards
    head("core.explain.h_players")
    parts: list[tuple[str, dict[str, Any]]] = []
    if r.min_players == r.max_players:
        parts.append(("core.explain.players_exact", {"n": r.min_players}))
    else:
        parts.append(("core.explain.players", {"min": r.min_players, "max": r.max_players}))
    if r.decks == 1:
        parts.append(("core.explain.decks1", {}))
    elif r.distinct_decks:
        parts.append(("core.explain.decks2_distinct", {}))
    else:
        parts.append(("core.explain.decks2", {"center": center}))
    if r.jokers:
        parts.append((f"core.explain.jokers.{'one' if r.jokers == 1 else 'other'}",
                      {"n": r.jokers}))
    if not r.stock:
        parts.append(("core.explain.deal", {}))
    para(*parts)

    # -- layout
    head("core.explain.h_layout")
    if r.layout == "upward":
        add("core.explain.upward")
    else:
        parts = [("core.explain.rows", {"center": center, "center_word": center_gen,
                                        "low": low_seq, "high": high_seq})]
        parts.append((f"core.explain.order_{r.order.replace('-', '_')}",
                      {"center": center, "below": below, "above": above}))
        parts.append((f"core.explain.ace_{r.ace.replace('-', '_')}", {}))
        para(*parts)

    # -- opening
    head("core.explain.h_opening")
    if r.stock and not r.laid_out:  # V13 with nothing laid out: 17 each, a stock of 18
        add("core.explain.opening_stock_dealt")
    if r.laid_out:
        add("core.explain.opening_stock", card=cap(opening_nom), card_acc=opening_acc)
    elif r.layout == "upward":
        add("core.explain.opening_upward")
    elif r.opening == "any":
        add("core.explain.opening_any", center=center)
    else:
        parts = [("core.explain.opening_card", {"card": cap(opening_nom),
                                                "card_acc": opening_acc})]
        if r.decks == 2:
            parts.append(("core.explain.opening_two_decks", {"card": opening_nom}))
        if r.stock:  # dealt, not laid out: it may lie in the stock
            parts.append(("core.explain.opening_stock_missing", {}))
        para(*parts)

    # -- a turn
    head("core.explain.h_turn")
    parts = []
    if r.multi_play:
        parts.append(("core.explain.multi_play", {}))
    else:
        parts.append(("core.explain.one_card", {}))
    parts.append((f"core.explain.hoarding_{r.hoarding.replace('-', '_')}",
                  {"penalty": r.hoarding_penalty}))
    para(*parts)
    if r.extra_move and not r.multi_play:
        if r.layout == "upward":
            add("core.explain.extra_upward")
        elif r.ace == "first-decides":
            add("core.explain.extra_first_ace" + (
                "" if r.first_ace_closing == "base" else "_aces_only"))
        else:
            add("core.explain.extra_move", low_end=low_end, high_end=high_end)
    elif not r.multi_play:
        add("core.explain.no_extra_move")

    # -- cannot play
    head("core.explain.h_failure")
    parts = []
    if r.stock:
        parts.append(("core.explain.stock_draw", {}))
    parts.append((f"core.explain.failure_{r.failure}"
                  + ("_per_miss" if r.fines_per_miss else ""), {}))
    if r.failure == "ask":
        parts.append((f"core.explain.first_round_pass_{str(r.first_round_pass).lower()}", {}))
    para(*parts)

    # -- jokers
    if r.jokers:
        head("core.explain.h_jokers")
        add("core.explain.jokers_rules", opening_acc=opening_acc or t("core.explain.any_card", lang))

    # -- end of the deal
    head("core.explain.h_end")
    parts = [(f"core.explain.end_{r.end.replace('-', '_')}", {})]
    if r.end == "first-out" and (r.extra_move or r.multi_play):
        parts.append(("core.explain.end_mid_turn", {}))
    parts.append(("core.explain.stall", {"n": r.stall_turns}))
    para(*parts)

    # -- scoring
    head("core.explain.h_scoring")
    if r.failure == "chip":
        parts = []
        if r.ante:
            parts.append(("core.explain.ante", {}))
        if r.short_hand_chip:
            parts.append(("core.explain.short_hand_chip", {}))
        parts.append(("core.explain.chips_pot", {}))
        if r.pay_per_card:
            parts.append(("core.explain.pay_per_card", {}))
        parts.append(("core.explain.chips_sheet", {}))
        para(*parts)
        add("core.explain.chips_card_values",
            values=option_value_label("card_values", r.card_values, lang))
    else:
        parts = []
        if r.end == "last-left":
            parts.append((f"core.explain.last_left_{r.last_left_scoring}", {}))
        if r.end == "first-out" or r.last_left_scoring == "cards":
            parts.append(("core.explain.card_points", {}))
            parts.append((f"core.explain.values_{r.card_values}", {}))
            if r.jokers:
                parts.append(("core.explain.joker_value", {"n": r.joker_value}))
        if r.uses_token:
            parts.append(("core.explain.token_value"
                          + ("_per_miss" if r.fines_per_miss else ""), {"n": r.token_value}))
        if r.hoarding == "any-with-penalty":
            parts.append(("core.explain.penalty", {"n": r.hoarding_penalty}))
        parts.append(("core.explain.lower_better", {}))
        para(*parts)

    # -- match
    head("core.explain.h_match")
    parts = []
    deals = tn("core.deals", r.match_deals, lang)
    if r.match_deals and r.match_target:
        parts.append(("core.explain.match_both", {"deals": deals, "target": r.match_target}))
    elif r.match_deals:
        parts.append(("core.explain.match_deals", {"deals": deals}))
    else:
        parts.append(("core.explain.match_target", {"target": r.match_target}))
    if r.end == "last-left" and r.last_left_scoring == "losses":
        parts.append(("core.explain.match_winner_losses", {}))
    elif r.failure == "chip":
        parts.append(("core.explain.match_winner_chips", {}))
    else:
        parts.append(("core.explain.match_winner", {}))
    parts.append((f"core.explain.tie_{r.tie}", {}))
    parts.append(("core.explain.dealer_moves", {}))
    para(*parts)
    return "\n\n".join(out) + "\n"


def markdown_to_html(text: str) -> str:
    """Our Markdown as an HTML fragment for the browser (raw HTML in the text is escaped).
    markdown-it-py comes with rich, a dependency already."""
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


def explain_rules_html(rules: Rules, lang: str = "fi") -> str:
    """:func:`explain_rules` as an HTML fragment (headings, paragraphs, lists)."""
    return markdown_to_html(explain_rules(rules, lang))


def option_rows(rules: Rules, lang: str = "fi") -> list[tuple[str, str, str]]:
    """Every option as ``(name, value in words, one-line meaning)``, for ``--options``."""
    rows = []
    for name, value in rules.to_dict().items():
        rows.append((name, option_value_label(name, value, lang), option_help(name, lang)))
    return rows


__all__ = ["explain_rules", "explain_rules_html", "markdown_to_html", "option_label", "option_help", "option_value_label", "option_rows",
           "preset_title", "preset_summary", "RulesError"]
