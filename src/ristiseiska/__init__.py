"""ristiseiska — the Finnish card game Ristiseiska and its family, with every house rule."""

from .cards import Card, CardError, parse_card, parse_cards
from .dealing import deal
from .game import Event, Game, IllegalMoveError, SetupError
from .match import Match
from .moves import Move, MoveError, parse_move
from .record import check_record, dumps_record, read_records, record_from_game, replay_record
from .rules import Rules, RulesError, load_rules_toml, preset, preset_names
from .scoring import Result

__version__ = "0.1.0"

__all__ = [
    "Card", "CardError", "parse_card", "parse_cards", "Event", "Game", "IllegalMoveError",
    "SetupError", "deal", "Move", "MoveError", "parse_move", "Rules", "RulesError",
    "load_rules_toml", "preset", "preset_names", "Result", "__version__", "Match",
    "check_record", "dumps_record", "read_records", "record_from_game", "replay_record",
]
