"""A match against bots without a server (issue 47): the driver the browser runs in Pyodide.

The page's Web Worker (``web/static/pwa/worker.js``) loads this module from the engine archive
the server packs from its own source (``web/pwa.py``), so the rules, the bots and the records
are the server's own. One person plays seat 0; the others are bots of the levels that run
without numpy (``random``, ``basic``, ``expert``, and ``neural`` evaluated in plain Python by
:mod:`ristiseiska.bots.neural_plain`, which plays the server's ``neural`` moves), seeded as a
server table seeds them (``seed * 31 + seat``), so the same seed and moves give the same deals,
the same bot moves and the same records.

Messages are JSON texts in and lists of JSON texts out (:func:`handle`); what the page gets
has the shape of the server's WebSocket messages (``web/app.py``), so the table page is the
same page. The whole state is the config and the moves (:meth:`OfflineMatch.saved`): the
browser keeps it and rebuilds the match from it after a reload.

Forced moves (issue 52) as a server table makes them (``web/forced.py``): with the config's
``auto_forced`` (on by default) a state whose only move for the person is forced carries
``"forced": {"seat": 0, "move": M, "remaining_ms": PAUSE_MS, "deal": D, "ply": P}``; the page
waits that long, announcing it, then sends ``{"type": "forced", "deal": D, "ply": P}`` and
the engine makes the move if the position is still that one. Its event says it was made for
the player, as online.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from . import i18n
from .forced import forced_move
from .game import Game, IllegalMoveError
from .match import Match
from .moves import MoveError
from .record import dumps_record, record_from_game
from .rules import PRESETS, RulesError, preset
from .view import make_view, public_event

LEVELS = ("random", "basic", "expert", "neural")
TABLE_ID = "offline"
MAX_NAME = 24
PAUSE_MS = 2000  # the pause before a forced move: web/forced.py's PAUSE (a test keeps them equal)


class OfflineError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _bot(level: str, seed: int) -> Any:
    if level == "neural":  # the network without numpy, also where numpy is at hand
        from .bots.neural_plain import PlainNeuralBot

        return PlainNeuralBot(seed)
    from .bots import get_bot

    return get_bot(level, seed)


def check_config(data: Any) -> dict[str, Any]:
    """A clean config from the page's ``start`` message, or :class:`OfflineError`."""
    if not isinstance(data, dict):
        raise OfflineError("bad-config", "the config is an object")
    name = data.get("preset", "ristiseiska")
    if not isinstance(name, str) or name not in PRESETS:
        raise OfflineError("bad-preset", f"unknown preset {name!r}")
    rules = preset(name)
    bots = data.get("bots", ["expert"] * 3)
    if (not isinstance(bots, list) or not all(b in LEVELS for b in bots)
            or not rules.min_players <= len(bots) + 1 <= rules.max_players):
        raise OfflineError("bad-seats", f"{name}: {rules.min_players}–{rules.max_players} "
                           f"players; bots are {', '.join(LEVELS)}")
    seed = data.get("seed", 0 if data.get("daily") is not None else None)  # a daily deal has its own
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise OfflineError("bad-seed", "the seed is a whole number 0 … 2**63-1")
    you = data.get("name") or ""
    if not isinstance(you, str):
        raise OfflineError("bad-name", "the name is a text")
    you = " ".join(you.split())[:MAX_NAME] or "Pelaaja"
    auto = data.get("auto_forced", True)
    if not isinstance(auto, bool):
        raise OfflineError("bad-auto-forced", "auto_forced is true (forced moves are made for "
                           "the player after a short pause) or false")
    others = [n for n in i18n.PLAYER_NAMES if n.casefold() != you.casefold()]
    out = {"preset": name, "bots": list(bots), "seed": seed, "name": you,
           "names": [you, *others[:len(bots)]], "auto_forced": auto}
    if data.get("daily") is not None:
        out.update(_check_daily(data["daily"], you, others))
    return out


