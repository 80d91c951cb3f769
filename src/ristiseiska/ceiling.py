"""The exact ceiling against uniformly random players: what a seat could at best expect.

Against players who choose uniformly among their legal moves (the ``random`` bot: every card
that fits; after a closing card also *stop*; a single legal move is simply made) a deal whose
hands are all open is a one-player problem against chance. Expectimax over the random seats'
choices gives, from any position, the greatest expected result any player could reach in that
deal — even one who saw every card. Two results, each by its own best play:

* **win**: the probability of winning the deal (the tournament's win: going out first; a deal
  that ends by the stall limit is shared among the lowest scores);
* **points**: the least expected points of the deal's score (cards left in hand, the token).

:func:`position_values` solves a position in compiled code (``kernel.ceiling``, a
transposition table keyed on the state); :func:`reference_values` is the same in plain Python
over :class:`~ristiseiska.game.Game` (slow: for tests on small positions). :func:`run_deals`
solves the deals a duplicate tournament plays (deal ``i`` of seed ``S``, every seat), and
:func:`summary` gives the means with 95% intervals.

    >>> from ristiseiska import Game, Rules
    >>> g = Game(Rules(), players=3, seed=5)
    >>> for _ in range(36):
    ...     g.push(g.legal_moves()[0])
    >>> v = position_values(g)
    >>> r = reference_values(g)
    >>> all(abs(a - b) < 1e-5 for a, b in zip(v.win + v.points, r.win + r.points))
    True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from .game import Game
from .rules import Rules
from .sim import derive_seed

Z95 = 1.959963984540054
TABLE_RECORDS = 1 << 22  # the first size of the compiled transposition table (doubles as needed)


class CeilingError(ValueError):
    """Rules or a position the ceiling cannot be computed for."""


@dataclass(frozen=True)
class SeatValues:
    """Per seat, as the one seat that chooses (every other seat random): the best win
    probability and the least expected points. ``states``: positions solved (compiled)."""

    win: tuple[float, ...]
    points: tuple[float, ...]
    states: int = 0


def unsupported(rules: Rules, players: int | None = None) -> str | None:
    """Why the ceiling cannot be computed for these rules (a phrase), or ``None``.

    The compiled kernel's rules, less those that move cards between hands (asking, the stock)
    or keep counts a score depends on besides the cards and the token (chips, fines for every
    miss, hoarding penalties), the free Fan Tan layout, and hoarding (which lets a seat pass
    with cards that fit)."""
    from .kernel import unsupported as kernel_unsupported

    why = kernel_unsupported(rules, players)
    if why:
        return why
    checks = [
        (rules.failure in ("token", "pass"), f"failure={rules.failure}"),
        (not rules.fines_per_miss, "a fine for every miss"),
        (rules.hoarding == "none", f"hoarding={rules.hoarding}"),
        (not rules.stock, "the stock"),
        (rules.layout != "upward", "the free Fan Tan layout"),
    ]
    for ok, what in checks:
        if not ok:
            return f"the ceiling is not computed for {what}"
    return None


def _check(game: Game) -> None:
    why = unsupported(game.rules, game.n)
    if why:
        raise CeilingError(why)
    if game.is_over():
        raise CeilingError("the deal is over")
    held = 0
    for h in game._hands:
        held |= h
    if held | _on_table(game) != (1 << 52) - 1:
        raise CeilingError("every card must be in a hand or on the table")


def _on_table(game: Game) -> int:
    m = 0
    for occ in game.table.occupant:
        for c in occ.values():
            m |= 1 << c
    return m


def position_values(game: Game, table: Any = None) -> SeatValues:
    """The exact ceiling of ``game``'s position for every seat (compiled).

    ``table``: a transposition table from :func:`~ristiseiska.kernel.ceiling.table_words` to
    reuse (it is cleared); a new one otherwise."""
    vals, _ = _solve(game, table)
    return vals


def _solve(game: Game, table: Any) -> tuple[SeatValues, Any]:
    import numpy as np

    from .kernel import position_from_game, rule_arrays
    from .kernel.ceiling import solve, table_words

    _check(game)
    n = game.n
    params, line, pos_of, values = rule_arrays(game.rules)
    pos = position_from_game(game)
    played = _on_table(game)
    if table is None or table.shape[0] % (2 + 2 * n):
        table = table_words(TABLE_RECORDS, n)
    holder = -1 if pos["token_holder"] is None else int(pos["token_holder"])
    out, states, table = solve(pos["hands"], n, np.uint64(played), int(pos["to_move"]),
                               bool(pos["more"]), holder, int(pos["stall"]), pos["lo"],
                               pos["hi"], params, line, pos_of, values, table)
    return SeatValues(tuple(float(x) for x in out[:n]),
                      tuple(float(x) for x in out[n:2 * n]), int(states)), table


# -- the plain-Python reference (tests only: slow) ---------------------------------------------

def _outcome(game: Game) -> tuple[list[float], list[float]]:
    res = game.result
    assert res is not None
    pts = [float(p) for p in res.points]
    if res.winner is not None:
        win = [1.0 if s == res.winner else 0.0 for s in range(game.n)]
    else:  # no one went out: the lowest points win, shared (as the tournament counts)
        low = min(pts)
        k = sum(1 for p in pts if p == low)
        win = [1.0 / k if p == low else 0.0 for p in pts]
    return win, pts


def _state(game: Game) -> tuple[Any, ...]:
    t = game.table
    return (tuple(game._hands), tuple(t.lo), tuple(t.hi), game._actor, game.phase,
            game.token_holder, game._stall)


def reference_values(game: Game, cache: bool = True) -> SeatValues:
    """:func:`position_values` in plain Python over the engine (for tests: exponential without
    ``cache``, slow with it). Every seat's value is computed by its own expectimax."""
    _check(game)
    n = game.n
    win = []
    pts = []
    for me in range(n):
        memo: dict[tuple[Any, ...], tuple[float, float]] = {}

        def value(g: Game, me: int = me, memo: dict[tuple[Any, ...], tuple[float, float]] = memo
                  ) -> tuple[float, float]:
            if g.is_over():
                w, p = _outcome(g)
                return w[me], p[me]
            key = _state(g) if cache else None
            if key is not None and key in memo:
                return memo[key]
            children = []
            for m in g.legal_moves():
                c = g.copy()
                c.push(m)
                children.append(value(c))
            if g.to_move == me:
                v = (max(c[0] for c in children), min(c[1] for c in children))
            else:
                k = len(children)
                v = (sum(c[0] for c in children) / k, sum(c[1] for c in children) / k)
            if key is not None:
                memo[key] = v
            return v

        w, p = value(game.copy())
        win.append(w)
        pts.append(p)
    return SeatValues(tuple(win), tuple(pts))


