"""What a live table sends: every seat's view of the deal (spectators: the public part),
its history and log as cached JSON text, the table part and the score sheet.

The server is the only authority. Each connection gets only what its seat may see
(``Game.view(seat).to_dict()``, docs/architecture.md); spectators get the public part with no hand.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from .. import i18n
from ..cards import CARDS
from ..game import Game
from ..table import NO, Table
from ..view import make_view, public_event
from . import clock as clockmod

if TYPE_CHECKING:
    from ..match import Match
    from .connections import Conn
    from .forced import ForcedMoves
    from .seats import Seat

HISTORY = "\u0000history\u0000"  # placeholders the writer replaces with cached JSON
LOG = "\u0000log\u0000"


try:  # the fast JSON encoder (a dependency; the standard one only if it is missing)
    import orjson

    def _dumps(value: Any) -> str:
        # the same text as json.dumps(ensure_ascii=False, separators=(",", ":")) for what the
        # server sends (str keys, ints, strs, lists, bools, None), in a fraction of the time
        try:
            return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except orjson.JSONEncodeError:  # e.g. the revealed 256-bit match seed (orjson: 64 bits)
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
except ImportError:  # pragma: no cover - orjson is a declared dependency
    def _dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))



class TableViews:
    """The messages-out part of :class:`~ristiseiska.web.live_table.LiveTable` (a mixin)."""

    if TYPE_CHECKING:  # what it uses of the rest of the live table
        id: str
        config: dict[str, Any]
        seats: list[Seat]
        match: Match
        games: list[Game]
        conns: set[Conn]
        started: bool
        rematch: str | None
        clock: clockmod.TurnClock
        forced: ForcedMoves
        last_active: float
        _rules_dict: dict[str, Any]
        _log: dict[tuple[int, int | None, str], list[str]]
        _rows: dict[int, Any]
        _hist: dict[tuple[int, int | None], list[str]]
        _ev: dict[tuple[int, int | None], list[dict[str, Any]]]
        _ev_all: dict[int, list[dict[str, Any]]]
        _texts: dict[tuple[Any, ...], tuple[int, str]]

        @property
        def game(self) -> Game | None: ...
        @property
        def host(self) -> int | None: ...
        def _online(self) -> set[int]: ...
        def _away(self, seat: int, online: set[int], now: float) -> bool: ...

    def broadcast_info(self) -> None:
        """Tell everyone the table part changed (e.g. a rematch was made); caller holds the lock."""
        self._broadcast()

    # -- messages out -----------------------------------------------------------------------
    def public_info(self) -> dict[str, Any]:
        online = self._online()
        now = time.monotonic()
        reserved = self.config.get("reserved", ())
        return {
            "id": self.id,
            "preset": self.config.get("preset"),
            "rules": self._rules_dict,
            "seats": [
                {"seat": i, "name": s.name, "kind": s.kind, "bot": s.bot,
                 "taken": s.kind == "bot" or s.token_hash is not None, "online": i in online,
                 "standin": s.standin,
                 "away": s.kind == "friend" and self._away(i, online, now),
                 "reserved": i in reserved and s.token_hash is None}  # as _reserved
                for i, s in enumerate(self.seats)
            ],
            "rematch": self.rematch,
            # issue 20 (web/chat.py): free text, never where strangers sit (issue 46)
            "chat_text": (bool(self.config.get("chat_text")) and not self.config.get("open")
                          and not self.config.get("quick")),
            "quick": bool(self.config.get("quick")),  # a quick game's table (web/open_tables.py)
            **self.clock.info(),
            **self.forced.info(),
            "waiting": not self.started,
            "host": self.host,
            "deals_finished": len(self.match.results),
            "match_over": self.match.is_over(),
            **self.fairness(),
        }

    def fairness(self) -> dict[str, Any]:
        """The match seed's commitment (from the start) and, once the match is over, the seed
        and salt that open it (fair.py). ``seed_chosen``: the creator picked the seed."""
        c = self.config
        out: dict[str, Any] = {"seed_commitment": c.get("seed_commitment"),
                               "seed_chosen": bool(c.get("seed_chosen"))}
        if c.get("seed_chosen"):
            out["seed"] = int(c["seed"])  # a chosen seed is no secret
        # a daily deal's seed is published when its day is over (daily/service.py), not here
        if self.match.is_over() and c.get("seed_salt") and not c.get("daily"):
            out["seed"] = int(c["seed"])
            out["seed_salt"] = c["seed_salt"]
        return out

    def view_for(self, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s view (``None``: a spectator's) with the full history."""
        d = self._view(seat)
        if d is not None:
            d["history"] = [json.loads(e) for e in self._history(seat)]
        return d

    def _view(self, seat: int | None) -> dict[str, Any] | None:
        """The view without its history (``"history"`` is a placeholder)."""
        g = self.game
        if g is None or not self.started:
            # Before the deal starts nobody sees anything of it, the host included: the deal
            # is fixed by the seed committed at creation, but a host who saw a hand while
            # waiting for friends could create tables until one had a good hand.
            return None
        if seat is None:  # the public part, built straight from the game (every broadcast)
            d = public_view(g, self._rows)
            d["history"] = HISTORY
            return self._decorate(g, d)
        if seat is not None:
            d = dict(make_view(g, seat, history=False).to_dict())
        else:
            # A spectator: the public part of a seat's view with everything private emptied
            # (hand, legal moves, dead cards); the history is the spectator's own.
            d = dict(make_view(g, 0, history=False).to_dict())
            d["seat"] = None
            d["hand"] = []
            d["legal_moves"] = []
            if "dead" in d:
                d["dead"] = []
            d.pop("open_hands", None)
        d["history"] = HISTORY
        return self._decorate(g, d)

    @staticmethod
    def _decorate(g: Game, d: dict[str, Any]) -> dict[str, Any]:
        d["layout"] = board_layout(g.table)
        # Once the deal is over nothing is secret (the score counts the cards left, the record
        # and the replay show them): every hand left is shown face up.
        if g.is_over():
            mark = g.rules.distinct_decks
            d["final_hands"] = [[c.notation(mark) for c in g.hand(s)] for s in range(g.n)]
        return d

    def _views(self, seats: set[int | None]) -> dict[int | None, dict[str, Any] | None]:
        """Views (history placeholders) for several seats at once: the public part is built
        once and each seat gets only its own fields (hand, legal moves, dead cards), which
        are exactly the fields of ``SeatView.to_dict`` that depend on the seat."""
        g = self.game
        if g is None or not self.started:  # nothing of a deal before it starts (_view)
            return dict.fromkeys(seats)
        base = self._view(None)
        assert base is not None
        mark = g.rules.distinct_decks
        notes = _notes(mark)
        out: dict[int | None, dict[str, Any] | None] = {}
        for seat in seats:
            if seat is None:
                out[seat] = base
                continue
            d = dict(base)
            d["seat"] = seat
            d["hand"] = [notes[c] for c in g.hand(seat)]
            d["legal_moves"] = ([m.text(mark) for m in g.legal_moves()]
                                if g.to_move == seat else [])
            if "dead" in d:
                d["dead"] = [notes[c] for c in g.dead_cards(seat)]
            out[seat] = d
        return out

    def _history(self, seat: int | None) -> list[str]:
        """The current deal's events as ``seat`` may see them, each as JSON text, extended
        by the events since the last call (so a move costs the same late in a deal)."""
        g = self.game
        assert g is not None
        key = (len(self.games), seat)
        parts = self._hist.get(key)
        if parts is None:
            parts = self._hist[key] = []
            for k in [k for k in self._hist if k[0] < key[0] - 1]:
                del self._hist[k]  # older deals: no queued message can need them any more
        if len(parts) < len(g.events):
            for e in self._events(seat)[len(parts):]:
                parts.append(_dumps(e))
        return parts

    def _events(self, seat: int | None) -> list[dict[str, Any]]:
        """The current deal's events as ``seat`` may see them (``public_event``), as dicts,
        extended by the events since the last call. Read only: they are shared."""
        g = self.game
        assert g is not None
        key = (len(self.games), seat)
        evs = self._ev.get(key)
        if evs is None:
            evs = self._ev[key] = []
            for k in [k for k in self._ev if k[0] < key[0] - 1]:
                del self._ev[k]
        events = g.events
        if len(evs) > len(events):  # never after a stored move; kept exact all the same
            del evs[len(events):]
        if len(evs) < len(events):
            whole = self._ev_all.get(key[0])
            if whole is None:
                whole = self._ev_all[key[0]] = []
                for old in [k for k in self._ev_all if k < key[0] - 1]:
                    del self._ev_all[old]
            if len(whole) > len(events):
                del whole[len(events):]
            if len(whole) < len(events):
                mark = g.rules.distinct_decks
                whole.extend(e.to_dict(mark) for e in events[len(whole):])
            start = len(evs)
            for ev in whole[start:len(events)]:
                evs.append(public_event(ev, seat))
            if self.clock.marks:  # the moves the clock made say so
                self.clock.mark(len(self.games) - 1, evs, start)
            if self.forced.marks:  # and the forced moves made for a person
                self.forced.mark(len(self.games) - 1, evs, start)
        return evs

    def seat_view(self, g: Game, seat: int) -> Any:
        """``g.view(seat)`` (the same view) with the history taken from the event cache."""
        v = make_view(g, seat, history=False)
        object.__setattr__(v, "history", tuple(self._events(seat)))  # a frozen dataclass
        return v

    def encode_state(self, msg: dict[str, Any], lang: str) -> str:
        """A queued state as the JSON text for its connection: the cached history and log
        (in ``lang``) are spliced in where the placeholders are."""
        view = msg.get("view")
        if view is None or view.get("history") != HISTORY:
            return _dumps(msg)
        deal, seat, count = msg["_hist"]
        parts = self._hist.get((deal, seat), [])
        count = min(count, len(parts))
        names = view["names"]
        body = {k: v for k, v in msg.items() if k != "_hist"}
        body["log"] = LOG
        body["labels"] = {m: i18n.describe_move(m, lang) for m in view["legal_moves"]}
        text = _dumps(body)
        log_key = (deal, seat, lang)
        sentences = self._log.get(log_key)
        if sentences is None:
            sentences = self._log[log_key] = []
        if len(sentences) < count:
            evs = self._ev.get((deal, seat), [])
            for i in range(len(sentences), count):
                e = evs[i] if i < len(evs) else json.loads(parts[i])
                sentences.append(_dumps(clockmod.describe(e, names, lang)))
        text = text.replace(_dumps(HISTORY), self._joined((deal, seat), parts, count), 1)
        return text.replace(_dumps(LOG), self._joined(log_key, sentences, count), 1)

    def _joined(self, key: tuple[Any, ...], parts: list[str], count: int) -> str:
        """``"[" + ",".join(parts[:count]) + "]"``, kept per ``key`` and extended by the new
        parts only: one contiguous copy instead of a walk over every event's text."""
        hit = self._texts.get(key)
        if hit is not None and hit[0] == count:
            return hit[1]
        if hit is not None and 0 < hit[0] < count:
            text = hit[1][:-1] + "," + ",".join(parts[hit[0]:count]) + "]"
        else:
            text = "[" + ",".join(parts[:count]) + "]"
        if len(self._texts) > 16:  # older deals and languages: rebuilt if ever asked again
            self._texts.clear()
        self._texts[key] = (count, text)
        return text

    def _forget_events(self) -> None:
        """Drop every cached form of the deal's events (a move taken back: the store refused
        it), so that nothing of it is ever sent."""
        self._hist.clear()
        self._ev.clear()
        self._ev_all.clear()
        self._log.clear()
        self._texts.clear()

    def sheet(self) -> dict[str, Any]:
        return {
            "rows": [{"deal": r.deal, "dealer": r.dealer, "card_points": list(r.card_points),
                      "token_points": list(r.token_points), "points": list(r.points),
                      "winner": r.winner} for r in self.match.sheet],
            "totals": self.match.totals,
            "over": self.match.is_over(),
            "winners": self.match.winners,
        }

    def state_for(self, conn: Conn, info: dict[str, Any], sheet: dict[str, Any]) -> dict[str, Any]:
        """A full state for one connection (always with the table part)."""
        conn.last_info = info
        view = self._view(conn.seat)
        msg: dict[str, Any] = {"type": "state", "you": conn.seat, "table": info,
                               "sheet": sheet, "deal": len(self.games), "view": view,
                               **self.clock.frame(), **self.forced.frame()}
        if view is not None:
            msg["_hist"] = (len(self.games), conn.seat, len(self._history(conn.seat)))
        return msg

    def _broadcast(self) -> None:
        """Queue each connection its own state. The table part (seats, rules) is sent only
        when it changed since that connection last got it; the page keeps the last one."""
        clock = self.clock.frame()  # starts, keeps or stops the turn clock (web/clock.py)
        clock.update(self.forced.frame())  # and the pause before a forced move (web/forced.py)
        info = self.public_info()
        sheet = self.sheet()
        self.last_active = time.monotonic()
        cache = self._views({c.seat for c in self.conns})
        for c in list(self.conns):
            msg: dict[str, Any] = {"type": "state", "you": c.seat, "sheet": sheet,
                                   "deal": len(self.games), "view": cache[c.seat], **clock}
            if cache[c.seat] is not None:
                msg["_hist"] = (len(self.games), c.seat, len(self._history(c.seat)))
            if c.last_info != info:
                msg["table"] = c.last_info = info
            c.send(msg)


