"""The ``neural`` bot in plain Python: the shipped network evaluated without numpy or numba.

The offline app (``offline.py`` in Pyodide, issue 47) has no numpy, so this module computes
what :class:`ristiseiska.bots.neural.NeuralBot` computes — the same features
(:func:`ristiseiska.learn.features.build`, the per-action card features of
:func:`ristiseiska.learn.dmc.action_phi`, the observation of :mod:`ristiseiska.rl.encoding`) and
the network's three layers — with lists of floats, reading the very weights file the server's
bot reads (``learn/weights/neural.npz``: a NumPy ``.npz`` archive, parsed here with
:mod:`zipfile` and :mod:`array`). It plays the same move: ``tests/test_neural_plain.py`` plays
seeded deals of several presets with both bots and compares every choice and value.

    >>> from ristiseiska import Game, Rules
    >>> g = Game(Rules(), players=4, seed=1)
    >>> PlainNeuralBot(seed=1).choose(g.view(g.to_move)) in g.legal_moves()
    True

Like the server's bot it plays the ``expert`` bot's move when a single move is legal, and on
rule sets the network does not play (two decks, jokers, the first ace deciding its end, two
players...) with the reason ``neural_fallback`` ("the network does not play these rules").

Speed: the work is a sum of the first layer's rows over the input's nonzero values (the rule
set's constant part summed once per rule set and table size), the second layer over the first's
positive units, and the last layer for the legal moves only.
"""

from __future__ import annotations

import ast
import json
import struct
import sys
import zipfile
from array import array
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..kernel_rules import FAILURES, HOARDS
from ..kernel_rules import unsupported as kernel_unsupported
from ..moves import Move
from ..rules import Rules
from ..table import held_back
from .base import Bot, Reason, legal_of
from .expert import ExpertBot

WEIGHTS = Path(__file__).resolve().parent.parent / "learn" / "weights" / "neural.npz"
FORMAT = "ristiseiska-neural-q"
NAMES = ("W1", "b1", "W2", "b2", "W3", "b3", "theta")
MAX_PLAYERS, MIN_PLAYERS = 6, 3
# the feature layout of ristiseiska.learn.features (tests compare the two)
_BLOCKS = (("hand", 52), ("table", 52), ("fits", 52), ("unseen", 52), ("sizes", MAX_PLAYERS),
           ("token", MAX_PLAYERS), ("chips", MAX_PLAYERS), ("recv", MAX_PLAYERS), ("pot", 1),
           ("phase", 3), ("stock", 1), ("start", 13), ("near", 1), ("void", 52 * (MAX_PLAYERS - 1)),
           ("rules", 24), ("values", 52))
OFFSETS: dict[str, int] = {}
_at = 0
for _name, _size in _BLOCKS:
    OFFSETS[_name] = _at
    _at += _size
FEATURE_SIZE = _at
NUM_ACTIONS = 110
A_STOP, A_TOKEN, A_GIVE = 52, 53, 58
_SIMPLE = {"stop": 52, "token": 53, "pass": 54, "chip": 55, "ask": 56, "draw": 57}
PHASES = ("turn", "more", "give")
ALL52 = (1 << 52) - 1


class WeightsError(ValueError):
    """A weights file this module cannot read."""


def unsupported(rules: Rules, players: int) -> str | None:
    """Why the network cannot play these rules at ``players`` (``None``: it can) — the words of
    :func:`ristiseiska.learn.features.supported` (the compiled kernel's limits, then 3–6
    players)."""
    why = kernel_unsupported(rules, players)
    if why is not None:
        return why
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"the network plays 3–6 players, not {players}"
    return None


# -- the weights file ---------------------------------------------------------------------------
def _npy(data: bytes, name: str) -> tuple[tuple[int, ...], Any]:
    """``(shape, values)`` of one ``.npy`` member: float32 values as an ``array('f')``, a
    Unicode scalar as ``str``."""
    if data[:6] != b"\x93NUMPY":
        raise WeightsError(f"{name} is not a .npy array")
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin-1"))
    body = data[start + hlen:]
    descr, shape = header["descr"], tuple(header["shape"])
    if header.get("fortran_order"):
        raise WeightsError(f"{name}: Fortran order is not read")
    if descr == "<f4":
        a = array("f")
        a.frombytes(body)
        if sys.byteorder != "little":
            a.byteswap()
        return shape, a
    if descr.startswith("<U"):
        return shape, body.decode("utf-32-le").rstrip("\0")
    raise WeightsError(f"{name}: dtype {descr} is not read")


