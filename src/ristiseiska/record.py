"""Game records (docs/records.md): one deal as one JSON object, one object per line of a
``.jsonl`` file. Write, read, replay and check.

    >>> from ristiseiska import Game, preset
    >>> g = Game(preset("ristiseiska"), players=4, seed=3)
    >>> while not g.is_over():
    ...     g.push(g.legal_moves()[0])
    >>> line = dumps_record(record_from_game(g))
    >>> rec = json.loads(line)
    >>> check_record(rec) is None
    True
    >>> replay_record(rec).result == g.result
    True
    >>> rec["result"]["winner"] = (rec["result"]["winner"] + 1) % 4
    >>> print(check_record(rec))                                    # doctest: +ELLIPSIS
    result 'winner' is ... but the rules give ...

Replaying is generic: every event becomes the :class:`~ristiseiska.moves.Move` of the same
kind built from its fields (``card``, ``row``, ``end``, ``as``), so a variant that adds a
move kind or a field needs no change here. The fields the engine decides itself (the card
drawn, whom a card is asked from, to whom it is given) are compared with what the engine
did. See ``docs/records.md`` for the format.

No printing here; :func:`read_records` is the only function that opens a file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeGuard

from . import fair
from .cards import CARDS, Card, CardError, parse_card, sort_key
from .dealing import deal
from .game import Game, IllegalMoveError, SetupError
from .match import deal_seed
from .moves import DRAW, KINDS, Move
from .rules import LEGACY_VALUES, PRESETS, Rules, RulesError, preset

FORMAT = "ristiseiska-record"
VERSION = 1

# Keys an event may have; the engine decides the "output" ones, the player the others.
EVENT_KEYS = ("seat", "type", "card", "row", "end", "as", "from", "to")
# Per kind, the fields that are the engine's answer rather than the player's choice.
_OUTPUT_FIELDS = {DRAW: ("card",), "ask": ("from",), "give": ("to",)}


class RecordError(ValueError):
    """A record that does not replay; the message is the first problem found."""


# -- writing ------------------------------------------------------------------------------------

def _preset_name(rules: Rules) -> str | None:
    """The preset the rules came from, if any (``base+house`` names from TOML keep ``base``)."""
    base = rules.name.split("+", 1)[0] if rules.name else ""
    return base if base in PRESETS else None


def _cards(cards: Iterable[Card], mark: bool, sort: bool = False) -> list[str]:
    seq = sorted(cards, key=sort_key) if sort else list(cards)
    return [c.notation(mark) for c in seq]


def record_from_game(game: Game, preset: str | None = None,
                     extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of ``game`` (finished or not) as a plain dict in the order it is written.

    ``preset`` names the preset the rules came from (default: the rules' own preset name).
    ``extra`` adds keys after the standard ones (e.g. ``{"deal": 3}``); it may not replace
    a standard key. An unfinished deal is written with ``"result": null``.
    """
    rules = game.rules
    mark = rules.distinct_decks  # only two *different* decks tell their copies apart
    rec: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "preset": preset if preset is not None else _preset_name(rules),
        "rules": rules.to_dict(),
        "seed": game.seed,
        "dealer": game.dealer,
        "players": list(game.names),
        # Hands are sorted for people reading the file; the order inside a hand never matters.
        "hands": [_cards(h, mark, sort=True) for h in game.initial_hands],
    }
    if game.initial_stock:
        rec["stock"] = _cards(game.initial_stock, mark)  # first card = top of the stock
    if game.initial_table:
        rec["table"] = _cards(game.initial_table, mark)
    rec["events"] = [e.to_dict(mark) for e in game.events]
    rec["result"] = game.result.to_dict() if game.result is not None else None
    if extra:
        clash = sorted(set(extra) & set(rec) | set(extra) & {"stock", "table"})
        if clash:
            raise ValueError(f"extra keys would replace standard record keys: {', '.join(clash)}")
        rec.update(extra)
    return rec


def dumps_record(rec: Mapping[str, Any]) -> str:
    """One JSON line (no newline), compact, keys in the record's own order: the same game
    always gives the same bytes."""
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# -- reading ------------------------------------------------------------------------------------

