"""Bots as plugins (issue 59): names resolved to our levels, entry points and
package.module:Class; plugin faults played by the stand-in and counted."""

from __future__ import annotations

import sys
import textwrap

import pytest

from ristiseiska.bots import BasicBot
from ristiseiska.bots.plugins import GuardedBot, PluginError, make_bot, plugin_names, resolve
from ristiseiska.game import Game
from ristiseiska.rules import Rules
from ristiseiska.tournament import TournamentError, parse_bot_spec, run_tournament

PLUGIN_SOURCE = '''
import threading
from ristiseiska.bots.base import Bot

class First(Bot):
    name = "first"
    def decide(self, view):
        return view.legal_moves[0], ("random", {"move": str(view.legal_moves[0])})

class Crash(Bot):
    name = "crash"
    def choose(self, view):
        raise RuntimeError("boom")

NEVER = threading.Event()

class Stuck(Bot):
    name = "stuck"
    def choose(self, view):
        NEVER.wait()  # never answers: the move limit must cut it off

class Illegal:
    def __init__(self, seed=None):
        pass
    def choose(self, view):
        return "not a move"

class NoSeed:
    def choose(self, view):
        return view.legal_moves[-1]

class NoChoose:
    pass

class Picky(Bot):
    name = "picky"
    def __init__(self, seed=None, depth=1):
        super().__init__(seed)
        self.depth = depth
    def choose(self, view):
        return view.legal_moves[0]
'''


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    """A module ``p59bots`` and an installed distribution registering ``p59first`` in the
    ``ristiseiska.bots`` group, both on sys.path (entry points are found there)."""
    (tmp_path / "p59bots.py").write_text(textwrap.dedent(PLUGIN_SOURCE))
    info = tmp_path / "p59bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: p59bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[ristiseiska.bots]\np59first = p59bots:First\np59broken = p59bots_missing:Nope\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("p59bots", None)


def test_our_levels_are_not_wrapped() -> None:
    assert isinstance(make_bot("Basic", seed=1), BasicBot)
    assert resolve("expert").__name__ == "ExpertBot"


def test_entry_point_and_class_path(plugin_path) -> None:
    assert "p59first" in plugin_names()
    bot = make_bot("p59first", seed=3)
    assert isinstance(bot, GuardedBot) and type(bot.inner).__name__ == "First"
    g = Game(Rules(), 4, seed=2)
    assert bot.choose(g.view(g.to_move)) == g.legal_moves()[0]
    assert bot.faults == {}
    assert type(make_bot("p59bots:NoSeed").inner).__name__ == "NoSeed"
    assert make_bot("p59bots:Picky", seed=1, depth=3).inner.depth == 3
    assert parse_bot_spec("p59bots:Picky:depth=2") == ("p59bots:Picky", {"depth": 2})


@pytest.mark.parametrize("name, message", [
    ("wizard", "none of the known bots"),
    ("p59broken", "cannot be loaded"),
    ("p59bots:NoChoose", "no choose"),
    ("p59bots:Missing", "has no Missing"),
    ("nosuchmodule59:X", "cannot import"),
    ("p59bots:1bad", "package.module:Class"),
    ("", "non-empty"),
])
def test_clear_errors(plugin_path, name, message) -> None:
    with pytest.raises(PluginError, match=message):
        make_bot(name, seed=1)


def test_options_a_plugin_does_not_take(plugin_path) -> None:
    with pytest.raises(PluginError, match="does not take these options"):
        make_bot("p59bots:Illegal", seed=1, depth=2)
    with pytest.raises(TournamentError, match="speed"):
        parse_bot_spec("p59bots:First:speed=3")


@pytest.mark.parametrize("cls, kind", [("Crash", "error"), ("Stuck", "timeout"),
                                       ("Illegal", "illegal")])
def test_guard_plays_the_stand_in(plugin_path, cls, kind) -> None:
    bot = make_bot(f"p59bots:{cls}", seed=7, move_limit=0.05)
    g = Game(Rules(), 4, seed=5)
    v = g.view(g.to_move)
    move = bot.choose(v)
    assert move == BasicBot(seed=7).choose(v)  # the documented stand-in's move
    assert bot.faults == {kind: 1} and bot.last_fault == kind


def test_tournament_counts_faults_and_finishes(plugin_path) -> None:
    t = run_tournament(Rules(), ["p59bots:Crash", "p59bots:Stuck", "p59bots:Illegal", "expert"],
                       games=1, seed=3, workers=1, move_limit=0.05)
    stats = t.stats()
    assert len(t.plays) == 1 and t.plays[0].winner is not None
    assert set(stats["p59bots:Crash"]["faults"]) == {"error"}
    assert set(stats["p59bots:Stuck"]["faults"]) == {"timeout"}
    assert set(stats["p59bots:Illegal"]["faults"]) == {"illegal"}
    assert stats["expert"]["faults"] == {}
    # every decision the plugin was asked for was a fault
    for name in ("p59bots:Crash", "p59bots:Stuck", "p59bots:Illegal"):
        assert sum(stats[name]["faults"].values()) == stats[name]["decisions"] > 0
    d = t.to_dict()
    assert d["move_limit"] == 0.05 and d["results"]["p59bots:Crash"]["faults"]["error"] > 0


def test_cli_reports_faults(plugin_path, capsys) -> None:
    from ristiseiska.cli import main

    rc = main(["tournament", "--bots", "p59bots:Crash,p59first,expert", "--games", "1",
               "--workers", "1", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "p59bots:Crash:" in out and "raised an error" in out and "p59first" in out
    assert main(["tournament", "--bots", "wizard,expert", "--games", "1"]) == 2
    assert "none of the known bots" in capsys.readouterr().err
    assert main(["tournament", "--bots", "p59first,expert", "--move-limit", "0"]) == 2


def test_bad_move_limit() -> None:
    with pytest.raises(PluginError, match="move limit"):
        GuardedBot(object(), "x", move_limit=0)
    with pytest.raises(TournamentError, match="move limit"):
        run_tournament(Rules(), ["basic", "random"], 1, move_limit=-1.0, workers=1)



def test_the_terminal_game_takes_plugin_bots(plugin_path) -> None:
    """``ristiseiska play --bots p59first,p59bots:Crash``: the set-up accepts them, the game
    plays them (the crashing one through its stand-in) to the end of a deal."""
    import argparse
    import random

    from ristiseiska.commands.common import CliError
    from ristiseiska.commands.play import add_arguments, settings_from_args
    from ristiseiska.tui.session import Session, Setup, level_id

    p = argparse.ArgumentParser()
    add_arguments(p)
    d = settings_from_args(p.parse_args(["--players", "3", "--bots", "p59first,p59bots:Crash"]))
    assert d["bots"] == ["p59first", "p59bots:Crash"]
    with pytest.raises(CliError, match="unknown bot level"):
        settings_from_args(p.parse_args(["--players", "3", "--bots", "p59first,p59bots:Nope"]))
    assert level_id("policy") is None and level_id("master-classic") is None
    s = Session(Setup(Rules().replace(match_deals=1), players=3,
                      bots=["p59first", "p59bots:Crash"], seed=4), None)
    assert isinstance(s.bot(1), GuardedBot) and isinstance(s.bot(2), GuardedBot)
    rng = random.Random(2)
    while not s.deal_over:
        if s.human_to_move:
            s.apply_text(rng.choice(s.game.legal_moves()).text(False))
        else:
            s.step_bot()
    assert s.bot(2).faults.get("error", 0) > 0 and s.bot(1).faults == {}
