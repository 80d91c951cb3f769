"""The day's deal: the same cards, the same seat and the same bots for everyone.

For a day and a rule set the seed is ``HMAC-SHA256(secret, "YYYY-MM-DD/preset")`` cut to 63
bits: nobody without the secret can compute a coming day's cards, and once the day is over the
seed can be published and checked. The deal is the first deal of a one-deal
:class:`~ristiseiska.match.Match` with that seed (the shuffle seed is
``deal_seed(seed, 0)``), dealt by seat 0 to four players; the player always sits at seat 0
(:data:`SEAT`), the other three seats are ``expert`` bots each seeded from the day's seed and
its seat (:func:`bot_seed`, the formula the terminal game uses for a match's first deal), so
the same moves meet the same answers.

    >>> d = daily_deal(b"s" * 32, date(2026, 12, 7), "sjuan")
    >>> d.rules.name, d.players, d.seed == daily_deal(b"s" * 32, date(2026, 12, 7), "sjuan").seed
    ('sjuan', 4, True)
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..bots import get_bot
from ..fair import commitment
from ..game import Game, IllegalMoveError
from ..match import Match, deal_seed
from ..moves import Move, MoveError
from ..rules import Rules, RulesError, preset
from .day import DailyError

# The rule sets offered as a daily deal, the default first.
OFFERED: tuple[str, ...] = ("ristiseiska", "sjuan", "ristiseiska-pyynto")
DEFAULT_PRESET = OFFERED[0]
PLAYERS = 4
SEAT = 0  # the player's seat, every day
DEALER = 0
BOT_LEVEL = "expert"
MIN_SECRET = 16  # bytes

Chooser = Callable[[Any], Move]  # a seat's view → its move


def _mac(secret: bytes, text: str) -> bytes:
    if not isinstance(secret, bytes | bytearray) or len(secret) < MIN_SECRET:
        raise DailyError(f"the secret must be at least {MIN_SECRET} bytes")
    return hmac.new(bytes(secret), text.encode(), hashlib.sha256).digest()


def check_preset(name: str) -> str:
    if name not in OFFERED:
        raise DailyError(f"no daily deal for rule set {name!r}; offered: {', '.join(OFFERED)}")
    return name


def day_seed(secret: bytes, day: date, preset_name: str) -> int:
    """The day's seed for ``preset_name`` (a whole number below 2^63)."""
    check_preset(preset_name)
    return int.from_bytes(_mac(secret, f"{day.isoformat()}/{preset_name}")[:8], "big") >> 1


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` on the deal of day seed ``seed`` (the terminal game
    seeds the bots of a match's first deal so: ``tui.session.Session``)."""
    return random.Random(f"{seed}:0:{seat}").randrange(2**31)


@dataclass(frozen=True)
class DailyDeal:
    """One day's deal under one rule set."""

    day: date
    preset: str
    seed: int
    salt: str  # opens the commitment together with the seed (fair.py)

    @property
    def rules(self) -> Rules:
        try:
            # one deal; a shared lowest score must not call for a further deal
            return preset(self.preset).replace(match_deals=1, match_target=0, tie="draw")
        except RulesError as e:  # pragma: no cover - OFFERED holds known presets
            raise DailyError(str(e)) from None

    @property
    def players(self) -> int:
        return PLAYERS

    @property
    def shuffle_seed(self) -> int:
        """The seed the cards are shuffled with (what a record's ``seed`` holds)."""
        return deal_seed(self.seed, 0)

    @property
    def commitment(self) -> str:
        """A hash that may be shown while the day lasts; the seed and salt open it after."""
        return commitment(self.seed, self.salt)

    def match(self, names: Sequence[str] | None = None) -> Match:
        return Match(self.rules, PLAYERS, seed=self.seed, names=names, dealer=DEALER)

    def new_game(self, names: Sequence[str] | None = None) -> Game:
        return self.match(names).new_deal()

    def bots(self) -> dict[int, Any]:
        """The three bots, by seat."""
        return {seat: get_bot(BOT_LEVEL, seed=bot_seed(self.seed, seat))
                for seat in range(PLAYERS) if seat != SEAT}

    def record_extra(self) -> dict[str, Any]:
        """Keys a record of this deal adds: its number in the one-deal match, the match seed
        with the salt and commitment (so ``ristiseiska replay --check --verify-seed`` checks the
        hands against the published seed), the player's seat and the day."""
        return {"deal": 1, "match_seed": self.seed, "match_seed_salt": self.salt,
                "match_seed_commitment": self.commitment, "you": SEAT,
                "daily": f"{self.day.isoformat()}/{self.preset}"}


def daily_deal(secret: bytes, day: date, preset_name: str = DEFAULT_PRESET) -> DailyDeal:
    """The deal of ``day`` under ``preset_name``."""
    seed = day_seed(secret, day, preset_name)
    salt = _mac(secret, f"{day.isoformat()}/{preset_name}/salt").hex()[:32]
    return DailyDeal(day, preset_name, seed, salt)


def play(deal: DailyDeal, chooser: Chooser, names: Sequence[str] | None = None) -> Game:
    """Play the deal to its end: ``chooser`` gets the player's view and returns a move (a move
    that is not legal raises :class:`DailyError`, naming it); the bots answer at the other
    seats."""
    return _play(deal, lambda game, view: chooser(view), names)


def play_moves(deal: DailyDeal, moves: Sequence[Move | str],
               names: Sequence[str] | None = None) -> Game:
    """Play the deal with the player's moves given in order (as moves or their text, ``h6``,
    ``token``); they must be exactly the player's moves of one whole deal."""
    left = list(moves)

    def next_move(game: Game, view: Any) -> Move:
        if not left:
            raise DailyError(f"the given moves ran out before the deal ended (after {len(moves)})")
        m = left.pop(0)
        if isinstance(m, Move):
            return m
        try:
            return game.parse_move(m)
        except (MoveError, IllegalMoveError, ValueError) as e:
            raise DailyError(f"move {len(moves) - len(left)} ({str(m)[:40]!r}): {e}") from None

    game = _play(deal, next_move, names)
    if left:
        raise DailyError(f"the deal ended with {len(left)} of the given moves left over")
    return game


def _play(deal: DailyDeal, chooser: Callable[[Game, Any], Move],
          names: Sequence[str] | None) -> Game:
    game = deal.new_game(names)
    bots = deal.bots()
    while not game.is_over():
        seat = game.to_move
        view = game.view(seat)
        move = chooser(game, view) if seat == SEAT else bots[seat].choose(view)
        try:
            game.push(move)
        except IllegalMoveError as e:
            raise DailyError(f"move {len(game.moves) + 1} ({move}) is not legal: {e}") from None
    return game


def seats_of(deal: DailyDeal, moves: Sequence[Move]) -> list[int]:
    """Whose move each of ``moves`` (a play of ``deal`` from its start) was."""
    game = deal.new_game()
    seats = []
    for m in moves:
        seats.append(game.to_move)
        game.push(m)
    return seats
