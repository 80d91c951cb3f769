"""Checking a record of the daily deal that a client played on its own (the installed app
offline, the terminal): the server counts it only if it replays it itself to the same end —
the day's deal, the player's seat, legal moves, the bots' real answers and the score.

Pure: the caller passes the deal and the record. A record that fails raises :class:`Forged`
with a ``code`` (``bad-record``, ``wrong-deal``, ``wrong-seat``, ``illegal-move``,
``bot-mismatch``, ``unfinished``, ``score-mismatch``) and a sentence naming the problem.
"""

from __future__ import annotations

from typing import Any

from ..cards import CardError, parse_card
from ..game import Game, IllegalMoveError
from ..record import RecordError, check_record, move_of, record_from_game
from .day import DailyError
from .deal import SEAT, DailyDeal

MAX_EVENTS = 2000


class Forged(DailyError):
    """A record the server does not count."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _same_event(ev: dict[str, Any], done: dict[str, Any], distinct: bool) -> bool:
    if set(ev) != set(done):
        return False
    for key, want in done.items():
        got = ev[key]
        if key == "card" and isinstance(got, str) and isinstance(want, str):
            try:  # 'h6' and 'H6' are the same card
                if parse_card(got).notation(distinct) != want:
                    return False
            except CardError:
                return False
        elif got != want or type(got) is not type(want):
            return False
    return True


def verify_record(deal: DailyDeal, rec: Any) -> Game:
    """The finished game ``rec`` records, replayed by the server against the day's bots."""
    if not isinstance(rec, dict):
        raise Forged("bad-record", "a record is a JSON object (one line of a .jsonl file)")
    tag = f"{deal.day.isoformat()}/{deal.preset}"
    if rec.get("daily") != tag:
        raise Forged("wrong-deal", f"this record is not of the daily deal {tag} "
                     f"(it says {str(rec.get('daily'))[:40]!r})")
    game = deal.new_game()
    own = record_from_game(game)
    if rec.get("seed") != deal.shuffle_seed or rec.get("rules") != own["rules"] \
            or rec.get("hands") != own["hands"] or rec.get("dealer") != own["dealer"]:
        raise Forged("wrong-deal", f"the record's cards or rules are not those of the daily "
                     f"deal {tag}")
    you = rec.get("you", SEAT)
    if you != SEAT:
        shown = you + 1 if isinstance(you, int) and not isinstance(you, bool) else repr(you)[:20]
        raise Forged("wrong-seat", f"the daily deal is played at seat {SEAT + 1}, not at seat "
                     f"{shown}")
    events = rec.get("events")
    if not isinstance(events, list) or len(events) > MAX_EVENTS:
        raise Forged("bad-record", "the record's events must be a list of moves")
    bots = deal.bots()
    distinct = game.rules.distinct_decks
    for i, ev in enumerate(events):
        where = f"event {i}"
        if not isinstance(ev, dict):
            raise Forged("bad-record", f"{where} must be an object")
        if game.is_over():
            raise Forged("bad-record", f"{where} comes after the end of the deal")
        seat = game.to_move
        if ev.get("seat") != seat:
            code = "wrong-seat" if seat == SEAT or ev.get("seat") == SEAT else "bad-record"
            raise Forged(code, f"{where}: it is seat {seat}'s turn (from 0), not seat "
                         f"{str(ev.get('seat'))[:10]}'s")
        if seat == SEAT:
            try:
                move = move_of(ev, where)
            except (RecordError, KeyError) as e:
                raise Forged("bad-record", f"{where}: {e}") from None
            try:
                game.push(move)
            except IllegalMoveError as e:
                raise Forged("illegal-move", f"{where} ({move}) is not legal: {e}") from None
            except (ValueError, TypeError, LookupError) as e:
                raise Forged("illegal-move", f"{where} ({move}) is not a move: {e}") from None
            if not _same_event(ev, game.events[-1].to_dict(distinct), distinct):
                raise Forged("bad-record", f"{where} does not record what the move did")
        else:
            answer = bots[seat].choose(game.view(seat))
            game.push(answer)
            if not _same_event(ev, game.events[-1].to_dict(distinct), distinct):
                raise Forged("bot-mismatch", f"{where}: the bot at seat {seat + 1} answers "
                             f"{answer} here, not what the record says")
    if not game.is_over() or game.result is None:
        raise Forged("unfinished", "the deal is not over at the record's end: only a finished "
                     "deal counts")
    want = game.result.to_dict()
    got = rec.get("result")
    if got != want:
        said = got.get("points") if isinstance(got, dict) else got
        raise Forged("score-mismatch", f"the record's result is not the deal's: the moves give "
                     f"points {want.get('points')}, the record says {str(said)[:60]}")
    problem = check_record(rec)
    if problem is not None:
        raise Forged("bad-record", problem)
    return game
