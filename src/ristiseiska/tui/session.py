"""A match played by one person (seat 0) against bots, without any screen.

The terminal app drives a :class:`Session`: it asks whose decision it is, applies the person's
moves (refused moves come back as a short message, the state unchanged), lets bots move one at a
time (so the screen can pace them), keeps the move log as sentences, writes a record of each
finished deal, and saves the whole match after every move so that ``--resume`` continues it.

    >>> from ristiseiska.rules import Rules
    >>> s = Session(Setup(Rules(match_deals=1), players=3, bots=["random", "random"], seed=5))
    >>> while not s.match_over:
    ...     if s.deal_over:
    ...         s.next_deal()
    ...     elif s.human_to_move:
    ...         _ = s.apply(s.game.legal_moves()[0])
    ...     else:
    ...         _ = s.step_bot()
    >>> len(s.results)
    1
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cards import CLUBS, DIAMONDS, CardError, card
from ..game import Event, Game, IllegalMoveError
from ..i18n import LANGS, PLAYER_NAMES, card_name
from ..match import Match
from ..moves import GIVE, Move, MoveError
from ..paths import data_dir as data_dir  # the terminal game reads it from here
from ..rules import Rules, RulesError, preset
from ..scoring import Result
from .typed import AmbiguousCard, typed_move_text

HUMAN = 0
DEFAULT_BOT = "expert"
STATE_FORMAT = "ristiseiska-play-state"
STATE_FILE = "play-resume.json"
# Bots get people's names so that the log reads like a family game.
BOT_NAMES = PLAYER_NAMES


def _t(key: str, lang: str, **kw: Any) -> str:
    from ..i18n import t

    return t(key, lang, **kw)


# --- set-up ------------------------------------------------------------------------------------

@dataclass
class Setup:
    """Everything chosen before the first deal. Seat 0 is the person; ``bots`` has one level per
    other seat, in seat order."""

    rules: Rules = field(default_factory=Rules)
    players: int = 4
    bots: list[str] = field(default_factory=list)
    name: str = ""
    seed: int | None = None
    lang: str = "fi"
    open_cards: bool = False
    pace: float = 0.6
    auto_forced: bool = True  # a forced move is made for the person after a pause (issue 52)

    def __post_init__(self) -> None:
        self.rules.check_players(self.players)
        if not self.bots:
            self.bots = [DEFAULT_BOT] * (self.players - 1)
        if len(self.bots) == 1 and self.players > 2:
            self.bots = self.bots * (self.players - 1)
        if len(self.bots) != self.players - 1:
            raise ValueError(
                _t("tui.error.bot_count", self.lang, n=self.players - 1, got=len(self.bots))
            )
        bots = []
        for level in self.bots:
            known = level_id(level)
            if known is None:
                labels = ", ".join(level_label(b, self.lang) for b in bot_levels())
                raise ValueError(_t("tui.error.bot_level", self.lang, level=level, known=labels))
            bots.append(known)
        self.bots = bots
        if self.seed is None:
            self.seed = secrets.randbelow(2**31)
        if not self.name.strip():
            self.name = _t("tui.you", self.lang)

    @property
    def names(self) -> list[str]:
        # never give a bot the person's own name
        others = [b for b in BOT_NAMES if b.casefold() != self.name.strip().casefold()]
        return [self.name] + others[: self.players - 1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "preset": self.rules.name.split("+")[0] or None,
            "rules_name": self.rules.name,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "bots": list(self.bots),
            "name": self.name,
            "seed": self.seed,
            "lang": self.lang,
            "open_cards": self.open_cards,
            "pace": self.pace,
            "auto_forced": self.auto_forced,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Setup:
        base = None
        if d.get("preset"):
            try:
                base = preset(d["preset"])
            except RulesError:
                base = None
        rules = Rules.from_dict(d["rules"], base=base)
        if d.get("rules_name"):
            rules = rules.replace(name=str(d["rules_name"]))
        elif base is not None:
            rules = rules.replace(name=base.name if rules == base else base.name + "+house")
        return cls(rules=rules, players=int(d["players"]), bots=list(d["bots"]),
                   name=str(d.get("name", "")), seed=int(d["seed"]), lang=str(d.get("lang", "fi")),
                   open_cards=bool(d.get("open_cards", False)), pace=float(d.get("pace", 0.6)),
                   auto_forced=d.get("auto_forced", True) is not False)


# --- bots and hints ----------------------------------------------------------------------------

def bot_levels() -> tuple[str, ...]:
    from ..bots import BOT_NAMES

    return tuple(BOT_NAMES)


def level_label(level: str, lang: str) -> str:
    """A bot level as the person reads it (``taitava`` in Finnish, ``expert`` in English):
    the same word in the set-up form, the players' panel and the error messages."""
    label = _t("tui.level." + level, lang)
    return level if label.startswith("tui.") else label