class PlainNet:
    """The network's weights as lists of floats, laid out for sparse products: the first
    layer by input row, the second by hidden unit, the last by action."""

    def __init__(self, path: str | Path = WEIGHTS) -> None:
        try:
            with zipfile.ZipFile(path) as z:
                arrays = {n: _npy(z.read(n + ".npy"), n) for n in (*NAMES, "meta")}
        except FileNotFoundError:
            raise WeightsError(f"weights file {str(path)!r} does not exist") from None
        except (OSError, KeyError, ValueError, SyntaxError, zipfile.BadZipFile) as e:
            raise WeightsError(f"{str(path)!r} is not a network weights file: {e}") from None
        meta = json.loads(arrays["meta"][1])
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise WeightsError(f"{str(path)!r} is not a {FORMAT} file")
        self.meta: dict[str, Any] = meta
        (d, h1), w1 = arrays["W1"]
        (h1b, h2), w2 = arrays["W2"]
        (h2b, na), w3 = arrays["W3"]
        if d != FEATURE_SIZE or h1b != h1 or h2b != h2 or na != NUM_ACTIONS:
            raise WeightsError(f"{str(path)!r}: the weights have the wrong shapes")
        self.hidden = (h1, h2)
        self.W1 = [list(w1[i * h1:(i + 1) * h1]) for i in range(d)]
        self.b1 = list(arrays["b1"][1])
        self.W2 = [list(w2[j * h2:(j + 1) * h2]) for j in range(h1)]
        self.b2 = list(arrays["b2"][1])
        self.W3T = [[w3[k * na + a] for k in range(h2)] for a in range(na)]
        self.b3 = list(arrays["b3"][1])
        self.theta = list(arrays["theta"][1])
        self._base: dict[tuple[Rules, int], list[float]] = {}

    def base(self, rules: Rules, players: int) -> list[float]:
        """``b1`` plus the first layer of the rule set's constant block (cached)."""
        key = (rules, players)
        out = self._base.get(key)
        if out is None:
            out = list(self.b1)
            for i, x in _rule_features(rules, players):
                out = self._add(out, i, x)
            self._base[key] = out
        return out

    def _add(self, h: list[float], i: int, x: float) -> list[float]:
        row = self.W1[i]
        if x == 1.0:
            return [a + w for a, w in zip(h, row, strict=True)]
        return [a + x * w for a, w in zip(h, row, strict=True)]

    def q(self, rules: Rules, players: int, features: list[tuple[int, float]],
          actions: list[int], phi: list[list[float]]) -> list[float]:
        """The values of ``actions`` given the nonzero ``features`` outside the rules block
        (index, value) and each action's card features ``phi``."""
        h = self.base(rules, players)
        for i, x in features:
            h = self._add(h, i, x)
        h2 = list(self.b2)
        W2 = self.W2
        for j, z in enumerate(h):
            if z > 0.0:
                row = W2[j]
                h2 = [a + z * w for a, w in zip(h2, row, strict=True)]
        hid = [(k, z) for k, z in enumerate(h2) if z > 0.0]
        th = self.theta
        out = []
        for a, f in zip(actions, phi, strict=True):
            col = self.W3T[a]
            v = self.b3[a] + sum(z * col[k] for k, z in hid)
            out.append(v + sum(x * t for x, t in zip(f, th, strict=True)))
        return out


@lru_cache(maxsize=2)
def load(path: str = str(WEIGHTS)) -> PlainNet:
    """The network of a weights file, read once per path (do not change it)."""
    return PlainNet(path)


# -- the features -------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _values(rules: Rules) -> tuple[int, ...]:
    out = []
    for c in range(52):
        rank = c % 13 + 1
        if rules.card_values == "one":
            out.append(1)
        elif rank == 1:
            out.append(14 if rules.card_values == "ace14" else 1)
        else:
            out.append(rank)
    return tuple(out)


