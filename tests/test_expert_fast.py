"""The expert bot's shortcuts of issue 24 give exactly what the long way gives.

``expert.FAST`` (the reach played on a row's two ends, remembered by those ends) and
``knowledge.FAST`` (the replay cache that copies its state only when an event may stay open,
the pool built from a bit mask) are switched off here to compare with the generic code on
random deals under every preset the expert plays, and under rule sets made from them with the
other orders, ace rules and centres (the presets use only some of them)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.bots import expert, history, knowledge
from ristiseiska.bots.expert import ExpertBot, Features
from ristiseiska.bots.knowledge import ReplayCache, infer
from ristiseiska.cards import CARDS, parse_card
from ristiseiska.game import Game
from ristiseiska.moves import PLAY
from ristiseiska.rules import PRESETS, Rules, RulesError, preset
from ristiseiska.view import make_view, public_event


@contextmanager
def slow() -> Iterator[None]:
    """Both modules' shortcuts off: the long way (which never reads the unlock memo)."""
    expert.FAST[0] = knowledge.FAST[0] = False
    try:
        yield
    finally:
        expert.FAST[0] = knowledge.FAST[0] = True


def _rules(name: str, order: str | None, ace: str | None, center: int | None,
           extra: bool | None, multi: bool | None) -> Rules | None:
    base = preset(name)
    changes: dict[str, Any] = {}
    if order is not None:
        changes["order"] = order
    if ace is not None:
        changes["ace"] = ace
    if center is not None:
        changes["center"] = center
        if base.opening != "any":
            changes["opening"] = CARDS[parse_card(base.opening).suit * 13 + center - 1].notation()
    if extra is not None:
        changes["extra_move"] = extra
    if multi is not None:
        changes["multi_play"] = multi
    try:
        return base.replace(**changes)
    except RulesError:
        return None


rule_sets = st.builds(
    _rules, st.sampled_from(sorted(PRESETS)),
    st.one_of(st.none(), st.sampled_from(["both", "low-first", "high-first"])),
    st.one_of(st.none(), st.sampled_from(["low", "high", "first-decides"])),
    st.one_of(st.none(), st.integers(3, 11)),
    st.one_of(st.none(), st.booleans()), st.one_of(st.none(), st.booleans()),
).filter(lambda r: r is not None)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def _players(rules: Rules, k: int) -> int:
    return max(rules.min_players, min(k, rules.max_players))


def _unlocks(view: Any) -> dict[Any, Any]:
    f = Features(view)
    return {m: f.unlock(m) for m in view.legal_moves if m.kind == PLAY}


@SETTINGS
@given(rule_sets, st.integers(0, 10**6), st.integers(2, 5))
def test_unlock_fast_equals_long_way(rules: Rules, seed: int, k: int) -> None:
    g = Game(rules, _players(rules, k), seed=seed)
    rng = random.Random(seed)
    for _ in range(400):
        if g.is_over():
            break
        v = g.view(g.to_move)
        fast = _unlocks(v)
        with slow():
            long_way = _unlocks(v)
        assert fast == long_way
        g.push(rng.choice(g.legal_moves()))


def _knowledge(k: knowledge.Knowledge) -> tuple[Any, ...]:
    return (k.pool, [type(c) for c in k.pool], {s: vars(o) for s, o in k.opponents.items()},
            k.observations, k.reliable, k.stock_size)


class _Seats:
    """Views as the web server makes them: each event's public form made once per seat, so
    the replay cache sees the very same objects again and resumes."""

    def __init__(self, g: Game) -> None:
        self.g = g
        self.events: dict[int, list[dict[str, Any]]] = {s: [] for s in range(g.n)}

    def view(self, seat: int) -> Any:
        g = self.g
        lst = self.events[seat]
        mark = g.rules.distinct_decks
        while len(lst) < len(g.events):
            lst.append(public_event(g.events[len(lst)].to_dict(mark), seat))
        v = make_view(g, seat, history=False)
        object.__setattr__(v, "history", tuple(lst))
        return v


@SETTINGS
@given(rule_sets, st.integers(0, 10**6), st.integers(2, 5))
def test_infer_fast_equals_long_way(rules: Rules, seed: int, k: int) -> None:
    """Every seat's knowledge at every step: the resumed cache with its shortcuts, the cache
    without them, and a replay from the start without any."""
    g = Game(rules, _players(rules, k), seed=seed)
    seats = _Seats(g)
    rng = random.Random(seed)
    fast = [ReplayCache() for _ in range(g.n)]
    cached_slow = [ReplayCache() for _ in range(g.n)]
    for _ in range(400):
        if g.is_over():
            break
        for s in range(g.n):
            v = seats.view(s)
            a = infer(v, fast[s])
            with slow():
                b = infer(v, cached_slow[s])
                c = infer(v)
            assert _knowledge(a) == _knowledge(b) == _knowledge(c)
        g.push(rng.choice(g.legal_moves()))


def _game(rules: Rules, n: int, seed: int, server_views: bool) -> list[tuple[str, str, str]]:
    g = Game(rules, n, seed=seed)
    seats = _Seats(g)
    bots = [ExpertBot(seed=seed + s) for s in range(n)]
    out = []
    for _ in range(600):
        if g.is_over():
            break
        s = g.to_move
        v = seats.view(s) if server_views else g.view(s)
        m, (key, params) = bots[s].decide(v)
        out.append((str(m), key, repr(sorted(params.items()))))
        g.push(m)
    return out