def level_id(text: str) -> str | None:
    """The bot level ``text`` means: its id (``expert``) or its name in any language
    (``taitava``), any case; ``None`` for an unknown word."""
    word = text.strip().casefold()
    for level in bot_levels():
        if word == level or word in (level_label(level, lang).casefold() for lang in LANGS):
            return level
    return _plugin(text.strip())


def _plugin(name: str) -> str | None:
    """``name`` when it is a bot plugin (an entry point of ``ristiseiska.bots`` or
    ``package.module:Class``, docs/simulation.md); our own bots are only the menu's levels."""
    from ..bots.plugins import PluginError, is_ours, resolve

    if not name or is_ours(name):
        return None
    try:
        resolve(name)
    except PluginError:
        return None
    return name


def make_bot(level: str, seed: int) -> Any:
    from ..bots import get_bot
    from ..bots.pool import POOLED, PooledBot, shared_pool

    if level in POOLED:
        # A searching bot thinks (and compiles, the first time) in a worker process, so the
        # screen keeps redrawing; the pool starts compiling now, before its first move.
        pool = shared_pool()
        pool.ensure_warm()
        return PooledBot(pool, level, seed)
    from ..bots.plugins import is_ours

    if not is_ours(level):  # a plugin: guarded, its faults played by the basic bot
        from ..bots.plugins import make_bot as make_plugin

        return make_plugin(level, seed=seed)
    return get_bot(level, seed=seed)


def hint(view: Any, lang: str, quick: bool = False) -> tuple[Move | None, str]:
    """The hint for ``view``: the move the analysis calls best and its reason in ``lang``
    (:func:`ristiseiska.analysis.hint.best_move_hint`; a rule of thumb says so). ``quick``:
    the expert bot's move at once (the open-cards teaching mode, drawn on every redraw)."""
    from ..bots import hint as bot_hint

    if not view.legal_moves:
        return None, ""
    if quick:
        return bot_hint(view, lang)
    from ..analysis.hint import best_move_hint

    h = best_move_hint(view, lang)
    return h.move, h.reason


@dataclass
class LogLine:
    """One line of the move log: the sentence and whose move it was (``None``: the table)."""

    text: str
    seat: int | None = None
    kind: str = ""
    number: int | None = None  # the move's number in the deal, from 1 (as replay and analysis)


