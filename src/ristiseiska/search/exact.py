"""Exact leaves and pooled next choices over sampled deals (extended PIMC).

Late in a deal a sampled world has few positions left, so it can be solved exactly instead of
played out: expectimax with the other seats as uniformly random chance nodes (the solver of
``ristiseiska ceiling``, :mod:`ristiseiska.kernel.ceiling`, with the search's objective
``win_bonus * win - points``). A solved world is clairvoyant: the seat's later choices in it
see every hand, the most optimistic reading of a sampled deal (strategy fusion). With
``pooled`` the seat's **next** choice stays on its information set instead: for every way the
other seats' plays can go until the seat chooses again, the option it would take there is
the best one summed over all the worlds that look the same to it (the same position and the
same cards seen played by each seat), not the best per world (extended PIMC, Arjonilla,
Saffidine and Cazenave); only the choices after that one are clairvoyant.

:func:`exact_values` returns ``None`` when it does not apply (rules the solver does not
model, a move it does not know) or when the first sampled world has more than ``bound``
positions left; the caller then uses the playouts (:func:`ristiseiska.search.kernel_values`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..moves import PLAY, STOP, Move
from .worlds import FULL_MASK

RECORDS = 1 << 16  # first size of the pooled records (grows as needed)
LATER_BOUND = 2  # later worlds may have this many times the first one's bound


class ExactTable:
    """A reusable transposition table sized to a position bound (clearing a table costs as
    much as its size, so it is kept small: the solver stops at the bound)."""

    def __init__(self) -> None:
        self._tab: Any = None
        self._key: tuple[int, int] = (0, 0)

    def get(self, bound: int, players: int) -> Any:
        from ..kernel.ceiling import table_words

        cap = 4
        while cap < 2 * (LATER_BOUND * bound + 2):
            cap *= 2
        if self._tab is None or self._key != (cap, players):
            self._tab = table_words(cap, players)
            self._key = (cap, players)
        return self._tab


def move_codes(legal: list[Move]) -> list[int] | None:
    """The solver's code of each move (a card id; -1 for stop), or ``None`` if a move is
    neither."""
    codes = []
    for m in legal:
        if m.kind == PLAY and m.card is not None and 0 <= int(m.card) < 52:
            codes.append(int(m.card))
        elif m.kind == STOP:
            codes.append(-1)
        else:
            return None
    return codes


def exact_values(view: Any, legal: list[Move], masks: Any, *, bound: int, worlds: int,
                 pooled: bool, win_bonus: float,
                 table: ExactTable | None = None) -> dict[str, Any] | None:
    """Every legal move's value (``win_bonus * win - points``, the mean over the worlds)
    by exact leaves on up to ``worlds`` of the sampled deals ``masks`` (rows of seat hand
    masks, spread evenly over them), with the seat's next choice ``pooled`` or clairvoyant.
    ``None`` where it does not apply or the first world is over ``bound`` positions; a later
    world over ``LATER_BOUND`` times that is left out (``None`` if half of them are).
    Returns ``value``, ``win`` and ``points`` (the clairvoyant means of the two), ``worlds``
    and ``states`` (positions solved)."""
    from ..ceiling import unsupported
    from ..kernel import position_from_game, rule_arrays
    from ..kernel.epimc import RECORDS_FULL, world_values
    from .worlds import game_of_world

    n = view.players
    me = view.seat
    if view.to_move != me or unsupported(view.rules, n) is not None or view.stock_size:
        return None
    codes = move_codes(legal)
    if codes is None:
        return None
    count = masks.shape[0]
    step = max(1, count // max(1, worlds))
    rows = masks[::step][:worlds]
    base = game_of_world(view, rows[0], None)  # no stock: the rng is not used
    pos = position_from_game(base)
    params, line, pos_of, values = rule_arrays(view.rules)
    holder = -1 if pos["token_holder"] is None else int(pos["token_holder"])
    k = len(codes)
    codes_arr = np.array(codes, np.int64)
    tabs = table or ExactTable()
    tab = tabs.get(bound, n)
    joint = float(win_bonus)
    root = np.zeros(k)
    direct = np.zeros(k)
    sum_root = np.zeros(k)
    sum_win = np.zeros(k)
    sum_pts = np.zeros(k)
    cap = RECORDS
    rec_k: Any = np.zeros(cap, np.int64)
    rec_h: Any = np.zeros(cap, np.uint64)
    rec_c: Any = np.zeros(cap, np.int64)
    rec_v: Any = np.zeros(cap, np.float64)
    nrec = np.zeros(1, np.int64)
    solved = 0
    states_total = 0
    win_pts = np.zeros((k, 2))
    for j in range(rows.shape[0]):
        hands = np.ascontiguousarray(rows[j])
        played = FULL_MASK & ~int(np.bitwise_or.reduce(hands))
        limit = bound if j == 0 else LATER_BOUND * bound
        while True:
            keep_n, keep_direct = int(nrec[0]), direct.copy()
            states, tab = world_values(
                hands, n, me, np.uint64(played), bool(pos["more"]), holder, int(pos["stall"]),
                pos["lo"], pos["hi"], params, line, pos_of, values, tab, limit, joint,
                codes_arr, pooled, root, direct, rec_k, rec_h, rec_c, rec_v, nrec, win_pts)
            if states != RECORDS_FULL:
                break
            nrec[0], direct[:] = keep_n, keep_direct  # more room, then this world again
            cap *= 2
            rec_k, rec_h, rec_c, rec_v = (np.resize(a, cap) for a in (rec_k, rec_h, rec_c, rec_v))
        if states < 0:
            nrec[0], direct[:] = keep_n, keep_direct
            if j == 0:
                return None
            continue
        solved += 1
        states_total += int(states)
        sum_root += root
        sum_win += win_pts[:, 0]
        sum_pts += win_pts[:, 1]
    if solved == 0 or 2 * solved < rows.shape[0]:
        return None
    if pooled:
        value = (direct + _pool(rec_k[:nrec[0]], rec_h[:nrec[0]], rec_c[:nrec[0]],
                                rec_v[:nrec[0]], k)) / solved
    else:
        value = sum_root / solved
    return {"value": [float(x) for x in value], "clairvoyant": [float(x) for x in sum_root / solved],
            "win": [float(x) for x in sum_win / solved],
            "points": [float(x) for x in sum_pts / solved], "worlds": solved,
            "states": states_total, "records": int(nrec[0])}


def _pool(rec_k: Any, rec_h: Any, rec_c: Any, rec_v: Any, k: int) -> Any:
    """Per root option: the sum over the seat's next information sets of its best option's
    summed value (records of the same key and option summed over the worlds first)."""
    if rec_k.shape[0] == 0:
        return np.zeros(k)
    kc = rec_k * 64 + (rec_c + 1)
    order = np.lexsort((kc, rec_h))
    hs, kcs, vs = rec_h[order], kc[order], rec_v[order]
    new = np.ones(hs.shape[0], bool)
    new[1:] = (hs[1:] != hs[:-1]) | (kcs[1:] != kcs[:-1])
    idx = np.flatnonzero(new)
    sums = np.add.reduceat(vs, idx)
    g_h, g_k = hs[idx], kcs[idx] // 64
    grp = np.ones(g_h.shape[0], bool)
    grp[1:] = (g_h[1:] != g_h[:-1]) | (g_k[1:] != g_k[:-1])
    gidx = np.flatnonzero(grp)
    best = np.maximum.reduceat(sums, gidx)
    return np.bincount(g_k[gidx], weights=best, minlength=k)


def warm_up() -> None:
    """Compile (or load from the disk cache) the exact leaves now: a small late deal."""
    from ..game import Game
    from ..rules import Rules
    from .worlds import Sampler

    g = Game(Rules(), 3, seed=1)
    while not g.is_over() and (len(g.legal_moves()) < 2 or sum(g.hand_sizes()) > 9):
        g.push(g.legal_moves()[0])
    if g.is_over():
        return
    view = g.view(g.to_move)
    masks = Sampler(0.0).masks(view, _Zero(), 2)
    if masks is not None:
        for pooled in (False, True):
            exact_values(view, list(view.legal_moves), masks, bound=10_000, worlds=2,
                         pooled=pooled, win_bonus=1.0)


class _Zero:
    def getrandbits(self, k: int) -> int:
        return 1

    def random(self) -> float:
        return 0.5