def _check_daily(data: Any, you: str, others: list[str]) -> dict[str, Any]:
    """The daily deal (issue 57) the server handed out for offline play: its day, rule set,
    seed and salt. The deal and the bots are then made by ``ristiseiska.daily`` itself, as the
    server makes them, so the same moves meet the same answers and the server's replay of the
    record agrees. The seed is kept as text: it has 63 bits, more than a JavaScript number
    holds exactly (the page keeps the config)."""
    from .daily.deal import OFFERED, PLAYERS

    if not isinstance(data, dict):
        raise OfflineError("bad-daily", "the daily deal is an object {day, preset, seed}")
    day = data.get("day")
    if not isinstance(day, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
        raise OfflineError("bad-daily", "the daily deal's day is YYYY-MM-DD")
    try:
        date.fromisoformat(day)
    except ValueError:
        raise OfflineError("bad-daily", f"the daily deal's day {day!r} is no date") from None
    name = data.get("preset")
    if name not in OFFERED:
        raise OfflineError("bad-daily", f"no daily deal for {name!r}; offered: {', '.join(OFFERED)}")
    seed = data.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = str(seed)
    if not isinstance(seed, str) or not seed.isdigit() or len(seed) > 19 or int(seed) >= 2**63:
        raise OfflineError("bad-daily", "the daily deal's seed is a whole number 0 … 2**63-1")
    salt = data.get("salt") or ""
    if not isinstance(salt, str) or not re.fullmatch(r"[0-9a-f]{0,64}", salt):
        raise OfflineError("bad-daily", "the daily deal's salt is hex digits")
    return {"preset": name, "bots": ["expert"] * (PLAYERS - 1), "seed": 0,
            "names": [you, *others[:PLAYERS - 1]],
            "daily": {"day": day, "preset": name, "seed": seed, "salt": salt}}


def _daily_deal(config: dict[str, Any] | None) -> Any:
    if config is None:
        return None
    from .daily.deal import DailyDeal

    return DailyDeal(date.fromisoformat(config["day"]), config["preset"], int(config["seed"]),
                     config["salt"])


class OfflineMatch:
    """The match: seat 0 is the person, every other seat a bot."""

    def __init__(self, config: Any) -> None:
        self.config = check_config(config)
        self.daily = _daily_deal(self.config.get("daily"))
        self.n = len(self.config["names"])
        if self.daily is not None:  # the day's deal and bots, made as the server makes them
            self.rules = self.daily.rules
            self.match = self.daily.match(list(self.config["names"]))
            self.bots = self.daily.bots()
        else:
            self.rules = preset(self.config["preset"])
            self.match = Match(self.rules, self.n, seed=self.config["seed"],
                               names=list(self.config["names"]))
            self.bots = {s: _bot(level, self.config["seed"] * 31 + s)
                         for s, level in enumerate(self.config["bots"], start=1)}
        self.games: list[Game] = [self.match.new_deal()]
        self._hint_bot: Any = None
        self.marks: set[tuple[int, int]] = set()  # (deal index, ply) of forced moves made here

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> OfflineMatch:
        """The match rebuilt from :meth:`saved` (every move replayed and checked)."""
        m = cls(saved["config"])
        deals = saved.get("moves") or [[]]
        if not isinstance(deals, list):
            raise OfflineError("bad-save", "the saved moves are a list of deals")
        for d, moves in enumerate(deals):
            if d > 0:
                m.next_deal()
            for text in moves:
                g = m.game
                g.push(g.parse_move(text))
                if g.result is not None:
                    m.match.add_result(g.result)
        marks = saved.get("forced") or []
        if not isinstance(marks, list) or not all(
                isinstance(k, list) and len(k) == 2 and all(type(x) is int for x in k)
                for k in marks):
            raise OfflineError("bad-save", "the saved forced moves are [deal, ply] pairs")
        m.marks = {(d, p) for d, p in marks}
        return m

    @property
    def game(self) -> Game:
        return self.games[-1]

    def saved(self) -> dict[str, Any]:
        mark = self.rules.distinct_decks
        return {"config": self.config,
                "moves": [[mv.text(mark) for mv in g.moves] for g in self.games],
                "forced": [list(k) for k in sorted(self.marks)]}

    # -- playing ------------------------------------------------------------------------------
    def play(self, text: Any) -> str:
        g = self.game
        if not isinstance(text, str) or not 0 < len(text) <= 32:
            raise OfflineError("bad-move", "a move is a short text such as 'H6' or 'stop'")
        if g.is_over():
            raise OfflineError("no-deal", "no deal is being played now")
        if g.to_move != 0:
            raise OfflineError("not-your-turn", f"it is seat {g.to_move}'s move, not yours")
        try:
            move = g.parse_move(text)
            self._push(move)
        except IllegalMoveError as e:
            raise OfflineError("illegal", str(e)) from e
        except (MoveError, ValueError) as e:
            raise OfflineError("bad-move", str(e)) from e
        return move.text(self.rules.distinct_decks)

    def _push(self, move: Any) -> None:
        g = self.game
        g.push(move)
        if g.result is not None:
            self.match.add_result(g.result)

    def forced_due(self) -> dict[str, Any] | None:
        """The person's forced move the page is to make after the pause, if any."""
        g = self.game
        if not self.config["auto_forced"] or g.to_move != 0:
            return None
        move = forced_move(g)
        if move is None:
            return None
        return {"seat": 0, "move": move.text(), "remaining_ms": PAUSE_MS,
                "deal": len(self.games) - 1, "ply": len(g.moves)}

    def play_forced(self, deal: Any, ply: Any) -> bool:
        """Make the forced move announced for (``deal``, ``ply``); ``False`` when the position
        has moved on meanwhile (the player moved)."""
        due = self.forced_due()
        if due is None or due["deal"] != deal or due["ply"] != ply:
            return False
        g = self.game
        move = forced_move(g)
        assert move is not None
        self.marks.add((deal, ply))
        self._push(move)
        return True

    def bot_due(self) -> bool:
        g = self.game
        return not g.is_over() and g.to_move != 0

    def bot_step(self) -> str:
        """One bot move (the forced one without asking the bot), as a server table plays it."""
        g = self.game
        if not self.bot_due():
            raise OfflineError("no-bot", "no bot is to move")
        seat = g.to_move
        legal = g.legal_moves()
        # the daily deal's bots are asked every move, as daily.play_moves asks them (a bot
        # asked once less could answer differently later)
        ask = self.daily is not None or len(legal) > 1
        move = self.bots[seat].choose(g.view(seat)) if ask else legal[0]
        if move not in legal:  # a faulty bot must not stall the table (as tables.py)
            move = legal[0]
        self._push(move)
        return move.text(self.rules.distinct_decks)

    def next_deal(self) -> None:
        if not self.game.is_over():
            raise OfflineError("deal-running", "the deal is still being played")
        if self.match.is_over():
            raise OfflineError("match-over", "the match is over")
        self.games.append(self.match.new_deal())

    def hint(self, lang: str) -> dict[str, Any]:
        """The hint: the network's move (the ``neural`` bot, the strongest level that runs
        here; the server's hint searches sampled deals, which needs the compiled kernel) with
        the expert's reason for it and a note saying so; the expert's own move and reason where
        the network does not play the rules (the note says that too) or one move is legal."""
        g = self.game
        if g.is_over() or g.to_move != 0:
            raise OfflineError("no-hint", "a hint is given on your own move")
        from .bots.expert import ExpertBot
        from .bots.neural_plain import unsupported
        from .bots.reasons import render

        view = g.view(0)
        expert = ExpertBot(seed=0)
        note = None
        if len(g.legal_moves()) == 1:
            move, (key, params) = expert.decide(view)
        elif unsupported(self.rules, self.n) is None:
            move = self.hint_bot().choose(view)
            key, params = expert.reason_for(view, move)
            note = "analysis.hint.network"
        else:
            move, (key, params) = expert.decide(view)
            note = "analysis.hint.offline_rule"
        reason = render(key, params, lang)
        if note is not None:
            reason = f"{reason.rstrip()} {i18n.t(note, lang)}"
        return {"type": "hint", "move": move.text(self.rules.distinct_decks), "reason": reason}

    def hint_bot(self) -> Any:
        if self._hint_bot is None:
            self._hint_bot = _bot("neural", 0)
        return self._hint_bot

    # -- what the page shows ----------------------------------------------------------------
    def table_info(self) -> dict[str, Any]:
        names = self.config["names"]
        return {
            "id": TABLE_ID, "preset": self.config["preset"], "rules": self.rules.to_dict(),
            "seats": [{"seat": i, "name": names[i], "kind": "friend" if i == 0 else "bot",
                       "bot": None if i == 0 else self.config["bots"][i - 1], "taken": True,
                       "online": i == 0, "standin": False, "away": False, "reserved": False}
                      for i in range(self.n)],
            "rematch": None, "chat_text": False, "quick": False, "clock": None,
            "clock_held": [], "waiting": False, "host": 0,
            "deals_finished": len(self.match.results), "match_over": self.match.is_over(),
            "seed_commitment": None, "seed_chosen": True, "seed": self.config["seed"],
            "offline": True, "auto_forced": self.config["auto_forced"],
        }

    def sheet(self) -> dict[str, Any]:
        return {
            "rows": [{"deal": r.deal, "dealer": r.dealer, "card_points": list(r.card_points),
                      "token_points": list(r.token_points), "points": list(r.points),
                      "winner": r.winner} for r in self.match.sheet],
            "totals": self.match.totals, "over": self.match.is_over(),
            "winners": self.match.winners,
        }

    def state(self, lang: str) -> dict[str, Any]:
        """The server's ``state`` message for seat 0 (``web/app.py``)."""
        g = self.game
        view = dict(make_view(g, 0).to_dict())
        t = g.table
        view["layout"] = {"line": list(t.line[0]) if t.line else [], "min": t.minr,
                          "max": t.maxr, "center": t.center,
                          "ends": [[t.lo[r], t.hi[r]] for r in range(t.nrows)]}
        if g.is_over():
            mark = self.rules.distinct_decks
            view["final_hands"] = [[c.notation(mark) for c in g.hand(s)] for s in range(g.n)]
        names = view["names"]
        deal = len(self.games) - 1
        # a forced move made for the player says so (event = ply, as web/forced.py marks them)
        view["history"] = [{**e, "auto": True} if (deal, i) in self.marks else e
                           for i, e in enumerate(view["history"])]
        log = [i18n.describe_event(e, names, lang)
               + (f" {i18n.t('forced.log.auto', lang)}" if e.get("auto") else "")
               for e in view["history"]]
        out = {"type": "state", "you": 0, "table": self.table_info(), "sheet": self.sheet(),
               "deal": len(self.games), "view": view, "clock": None, "log": log,
               "labels": {m: i18n.describe_move(m, lang) for m in view["legal_moves"]}}
        if self.config["auto_forced"]:
            out["forced"] = self.forced_due()
        return out

    def rules_text(self, lang: str) -> dict[str, Any]:
        from .explain import explain_rules, explain_rules_html

        return {"text": explain_rules(self.rules, lang), "html": explain_rules_html(self.rules, lang),
                "rules": self.rules.to_dict(), "preset": self.config["preset"],
                "fairness": {"seed_commitment": None, "seed_chosen": True,
                             "seed": self.config["seed"]}}

    def records(self, deal: int | None = None) -> str:
        """The finished deals' records as JSON lines (one deal with ``deal``, from 0)."""
        out = []
        for i, g in enumerate(self.games):
            if g.is_over() and (deal is None or deal == i):
                extra = {"deal": i + 1}
                if self.daily is not None:
                    extra = self.daily.record_extra()
                    if not self.daily.salt:  # a package without the salt: no commitment
                        for k in ("match_seed_salt", "match_seed_commitment"):
                            extra.pop(k)
                rec = record_from_game(g, preset=self.config["preset"], extra=extra)
                out.append(dumps_record(rec) + "\n")
        return "".join(out)


    def replay(self, deal: Any, lang: str) -> dict[str, Any]:
        """Every position of finished deal ``deal`` (from 0), hands open: what the server's
        ``GET /api/tables/{id}/deals/{deal}/replay`` answers (``web/app.py`` replay_frames;
        tests/test_offline_replay.py keeps the two the same)."""
        if not isinstance(deal, int) or isinstance(deal, bool) or not 0 <= deal < len(self.games) \
                or not self.games[deal].is_over():
            raise OfflineError("no-deal", "only finished deals replay")
        return replay_frames(self.games[deal], lang)


def replay_frames(g: Game, lang: str) -> dict[str, Any]:
    """The replay of a finished deal (the server's own shape; web/app.py cannot be loaded in
    the browser's engine, which has no FastAPI)."""
    r = Game(g.rules, g.n, hands=[list(h) for h in g.initial_hands],
             stock=list(g.initial_stock), dealer=g.dealer, names=list(g.names))
    mark = g.rules.distinct_decks

    def frame(text: str) -> dict[str, Any]:
        v = r.view(0, open_cards=True).to_dict()
        t = r.table
        layout = {"line": list(t.line[0]) if t.line else [], "min": t.minr, "max": t.maxr,
                  "center": t.center, "ends": [[t.lo[k], t.hi[k]] for k in range(t.nrows)]}
        return {"text": text, "rows": v["rows"], "layout": layout, "hands": v.get("open_hands", {}),
                "hand_sizes": v["hand_sizes"], "token_holder": v["token_holder"],
                "chips_paid": v["chips_paid"], "to_move": v["to_move"]}

    frames = [frame("")]
    for m in g.moves:
        r.push(m)
        ev = r.events[-1].to_dict(mark) if r.events else {}
        frames.append(frame(i18n.describe_event(public_event(ev, ev.get("seat")), r.names, lang)))
    return {"names": list(g.names), "frames": frames,
            "result": g.result.to_dict() if g.result else None}


_MATCH: list[OfflineMatch] = []


def handle(text: str) -> str:
    """One message from the page (JSON) → the answers (a JSON list). Bad input is an error
    answer and changes nothing."""
    try:
        msg = json.loads(text)
        if not isinstance(msg, dict):
            raise OfflineError("bad-message", "a message is a JSON object")
        return json.dumps(_handle(msg), ensure_ascii=False)
    except OfflineError as e:
        return json.dumps([{"type": "error", "code": e.code, "message": e.message}])
    except (ValueError, KeyError, TypeError, RulesError, IllegalMoveError) as e:
        return json.dumps([{"type": "error", "code": "bad-message", "message": str(e)}])
    except Exception as e:  # noqa: BLE001 - a bug costs an error answer, not the engine
        return json.dumps([{"type": "error", "code": "engine-error",
                            "message": f"{type(e).__name__}: {e}"}])


def _handle(msg: dict[str, Any]) -> list[dict[str, Any]]:
    kind = msg.get("type")
    lang = i18n.norm_lang(msg.get("lang") or "fi")
    if kind == "start":
        m = OfflineMatch(msg.get("config"))
        _MATCH[:] = [m]
        return [m.state(lang), {"type": "saved", "saved": m.saved()}]
    if kind == "resume":
        m = OfflineMatch.from_saved(msg.get("saved") or {})
        _MATCH[:] = [m]
        return [m.state(lang)]
    if not _MATCH:
        raise OfflineError("no-match", "no offline match is being played; start one")
    m = _MATCH[0]
    if kind == "state":
        return [m.state(lang)]
    if kind == "move":
        played = m.play(msg.get("move"))
        return [{"type": "ack", "move": played, "id": msg.get("id")}, m.state(lang),
                {"type": "saved", "saved": m.saved()}]
    if kind == "forced":
        if not m.play_forced(msg.get("deal"), msg.get("ply")):
            return [m.state(lang)]  # the player moved meanwhile: nothing to make
        return [m.state(lang), {"type": "saved", "saved": m.saved()}]
    if kind == "bot":
        m.bot_step()
        return [m.state(lang), {"type": "saved", "saved": m.saved()}]
    if kind == "next-deal":
        m.next_deal()
        return [m.state(lang), {"type": "saved", "saved": m.saved()}]
    if kind == "hint":
        return [m.hint(lang)]
    if kind == "rules":
        return [{"type": "rules", **m.rules_text(lang)}]
    if kind == "record":
        deal = msg.get("deal")
        return [{"type": "record", "text": m.records(deal if isinstance(deal, int) else None)}]
    if kind == "replay":
        return [{"type": "replay", **m.replay(msg.get("deal"), lang)}]
    raise OfflineError("bad-message", f"unknown message type {kind!r}")


def bot_due() -> bool:
    return bool(_MATCH) and _MATCH[0].bot_due()