class Session:
    """One match: the person at seat 0, bots at the other seats."""

    def __init__(self, setup: Setup, data_dir_path: Path | None = None, save: bool = True) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.lang = setup.lang
        self.names = setup.names
        self.n = setup.players
        self.dir = data_dir_path
        self.save_enabled = save and data_dir_path is not None
        self.match = Match(self.rules, self.n, setup.seed, self.names)
        self.results: list[Result] = []
        self.finished_moves: list[list[str]] = []
        self.log: list[LogLine] = []
        self.records_path: Path | None = None
        self.record_error: str | None = None
        self.save_error: OSError | None = None  # the last save's failure (None: it worked)
        self.last_result_lines: list[str] = []
        self._replaying = False
        self._started = time.strftime("%Y%m%d-%H%M%S")
        self.game: Game = self._start_deal()

    # -- whose decision ----------------------------------------------------------------------
    @property
    def deal_index(self) -> int:
        return len(self.results)

    @property
    def deal_over(self) -> bool:
        return self.game.is_over()

    @property
    def match_over(self) -> bool:
        return self.game.is_over() and len(self.results) > 0 and bool(self.match.is_over())

    @property
    def human_to_move(self) -> bool:
        return not self.game.is_over() and self.game.to_move == HUMAN

    @property
    def bot_to_move(self) -> bool:
        return not self.game.is_over() and self.game.to_move != HUMAN

    def view(self, seat: int = HUMAN, open_cards: bool | None = None) -> Any:
        oc = self.setup.open_cards if open_cards is None else open_cards
        return self.game.view(seat, open_cards=oc)

    @property
    def totals(self) -> list[int]:
        return [sum(r.points[i] for r in self.results) for i in range(self.n)]

    @property
    def winners(self) -> list[int]:
        w = getattr(self.match, "winners", None)
        if w is not None:
            return list(w)
        best = min(self.totals)
        return [i for i, v in enumerate(self.totals) if v == best]

    # -- moves -------------------------------------------------------------------------------
    def parse(self, text: str) -> Move:
        """The legal move ``text`` means for the person; raises ``ValueError`` with a short,
        translated reason otherwise."""
        text = text.strip()
        if not text:
            raise ValueError(_t("tui.error.empty", self.lang))
        if self.game.is_over():
            raise ValueError(_t("tui.error.deal_over", self.lang))
        if not self.human_to_move:
            raise ValueError(_t("tui.error.not_your_turn", self.lang,
                                name=self.names[self.game.to_move]))
        original = text
        try:
            text = typed_move_text(text)  # pata9, p9, ru3, hertta10 -> the engine's S9, D3…
        except AmbiguousCard as e:
            raise ValueError(_t("tui.error.r_ambiguous", self.lang, text=e.text,
                                risti=card(CLUBS, e.rank).name(self.lang, "par"),
                                ruutu=card(DIAMONDS, e.rank).name(self.lang, "par"),
                                ri=f"ri{e.rank_text}", ru=f"ru{e.rank_text}")) from None
        if self.game.phase == "give" and ":" not in text:
            # Asked for a card, the person types just the card ("hk", "herttakuningas"):
            # that card is the one to give.
            try:
                return self.game.parse_move(f"{GIVE}:{text}")
            except (MoveError, CardError):
                pass  # not a card: fall through to the general reading and its message
            except IllegalMoveError as e:
                raise ValueError(self.explain(text, str(e))) from None
        try:
            move = self.game.parse_move(text)
        except (MoveError, CardError):
            raise ValueError(_t("tui.error.not_a_move", self.lang, text=original)) from None
        except IllegalMoveError as e:
            raise ValueError(self.explain(text, str(e))) from None
        return move

    def explain(self, text: str, reason: str) -> str:
        """The engine's refusal in the person's language where we know its shape."""
        msg = self._explain(text, reason)
        return msg[:1].upper() + msg[1:]

    def _explain(self, text: str, reason: str) -> str:
        from ..moves import parse_move

        try:
            m = parse_move(text)
        except (MoveError, CardError):
            m = None
        card = card_name(m.card, self.lang) if m is not None and m.card is not None else text
        if "is not in your hand" in reason:
            # Finnish wants the partitive here: "Sinulla ei ole patakasia."
            missing = card_name(m.card, self.lang, "par") if m is not None and m.card is not None else text
            return _t("tui.error.not_in_hand", self.lang, card=missing)
        if "fits in more than one place" in reason:
            return _t("tui.error.ambiguous", self.lang, card=card)
        if "must be played first" in reason:
            return _t("tui.error.opening_first", self.lang,
                      card=_opening_name(self.rules, self.lang))
        need = _needed_card(reason)
        if need is not None:
            return _t("tui.error.does_not_fit_need", self.lang, card=card, need=card_name(need, self.lang))
        if "does not fit" in reason:
            return _t("tui.error.does_not_fit", self.lang, card=card)
        if "you hold a playable card" in reason or "you must play" in reason:
            return _t("tui.error.must_play", self.lang)
        if "you can stop only" in reason:
            return _t("tui.error.no_stop", self.lang)
        if "already played" in reason:
            return _t("tui.error.already_played", self.lang)
        if "choose a card to give" in reason:
            return _t("tui.error.must_give", self.lang)
        return _t("tui.error.illegal", self.lang, reason=reason)

    def apply(self, move: Move, auto: bool = False) -> list[LogLine]:
        """Apply a move of the player to move; return the new log lines. Raises ``ValueError``
        (translated) for an illegal move, leaving everything unchanged. ``auto``: a forced move
        the game made for the person (its log line says so)."""
        g = self.game
        before = len(g.events)
        try:
            g.push(move)
        except IllegalMoveError as e:
            raise ValueError(self.explain(str(move), str(e))) from None
        lines = [self._describe(e, before + k + 1) for k, e in enumerate(g.events[before:])]
        if auto and lines:
            lines[0] = dataclasses.replace(
                lines[0], text=f"{lines[0].text} {_t('forced.log.auto_you', self.lang)}")
        if g.is_over():
            lines += self._finish_deal()
        self.log.extend(lines)
        self.save()
        return lines

    def apply_text(self, text: str) -> list[LogLine]:
        return self.apply(self.parse(text))

    def bot(self, seat: int) -> Any:
        """The bot that plays ``seat`` in this deal."""
        return self._bots[seat]

    def bot_choice(self) -> Move:
        seat = self.game.to_move
        bot = self._bots[seat]
        view = self.game.view(seat)
        move: Move = bot.choose(view)
        if move not in view.legal_moves:
            # A bot must never stall the game: fall back to its first legal move.
            move = view.legal_moves[0]
        return move

    def step_bot(self) -> list[LogLine]:
        """Let the bot to move make one move."""
        if not self.bot_to_move:
            return []
        return self.apply(self.bot_choice())

    def hint(self, seat: int = HUMAN, quick: bool = False) -> tuple[Move | None, str]:
        if self.game.is_over() or self.game.to_move != seat:
            return None, ""
        return hint(self.game.view(seat), self.lang, quick)

    def next_deal(self) -> Game:
        if not self.game.is_over():
            raise ValueError("the deal is not over")
        if self.match_over:
            raise ValueError("the match is over")
        self.game = self._start_deal()
        self.save()
        return self.game

    # -- internals ---------------------------------------------------------------------------
    def _start_deal(self) -> Game:
        g: Game = self.match.new_deal()
        k = len(self.results)
        self._bots = {
            seat: make_bot(self.setup.bots[seat - 1],
                           random.Random(f"{self.setup.seed}:{k}:{seat}").randrange(2**31))
            for seat in range(1, self.n)
        }
        self.log.append(LogLine(_t("tui.log.new_deal", self.lang, n=k + 1,
                                   dealer=self.names[g.dealer]), None, "deal"))
        # Cards laid out before the first move (the stock game's seven of clubs).
        return g

    def _describe(self, e: Event, number: int | None = None) -> LogLine:
        from ..i18n import describe_event

        d = e.to_dict(self.rules.distinct_decks)
        hidden = (e.type == GIVE and HUMAN not in (e.seat, e.other)) or (
            e.type == "draw" and e.seat != HUMAN)
        if hidden and not self.setup.open_cards:
            d.pop("card", None)
        if e.seat == HUMAN or (e.other == HUMAN and e.type in ("ask", "give")):
            text = self._describe_you(d)
            if text:
                return LogLine(text, e.seat, e.type, number)
        return LogLine(describe_event(d, self.names, self.lang), e.seat, e.type, number)

    def _describe_you(self, d: dict[str, Any]) -> str:
        """The person's own moves in the second person ("Pelasit herttakuutosen."), and the
        moves that ask them or give them a card; '' to use the general sentence."""
        from ..i18n import card_name, describe_event

        lang = self.lang
        kind = d["type"]
        kw: dict[str, Any] = {}
        if "card" in d:
            kw["card"] = card_name(d["card"], lang, "acc")
        if "as" in d:
            kw["as_card"] = card_name(d["as"], lang, "acc")
        if d["seat"] != HUMAN:
            kw["name"] = self.names[d["seat"]]
            key = f"tui.event.{kind}_you" + ("" if "card" in d or kind == "ask" else "_hidden")
            return _t(key, lang, **kw)
        if kind in ("ask", "give"):
            other = d.get("from", d.get("to"))
            kw["other"] = self.names[other] if isinstance(other, int) else "?"
        key = f"tui.event.you_{kind}" + ("_joker" if kind == "play" and "as" in d else "")
        text = _t(key, lang, **kw)
        if text == key:
            return ""
        if kind == "play" and ("end" in d or "row" in d):
            # the row or end, as the general sentence words it
            general = describe_event(d, self.names, lang)
            if "(" in general:
                text = text.rstrip(".") + " " + general[general.rindex("("):]
        return text

    def _finish_deal(self) -> list[LogLine]:
        g = self.game
        assert g.result is not None
        self.results.append(g.result)
        self.finished_moves.append([m.text(self.rules.distinct_decks) for m in g.moves])
        self.match.add_result(g.result)
        from ..i18n import result_lines

        # A line that is still a catalog key (a reason the catalog does not know yet) says
        # nothing to a player: leave it out.
        texts = [x for x in result_lines(g.result, self.names, self.lang)
                 if not x.startswith(("core.", "tui."))]
        if g.result.winner == HUMAN and texts:
            texts[0] = _t("tui.result.you_won", self.lang)
        self.last_result_lines = texts
        lines = [LogLine(x, None, "result") for x in texts]
        if not self._replaying:
            self._write_record(g)
        return lines

    def _write_record(self, g: Game) -> None:
        if not self.save_enabled or self.dir is None:
            return
        # The record keeps the names the players had; "you" marks the person's own seat, so
        # that reading it back shows that seat as "Sinä"/"You" (i18n.reader_names) and the
        # person's own moves in the second person.
        rec = game_record(g, self.setup.rules, {"deal": len(self.results),
                                                "match_seed": self.setup.seed, "you": HUMAN})
        try:
            from ..record import dumps_record

            line = dumps_record(rec)
        except (ImportError, TypeError, ValueError):
            line = json.dumps(rec, ensure_ascii=False)
        path = self.dir / "records" / f"match-{self._started}-{self.setup.seed}.jsonl"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as f:
                f.write(line.rstrip("\n") + "\n")
            self.records_path = path
        except OSError as e:
            self.record_error = str(e)

    # -- saving and resuming -------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "version": 1,
            "setup": self.setup.to_dict(),
            "deals": self.finished_moves,
            "current": [] if self.game.is_over() else
            [m.text(self.rules.distinct_decks) for m in self.game.moves],
            "started": self._started,
            "records": str(self.records_path) if self.records_path else None,
        }

    @property
    def state_path(self) -> Path | None:
        return None if self.dir is None else self.dir / STATE_FILE

    def save(self) -> None:
        """Write the match so far (atomically); forget it once the match is over."""
        if not self.save_enabled or self._replaying or self.state_path is None:
            return
        path = self.state_path
        try:
            if self.match_over:
                path.unlink(missing_ok=True)
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.state(), ensure_ascii=False), encoding="utf-8")
            tmp.replace(path)
            self.save_error = None
        except OSError as e:
            self.record_error = str(e)
            self.save_error = e

    @classmethod
    def resume(cls, state: dict[str, Any], data_dir_path: Path | None = None,
               lang: str | None = None, pace: float | None = None) -> Session:
        """Rebuild a saved match by replaying its moves (every deal is set by the seed)."""
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ValueError("not a saved ristiseiska game")
        setup = Setup.from_dict(state["setup"])
        if lang:
            setup.lang = lang
        if pace is not None:
            setup.pace = pace
        s = cls(setup, data_dir_path)
        s._started = str(state.get("started") or s._started)
        if state.get("records"):
            s.records_path = Path(state["records"])
        s._replaying = True
        try:
            for k, moves in enumerate(state.get("deals", [])):
                if k > 0:
                    s.game = s._start_deal()
                for text in moves:
                    s.apply(s.game.parse_move(text))
                if not s.game.is_over():
                    raise ValueError(f"saved deal {k + 1} does not end")
            if state.get("deals") and not s.match_over:
                s.game = s._start_deal()
            for text in state.get("current", []):
                s.apply(s.game.parse_move(text))
        except (IllegalMoveError, MoveError, CardError) as e:
            raise ValueError(f"the saved game does not replay: {e}") from None
        finally:
            s._replaying = False
        s.log.append(LogLine(_t("tui.log.resumed", s.lang), None, "deal"))
        return s

    @classmethod
    def load(cls, data_dir_path: Path, lang: str | None = None,
             pace: float | None = None) -> Session | None:
        path = data_dir_path / STATE_FILE
        if not path.exists():
            return None
        state = json.loads(path.read_text(encoding="utf-8"))
        return cls.resume(state, data_dir_path, lang, pace)


