"""The OpenSpiel game ``python_ristiseiska`` (registered on import).

    >>> import pyspiel
    >>> import ristiseiska.rl.openspiel
    >>> game = pyspiel.load_game("python_ristiseiska", {"preset": "ristiseiska", "players": 4})
    >>> state = game.new_initial_state()   # the deal is chance: one card at a time

Parameters: ``preset`` (a preset name), ``players``, ``dealer`` (the seat that deals) and
``rules`` (house-rule options on top of the preset, ``"token_value=25;hoarding=none"``).
The deal is dealt card by card as chance (each outcome a card id, uniform over the cards not
yet dealt, from the dealer's left; with the stock game the last 17 make the stock). Player
actions are :mod:`.encoding`'s action ids; returns are minus each seat's points (chips for
Fan Tan). The observation tensor is the encoding's observation vector of the player's view;
the information-state tensor adds the seat's hand as dealt and every decision of the deal as
the seat saw it (perfect recall, see :class:`Observer`); the information-state string is the
seat's hand and the whole history as that seat saw it. ``max_game_length`` is a proven bound
(:func:`max_decisions`). The two jokers read ``X`` in every string (they share one action).
``resample_from_infostate`` draws the hidden hands (and stock) from what the seat's view
allows (:mod:`ristiseiska.bots.knowledge`), so OpenSpiel's Python ISMCTS bot can search.
(OpenSpiel's C++ search bots do not work on Python games in the released wheel.)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - the rl extra is installed in the tests
    raise ImportError(f"the OpenSpiel game needs the rl extra: pip install 'ristiseiska[rl]' "
                      f"({e})") from e

from ..cards import CARDS, full_deck, parse_card
from ..game import Event, Game
from ..moves import Move
from ..rules import Rules, RulesError
from ..scoring import card_value
from ..view import public_event
from .common import resolve_rules
from .encoding import Encoding

SHORT_NAME = "python_ristiseiska"
DEFAULTS: dict[str, Any] = {"preset": "ristiseiska", "players": 4, "dealer": 0, "rules": ""}


def parse_rule_text(text: str) -> dict[str, Any]:
    """``"token_value=25;hoarding=none"`` (``;`` or ``,`` between options) as a mapping with
    whole numbers and true/false turned into their types."""
    out: dict[str, Any] = {}
    for part in text.replace(",", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise RulesError(f"rules: write option=value, not {part!r}")
        name, value = (x.strip() for x in part.split("=", 1))
        v: Any = value
        if value.lower() in ("true", "false"):
            v = value.lower() == "true"
        elif value.lstrip("-").isdigit():
            v = int(value)
        out[name] = v
    return out


class _Config:
    """What every state of one game shares (immutable; clones share it instead of copying)."""

    def __init__(self, rules: Rules, players: int, dealer: int) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.encoding = Encoding(rules, players)
        deck = [int(c) for c in full_deck(rules.decks, rules.jokers)]
        # the stock game may lay its opening card out before the deal (V13)
        self.laid = [parse_card(rules.laid_out)] if rules.laid_out is not None else []
        for c in self.laid:
            deck.remove(int(c))
        self.deck = tuple(deck)
        self.to_hands = 17 * players if rules.stock else len(deck)
        self.max_length = 0  # set by the game from max_decisions

    def __deepcopy__(self, memo: dict[int, Any]) -> _Config:
        return self


def max_decisions(rules: Rules, players: int, stock: int) -> int:
    """An upper bound on the player decisions of one deal (chance steps not counted, as
    OpenSpiel's ``max_game_length`` is defined), as tight as the rules allow.

    *Progress* moves put a card on the table: every real card at most once (a play or a swap
    into a joker's place), a joker once per time it comes back to a hand (a swap), so at most
    ``2 R + J`` with jokers and ``R`` without (``R`` real cards, ``J`` jokers). Each may be
    followed by one ``stop`` (only where a turn can go on: several cards a turn or the
    extra move). Between two progress moves, when play is forced (no hoarding, no asking),
    the cards in hands change only by draws, and a card that fits is always held by someone
    or in the stock: after at most ``players - 1`` turns without a card someone must play, so
    the turns without a card number at most ``players`` for each gap and each draw. With
    asking (a card given back and forth) or hoarding (the token taken instead of a card) a
    deal can go round without a card until the stall rule ends it: ``stall_turns`` turns in a
    row, each an ask and a give. The stall rule bounds every gap in any case."""
    real = 52 * rules.decks
    progress = 2 * real + rules.jokers if rules.jokers else real
    stops = progress if (rules.multi_play or rules.extra_move) else 0
    gaps = progress + 1
    voluntary = rules.failure == "ask" or rules.hoarding != "none"
    per_turn = 2 if rules.failure == "ask" else 1
    if voluntary:
        idle = gaps * rules.stall_turns * per_turn
    else:
        idle = min(gaps * rules.stall_turns, players * (gaps + stock))
    return progress + stops + idle


def _bounds(rules: Rules, players: int, deck: int, stock: int) -> tuple[float, float, int]:
    """(min utility, max utility, max game length): utilities generous, the length tight."""
    cards = sum(card_value(c, rules) if c < 104 else rules.joker_value
                for c in full_deck(rules.decks, rules.jokers))
    length = max_decisions(rules, players, stock)
    pen = rules.hoarding_penalty * length if rules.hoarding == "any-with-penalty" else 0
    # a fine for every missed turn (V18, where the rules have it) can repeat every turn
    fines = length if getattr(rules, "token_mode", "object") == "per-miss" else 1
    worst = cards + rules.token_value * fines + pen
    if rules.failure == "chip":
        worst = max(worst, length + deck + 2)
        return -float(worst), float(players * (length + deck + 2)), length
    return -float(worst), 0.0, length


def game_type() -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Ristiseiska (Sevens, Fan Tan, Sjuan) with every house rule",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=8,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULTS,
    )


class RistiseiskaGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = dict(DEFAULTS)
        p.update(params or {})
        rules = resolve_rules(str(p["preset"]), parse_rule_text(str(p["rules"])) or None)
        players = int(p["players"])
        rules.check_players(players)
        dealer = int(p["dealer"])
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, not {dealer}")
        self.config = _Config(rules, players, dealer)
        lo, hi, length = _bounds(rules, players, len(self.config.deck),
                                 len(self.config.deck) - self.config.to_hands)
        self.config.max_length = length
        info = pyspiel.GameInfo(
            num_distinct_actions=self.config.encoding.num_actions,
            max_chance_outcomes=max(self.config.deck) + 1,
            num_players=players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=None,
            max_game_length=length,
        )
        super().__init__(game_type(), info, p)

    def new_initial_state(self) -> RistiseiskaState:
        return RistiseiskaState(self, self.config)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.config, iig_obs_type, params)


class RistiseiskaState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: Any, config: _Config) -> None:
        super().__init__(game)
        self._cfg = config
        self._dealt: list[int] = []  # card ids dealt so far, in order
        self._g: Game | None = None
        self._prefix: list[Event] = []  # history before a resampled position
        self._dealt_override: list[list[int]] | None = None  # dealt hands of a resampled state

    # -- dealing ------------------------------------------------------------------------------
    def _seat_of_card(self, k: int) -> int:
        """The seat that gets the ``k``-th card dealt, or -1 for the stock."""
        if k >= self._cfg.to_hands:
            return -1
        return (self._cfg.dealer + 1 + k) % self._cfg.players

    def _dealt_to(self, seat: int) -> list[int]:
        return [c for k, c in enumerate(self._dealt) if self._seat_of_card(k) == seat]

    def _start(self) -> None:
        cfg = self._cfg
        hands = [[CARDS[c] for c in self._dealt_to(s)] for s in range(cfg.players)]
        stock = [CARDS[c] for k, c in enumerate(self._dealt) if self._seat_of_card(k) < 0]
        self._g = Game(cfg.rules, cfg.players, hands=hands, stock=stock, dealer=cfg.dealer)

    # -- OpenSpiel API ------------------------------------------------------------------------
    def current_player(self) -> int:
        g = self._g
        if g is None:
            return int(pyspiel.PlayerId.CHANCE)
        if g.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return g.to_move

    def _legal_actions(self, player: int) -> list[int]:
        g = self._g
        if g is None or g.is_over() or player != g.to_move:
            return []
        enc = self._cfg.encoding
        return sorted({enc.move_to_action(m) for m in g.legal_moves()})

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(self._cfg.deck) - set(self._dealt))
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self._g is None:
            if action in self._dealt or action not in self._cfg.deck:
                raise ValueError(f"card {action} cannot be dealt now")
            self._dealt.append(int(action))
            if len(self._dealt) == len(self._cfg.deck):
                self._start()
            return
        g = self._g
        g.push(self._cfg.encoding.action_to_move(action, g.legal_moves()))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            # the card id too: the two copies of a card in identical decks read the same
            return f"deal {CARDS[action].notation(self._cfg.rules.distinct_decks)} #{action}"
        return self._cfg.encoding.describe_action(action)

    def is_terminal(self) -> bool:
        return self._g is not None and self._g.is_over()

    def returns(self) -> list[float]:
        g = self._g
        if g is None or g.result is None:
            return [0.0] * self._cfg.players
        return [float(-p) for p in g.result.points]

    def __str__(self) -> str:
        g = self._g
        if g is None:
            return f"dealing: {len(self._dealt)} of {len(self._cfg.deck)} cards dealt"
        from .aec import render_text

        hands = "; ".join(" ".join(str(c) for c in g.hand(s)) for s in range(g.n))
        return render_text(g) + f"\nhands: {hands}"

    # -- search -------------------------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> RistiseiskaState:
        """A state the seat ``player_id`` cannot tell from this one: the hidden hands and the
        stock drawn anew among the deals its view allows."""
        g = self._g
        if g is None or g.is_over():
            same: RistiseiskaState = self.clone()
            return same
        from ..bots.knowledge import infer

        view = g.view(player_id)
        rng = random.Random(int(probability_sampler() * (1 << 53)))
        hands, stock = infer(view).sample(rng)
        hands = [list(h) for h in hands]
        hands[player_id] = list(view.hand)
        new: RistiseiskaState = self.clone()
        new._prefix = self._prefix + list(g.events)
        # the hands as dealt in the drawn deal: the player's own stays; the others are not
        # known (and no observer reads them)
        new._dealt_override = [self.dealt_hand(s) if s == player_id else []
                               for s in range(self._cfg.players)]
        new._g = Game.from_view(view, hands, stock)
        return new

    def dealt_hand(self, player: int) -> list[int]:
        """The card ids ``player`` was dealt (kept across a resampled position)."""
        if self._dealt_override is not None:
            return list(self._dealt_override[player])
        return self._dealt_to(player)

    def history_codes(self, player: int, private: bool = True) -> list[float]:
        """The deal's decisions as ``player`` saw them, one number each (see Observer);
        ``private`` false: as a spectator sees them (no given or drawn card)."""
        assert self._g is not None
        enc = self._cfg.encoding
        n = self._cfg.players
        A, T = enc.num_actions, enc.types
        out: list[float] = []
        for e in self._prefix + self._g.events:
            rel = (e.seat - player) % n
            if e.type == "give" and (not private or player not in (e.seat, e.other)):
                code = A
            elif e.type == "draw":
                if private and e.seat == player and e.card is not None:
                    code = A + 1 + (enc.card_type(int(e.card)) if not e.card.is_joker else T)
                else:
                    code = enc.simple_base + 5
            else:
                code = enc.move_to_action(Move(e.type, e.card, e.row, e.end, e.as_))
            out.append(float(1 + rel + n * code))
        return out

    def history_for(self, player: int | None) -> list[dict[str, Any]]:
        """The deal's events as ``player`` saw them (``None``: a spectator)."""
        assert self._g is not None
        mark = self._cfg.rules.distinct_decks
        return [public_event(e.to_dict(mark), player) for e in self._prefix + self._g.events]


def _name(c: Any, mark: bool) -> str:
    """A card as the strings write it; the two jokers are alike (they share one action id),
    so both read ``X``: which joker a hidden hand holds must not split an information state."""
    return "X" if c.is_joker else str(c.notation(mark))


def _joker_free(text: Any) -> Any:
    return "X" if isinstance(text, str) and len(text) == 2 and text[0] == "X" and \
        text[1].isdigit() else text


# Blocks of the encoding's observation that only the seat itself may know; the rest is
# public (the jokers block is split: its first slot counts the seat's own jokers).
PRIVATE_BLOCKS = frozenset({"hand"})


class Observer:
    """OpenSpiel's observer interface: ``tensor``/``dict`` and ``string_from``, honouring
    ``IIGObservationType`` (``public_info``, ``private_info``, ``perfect_recall``).

    The tensor has the layout of the encoding's observation vector (``None`` of the observation
    type: the default observation) with the blocks that a setting leaves out zeroed:
    ``private_info`` ``NONE`` zeroes the seat's own cards (``hand`` and the first slot of
    ``jokers``); ``public_info`` false zeroes every public block (the table, sizes, token,
    chips, pot, phase, …). ``private_info`` ``ALL_PLAYERS`` adds ``hands``: every other seat's
    hand (in seat order from the observer's left: copies per card type, then jokers).

    With ``perfect_recall`` two blocks follow: ``dealt`` (private: the seat's hand as dealt:
    copies per card type, then jokers) and ``history`` (public: one slot per decision of the
    deal, ``max_game_length`` slots), slot ``k`` holding ``1 + seat + n * code`` for the
    ``k``-th decision (``seat`` relative to the observer, ``code`` the action id of the move as
    the observer saw it; ``A`` for a card given between two other players, unseen; ``A + 1 +
    t`` for the observer's own draw of card type ``t``, ``A + 1 + T`` of a joker), 0 after the
    last decision. Without private information the history is written as a spectator sees it
    (every given card ``A``, every draw unseen). The strings follow the same settings."""

    def __init__(self, config: _Config, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.config = config
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.public = bool(iig_obs_type.public_info)
        pi = iig_obs_type.private_info
        self.private = pi != pyspiel.PrivateInfoType.NONE
        self.all_players = pi == pyspiel.PrivateInfoType.ALL_PLAYERS
        enc = config.encoding
        size = enc.obs_size
        self.blocks: dict[str, tuple[int, int]] = dict(enc.offsets)
        if self.all_players:
            self.blocks["hands"] = (size, (config.players - 1) * (enc.types + 1))
            size += (config.players - 1) * (enc.types + 1)
        if self.perfect_recall:
            self.blocks["dealt"] = (size, enc.types + 1)
            size += enc.types + 1
            self.blocks["history"] = (size, config.max_length)
            size += config.max_length
        self.tensor = np.zeros(size, np.float32)
        self.dict = {name: self.tensor[at:at + k] for name, (at, k) in self.blocks.items()}
        # the slots of the encoding's vector kept under this setting
        keep = np.zeros(enc.obs_size, bool)
        for name, (at, k) in enc.offsets.items():
            if name in PRIVATE_BLOCKS:
                keep[at:at + k] = self.private
            elif name == "jokers":
                keep[at] = self.private
                keep[at + 1:at + k] = self.public
            else:
                keep[at:at + k] = self.public
        self._keep = keep

    def set_from(self, state: RistiseiskaState, player: int) -> None:
        enc = self.config.encoding
        g = state._g
        self.tensor.fill(0)
        if g is None:  # dealing: only the cards this seat got so far (private)
            if self.private:
                self._count(enc.offsets["hand"][0], state._dealt_to(player),
                            enc.offsets["jokers"][0] if enc.jokers else -1)
                if self.perfect_recall:
                    self._dealt(state._dealt_to(player))
            if self.all_players:
                for k in range(1, self.config.players):
                    self._other_hand(k, state._dealt_to((player + k) % self.config.players))
            return
        self.tensor[:enc.obs_size] = enc.observe(g.view(player)) * self._keep
        if self.all_players:
            for k in range(1, self.config.players):
                self._other_hand(k, [int(c) for c in g.hand((player + k) % self.config.players)])
        if self.perfect_recall:
            if self.private:
                self._dealt(state.dealt_hand(player))
            if self.public:
                at, size = self.blocks["history"]
                codes = state.history_codes(player, private=self.private)
                if len(codes) > size:  # pragma: no cover - max_decisions is an upper bound
                    raise RuntimeError(f"{len(codes)} decisions exceed max_game_length {size}")
                self.tensor[at:at + len(codes)] = codes

    def _count(self, at: int, cards: list[int], joker_at: int) -> None:
        enc = self.config.encoding
        for c in cards:
            if c < 104:
                self.tensor[at + enc.card_type(c)] += 1
            else:
                self.tensor[joker_at] += 1

    def _other_hand(self, k: int, cards: list[int]) -> None:
        at, _size = self.blocks["hands"]
        width = self.config.encoding.types + 1
        start = at + (k - 1) * width
        self._count(start, cards, start + width - 1)

    def _dealt(self, cards: list[int]) -> None:
        at, _size = self.blocks["dealt"]
        self._count(at, cards, at + self.config.encoding.types)

    def string_from(self, state: RistiseiskaState, player: int) -> str:
        g = state._g
        mark = self.config.rules.distinct_decks
        n = self.config.players
        parts = [f"p{player}"]
        if g is None:
            if self.private:
                mine = " ".join(_name(CARDS[c], mark) for c in sorted(state._dealt_to(player)))
                parts.append(f"dealing {len(state._dealt)}: {mine}")
            elif self.public:
                parts.append(f"dealing {len(state._dealt)}")
            if self.all_players:
                parts.append(self._hands_text(
                    [sorted(state._dealt_to((player + k) % n)) for k in range(1, n)], mark))
            return _joined(parts)
        view = g.view(player)
        if self.private:
            # With two different decks the deck mark tells the two copies of a card apart:
            # their actions differ, so one information state must not stand for both. The two
            # jokers share their actions, so they read alike.
            parts.append("hand: " + " ".join(_name(c, mark) for c in view.hand))
        if self.all_players:
            parts.append(self._hands_text(
                [[int(c) for c in g.hand((player + k) % n)] for k in range(1, n)], mark))
        if self.public:
            if self.perfect_recall:
                hist = " ".join(_event_text(e) for e in
                                state.history_for(player if self.private else None))
                parts.append(f"history: {hist}")
            else:
                rows = " ".join("".join(_name(c, mark) for c in r.cards) or "-"
                                for r in view.rows)
                sizes = ",".join(str(k) for k in view.hand_sizes)
                parts.append(f"table: {rows} | sizes: {sizes} | token: {view.token_holder} | "
                             f"chips: {list(view.chips_paid)}")
            parts.append(f"phase: {view.phase}")
        return _joined(parts)

    @staticmethod
    def _hands_text(hands: list[list[int]], mark: bool) -> str:
        return "hands: " + " / ".join(" ".join(_name(CARDS[c], mark) for c in h) or "-"
                                      for h in hands)


def _joined(parts: list[str]) -> str:
    return " ".join([parts[0], " | ".join(parts[1:])]) if len(parts) > 1 else parts[0]


def _event_text(e: dict[str, Any]) -> str:
    parts = [str(e["seat"]), e["type"]]
    for k in ("card", "row", "end", "as", "from", "to"):
        if k in e:
            parts.append(f"{k}={_joker_free(e[k])}")
    return ":".join(parts)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(game_type(), RistiseiskaGame)

__all__ = ["RistiseiskaGame", "RistiseiskaState", "SHORT_NAME", "parse_rule_text"]
