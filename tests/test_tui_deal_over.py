"""The end-of-deal window's points (issue 62): the token part in brackets only where the
rules have a token (jokerit has none: "1 piste", not "1 piste (0)")."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from ristiseiska.rules import preset
from ristiseiska.tui.game_screen import _result_parts, render_hands_left
from ristiseiska.tui.session import Session, Setup


def _played(name: str, seed: int, lang: str) -> Session:
    s = Session(Setup(preset(name), players=4, bots=["random"] * 3, seed=seed, lang=lang), None)
    rng = random.Random(seed)
    while not s.deal_over:
        if s.human_to_move:
            s.apply(rng.choice(s.game.legal_moves()))
        else:
            s.step_bot()
    return s


def _text(s: Session) -> str:
    out = io.StringIO()
    Console(width=80, file=out).print(render_hands_left(s, _result_parts(s)[1]))
    return out.getvalue()


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.parametrize("seed", [2, 5, 9])
def test_jokerit_shows_no_token_part(lang: str, seed: int) -> None:
    s = _played("jokerit", seed, lang)
    assert not s.rules.uses_token
    text = _text(s)
    assert "(" not in text, text
    assert ("piste" if lang == "fi" else "point") in text


def test_a_token_game_keeps_its_token_part() -> None:
    for seed in range(1, 40):
        s = _played("ristiseiska", seed, "fi")
        result = s.results[-1]
        if any(result.token_points or []):
            holder = next(i for i, p in enumerate(result.token_points) if p)
            assert "(" in _text(s) and str(result.token_points[holder]) in _text(s)
            return
    pytest.fail("no deal with the token held")
