"""The puzzles' words, in one place: move names, the explanation of the answer and the verdict
lines. Card and move names come from today's :mod:`ristiseiska.i18n` helpers
(:func:`describe_move`, the analysis's reason sentences); when the grammar helpers of issue 21
(cases of card names) land, only this module needs to change."""

from __future__ import annotations

from typing import Any

from ..i18n import describe_move, t
from ..moves import Move

LANGS = ("fi", "en")


def move_words(move: str, lang: str = "fi") -> str:
    """A move as a button says it: "Pelaa ristikuutonen", "Take the token"."""
    return describe_move(move, lang)


def why(view: Any, legal: list[Move], values: list[Any], seed: int) -> dict[str, str]:
    """One sentence per language on why the answer is best: the analysis's own reason where
    it is clear (going out first for sure, fewer points in hand when someone is about to go
    out), else the expert bot's reason for the answer (the hint machinery)."""
    from ..analysis import Decision, _reason, reason_text
    from ..bots.expert import ExpertBot

    best, second = values[0], values[1]
    reason = _reason(view, legal, best, second, ExpertBot(seed=seed))
    d = Decision(0, view.seat, second.move, best.move, second.points - best.points, second.se,
                 "mistake", list(values), reason, len(view.hand))
    out = {}
    for lang in LANGS:
        text = reason_text(d, lang).strip()
        if not text:
            text = t("puzzles.why_generic", lang, move=move_words(best.move, lang))
        out[lang] = text
    return out


def number(x: float, lang: str = "fi") -> str:
    """A number of points with one decimal, as the language writes it (7,5 / 7.5)."""
    text = f"{x:.1f}"
    return text.replace(".", ",") if lang == "fi" else text


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
