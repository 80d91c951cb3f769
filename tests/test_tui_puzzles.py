"""The terminal puzzle trainer at 80×24 (Textual Pilot): the position, a choice by digit or
by Enter, the verdict with every move's cost, the streak and score, the next puzzle, English."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import OptionList, Static

from ristiseiska.puzzles import shipped
from ristiseiska.tui.puzzles import PuzzleApp

SIZE = (80, 24)
pytestmark = pytest.mark.asyncio


def text(app: Any, wid: str) -> str:
    return str(app.query_one(wid, Static).render())


def first(app: PuzzleApp) -> dict[str, Any]:
    return app.items[app.k]


async def test_right_answer_by_digit_then_next() -> None:
    app = PuzzleApp(shipped(), lang="fi", seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        p = first(app)
        assert app.pos is not None
        assert "Kätesi" in text(app, "#hand") and "(sinä): " in text(app, "#board")
        assert p["preset"] in text(app, "#head") and "1/" in text(app, "#head")
        assert text(app, "#verdict") == ""  # nothing about the answer before the choice
        k = 1 + [m["move"] for m in app.pos["moves"]].index(p["answer"])
        await pilot.press(str(k)) if k <= 9 else app.choose(p["answer"])
        await pilot.pause()
        v = text(app, "#verdict")
        assert v.startswith("Oikein! Paras siirto") and "!." not in v  # no doubled stop
        assert p["why"]["fi"].split(":")[0] in v
        # every card count says what it counts: "Pelaaja 2: 5 korttia", not "Pelaaja 2 5"
        board = text(app, "#board")
        for s in range(len(app.pos["names"])):
            n = app.pos["hand_sizes"][s]
            assert f"Pelaaja {s + 1}" in board and (f": {n} kortti" in board), board
        assert "paras" in v and v.count("pistettä huonompi") == len(p["alternatives"])
        assert app.streak == 1 and app.score >= 1000
        assert "putki 1" in text(app, "#stats")
        assert not app.query_one("#moves", OptionList).display
        await pilot.press("n")
        await pilot.pause()
        assert app.k == 1 and text(app, "#verdict") == "" and "2/" in text(app, "#head")
        assert app.query_one("#moves", OptionList).display


async def test_wrong_answer_by_enter_in_english_resets_the_streak() -> None:
    app = PuzzleApp(shipped(), lang="en", seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.streak = 3
        p = first(app)
        assert app.pos is not None
        moves = [m["move"] for m in app.pos["moves"]]
        wrong = next(k for k, m in enumerate(moves) if m != p["answer"])
        for _ in range(wrong):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        v = text(app, "#verdict")
        assert v.startswith("Not quite. Your choice costs") and "best" in v
        from ristiseiska.puzzles.present import update_score

        assert app.streak == 0 and app.tried == 1
        assert app.score == update_score(1000, p["difficulty"]["rating"], False) <= 1000
        assert "Your hand" in text(app, "#hand")
        await pilot.press("3")  # a choice is made once
        assert app.tried == 1
        await pilot.press("h")
        await pilot.pause()
        assert "The deal so far" in text(app, "#board")
        await pilot.press("q")


async def test_it_fits_80_by_24() -> None:
    app = PuzzleApp(shipped(), lang="fi", seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = app.query_one("#keys", Static)
        assert keys.region.y == 23 and "q: lopeta" in text(app, "#keys")
        assert "Enter" in text(app, "#keys")
        head = app.query_one("#head", Static)
        assert head.region.height == 1 and len(text(app, "#head")) <= 80


async def test_the_history_speaks_to_the_seat_in_the_second_person() -> None:
    from ristiseiska.puzzles.present import position

    p = next(p for p in shipped() if p["id"] == "wikipedia-21-83-55")
    fi = position(p, "fi")["history"]
    en = position(p, "en")["history"]
    me = position(p, "fi")["names"][p["seat"]]
    assert not any(line.startswith(me) for line in fi), fi  # not "Pelaaja 3 (sinä) pelasi"
    assert any(line.startswith("Pelasit ") for line in fi), fi
    assert any(line.startswith("You played ") for line in en), en
    assert not any("(sinä)" in line or "(you)" in line for line in fi + en)
    assert all(line.count("pelasi") + line.count("Pelasit") <= 1 for line in fi), fi


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_card_counts_break_between_players_at_80_columns(lang: str) -> None:
    app = PuzzleApp(shipped(), lang=lang, seed=1)  # five players: the counts need two lines
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one("#board", Static)
        width = board.content_region.width
        lines = str(board.render()).splitlines()
        counts = [x for x in lines if ("korttia" in x or "cards" in x)
                  and not x.startswith(("Viimeksi", "Last"))]
        assert len(app.pos["names"]) == 5 and len(counts) >= 2
        assert all(len(x) <= width for x in counts), (width, counts)
        assert all(x.startswith(("Pelaaja", "Player")) for x in counts), counts