_NOTES: dict[bool, list[str]] = {}


def _notes(mark: bool) -> list[str]:
    """Every card's notation by card id (with or without the second-deck mark)."""
    out = _NOTES.get(mark)
    if out is None:
        out = _NOTES[mark] = [c.notation(mark) for c in CARDS]
    return out


def public_view(g: Game, rows_cache: dict[int, Any] | None = None) -> dict[str, Any]:
    """What a spectator's ``SeatView.to_dict`` holds (``make_view(g, 0).to_dict()`` with the
    hand, legal moves and dead cards emptied, no seat, no open hands), without building the
    seat's view first: this runs on every broadcast. ``history`` is left for the caller.
    tests/test_web_fastview.py checks it against ``make_view`` key by key.

    ``rows_cache`` (one per table, for one game at a time) keeps each row's part while its
    ends stay put: a move changes one row, and a broadcast rebuilt all of them. Without
    jokers only, where a card can change under a joker without the ends moving. The parts
    are shared between views: read only."""
    rules = g.rules
    notes = _notes(rules.distinct_decks)
    table = g.table
    rows = []
    if rows_cache is not None and (rules.jokers or rows_cache.get(-1) is not g):
        rows_cache.clear()
        if not rules.jokers:
            rows_cache[-1] = g
        else:
            rows_cache = None
    for row in range(table.nrows):
        lo = table.lo[row]
        if rows_cache is not None:
            key = (lo, table.hi[row], table.minr, table.maxr)
            hit = rows_cache.get(row)
            if hit is not None and hit[0] == key:
                rows.append(hit[1])
                continue
        cards: list[str] = []
        if lo != NO:
            occ = table.occupant[row]
            cards = [notes[occ[s]] for s in range(lo, table.hi[row] + 1)]
        r: dict[str, Any] = {"row": row, "suit": row % 4, "deck": row // 4, "cards": cards,
                             "low_closed": table.is_closed(row, "low"),
                             "high_closed": table.is_closed(row, "high")}
        if table.jokers:
            jokers = [{"joker": CARDS[j].notation(), "as": notes[table.types[jr][slot]],
                       "swappable": table.joker_visible(jr, slot)}
                      for j, (jr, slot) in sorted(table.jokers.items()) if jr == row]
            if jokers:
                r["jokers"] = jokers
        elif rows_cache is not None:
            rows_cache[row] = (key, r)
        rows.append(r)
    d: dict[str, Any] = {
        "seat": None, "players": g.n, "names": list(g.names), "dealer": g.dealer,
        "hand": [], "hand_sizes": list(g.hand_sizes()), "rows": rows,
        "token_holder": g.token_holder, "chips_paid": list(g.chips_paid), "pot": g.pot,
        "to_move": g.to_move, "turn_seat": g.turn_seat, "phase": g.phase, "history": [],
        "legal_moves": [], "out_order": list(g.out_order), "stock_size": len(g.stock),
        "result": g.result.to_dict() if g.result is not None else None,
    }
    if rules.fines_per_miss:
        d["token_fines"] = list(g.token_fines)
    if rules.jokers:
        d["dead"] = []
    return d


def board_layout(table: Table) -> dict[str, Any]:
    """Where each row's cards lie on its line of slots, so a page can draw every row on one
    grid with the centre rank in one column: ``line`` is the ranks slot by slot (empty in free
    Fan Tan before the first card), ``min``/``max`` the slots still in use (the first ace closes
    the other ace end), ``center`` the starting slot, ``ends`` each row's ``[lo, hi]`` slots
    (``[-1, -1]`` while unopened)."""
    return {"line": list(table.line[0]) if table.line else [], "min": table.minr,
            "max": table.maxr, "center": table.center,
            "ends": [[table.lo[r], table.hi[r]] for r in range(table.nrows)]}
