"""The network's input: one fixed-size vector for every rule set of the kernel, 3–6 players.

Built from the one-deck observation of :mod:`ristiseiska.rl.encoding` (the same layout the
vector environment writes), padded to six seats, plus

* ``unseen``: the cards neither in the own hand nor on the table;
* ``void``: for each opponent (next seat first), the cards it is known not to hold — public
  knowledge: a player who took the token, passed, paid a chip or asked had no card that fitted
  then (with hoarding rules, only the cards the rules oblige one to play); a draw or a received
  card makes the picture unknown again. Training tracks it in :class:`VoidTracker`, a bot
  reads it from :func:`ristiseiska.bots.knowledge.infer`;
* ``rules``: the number of players and the kernel's rule parameters that change the play
  (failure move, hoarding, extra moves, stock, layout, scoring), and each card's points.

So one network is conditioned on the rules (:func:`rules_vector`) rather than one per
family: the rule sets share almost all of their play (build lines outwards from the sevens,
keep the cards others need), and one set of weights is one file to ship and to train.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..rules import Rules

MAX_PLAYERS = 6
MIN_PLAYERS = 3
NUM_ACTIONS = 110
A_STOP, A_TOKEN, A_PASS, A_CHIP, A_ASK, A_DRAW, A_GIVE = 52, 53, 54, 55, 56, 57, 58
FAILURES = (A_TOKEN, A_PASS, A_CHIP, A_ASK, A_DRAW)

# layout of the feature vector
_BLOCKS = (("hand", 52), ("table", 52), ("fits", 52), ("unseen", 52), ("sizes", MAX_PLAYERS),
           ("token", MAX_PLAYERS), ("chips", MAX_PLAYERS), ("recv", MAX_PLAYERS), ("pot", 1),
           ("phase", 3), ("stock", 1), ("start", 13), ("near", 1), ("void", 52 * (MAX_PLAYERS - 1)),
           ("rules", 24), ("values", 52))
OFFSETS: dict[str, tuple[int, int]] = {}
_at = 0
for _name, _size in _BLOCKS:
    OFFSETS[_name] = (_at, _size)
    _at += _size
FEATURE_SIZE = _at
RULES_SIZE = OFFSETS["rules"][1]


def supported(rules: Rules, players: int) -> str | None:
    """Why the network cannot play these rules at ``players`` (``None``: it can)."""
    from ..kernel import unsupported

    why = unsupported(rules, players)
    if why:
        return why
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"the network plays 3–6 players, not {players}"
    return None


@lru_cache(maxsize=64)
def rules_vector(rules: Rules, players: int) -> np.ndarray:
    """The rule-set block: players (one-hot 3..6), the rule parameters, and (last 52) each
    card's points / 14."""
    from ..kernel import core, rule_arrays

    params, _line, _pos, values = rule_arrays(rules)
    v = np.zeros(RULES_SIZE + 52, np.float32)
    v[players - MIN_PLAYERS] = 1.0
    v[4 + int(params[core.P_FAILURE])] = 1.0  # 4..7
    v[8 + int(params[core.P_HOARD])] = 1.0  # 8..11
    v[12] = params[core.P_EXTRA_MOVE]
    v[13] = params[core.P_MULTI]
    v[14] = params[core.P_UPWARD]
    v[15] = params[core.P_STOCK]
    v[16] = params[core.P_TOKEN_MODE]
    v[17] = params[core.P_FIRST_ROUND_PASS]
    v[18] = params[core.P_OPENING] < 0
    v[19] = params[core.P_PAY_PER_CARD]
    v[20] = params[core.P_ANTE]
    v[21] = params[core.P_SHORT_CHIP]
    v[22] = min(params[core.P_TOKEN_VALUE], 50) / 10.0
    v[23] = min(params[core.P_HOARD_PENALTY], 50) / 10.0
    v[RULES_SIZE:] = values / 14.0
    return v


@lru_cache(maxsize=64)
def mandatory_cards(rules: Rules) -> np.ndarray:
    """Per card (52 floats 0/1): whether a player taking the token while it fits must have
    had no such card (the rules' hoarding allowance; see ``bots.history.mandatory_mask``)."""
    from ..bots.history import mandatory_mask

    m = mandatory_mask(rules, (1 << 52) - 1)
    return np.array([(m >> c) & 1 for c in range(52)], np.float32)


@lru_cache(maxsize=64)
def closing_cards(rules: Rules) -> np.ndarray:
    """Per card: whether it closes its line (gives an extra move under ``extra_move``)."""
    from ..kernel import rule_arrays

    _params, _line, pos, _values = rule_arrays(rules)
    return np.array([pos[c % 13] in (1, 13) for c in range(52)], np.float32)


