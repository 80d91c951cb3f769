"""The puzzles' words, in one place: move names, the explanation of the answer and the verdict
lines. Card and move names come from today's :mod:`ristiseiska.i18n` helpers
(:func:`describe_move`, the analysis's reason sentences); when the grammar helpers of issue 21
(cases of card names) land, only this module needs to change."""

from __future__ import annotations

from typing import Any

from ..i18n import LANGS, describe_move, t
from ..i18n import number as _number
from ..moves import Move


def move_words(move: str, lang: str = "fi") -> str:
    """A move as a button says it: "Pelaa ristikuutonen", "Take the token"."""
    return describe_move(move, lang)


def why(view: Any, legal: list[Move], values: list[Any], seed: int) -> tuple[dict[str, str], dict[str, Any]]:
    """Why the answer is best: one sentence per language and the reason it was built from
    (``{"key", "params"}``, JSON-ready, kept in the puzzle so the sentence can be written again
    with better words later). The analysis's own reason where it is clear (going out first for
    sure, fewer points in hand when someone is about to go out), else the expert bot's reason
    for the answer (the hint machinery)."""
    from ..analysis import best_reason
    from ..bots.expert import ExpertBot

    best, second = values[0], values[1]
    key, params = best_reason(view, legal, best, second, ExpertBot(seed=seed))
    reason = {"key": key, "params": encode(params)}
    return {lang: why_text(reason, best.move, lang) for lang in LANGS}, reason


def encode(value: Any) -> Any:
    """Reason parameters as JSON: a card as ``{"$card": "C8"}``, a nested reason as
    ``{"$reason": [key, params]}``."""
    from ..cards import Card

    if isinstance(value, Card):
        return {"$card": str(value)}
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) \
            and isinstance(value[1], dict):
        return {"$reason": [value[0], encode(value[1])]}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`."""
    from ..cards import parse_card

    if isinstance(value, dict):
        if set(value) == {"$card"}:
            return parse_card(str(value["$card"]))
        if set(value) == {"$reason"} and isinstance(value["$reason"], list) and len(value["$reason"]) == 2:
            return (str(value["$reason"][0]), decode(value["$reason"][1]))
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def _is_card_play(move: str) -> bool:
    from ..cards import CardError, parse_card

    try:
        parse_card(move.split("@")[0])
    except (CardError, ValueError):
        return False
    return True


def why_text(reason: Any, answer: str, lang: str = "fi") -> str:
    """The sentence of a stored reason (see :func:`why`) in ``lang``; a reason that cannot be
    read gives a plain sentence naming the answer."""
    from ..bots.reasons import render
    from ..i18n import move_words as _move_words

    generic = t("puzzles.why_generic", lang, move=move_words(answer, lang))
    if not isinstance(reason, dict) or not isinstance(reason.get("key"), str):
        return generic
    key = reason["key"]
    try:
        params = decode(reason.get("params") or {})
    except Exception:  # noqa: BLE001 - a damaged reason: fall back to the plain sentence
        return generic
    if not isinstance(params, dict):
        return generic
    if key in ("analysis.reason.out", "analysis.reason.out_likely"):
        if _is_card_play(answer):
            return t(key, lang, best=_move_words(answer, lang))
        action = "puzzles.why.out_action" + ("" if key == "analysis.reason.out" else "_likely")
        return t(action, lang, move=move_words(answer, lang))
    if key == "analysis.reason.dump" and isinstance(params.get("diff"), int):
        diff = int(params["diff"])
        form = "one" if diff == 1 else "other"
        return t(f"puzzles.why.dump.{form}", lang, card=_move_words(answer, lang), n=diff)
    if key.startswith("analysis."):
        return t(key, lang, **{k: _move_words(v, lang) if k in ("best", "move") else v
                                for k, v in params.items()})
    try:
        text = render(key, params, lang)
    except Exception:  # noqa: BLE001
        return generic
    return text.strip() or generic


def number(x: float, lang: str = "fi") -> str:
    """A number of points with one decimal, as the language writes it (7,5 / 7.5)."""
    return _number(x, lang)


def verdict_text(correct: bool, chosen: str, answer: str, loss: float, lang: str = "fi") -> str:
    """The verdict after a choice, in a sentence."""
    if correct:
        return t("puzzles.verdict.right", lang, move=move_words(answer, lang))
    return t("puzzles.verdict.wrong", lang, move=move_words(chosen, lang),
             answer=move_words(answer, lang), loss=number(loss, lang))


def cost_text(loss: float, lang: str = "fi") -> str:
    """An alternative's cost: "−5.2 pistettä" / "costs 5.2 points"."""
    return t("puzzles.cost", lang, loss=number(loss, lang))


def grade_text(grade: str, lang: str = "fi") -> str:
    return t(f"puzzles.grade.{grade}", lang)