@lru_cache(maxsize=64)
def _rule_features(rules: Rules, players: int) -> tuple[tuple[int, float], ...]:
    """The nonzero values of the rules block (:func:`ristiseiska.learn.features.rules_vector`)."""
    v = [0.0] * 24
    v[players - MIN_PLAYERS] = 1.0
    v[4 + FAILURES[rules.failure]] = 1.0
    v[8 + HOARDS[rules.hoarding]] = 1.0
    v[12] = float(rules.extra_move)
    v[13] = float(rules.multi_play)
    v[14] = float(rules.layout == "upward")
    v[15] = float(rules.stock)
    v[16] = float(rules.fines_per_miss)
    v[17] = float(rules.first_round_pass)
    v[18] = float(rules.opening == "any")
    v[19] = float(rules.pay_per_card)
    v[20] = float(rules.ante)
    v[21] = float(rules.short_hand_chip)
    v[22] = min(rules.token_value, 50) / 10.0
    v[23] = min(rules.hoarding_penalty, 50) / 10.0
    v += [x / 14.0 for x in _values(rules)]
    r0 = OFFSETS["rules"]
    return tuple((r0 + i, _f32(x)) for i, x in enumerate(v) if x != 0.0)


def _f32(x: float) -> float:
    """``x`` rounded to float32, as the numpy features hold it."""
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


@lru_cache(maxsize=64)
def _behind(rules: Rules) -> tuple[int, ...]:
    masks = held_back(rules, far_side=False)
    assert masks is not None  # every rule set the network plays has a known line
    return masks


@lru_cache(maxsize=64)
def _closing(rules: Rules) -> int:
    """The cards that close their line (the line's two ends), as a bitmask."""
    ranks = list(range(1, 14)) if rules.ace == "low" else list(range(2, 14)) + [1]
    ends = (ranks[0] - 1, ranks[-1] - 1)
    return sum(1 << c for c in range(52) if c % 13 in ends)


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def view_void(view: Any) -> list[int]:
    """Per opponent (next seat first): the bitmask of the cards it is known not to hold, as
    :func:`ristiseiska.learn.features.view_void` reads them."""
    from .cardtypes import notation_map
    from .knowledge import infer

    n = view.players
    out = [0] * (n - 1)
    know = infer(view)
    for k in range(1, n):
        o = know.opponents.get((view.seat + k) % n)
        if o is None:
            continue
        out[k - 1] = (o.excluded if o.free == 0 else o.free_excluded) & ALL52
    hist = view.history
    rules = view.rules
    if know.reliable and hist and (rules.multi_play or rules.extra_move) and rules.decks == 1:
        e = hist[-1]
        s = e["seat"]
        if (e["type"] == "play" and s != view.seat and view.to_move != s
                and view.hand_sizes[s] > 0 and e.get("as") is None and not rules.jokers):
            card = notation_map(rules).get(e.get("card"))
            if card is not None and (rules.multi_play or _closing(rules) >> int(card) & 1):
                k = (s - view.seat) % n
                out[k - 1] |= view.table.playable & ALL52
    return out


def features(view: Any) -> tuple[list[tuple[int, float]], int, int, bool]:
    """The nonzero features of a view outside the rules block, and the hand's and the unseen
    cards' bitmasks and whether an opponent holds at most two cards (for :func:`phi`)."""
    n, me = view.players, view.seat
    hand = 0
    for c in view.hand:
        hand |= 1 << int(c)
    table = 0
    for row in view.rows:
        for c in row.cards:
            if not c.is_joker:
                table |= 1 << int(c)
    fits = view.table.playable & ALL52
    unseen = ALL52 & ~hand & ~table
    X: list[tuple[int, float]] = [(c, 1.0) for c in _bits(hand)]
    X += [(52 + c, 1.0) for c in _bits(table)]
    X += [(104 + c, 1.0) for c in _bits(fits)]
    X += [(156 + c, 1.0) for c in _bits(unseen)]
    fines = getattr(view, "token_fines", ()) or (0,) * n
    sizes = [0] * n
    for s in range(n):
        k = (s - me) % n
        sizes[k] = view.hand_sizes[s]
        if sizes[k]:
            X.append((OFFSETS["sizes"] + k, _f32(sizes[k] / 13.0)))
        chips = view.chips_paid[s] + fines[s]
        if chips:
            X.append((OFFSETS["chips"] + k, _f32(min(chips, 30) / 10.0)))
    if view.token_holder is not None:
        X.append((OFFSETS["token"] + (view.token_holder - me) % n, 1.0))
    if view.pot:
        X.append((OFFSETS["pot"], _f32(min(view.pot, 30) / 10.0)))
    if view.phase in PHASES:
        X.append((OFFSETS["phase"] + PHASES.index(view.phase), 1.0))
        if view.phase == "give":
            X.append((OFFSETS["recv"] + (view.turn_seat - me) % n, 1.0))
    if view.stock_size:
        X.append((OFFSETS["stock"], _f32(view.stock_size / 17.0)))
    if view.table.start_rank:
        X.append((OFFSETS["start"] + view.table.start_rank - 1, 1.0))
    near = n > 1 and min(sizes[1:]) <= 2
    if near:
        X.append((OFFSETS["near"], 1.0))
    vd = OFFSETS["void"]
    for k, m in enumerate(view_void(view)):
        X += [(vd + 52 * k + c, 1.0) for c in _bits(m)]
    return X, hand, unseen, near


