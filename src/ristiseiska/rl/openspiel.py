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
Fan Tan). Observation and information-state tensors are the encoding's observation vector of
the player's view (not a perfect-recall tensor); the information-state string is the seat's
hand and the whole public history as that seat saw it (perfect recall).
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

    def __deepcopy__(self, memo: dict[int, Any]) -> _Config:
        return self


def _bounds(rules: Rules, players: int, deck: int) -> tuple[float, float, int]:
    """(min utility, max utility, max game length): generous bounds, not tight ones."""
    cards = sum(card_value(c, rules) if c < 104 else rules.joker_value
                for c in full_deck(rules.decks, rules.jokers))
    gap = 2 * rules.stall_turns
    length = deck * (gap + 2) + gap + 8
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
        lo, hi, length = _bounds(rules, players, len(self.config.deck))
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
        new._g = Game.from_view(view, hands, stock)
        return new

    def history_for(self, player: int) -> list[dict[str, Any]]:
        """The deal's events as ``player`` saw them."""
        assert self._g is not None
        mark = self._cfg.rules.distinct_decks
        return [public_event(e.to_dict(mark), player) for e in self._prefix + self._g.events]


class Observer:
    """OpenSpiel's observer interface: ``tensor``/``dict`` and ``string_from``."""

    def __init__(self, config: _Config, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.config = config
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        enc = config.encoding
        self.tensor = np.zeros(enc.obs_size, np.float32)
        self.dict = {name: self.tensor[at:at + size] for name, (at, size) in enc.offsets.items()}

    def set_from(self, state: RistiseiskaState, player: int) -> None:
        enc = self.config.encoding
        g = state._g
        if g is None:  # dealing: only the cards this seat got so far
            self.tensor.fill(0)
            h0 = enc.offsets["hand"][0]
            for c in state._dealt_to(player):
                if c < 104:
                    self.tensor[h0 + enc.card_type(c)] += 1
            return
        self.tensor[:] = enc.observe(g.view(player))

    def string_from(self, state: RistiseiskaState, player: int) -> str:
        g = state._g
        if g is None:
            mine = " ".join(str(CARDS[c]) for c in sorted(state._dealt_to(player)))
            return f"p{player} dealing {len(state._dealt)}: {mine}"
        view = g.view(player)
        # With two different decks the deck mark tells the two copies of a card apart: their
        # actions differ, so one information state must not stand for both.
        mark = self.config.rules.distinct_decks
        hand = " ".join(c.notation(mark) for c in view.hand)
        if self.perfect_recall:
            hist = " ".join(_event_text(e) for e in state.history_for(player))
            return f"p{player} hand: {hand} | history: {hist} | phase: {view.phase}"
        rows = " ".join("".join(c.notation(mark) for c in r.cards) or "-" for r in view.rows)
        sizes = ",".join(str(k) for k in view.hand_sizes)
        return (f"p{player} hand: {hand} | table: {rows} | sizes: {sizes} | token: "
                f"{view.token_holder} | chips: {list(view.chips_paid)} | phase: {view.phase}")


def _event_text(e: dict[str, Any]) -> str:
    parts = [str(e["seat"]), e["type"]]
    for k in ("card", "row", "end", "as", "from", "to"):
        if k in e:
            parts.append(f"{k}={e[k]}")
    return ":".join(parts)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(game_type(), RistiseiskaGame)

__all__ = ["RistiseiskaGame", "RistiseiskaState", "SHORT_NAME", "parse_rule_text"]
