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
