"""What a trainer shows, shared by the browser's API and the terminal trainer.

:func:`position` is the puzzle as its player saw it (fair information: only that seat's view,
never the answer); :func:`verdict` is the answer to a choice (the verdict, the explanation and
every alternative's cost). Every word comes from :mod:`.text` and :mod:`ristiseiska.i18n`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..i18n import card_name, describe_event, norm_lang, t
from . import PuzzleError, position_of
from .text import cost_text, grade_text, move_words, verdict_text, why_text

HISTORY_SHOWN = 400  # every event of a deal fits


def names_for(players: int, seat: int, lang: str) -> list[str]:
    """The players as the trainer calls them: "Pelaaja 1 (sinä)" for the puzzle's seat, "Pelaaja N" else."""
    return [t("puzzles.you", lang, n=s + 1) if s == seat else t("core.player", lang, n=s + 1)
            for s in range(players)]


def summary(p: Mapping[str, Any]) -> dict[str, Any]:
    """A line of the puzzle list: nothing about the answer."""
    d = p["difficulty"]
    return {"id": p["id"], "preset": p["preset"], "players": len(p["record"]["players"]),
            "grade": d["grade"], "rating": d["rating"]}


def position(p: Mapping[str, Any], lang: str = "fi") -> dict[str, Any]:
    """The puzzle's position from its seat's view, in ``lang``: the hand, the table, every
    player's card count, the token, the history in words and the legal moves with labels.
    Holds no answer, no alternative's value, no explanation and no hidden card."""
    lang = norm_lang(lang)
    game = position_of(p)
    seat = int(p["seat"])
    view = game.view(seat)
    names = names_for(view.players, seat, lang)
    vd = view.to_dict()
    mark = view.rules.distinct_decks
    # the seat's own moves in the second person ("Pelasit ruutunelosen."), as in the games
    # (plain names there: the seat's "(sinä)" would read as a row or an end in brackets)
    plain = [t("core.player", lang, n=s + 1) for s in range(view.players)]
    history = [describe_event(ev, plain, lang, seat) for ev in view.history][-HISTORY_SHOWN:]
    d = p["difficulty"]
    from ..rules import PRESETS

    preset = str(p["preset"])
    desc = t(f"core.preset.{preset}", lang) if preset in PRESETS else ""
    return {
        "id": p["id"], "preset": preset, "preset_text": desc,
        "grade": d["grade"], "grade_text": grade_text(d["grade"], lang), "rating": d["rating"],
        "seat": seat, "players": view.players, "names": names,
        "hand": vd["hand"], "hand_names": [card_name(c, lang) for c in vd["hand"]],
        "hand_sizes": vd["hand_sizes"], "rows": vd["rows"], "token_holder": vd["token_holder"],
        "stock_size": vd["stock_size"], "pot": vd["pot"], "chips_paid": vd["chips_paid"],
        "phase": vd["phase"], "dealer": vd["dealer"], "out_order": vd["out_order"],
        "history": history,
        "moves": [{"move": m.text(mark), "label": move_words(m.text(mark), lang)}
                  for m in view.legal_moves],
        "task": _task(view, names, lang),
    }


def _task(view: Any, names: list[str], lang: str) -> str:
    """What the seat is asked: to move, or which card to give the player who asked for one."""
    if view.phase == "give":
        for ev in reversed(view.history):
            if ev.get("type") == "ask" and ev.get("from") == view.seat:
                return t("puzzles.task_give", lang, name=names[int(ev["seat"])])
    return t("puzzles.task", lang)


def why_for(p: Mapping[str, Any], lang: str) -> str:
    """The explanation in ``lang``: written now from the puzzle's stored reason (so better
    words reach old puzzles), else the sentence stored with it."""
    if isinstance(p.get("reason"), dict):
        return why_text(p["reason"], str(p["answer"]), lang)
    why = p["why"]
    return str(why.get(lang) or why.get("fi") or "")


def verdict(p: Mapping[str, Any], move: Any, lang: str = "fi") -> dict[str, Any]:
    """The answer to choosing ``move``: right or not, the points it loses, the explanation of
    the best move and every move's cost (best first). Raises :class:`PuzzleError` when
    ``move`` is not one of the puzzle's legal moves."""
    lang = norm_lang(lang)
    answer = str(p["answer"])
    losses = {answer: 0.0}
    for a in p["alternatives"]:
        losses[str(a["move"])] = float(a["loss"])
    if not isinstance(move, str) or move not in losses:
        raise PuzzleError(f"{move!r} is not one of this position's moves "
                          f"({', '.join(losses)})")
    loss = losses[move]
    correct = move == answer
    return {
        "id": p["id"], "move": move, "correct": correct, "loss": round(loss, 2),
        "answer": answer, "answer_label": move_words(answer, lang),
        "verdict": verdict_text(correct, move, answer, loss, lang),
        "why": why_for(p, lang),
        "moves": [{"move": m, "label": move_words(m, lang), "loss": round(v, 2),
                   "cost": "" if m == answer else cost_text(v, lang), "best": m == answer,
                   "chosen": m == move}
                  for m, v in sorted(losses.items(), key=lambda kv: kv[1])],
        "rating": p["difficulty"]["rating"],
    }




START_SCORE = 1000
SCORE_K = 32  # how far one puzzle moves the score (the browser's puzzles.js uses the same)


def update_score(score: int, puzzle_rating: int, correct: bool) -> int:
    """Elo against the puzzle's rating: the expected result, then a step of SCORE_K towards
    the real one (1 for the right answer, 0 otherwise)."""
    expected = 1 / (1 + 10 ** ((puzzle_rating - score) / 400))
    return int(round(score + SCORE_K * ((1 if correct else 0) - expected)))


__all__ = ["position", "verdict", "summary", "names_for", "update_score", "PuzzleError"]