def parse_record_line(text: str) -> dict[str, Any] | str:
    """A record dict from one line of text, or a one-sentence problem (a ``str``)."""
    try:
        value = json.loads(text, parse_int=_short_int)
    except json.JSONDecodeError as e:
        cut = " (the line looks cut short)" if e.pos >= len(text.rstrip()) else ""
        return f"not valid JSON: {e.msg} at column {e.colno}{cut}"
    except RecursionError:
        return "not valid JSON: nested too deeply"
    except _LongNumber as e:
        return str(e)
    if not isinstance(value, dict):
        return f"a record must be a JSON object, not {json_type(value)}"
    return value


MAX_DIGITS = 80  # no number of a record needs more (match seeds are below 2^256, 78 digits)


class _LongNumber(ValueError):
    pass


def _short_int(text: str) -> int:
    # A 5,000-digit number would otherwise stop Python's parser with a traceback (and costs
    # quadratic time to convert): name it instead.
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _LongNumber(f"a number has {digits} digits; records use at most {MAX_DIGITS}")
    return int(text)


def read_records(source: str | os.PathLike[str] | Iterable[str | bytes]
                 ) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Yield ``(line_number, record)`` for each non-blank line of a ``.jsonl`` file (a path) or
    of an iterable of lines. A line that is not a record yields ``(line_number, problem)``
    with the problem as a ``str``. Line numbers count from 1. Opening a missing or unreadable
    file raises :class:`OSError`."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            yield from read_records(f)
        return
    for no, raw in enumerate(source, 1):
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                yield no, f"not UTF-8 text (byte {e.start + 1})"
                continue
        else:
            line = raw
        if not line.strip():
            continue
        yield no, parse_record_line(line.lstrip("\ufeff"))


# -- replaying and checking ---------------------------------------------------------------------

def json_type(v: Any) -> str:
    """What a JSON value is, in words for an error message (``the number 3``, ``a list``)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the text {v!r}"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``true`` is not ``1`` and ``1.0`` is not ``1``."""
    if type(a) is not type(b):
        return False
    if not isinstance(a, (list, dict)):
        return bool(a == b)
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return bool(a == b)