def build(obs: np.ndarray, players: int, void: np.ndarray, rules: Rules,
          out: np.ndarray | None = None) -> np.ndarray:
    """``(N, FEATURE_SIZE)`` features of ``N`` observations (rows of the one-deck layout for
    ``players``); ``void``: ``(N, players - 1, 52)``, each opponent's known-absent cards,
    next seat first."""
    n = players
    N = obs.shape[0]
    X = np.zeros((N, FEATURE_SIZE), np.float32) if out is None else out
    if out is not None:
        X[:] = 0.0
    X[:, :156] = obs[:, :156]
    X[:, 156:208] = 1.0 - obs[:, :52] - obs[:, 52:104]
    o = 156
    sz = OFFSETS["sizes"][0]
    X[:, sz:sz + n] = obs[:, o:o + n] / 13.0
    tk = OFFSETS["token"][0]
    X[:, tk:tk + n] = obs[:, o + n:o + 2 * n]
    ch = OFFSETS["chips"][0]
    X[:, ch:ch + n] = np.minimum(obs[:, o + 2 * n:o + 3 * n], 30.0) / 10.0
    p = o + 3 * n
    X[:, OFFSETS["pot"][0]] = np.minimum(obs[:, p], 30.0) / 10.0
    ph = OFFSETS["phase"][0]
    X[:, ph:ph + 3] = obs[:, p + 1:p + 4]
    rv = OFFSETS["recv"][0]
    X[:, rv:rv + n] = obs[:, p + 4:p + 4 + n]
    X[:, OFFSETS["stock"][0]] = obs[:, p + 4 + n] / 17.0
    st = OFFSETS["start"][0]
    X[:, st:st + 13] = obs[:, p + 5 + n:p + 18 + n]
    if n > 1:
        X[:, OFFSETS["near"][0]] = obs[:, o + 1:o + n].min(axis=1) <= 2
    vd = OFFSETS["void"][0]
    X[:, vd:vd + 52 * (n - 1)] = void.reshape(N, 52 * (n - 1))
    rl = OFFSETS["rules"][0]
    X[:, rl:] = rules_vector(rules, n)[None, :]
    return X


