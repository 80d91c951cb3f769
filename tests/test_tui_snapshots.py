"""Snapshot tests of the terminal screens (pytest-textual-snapshot). After an intended change
of the look, look at the new pictures and accept them with ``pytest --snapshot-update``.

The pictures avoid anything a bot decides: the game is shown at the person's first decision
(seed 3: the person holds the seven of clubs and opens), the record is played by a fixed rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.game import Game
from ristiseiska.record import record_from_game
from ristiseiska.rules import preset
from ristiseiska.tui.app import PlayApp, default_settings
from ristiseiska.tui.replay import ReplayApp

pytest.importorskip("pytest_textual_snapshot")
SIZE = (120, 40)


def game_app(tmp_path: Path, seed: int = 3, **over: Any) -> PlayApp:
    settings: dict[str, Any] = {"bots": ["expert", "basic", "master"], **over}
    d = default_settings(seed=seed, pace=0.0, name="Aino", **settings)
    return PlayApp(d, data_dir_path=tmp_path, quick=True, save=False)


def test_game_screen_fi(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(game_app(tmp_path), terminal_size=SIZE)


def test_game_screen_en_after_a_refused_card(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(game_app(tmp_path, lang="en"), press=["right", "enter"], terminal_size=SIZE)


def test_two_decks_draw_eight_rows(snap_compare: Any, tmp_path: Path) -> None:
    # seed 6: the person holds a seven of clubs and opens
    app = game_app(tmp_path, seed=6, rules=preset("kaksi-pakkaa"), preset_value="kaksi-pakkaa",
                   players=3, bots=["random", "random"])
    assert snap_compare(app, terminal_size=SIZE)


def test_replay_screen(snap_compare: Any) -> None:
    g = Game(preset("ristiseiska"), 4, seed=8, names=["Aino", "Olli", "Sara", "Ville"])
    while not g.is_over():
        g.push(g.legal_moves()[-1])
    rec = json.loads(json.dumps(record_from_game(g)))
    assert snap_compare(ReplayApp(rec, "fi"), press=["right"] * 30, terminal_size=SIZE)


# --- an 80x24 terminal (issue 11) ------------------------------------------------------------------
SMALL = (80, 24)


def test_setup_form_80x24(snap_compare: Any, tmp_path: Path) -> None:
    d = default_settings(seed=3, pace=0.0, name="Aino")
    assert snap_compare(PlayApp(d, data_dir_path=tmp_path, save=False), terminal_size=SMALL)


def test_two_decks_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = game_app(tmp_path, seed=6, rules=preset("kaksi-pakkaa"), preset_value="kaksi-pakkaa",
                   players=3, bots=["random", "random"])
    assert snap_compare(app, terminal_size=SMALL)


async def _to_deal_end(pilot: Any) -> None:
    from ristiseiska.tui.app import DealOver

    for _ in range(400):
        if isinstance(pilot.app.screen, DealOver):
            return
        await pilot.press("enter")
        await pilot.pause()


def test_deal_over_below_the_final_table_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = game_app(tmp_path, bots=["random"] * 3)
    assert snap_compare(app, run_before=_to_deal_end, terminal_size=SMALL)


def test_deal_over_en(snap_compare: Any, tmp_path: Path) -> None:
    app = game_app(tmp_path, bots=["random"] * 3, lang="en")
    assert snap_compare(app, run_before=_to_deal_end, terminal_size=SIZE)


def test_asked_for_a_card_80x24(snap_compare: Any, tmp_path: Path) -> None:
    from ristiseiska.tui.session import Session, Setup

    rules = preset("ristiseiska-pyynto").replace(first_round_pass=False)
    suits = {s: [f"{s}{r}" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]] for s in "CDHS"}
    mine = ["C7", "C6", "D7", "H7", "S7"] + [c for c in suits["S"] if c != "S7"]
    rest = [c for c in suits["C"] + suits["D"] + suits["H"] if c not in mine]
    s = Session(Setup(rules, players=3, bots=["random"] * 2, seed=1, pace=0.0, name="Aino"))
    s.game = Game(rules, 3, hands=[mine, rest[:18], rest[18:]], names=s.names)
    app = PlayApp(session=s, data_dir_path=tmp_path, save=False)
    assert snap_compare(app, press=[*"c7", "enter"], terminal_size=SMALL)


def test_game_in_swedish_after_a_move_80x24(snap_compare: Any, tmp_path: Path) -> None:
    # issue 61: `play --lang sv` in a small terminal; the person opens with the seven of clubs
    # (seed 3) and the seeded random bots answer
    app = game_app(tmp_path, bots=["random"] * 3, lang="sv")
    assert snap_compare(app, press=[*"c7", "enter"], terminal_size=SMALL)


def test_deal_over_in_swedish_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = game_app(tmp_path, bots=["random"] * 3, lang="sv")
    assert snap_compare(app, run_before=_to_deal_end, terminal_size=SMALL)


def test_setup_form_in_swedish_80x24(snap_compare: Any, tmp_path: Path) -> None:
    d = default_settings(seed=3, pace=0.0, name="Astrid", lang="sv")
    assert snap_compare(PlayApp(d, data_dir_path=tmp_path, save=False), terminal_size=SMALL)