def _card_of(value: Any, where: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(f"{where} must be a card written as text like 'H6', not {json_type(value)}")
    known = _CANONICAL.get(value)
    if known is not None:
        return known
    try:
        return parse_card(value)
    except CardError as e:
        raise RecordError(f"{where}: {e}") from None


# Canonical notation -> card: records are written canonically, so most cards are found here.
_CANONICAL: dict[str, Card] = {c.notation(True): c for c in CARDS}  # 'C7' first deck, 'C7+' second


def _card_list(value: Any, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list of cards, not {json_type(value)}")
    return [_card_of(v, f"{where}[{i}]") for i, v in enumerate(value)]


def rules_of_record(rec: Mapping[str, Any]) -> Rules:
    """The rules of a record: its ``rules`` options on top of its ``preset`` (or the default
    rules). Options missing from an older record take the preset's value, which is how new
    options stay backward compatible — or, for an option that changed how an old rule reads,
    the value in force before it existed (``rules.LEGACY_VALUES``). Raises
    :class:`RecordError`."""
    name = rec.get("preset")
    if name is not None and not isinstance(name, str):
        raise RecordError(f"preset must be a preset name or null, not {json_type(name)}")
    try:
        base = preset(name) if name else Rules()
    except RulesError as e:
        raise RecordError(f"preset: {e}") from None
    options = rec.get("rules", {})
    if not isinstance(options, dict):
        raise RecordError(f"rules must be an object of option: value, not {json_type(options)}")
    try:
        rules = Rules.from_dict(options, base=base)
        # A record written before an option existed replays as it was played (docs/records.md).
        old = {name: value for name, (value, cond, cval) in LEGACY_VALUES.items()
               if name not in options and getattr(rules, cond) == cval}
        return rules.replace(**old) if old else rules
    except RulesError as e:
        raise RecordError(f"rules: {e}") from None


def setup_game(rec: Mapping[str, Any], verify_seed: bool = False) -> Game:
    """The game of a record before its first event (rules, seats, dealt hands checked).
    With ``verify_seed`` the hands must also be what the engine deals from ``seed`` (when
    the record has a seed).
    Raises :class:`RecordError` with the first problem."""
    if not isinstance(rec, Mapping):
        raise RecordError(f"a record must be a JSON object, not {json_type(rec)}")
    fmt = rec.get("format")
    if fmt != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, not {json_type(fmt) if fmt is not None else 'missing'}")
    version = rec.get("version")
    if not _is_int(version):
        raise RecordError(f"version must be a whole number, not {json_type(version)}")
    if version > VERSION:
        raise RecordError(f"version {version} is newer than this program reads (up to {VERSION})")
    if version < 1:
        raise RecordError(f"version {version} is not a record version (they start at 1)")
    for key in ("rules", "players", "dealer", "hands", "events"):
        if key not in rec:
            raise RecordError(f"the record has no {key!r}")
    rules = rules_of_record(rec)

    players = rec["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names (text), in seat order")
    n = len(players)
    try:
        rules.check_players(n)
    except RulesError as e:
        raise RecordError(f"players: {e}") from None
    dealer = rec["dealer"]
    if not _is_int(dealer):
        raise RecordError(f"dealer must be a seat number, not {json_type(dealer)}")
    if not 0 <= dealer < n:
        raise RecordError(f"dealer {dealer} is not a seat (0–{n - 1})")
    seed = rec.get("seed")
    if seed is not None and not _is_int(seed):
        raise RecordError(f"seed must be a whole number or null, not {json_type(seed)}")
    if seed is not None and not -fair.MAX_SEED < seed < fair.MAX_SEED:
        raise RecordError("seed must be a whole number between -2^64 and 2^64")

    hands_raw = rec["hands"]
    if not isinstance(hands_raw, list):
        raise RecordError(f"hands must be a list of {n} card lists, not {json_type(hands_raw)}")
    if len(hands_raw) != n:
        raise RecordError(f"hands has {len(hands_raw)} hands for {n} players")
    hands = [_card_list(h, f"hands[{i}]") for i, h in enumerate(hands_raw)]
    stock = _card_list(rec.get("stock", []), "stock")
    table = _card_list(rec.get("table", []), "table")
    want_hands, want_stock, want_table = deal(rules, n, 0, dealer)  # sizes do not depend on seed
    if stock and not rules.stock:
        raise RecordError(f"stock has {len(stock)} cards but these rules have no stock")
    if table != want_table:
        laid = " ".join(map(str, want_table)) or "nothing"
        raise RecordError(
            f"table is [{' '.join(map(str, table))}] but these rules lay out {laid} before the first move"
        )
    try:
        game = Game(rules, n, seed=seed, dealer=dealer, hands=hands, stock=stock, names=players)
    except (SetupError, RulesError, CardError) as e:
        raise RecordError(f"hands: {e}") from None
    except (ValueError, TypeError, LookupError, AssertionError) as e:  # an engine bug
        raise RecordError(f"the engine failed to set up this deal ({type(e).__name__}: {e})") from None
    for seat, (h, w) in enumerate(zip(hands, want_hands, strict=True)):
        if len(h) != len(w):
            raise RecordError(
                f"hands[{seat}] has {len(h)} cards but dealing from the dealer's left "
                f"(dealer {dealer}) gives seat {seat} {len(w)}"
            )
    if len(stock) != len(want_stock):
        raise RecordError(f"stock has {len(stock)} cards but the deal leaves {len(want_stock)}")
    if verify_seed and seed is not None:  # hands set up by hand (or by the kernel) have none
        seed_hands, seed_stock, _ = seed_deal(rules, n, seed, dealer)
        for seat in range(n):
            if sorted(map(int, game.initial_hands[seat])) != sorted(map(int, seed_hands[seat])):
                raise RecordError(f"hands[{seat}] is not what seed {seed!r} deals to seat {seat}")
        if list(map(int, stock)) != list(map(int, seed_stock)):
            raise RecordError(f"stock is not what seed {seed!r} leaves, in that order")
    return game


def seed_deal(rules: Rules, n: int, seed: int, dealer: int
              ) -> tuple[list[list[Card]], list[Card], list[Card]]:
    """What the engine deals from ``seed``, with the two copies of a card of identical decks
    written alike (as a record writes them)."""
    hands, stock, table = deal(rules, n, seed, dealer)
    if rules.decks == 2 and not rules.distinct_decks:
        fold = [[parse_card(c.notation()) for c in h] for h in hands]
        return fold, [parse_card(c.notation()) for c in stock], table
    return hands, stock, table


def _describe(ev: Mapping[str, Any]) -> str:
    parts = [str(ev.get("type", "?"))]
    if isinstance(ev.get("card"), str):
        parts.append(ev["card"])
    return " ".join(parts)


def move_of(ev: Mapping[str, Any], where: str) -> Move:
    """The move an event stands for, built from its fields (``where`` names the event in a
    :class:`RecordError` about them)."""
    kind = ev["type"]
    outputs = _OUTPUT_FIELDS.get(kind, ())
    card = None
    if "card" in ev and "card" not in outputs:
        card = _card_of(ev["card"], f"{where} 'card'")
    as_ = _card_of(ev["as"], f"{where} 'as'") if "as" in ev else None
    row = ev.get("row")
    if row is not None and not _is_int(row):
        raise RecordError(f"{where} 'row' must be a row number, not {json_type(row)}")
    end = ev.get("end")
    if end is not None and not isinstance(end, str):
        raise RecordError(f"{where} 'end' must be 'low' or 'high', not {json_type(end)}")
    return Move(kind, card, row, end, as_)


def _check_event(game: Game, i: int, ev: Any) -> None:
    where = f"event {i}"
    if not isinstance(ev, dict):
        raise RecordError(f"{where} must be an object, not {json_type(ev)}")
    kind = ev.get("type")
    if not isinstance(kind, str):
        raise RecordError(f"{where} 'type' must be an event type as text, not {json_type(kind)}")
    if kind not in KINDS:
        raise RecordError(f"{where} has an unknown type {kind!r} (known: {', '.join(KINDS)})")
    seat = ev.get("seat")
    if not _is_int(seat):
        raise RecordError(f"{where} 'seat' must be a seat number, not {json_type(seat)}")
    if not 0 <= seat < game.n:
        raise RecordError(f"{where} has seat {seat}, which is not a seat (0–{game.n - 1})")
    where = f"event {i} ({_describe(ev)} by seat {seat})"
    if game.is_over():
        why = ""
        if game.result is not None and game.result.end == "stuck":
            # records of engines before issue 52 went on after a swap left nothing playable
            why = ": no card left in any hand can be played"
        raise RecordError(
            f"{where} comes after the end of the deal (it ended with event {i - 1}{why})"
        )
    if seat != game.to_move:
        doing = "to give a card" if game.phase == "give" else "to move"
        raise RecordError(f"{where}: it is seat {game.to_move}'s turn {doing}, not seat {seat}'s")
    move = move_of(ev, where)
    if move.kind == DRAW and "card" in ev:
        _card_of(ev["card"], f"{where} 'card'")  # a type problem reads better than a mismatch
    try:
        game.push(move)
    except IllegalMoveError as e:
        raise RecordError(f"{where} is not legal: {e}") from None
    except (ValueError, TypeError, LookupError, AssertionError) as e:
        # An engine bug must not crash a check of many records: report it as this record's
        # problem, with enough to file a bug.
        raise RecordError(
            f"{where} made the engine fail ({type(e).__name__}: {e}); this is an engine bug"
        ) from None
    done = game.events[-1].to_dict(game.rules.distinct_decks)
    if ev == done and all(type(v) is type(done[k]) for k, v in ev.items()):
        return  # the usual case, written by the engine itself
    # Keys a variant's events add (the engine writes them) are known too.
    unknown = [k for k in ev if k not in EVENT_KEYS and k not in done]
    if unknown:
        raise RecordError(
            f"event {i} has an unknown key {unknown[0]!r} (known: {', '.join(EVENT_KEYS)})"
        )
    for key in (*EVENT_KEYS, *(k for k in done if k not in EVENT_KEYS)):
        got, want = ev.get(key), done.get(key)
        if key == "card" and isinstance(got, str) and want is not None:
            try:  # compare cards, not spellings ('h6' and 'H6' are the same card)
                same = parse_card(got).notation(game.rules.distinct_decks) == want
            except CardError:
                same = False
        else:
            same = _same(got, want)
        if not same:
            raise RecordError(_mismatch(where, key, got, want, kind))


def _mismatch(where: str, key: str, got: Any, want: Any, kind: str) -> str:
    if want is None:
        return f"{where} has {key!r} = {got!r}, which this move does not have"
    if got is None:
        return f"{where} is missing {key!r} (the engine gives {want!r})"
    what = {
        ("draw", "card"): "the top card of the stock is",
        ("ask", "from"): "the rules ask the card from seat",
        ("give", "to"): "the card goes to seat",
    }.get((kind, key), f"the engine gives {key!r} =")
    return f"{where} has {key!r} = {got!r} but {what} {want!r}"


def _replay(rec: Mapping[str, Any], verify_seed: bool) -> Game:
    game = setup_game(rec, verify_seed)
    events = rec["events"]
    if not isinstance(events, list):
        raise RecordError(f"events must be a list, not {json_type(events)}")
    _check_fair(rec, game)
    for i, ev in enumerate(events):
        _check_event(game, i, ev)
    if "result" not in rec:
        raise RecordError("the record has no 'result' (write null for an unfinished deal)")
    result = rec["result"]
    last = f"event {len(events) - 1}" if events else "the deal (there are no events)"
    if result is None:  # an unfinished deal, e.g. a saved game
        if game.is_over():
            raise RecordError(f"result is null (unfinished deal) but the deal is over after {last}")
        return game
    if not isinstance(result, dict):
        raise RecordError(f"result must be an object (or null for an unfinished deal), not {json_type(result)}")
    if not game.is_over():
        doing = "to give a card" if game.phase == "give" else "to move"
        raise RecordError(
            f"events are missing: the deal is not over after {last} (seat {game.to_move} is {doing})"
        )
    assert game.result is not None
    want = game.result.to_dict()
    for key, value in want.items():
        if key not in result:
            raise RecordError(f"result has no {key!r} (the rules give {value!r})")
        if not _same(result[key], value):
            raise RecordError(f"result {key!r} is {result[key]!r} but the rules give {value!r}")
    for key in result:
        if key not in want:
            raise RecordError(f"result has {key!r}, which the rules do not give for this deal")
    return game


def _check_fair(rec: Mapping[str, Any], game: Game) -> None:
    """A web table's record carries the match seed's commitment (published when the table was
    made) and, once the match is over, the seed and salt: they must agree with each other, with
    the deal's shuffle seed and with the dealt hands (extra record keys, docs/records.md; see fair.py)."""
    published = rec.get("match_seed_commitment")
    revealed = rec.get("match_seed")
    if published is None:
        return  # not a committed web table (the terminal game writes match_seed on its own)
    if not isinstance(published, str) or not re.fullmatch(r"[0-9a-f]{64}", published):
        raise RecordError("match_seed_commitment must be 64 hex digits (a SHA-256 hash)")
    if revealed is None:
        return  # the match is still on: nothing to check yet
    salt = rec.get("match_seed_salt")
    if not _is_int(revealed) or not 0 <= revealed < fair.MAX_MATCH_SEED:
        raise RecordError("match_seed must be a whole number from 0 to 2^256 - 1")
    if not isinstance(salt, str) or not 0 < len(salt) <= 128:
        raise RecordError("match_seed_salt must be text (it is revealed with match_seed)")
    if not fair.verify(revealed, salt, published):
        raise RecordError("match_seed and match_seed_salt do not give match_seed_commitment: "
                          "the seed is not the one committed to before play")
    deal_no = rec.get("deal")
    if not _is_int(deal_no) or not 1 <= deal_no <= 100_000:
        raise RecordError("a record with match_seed needs 'deal' (its number in the match, from 1)")
    want = deal_seed(revealed, deal_no - 1)
    if rec.get("seed") != want:
        raise RecordError(f"seed is {rec.get('seed')!r} but deal {deal_no} of match seed "
                          f"{revealed} is shuffled with {want}")
    seed_hands, seed_stock, _ = seed_deal(game.rules, game.n, want, game.dealer)
    for seat in range(game.n):
        if sorted(map(int, game.initial_hands[seat])) != sorted(map(int, seed_hands[seat])):
            raise RecordError(f"hands[{seat}] is not what the revealed match seed deals")
    if list(map(int, game.initial_stock)) != list(map(int, seed_stock)):
        raise RecordError("stock is not what the revealed match seed leaves")


def replay_record(rec: Mapping[str, Any], verify_seed: bool = False) -> Game:
    """The game a record describes, with every event pushed. Raises :class:`RecordError`
    with the first problem (see :func:`check_record`)."""
    return _replay(rec, verify_seed)


def check_record(rec: Any, verify_seed: bool = False) -> str | None:
    """The first problem of a record in one sentence (naming the event index or the key that
    is wrong), or ``None`` when it replays exactly to its result. Never raises for bad
    input."""
    try:
        _replay(rec, verify_seed)
    except RecordError as e:
        return str(e)
    except RecursionError:
        return "the record is nested too deeply"
    return None


__all__ = [
    "FORMAT", "VERSION", "RecordError", "record_from_game", "dumps_record", "parse_record_line",
    "read_records", "rules_of_record", "setup_game", "replay_record", "check_record", "move_of",
    "json_type",
]