def phi(rules: Rules, action: int, hand: int, unseen: int, near: bool) -> list[float]:
    """An action's card features (:func:`ristiseiska.bots.policy.action_features`)."""
    f = [0.0] * 9
    if action < 52 or A_GIVE <= action < A_GIVE + 52:
        c = action if action < 52 else action - A_GIVE
        b = _behind(rules)[c]
        own = _f32(bin(hand & b).count("1") / 13.0)
        hidden = _f32(bin(unseen & b).count("1") / 13.0)
        v = _f32(_values(rules)[c] / 14.0)
        if action < 52:
            f[0], f[1], f[2], f[3] = own, hidden, v, (v if near else 0.0)
        else:
            f[6], f[7], f[8] = v, own, hidden
    elif action == A_STOP:
        f[4] = 1.0
    elif action == A_TOKEN:
        f[5] = 1.0
    return f


def action_id(move: Move) -> int:
    """The one-deck action id of a legal move (:meth:`ristiseiska.rl.encoding.Encoding.move_to_action`)."""
    if move.kind == "play":
        assert move.card is not None
        return int(move.card)
    if move.kind == "give":
        assert move.card is not None
        return A_GIVE + int(move.card)
    return _SIMPLE[move.kind]


class NetworkPlay(Bot):
    """How a network bot decides, one home for the numpy bot (``bots/neural.py``) and this one:
    the expert's move where the network does not play the rules (reason ``neural_fallback``) or
    where there is one legal move, else the move of highest value (the first of equal ones)."""

    _fallback: ExpertBot | None = None

    def unsupported(self, view: Any) -> str | None:
        raise NotImplementedError

    def action_values(self, view: Any) -> tuple[list[Move], Any]:
        raise NotImplementedError

    def fallback_bot(self) -> ExpertBot:
        if self._fallback is None:
            self._fallback = ExpertBot(seed=self.seed)
        return self._fallback

    def decide(self, view: Any) -> tuple[Move, Reason]:
        why = self.unsupported(view)
        if why is not None:
            move, reason = self.fallback_bot().decide(view)
            return move, ("neural_fallback", {"base": reason, "why": why})
        legal = list(legal_of(view))
        if len(legal) == 1:
            return self.fallback_bot().decide(view)
        legal, q = self.action_values(view)
        k = max(range(len(q)), key=q.__getitem__)  # the first of equal values, as argmax
        return legal[k], ("neural", {"move": str(legal[k])})


class PlainNeuralBot(NetworkPlay):
    name = "neural"

    def __init__(self, seed: int | None = None, path: str | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        self.net = load(str(path) if path is not None else str(WEIGHTS))
        if self.net.meta.get("role") == "value":
            raise WeightsError(f"{path!r} is the value network of a PPO run, not a policy")
        self._fallback: ExpertBot | None = None

    def unsupported(self, view: Any) -> str | None:
        return unsupported(view.rules, view.players)

    def action_values(self, view: Any) -> tuple[list[Move], list[float]]:
        """The legal moves and the network's value of each (for the seat of ``view``)."""
        legal = list(legal_of(view))
        X, hand, unseen, near = features(view)
        ids = [action_id(m) for m in legal]
        rules = view.rules
        return legal, self.net.q(rules, view.players, X, ids,
                                 [phi(rules, a, hand, unseen, near) for a in ids])