class VoidTracker:
    """Each seat's known-absent cards in every row of a vector environment whose seats are all
    played by the caller (updated from the actions taken, the observations before and after).
    """

    def __init__(self, rules: Rules, players: int, rows: int) -> None:
        self.n = players
        # void[row, observer, seat]: what the observer knows ``seat`` does not hold (alike
        # for every observer but the one who gave ``seat`` a card: it knows that card)
        self.void = np.zeros((rows, players, players, 52), np.float32)
        self.mandatory = mandatory_cards(rules)
        self.closing = closing_cards(rules)
        from ..kernel import core, rule_arrays

        params = rule_arrays(rules)[0]
        self.multi = bool(params[core.P_MULTI])
        self.extra = bool(params[core.P_EXTRA_MOVE])
        self._rows = np.arange(rows)

    def relative(self, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``(len(rows), n - 1, 52)``: the void of each opponent of ``seats``, next seat first."""
        rows = self._rows if rows is None else rows
        idx = (seats[:, None] + np.arange(1, self.n)[None, :]) % self.n
        out: np.ndarray = self.void[rows[:, None], seats[:, None], idx]
        return out

    def update(self, actions: np.ndarray, seats: np.ndarray, fits_before: np.ndarray,
               new_seats: np.ndarray, new_obs: np.ndarray, done: np.ndarray) -> None:
        """After one step: ``fits_before`` (N × 52) the cards that fitted for the mover,
        ``new_seats``/``new_obs`` the next position, ``done`` the rows whose deal ended (their
        knowledge starts afresh)."""
        rows = self._rows
        fail = np.isin(actions, FAILURES)
        if fail.any():
            r = rows[fail]
            s = seats[fail]
            add = fits_before[fail]
            tok = actions[fail] == A_TOKEN
            add = np.where(tok[:, None], add * self.mandatory[None, :], add)
            self.void[r, :, s] = np.maximum(self.void[r, :, s], add[:, None, :])
            draw = actions[fail] == A_DRAW
            if draw.any():
                self.void[r[draw], :, s[draw]] = 0.0
        give = actions >= A_GIVE
        if give.any():  # the receiver holds a card unseen by all but the giver; its turn is
            # over, so the seat to move next is the one after it
            r = rows[give]
            recv = (new_seats[give] - 1) % self.n
            keep = self.void[r, seats[give], recv].copy()
            self.void[r, :, recv] = 0.0
            self.void[r, seats[give], recv] = keep
        if self.multi or self.extra:
            # a play the rules would have let the seat continue, but its turn ended: it held
            # no card that fitted after it
            play = (actions < 52) & ~done & (new_seats != seats)
            if not self.multi:
                play &= self.closing[np.minimum(actions, 51)] > 0
            if play.any():
                r = rows[play]
                s = seats[play]
                add = new_obs[play, 104:156]
                self.void[r, :, s] = np.maximum(self.void[r, :, s], add[:, None, :])
        if done.any():
            self.void[done] = 0.0


def view_void(view: Any) -> np.ndarray:
    """``(players - 1, 52)``: the opponents' known-absent cards for one seat's view (next seat
    first), from the public history only."""
    from ..bots.knowledge import infer

    n = view.players
    out = np.zeros((n - 1, 52), np.float32)
    know = infer(view)
    for k in range(1, n):
        o = know.opponents.get((view.seat + k) % n)
        if o is None:
            continue
        m = o.excluded if o.free == 0 else o.free_excluded
        m &= (1 << 52) - 1
        if m:
            out[k - 1] = [(m >> c) & 1 for c in range(52)]
    # infer() reads "the rules would have let it go on, but it did not" from the event after
    # a play; when that play is the last event, the turn having passed on says the same
    hist = view.history
    rules = view.rules
    if know.reliable and hist and (rules.multi_play or rules.extra_move) and rules.decks == 1:
        e = hist[-1]
        s = e["seat"]
        if (e["type"] == "play" and s != view.seat and view.to_move != s
                and view.hand_sizes[s] > 0 and e.get("as") is None and not rules.jokers):
            from ..bots.cardtypes import notation_map
            from ..rl.encoding import Encoding

            card = notation_map(rules).get(e.get("card"))
            if card is not None and (rules.multi_play or closing_cards(rules)[int(card)] > 0):
                fits = Encoding(rules, n).observe(view)[104:156]
                k = (s - view.seat) % n
                out[k - 1] = np.maximum(out[k - 1], fits)
    return out


# -- per-action features φ: the linear policy's (bots.policy, rl.train) and the network's ------

# Computed from the observation alone (one-deck rule sets, 110 actions): for playing card c,
# the seat's own cards and the unseen cards that can only follow c, c's points, and c's points
# again when an opponent holds at most two cards; the stop and token moves; for giving card c,
# its points and the cards that can only follow it.
ACTION_FEATURES = ("own_behind", "unseen_behind", "value", "value_near", "stop", "token",
                   "give_value", "give_own_behind", "give_unseen_behind")


@lru_cache(maxsize=32)
def feature_tables(rules: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(B, values)``: ``B[c, j] = 1`` when card ``j`` can only be laid after ``c`` (the
    kernel's ``behind`` masks) and each card's points, for the rules (kernel rule sets)."""
    from ..kernel import behind_array, rule_arrays

    # the masks the shipped network was trained with (without the far side's wait: see
    # behind_array); retraining on the full masks would change every learned weight
    behind = behind_array(rules, far_side=False)
    B = np.array([[(int(behind[c]) >> j) & 1 for j in range(52)] for c in range(52)], float)
    return B, rule_arrays(rules)[3].astype(float)


def action_features(obs: np.ndarray, players: int, B: np.ndarray,
                    values: np.ndarray) -> np.ndarray:
    """``(N, 110, len(ACTION_FEATURES))`` features of every action for ``N`` observations
    (rows of the one-deck layout of :mod:`ristiseiska.rl.encoding`)."""
    N = obs.shape[0]
    hand = obs[:, :52]
    unseen = 1.0 - hand - obs[:, 52:104]
    own = hand @ B.T / 13.0
    hidden = unseen @ B.T / 13.0
    sizes = obs[:, 156 + 1:156 + players]  # the other seats' hand sizes
    near = (sizes.min(axis=1) <= 2).astype(float)[:, None] if players > 1 else np.zeros((N, 1))
    v = values[None, :] / 14.0
    phi = np.zeros((N, NUM_ACTIONS, len(ACTION_FEATURES)))
    phi[:, :52, 0] = own
    phi[:, :52, 1] = hidden
    phi[:, :52, 2] = v
    phi[:, :52, 3] = v * near
    phi[:, A_STOP, 4] = 1.0
    phi[:, A_TOKEN, 5] = 1.0
    phi[:, A_GIVE:A_GIVE + 52, 6] = v
    phi[:, A_GIVE:A_GIVE + 52, 7] = own
    phi[:, A_GIVE:A_GIVE + 52, 8] = hidden
    return phi


def action_phi(obs: np.ndarray, players: int, rules: Rules) -> np.ndarray:
    """The network's φ: :func:`action_features` of ``obs`` under ``rules``, as float32."""
    B, values = feature_tables(rules)
    phi: np.ndarray = action_features(obs, players, B, values).astype(np.float32)
    return phi