@SETTINGS
@given(rule_sets, st.integers(0, 10**6), st.integers(2, 5), st.booleans())
def test_expert_games_identical_with_and_without_shortcuts(rules: Rules, seed: int, k: int,
                                                           server_views: bool) -> None:
    n = _players(rules, k)
    fast = _game(rules, n, seed, server_views)
    with slow():
        long_way = _game(rules, n, seed, server_views)
    assert fast == long_way


def test_every_preset_plays_identical_games() -> None:
    """Whole games of four experts (or the preset's most) under each preset, both ways."""
    for name in sorted(PRESETS):
        rules = preset(name)
        n = _players(rules, 4)
        for seed in range(3):
            fast = _game(rules, n, seed, True)
            with slow():
                assert _game(rules, n, seed, True) == fast


@SETTINGS
@given(rule_sets, st.integers(0, 10**6), st.integers(2, 5))
def test_reach_on_row_ends_equals_reach_on_tables(rules: Rules, seed: int, k: int) -> None:
    """``_reach1`` / ``_reach_rows`` give ``Features.reach``'s rounds, in its order, for every
    suit's rows, with and without a card kept out."""
    g = Game(rules, _players(rules, k), seed=seed)
    rng = random.Random(seed)
    f = Features.__new__(Features)
    checked = 0
    for _ in range(400):
        if g.is_over():
            break
        tb = g.table
        if tb.opened and not tb.upward and not tb.first_decides:
            for t in range(0, tb.ntypes, 13):
                rows = tb.type_rows[t]
                tt = tb.types[rows[0]]
                for exclude in (0, 1 << tt[rng.randrange(len(tt))]):
                    want = list(f.reach(tb.copy(), rows, exclude).items())
                    args = (tb.order, tb.center, tb.minr, tb.maxr, tt)
                    if len(rows) == 1:
                        got = expert._reach1(*args, tb.lo[rows[0]], tb.hi[rows[0]], exclude)
                    else:
                        got = expert._reach_rows(*args, [tb.lo[r] for r in rows],
                                                 [tb.hi[r] for r in rows], exclude)
                    assert list(got.items()) == want
                    checked += 1
        g.push(rng.choice(g.legal_moves()))
    assert checked or rules.layout == "upward" or rules.ace == "first-decides"


def _rows_long_way(g: Game) -> tuple[Any, ...]:
    """``make_view``'s rows as it built them before issue 24's shortcuts."""
    from ristiseiska.view import RowView
    table = g.table
    rows = []
    for row in range(table.nrows):
        cards: tuple[Any, ...] = ()
        if table.lo[row] != -1:
            occ = table.occupant[row]
            cards = tuple(CARDS[occ[s]] for s in range(table.lo[row], table.hi[row] + 1))
        jokers = tuple(
            (CARDS[j], CARDS[table.types[r][slot]], table.joker_visible(r, slot))
            for j, (r, slot) in sorted(table.jokers.items()) if r == row
        )
        rows.append(RowView(row, row % 4, row // 4, cards, table.is_closed(row, "low"),
                            table.is_closed(row, "high"), jokers))
    return tuple(rows)


@SETTINGS
@given(rule_sets, st.integers(0, 10**6), st.integers(2, 5))
def test_view_rows_and_sorted_hands_as_before(rules: Rules, seed: int, k: int) -> None:
    """The view's rows (jokers, closed ends) and every hand in suit, rank, deck order (the
    hand is sorted only when the id order is not that order already)."""
    from ristiseiska.cards import sort_key
    g = Game(rules, _players(rules, k), seed=seed)
    rng = random.Random(seed)
    for _ in range(400):
        for s in range(g.n):
            h = g.hand(s)
            assert h == sorted(h, key=sort_key)
            assert set(h) == {c for c in CARDS if (g._hands[s] >> c) & 1}
        assert make_view(g, g.to_move, history=False).rows == _rows_long_way(g)
        if g.is_over():
            break
        g.push(rng.choice(g.legal_moves()))


def test_replay_cache_asked_again_while_replaying() -> None:
    """The hint bots are shared and asked from threads, maybe about the same seat's views at
    once: the replay cache's state, changed in place, is taken by one call at a time (another
    call replays from the start into a state of its own). Here the second call comes in the
    middle of the first one's replay, as another thread's could."""
    g = Game(Rules(), 4, seed=4)
    seats = _Seats(g)
    bot = ExpertBot(seed=1)
    views = []
    while not g.is_over():
        v = seats.view(g.to_move)
        if g.to_move == 1:
            views.append(v)
        g.push(bot.decide(v)[0])
    cache = ReplayCache()
    place = history.place_card
    inner: list[Any] = []
    now: list[Any] = []

    def interleaved(*a: Any) -> bool:
        if now and not inner:  # once per outer call, in the middle of an event's replay:
            inner.append(None)  # another caller, the same view, meanwhile
            inner[0] = infer(now[0], cache)
        return place(*a)

    history.place_card = interleaved  # type: ignore[assignment]
    try:
        for v in views:
            inner.clear()
            now[:] = [v]
            outer = infer(v, cache)
            now.clear()
            want = _knowledge(infer(v))
            assert _knowledge(outer) == want
            if inner:
                assert _knowledge(inner[0]) == want
    finally:
        history.place_card = place
    assert _knowledge(infer(views[-1], cache)) == _knowledge(infer(views[-1]))