_NEED_PATTERNS = (
    re.compile(r"^(\S+) must be played before"),
    re.compile(r"must wait until (\S+) is down"),
    re.compile(r"cannot skip: (\S+) comes first"),
)


def _needed_card(reason: str) -> Any:
    """The card the engine says must come first, from its English refusal."""
    from ..cards import parse_card

    for pat in _NEED_PATTERNS:
        m = pat.search(reason)
        if m:
            try:
                return parse_card(m.group(1))
            except CardError:
                return None
    return None


def _opening_name(rules: Rules, lang: str) -> str:
    from ..cards import parse_card

    try:
        return card_name(parse_card(rules.opening), lang)
    except CardError:
        return rules.opening


def game_record(g: Game, rules: Rules, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The deal as a record (docs/records.md), with ``extra`` keys (the deal's number)."""
    try:
        from ..record import record_from_game

        rec: dict[str, Any] = record_from_game(g, extra=extra)
        return rec
    except ImportError:
        pass
    mark = rules.distinct_decks
    rec = {
        "format": "ristiseiska-record",
        "version": 1,
        "preset": rules.name.split("+")[0] or None,
        "rules": rules.to_dict(),
        "seed": g.seed,
        "dealer": g.dealer,
        "players": list(g.names),
        "hands": [[c.notation(mark) for c in h] for h in g.initial_hands],
        "events": [e.to_dict(mark) for e in g.events],
        "result": g.result.to_dict() if g.result is not None else None,
    }
    if g.initial_stock:
        rec["stock"] = [c.notation(mark) for c in g.initial_stock]
    if g.initial_table:
        rec["table"] = [c.notation(mark) for c in g.initial_table]
    return rec