# -- the deals of a tournament ---------------------------------------------------------------

@dataclass(frozen=True)
class DealRow:
    """One deal of a tournament (``derive_seed(seed, deal)``, dealer ``deal mod n``): the
    ceiling of every seat, the positions solved and the CPU seconds."""

    deal: int
    win: tuple[float, ...]
    points: tuple[float, ...]
    states: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "win": list(self.win), "points": list(self.points),
                "states": self.states, "seconds": round(self.seconds, 3)}


def tournament_game(rules: Rules, players: int, seed: int, deal: int) -> Game:
    """Deal ``deal`` exactly as ``ristiseiska tournament --seed seed`` deals it."""
    return Game(rules, players, seed=derive_seed(seed, deal), dealer=deal % players)


def run_deals(rules: Rules, players: int, seed: int, deals: int, start: int = 0,
              progress: Callable[[DealRow], None] | None = None,
              skip: Collection[int] = ()) -> list[DealRow]:
    """The ceiling of deals ``start`` … ``start + deals - 1`` of a tournament seeded ``seed``,
    every seat (in a duplicate tournament seat ``r`` is the first bot's seat in rotation ``r``),
    except the deals in ``skip``. ``progress`` is called with each row as it is done."""
    why = unsupported(rules, players)
    if why:
        raise CeilingError(why)
    rows = []
    table = None
    for i in range(start, start + deals):
        if i in skip:
            continue
        g = tournament_game(rules, players, seed, i)
        t0 = time.process_time()
        v, table = _solve(g, table)
        row = DealRow(i, v.win, v.points, v.states, time.process_time() - t0)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float
    high: float


def _clustered(per_deal: Sequence[float]) -> Estimate:
    """The mean of per-deal means with a 95% normal interval over deals (the seats of one deal
    are not independent, the deals are)."""
    k = len(per_deal)
    m = sum(per_deal) / k
    if k < 2:
        return Estimate(m, m, m)
    var = sum((x - m) ** 2 for x in per_deal) / (k - 1)
    half = Z95 * math.sqrt(var / k)
    return Estimate(m, m - half, m + half)


def summary(rows: Sequence[DealRow]) -> dict[str, Estimate]:
    """Over every seat of every deal: the mean best win probability (``win``) and the mean least
    expected points (``points``), with 95% intervals."""
    if not rows:
        raise CeilingError("no deals")
    return {
        "win": _clustered([sum(r.win) / len(r.win) for r in rows]),
        "points": _clustered([sum(r.points) / len(r.points) for r in rows]),
    }
