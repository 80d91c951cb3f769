"""Search on top of the learned network: the ``master-neural`` bot's machinery, and the
playouts of the ``master`` bot's ``learned`` option (:func:`playout_values`).

For one decision:

1. **Worlds.** The hidden cards are dealt many times consistently with everything public (the
   compiled sampler, :meth:`ristiseiska.search.Sampler.masks`), ``oversample``
   times as many as kept. Each deal is then weighted by how likely the network finds each
   opponent's last few choices in it (:func:`policy_log_likelihood`: the opponent's hand at
   the time is its hand in the deal plus the cards it played since; its choice is scored by a
   softmax over its legal moves' values, sharpness ``beta``), and ``worlds`` deals are kept by
   systematic resampling.
2. **Playouts.** Every candidate move is made in every kept deal, and the deal goes on with the
   network playing every seat (:class:`Playouts`, lockstep over all deals and moves in the
   compiled vector environment) until the searching seat has had ``depth`` more turns — then the
   network's value of its position cuts the playout short — or the deal ends (``depth=0``:
   always to the end). The candidate with the best mean outcome (``win - points / scale``, the
   network's own unit) is played.

Every input is the searching seat's view: the deals are samples of what it cannot see.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..learn import features as F
from ..learn.net import Net
from ..rules import Rules
from .worlds import game_of_world, worlds_after

FULL = (1 << 52) - 1


@lru_cache(maxsize=64)
def scale_for(rules: Rules, players: int, known: tuple[tuple[str, int, float], ...] = ()) -> float:
    """The points scale the network was trained with for these rules (from the weights' meta
    when listed there, else measured like the trainer does)."""
    for name, n, s in known:
        if n == players and rules.name == name:
            return s
    from ..learn.dmc import points_scale

    return points_scale(rules, players)


def _bits(mask: int) -> np.ndarray:
    return np.array([(mask >> c) & 1 for c in range(52)], np.float32)


def _rows_bits(masks: np.ndarray) -> np.ndarray:
    """``(N, 52)`` 0/1 floats of uint64 masks."""
    sh = np.arange(52, dtype=np.uint64)
    return ((masks[:, None] >> sh[None, :]) & np.uint64(1)).astype(np.float32)


class Playouts:
    """Deals of one rule set stepped together, every seat played by the network."""

    def __init__(self, net: Net, rules: Rules, players: int, rows: int, scale: float) -> None:
        from ..kernel.vecenv import VecEnv

        self.net = net
        self.rules = rules
        self.n = players
        self.env = VecEnv(rules, players, rows, seed=0)
        self.env.reset()
        self.void = F.VoidTracker(rules, players, rows)
        self.scale = scale

    def load(self, rows: slice, pos: dict[str, Any], hands: np.ndarray,
             voids: np.ndarray) -> None:
        """Set ``rows`` to the position ``pos`` (:func:`ristiseiska.kernel.position_from_game`
        of one deal) with the hands ``hands`` (one row of seat masks per row) and each seat's
        known-absent cards ``voids`` (seats × 52, alike in every row). Call :meth:`ready`
        once every row is set."""
        from ..kernel import codes
        from ..kernel.vecrows import C_AUX, C_DONE, C_HI, C_LO, C_MORE, C_RECV, C_SEAT

        e = self.env
        e.hands[rows] = hands
        st = e.st
        st[rows, C_SEAT] = pos["to_move"]
        st[rows, C_MORE] = int(bool(pos["more"]))
        st[rows, C_RECV] = -1 if pos["receiver"] is None else int(pos["receiver"])
        st[rows, C_DONE] = 0
        st[rows, C_AUX:C_AUX + codes.N_AUX] = 0
        holder = pos["token_holder"]
        st[rows, C_AUX + codes.AUX_HOLDER] = -1 if holder is None else int(holder)
        st[rows, C_AUX + codes.AUX_STALL] = int(pos["stall"])
        st[rows, C_AUX + codes.AUX_POT] = int(pos["pot"])
        st[rows, C_AUX + codes.AUX_STOCK] = e.stock_len - len(pos["stock"])
        start = int(pos["start_rank"])
        st[rows, C_AUX + codes.AUX_START] = start
        st[rows, C_LO:C_LO + 4] = np.asarray(pos["lo"], np.int64)[None, :]
        st[rows, C_HI:C_HI + 4] = np.asarray(pos["hi"], np.int64)[None, :]
        line, poss = e.line0.copy(), e.pos0.copy()
        if start and self.rules.layout == "upward":
            for p in range(13):
                off = (start - 1 + p) % 13
                line[p] = off
                poss[off] = p + 1
        e.lines[rows] = line[None, :]
        e.poss[rows] = poss[None, :]
        e.turns[rows] = np.asarray(pos["turns"], np.int64)[None, :]
        e.chips[rows] = np.asarray(pos["chips"], np.int64)[None, :]
        e.pens[rows] = np.asarray(pos["penalties"], np.int64)[None, :]
        held = np.bitwise_or.reduce(hands, axis=1)
        if len(pos["stock"]):
            e.stock[rows, e.stock_len - len(pos["stock"]):e.stock_len] = np.asarray(
                pos["stock"], np.int64)[None, :]
            for c in pos["stock"]:
                held |= np.uint64(1 << int(c))
        e.tab[rows] = np.uint64(FULL) & ~held
        self._load_void(rows, voids)

    def _load_void(self, rows: slice, voids: np.ndarray) -> None:
        self.void.void[rows] = voids[None, None, :, :]

    def ready(self) -> None:
        """Compute every row's observation and legal moves after :meth:`load`."""
        e = self.env
        e._run(e._noop, False)

    def values(self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray,
               rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Action values (masked to the legal ones, -inf elsewhere) of ``rows``."""

        o = obs[rows]
        X = F.build(o, self.n, self.void.relative(seats[rows], rows), self.rules)
        q = self.net.q(X, F.action_phi(o, self.n, self.rules))
        q[mask[rows] == 0] = -np.inf
        return q, o

    def _advance(self, a: np.ndarray, live: np.ndarray, obs: np.ndarray,
                 seats: np.ndarray) -> np.ndarray:
        """Apply one action per row (every row: finished ones start a deal nobody counts);
        returns the rows whose deal ended."""
        fits = obs[:, 104:156].copy()
        obs2, _m, seats2, _r, done = self.env.step(a)
        self.void.update(a, seats, fits, seats2, obs2, done)
        return done

    def run(self, me: int, depth: int, max_steps: int = 400) -> np.ndarray:
        """Play every row on; return each row's outcome for ``me``. ``depth``: the playout
        stops when ``me`` is to move for the ``depth``-th time (then the network's value of
        that position counts); 0 plays to the end of the deal."""
        e = self.env
        R = e.num_envs
        out = np.zeros(R, np.float64)
        live = np.ones(R, bool)
        turns = np.zeros(R, np.int64)
        for _ in range(max_steps):
            obs, mask, seats = e.obs, e.mask, e.st[:, 0].copy()
            mine = live & (seats == me) & (e.st[:, 2] < 0)
            if depth > 0 and mine.any():
                turns[mine] += 1
                cut = mine & (turns >= depth)
                if cut.any():
                    rows = np.flatnonzero(cut)
                    q, _ = self.values(obs, mask, seats, rows)
                    out[rows] = q.max(axis=1)
                    live[rows] = False
            if not live.any():
                break
            a = np.argmax(mask, axis=1).astype(np.int64)
            legal = mask.sum(axis=1)
            choose = np.flatnonzero(live & (legal > 1))
            if choose.size:
                q, _ = self.values(obs, mask, seats, choose)
                a[choose] = np.argmax(q, axis=1)
            done = self._advance(a, live, obs, seats)
            fin = done & live
            if fin.any():
                rows = np.flatnonzero(fin)
                win = (e.winners[rows] == me).astype(np.float64)
                out[rows] = win - e.points[rows, me] / self.scale
                live[rows] = False
        if live.any():  # safety: a deal longer than max_steps (stall limits end them first)
            rows = np.flatnonzero(live)
            q, _ = self.values(e.obs, e.mask, e.st[:, 0], rows)
            out[rows] = q.max(axis=1)
        return out


class KernelOpponentPlayouts(Playouts):
    """:class:`Playouts` where only the searching seat ``me`` is played by the network and
    every other seat by a kernel policy (``opponents[s]``: ``"sensible"``, ``"random"``...,
    the classic master's models of how the opponents play), inside the compiled step. The
    network's input about the opponents' known-absent cards is the kernel's own knowledge
    block (seeded with the root's)."""

    def __init__(self, net: Net, rules: Rules, players: int, rows: int, scale: float, me: int,
                 opponents: list[str], seed: int = 0) -> None:
        from ..kernel.vecenv import VecEnv

        self.net = net
        self.rules = rules
        self.n = players
        self.me = me
        opp: list[str | None] = list(opponents)
        opp[me] = None
        self.env = VecEnv(rules, players, rows, seed=seed, opponents=opp, knowledge=0)
        self.env.reset()
        self.base = self.env.base_obs_size
        self.scale = scale

    def _load_void(self, rows: slice, voids: np.ndarray) -> None:
        e = self.env
        e.absent[rows] = 0
        e.recent[rows] = -1
        for s in range(self.n):
            if s != self.me:
                m = 0
                for c in np.flatnonzero(voids[s] > 0):
                    m |= 1 << int(c)
                e.absent[rows, self.me, s] = np.uint64(m)

    def values(self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray,
               rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:

        o = obs[rows]
        base = o[:, :self.base]
        void = o[:, self.base:self.base + (self.n - 1) * 52].reshape(-1, self.n - 1, 52)
        X = F.build(base, self.n, void, self.rules)
        q = self.net.q(X, F.action_phi(base, self.n, self.rules))
        q[mask[rows] == 0] = -np.inf
        return q, base

    def _advance(self, a: np.ndarray, live: np.ndarray, obs: np.ndarray,
                 seats: np.ndarray) -> np.ndarray:
        """One of ``me``'s decisions in each live row (the kernel plays the others in
        between; finished rows stay as they are)."""
        done: np.ndarray = self.env.step_rows(a, live)[4]
        return done


def past_choices(view: Any, last: int = 4) -> list[dict[str, Any]]:
    """The opponents' recent card choices (up to ``last`` each, newest first) that the network
    can score in a sampled deal: for each, the seat, the card played, the cards that fitted then,
    the cards on the table then, the hand sizes then, and the cards the seat played later and
    received later (its hand then is its hand in the deal plus the former, less the latter).

    The moments come from :func:`ristiseiska.bots.knowledge.infer` (its ``observations``, in
    the order of the history); the table and hand sizes are replayed from the public history.
    Token, chips and known-absent cards of that moment are left out of the rebuilt observation
    (an approximation: they matter little to which card the seat chose)."""
    from ..bots.cardtypes import card_type, notation_map
    from ..bots.knowledge import infer

    rules = view.rules
    if rules.jokers or rules.decks != 1:
        return []
    know = infer(view)
    obs = know.observations
    if not know.reliable or not obs:
        return []
    names = notation_map(rules)
    n = view.players
    sizes = list(view.dealt_sizes)
    table = 0
    for c in view.laid_out:
        table |= 1 << card_type(rules, int(c))
    ptr = 0
    moments: list[dict[str, Any]] = []
    for e in view.history:
        typ, s = e["type"], e["seat"]
        if typ == "play":
            card = names.get(e.get("card"))
            if card is None:
                return []
            t = card_type(rules, int(card))
            if ptr < len(obs) and obs[ptr][0] == s and obs[ptr][1] == t:
                o = obs[ptr]
                moments.append({"seat": s, "card": t, "fits": o[2], "later": o[3],
                                "received": o[4], "table": table, "sizes": list(sizes)})
                ptr += 1
            table |= 1 << t
            sizes[s] -= 1
        elif typ == "draw":
            sizes[s] += 1
        elif typ == "give":
            sizes[s] -= 1
            to = e.get("to")
            if to is not None:
                sizes[to] += 1
    out: list[dict[str, Any]] = []
    per: dict[int, int] = {}
    for m in reversed(moments):
        k = per.get(m["seat"], 0)
        if k < last:
            per[m["seat"]] = k + 1
            out.append(m)
    del n
    return out


def policy_log_likelihood(net: Net, view: Any, hands: np.ndarray, moments: list[dict[str, Any]],
                          beta: float) -> np.ndarray:
    """Per sampled deal (rows of ``hands``, seat masks): the log-likelihood of the opponents'
    ``moments`` (:func:`past_choices`) if each chose by a softmax of the network's values
    (sharpness ``beta``)."""

    W = hands.shape[0]
    ll = np.zeros(W)
    if not moments or beta <= 0:
        return ll
    rules, n = view.rules, view.players
    size = 3 * 52 + 4 * n + 1 + 3 + 1 + 13 + 2
    start = view.table.start_rank or 0
    rows_obs = []
    rows_legal = []
    rows_card = []
    for m in moments:
        s = m["seat"]
        hand = (hands[:, s] | np.uint64(m["later"] & FULL)) & np.uint64(~m["received"] & FULL)
        hb = _rows_bits(hand)
        o = np.zeros((W, size), np.float32)
        o[:, :52] = hb
        o[:, 52:104] = _bits(m["table"])[None, :]
        fits = _bits(m["fits"])
        o[:, 104:156] = fits[None, :]
        for k in range(n):
            o[:, 156 + k] = m["sizes"][(s + k) % n]
        o[:, 156 + 3 * n + 1] = 1.0  # phase: a normal turn
        if start:
            o[:, 156 + 4 * n + 5 + start - 1] = 1.0
        rows_obs.append(o)
        legal = hb * fits[None, :]
        legal[:, m["card"]] = 1.0  # it was held then (the sampler keeps deals consistent)
        rows_legal.append(legal)
        rows_card.append(m["card"])
    obs_all = np.concatenate(rows_obs)
    L = np.concatenate(rows_legal)
    void = np.zeros((obs_all.shape[0], n - 1, 52), np.float32)
    X = F.build(obs_all, n, void, rules)
    q = net.q(X, F.action_phi(obs_all, n, rules))[:, :52]
    q = np.where(L > 0, beta * q, -np.inf)
    q -= q.max(axis=1, keepdims=True)
    logp = q - np.log(np.exp(q).sum(axis=1, keepdims=True))
    cards = np.repeat(np.array(rows_card), W)
    chosen = logp[np.arange(obs_all.shape[0]), cards]
    ll += chosen.reshape(len(moments), W).sum(axis=0)
    return ll


def resample(logw: np.ndarray, count: int, u: float) -> np.ndarray:
    """Systematic resampling: ``count`` indices drawn by weight ``exp(logw)``."""
    w = np.exp(logw - logw.max())
    edges = (u + np.arange(count)) * (w.sum() / count)
    idx: np.ndarray = np.minimum(np.searchsorted(np.cumsum(w), edges, side="right"), len(w) - 1)
    return idx


def playout_values(net: Any, view: Any, legal: list[Any], masks: np.ndarray, rng: Any, *,
                   scale: float, rollouts: int = 1, depth: int = 0,
                   opponents: list[str] | None = None) -> np.ndarray:
    """The mean outcome (``win - points / scale``) of every move of ``legal`` over the sampled
    deals ``masks`` (rows of seat hand masks, the bot's own hand in its seat), each deal
    played on ``rollouts`` times: the bot's own later moves by the network, the other seats'
    by the network too (``opponents=None``: :class:`Playouts`, ``depth`` cuts them short) or
    by the kernel policies ``opponents[seat]`` (:class:`KernelOpponentPlayouts`)."""
    from .. import kernel

    me, n = view.seat, view.players
    W = masks.shape[0]
    base = game_of_world(view, masks[0], rng)
    rel = F.view_void(view)
    voids = np.zeros((n, 52), np.float32)
    for k in range(1, n):
        voids[(me + k) % n] = rel[k - 1]
    values = np.zeros(len(legal))
    todo: list[tuple[int, dict[str, Any], np.ndarray]] = []
    for i, m in enumerate(legal):
        g = base.copy()
        g.push(m)
        if g.is_over():
            res = g.result
            assert res is not None
            values[i] = float(res.winner == me) - float(res.points[me]) / scale
            continue
        todo.append((i, kernel.position_from_game(g), worlds_after(masks, base, g)))
    if not todo:
        return values
    R = W * rollouts
    play: Playouts | KernelOpponentPlayouts
    if opponents is not None:
        play = KernelOpponentPlayouts(net, view.rules, n, R * len(todo), scale, me, opponents,
                                      seed=rng.getrandbits(62))
    else:
        play = Playouts(net, view.rules, n, R * len(todo), scale)
    for j, (_i, pos, hands) in enumerate(todo):
        play.load(slice(j * R, (j + 1) * R), pos, np.tile(hands, (rollouts, 1)), voids)
    play.ready()
    out = play.run(me, depth)
    for j, (i, _pos, _hands) in enumerate(todo):
        values[i] = float(out[j * R:(j + 1) * R].mean())
    return values
