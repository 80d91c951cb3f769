"""The third pass on the server's CPU per move (issue 24, docs/notes/2026-12-02-server-cpu-passes.md, *Third pass*): group
commits wait a moment for more moves only while the server is busy, the garbage
collector's thresholds while serving are restored when the server stops, and each shortcut
gives what the long way gives."""

from __future__ import annotations

import asyncio
import collections
import gc
import random
import sys
import time
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.cards import CARDS, sort_key
from ristiseiska.game import Game
from ristiseiska.rules import PRESETS, preset
from ristiseiska.store import Store
from ristiseiska.web.tables import GC_OLDER, GC_YOUNG, Tables, public_view


def _store(tmp_path: Path) -> Store:
    return Store(f"sqlite+aiosqlite:///{tmp_path / 'moves.db'}")


async def _tables(store: Store, n: int) -> None:
    await store.init()
    for i in range(n):
        await store.create_table(f"table-{i:04d}", {"seed": i}, ["x", "y"])
        await store.start_deal(f"table-{i:04d}", 0)


def _count_batches(store: Store, commit_s: float = 0.0) -> list[int]:
    """Record each batch's size; with ``commit_s`` a commit takes that long and writes
    nothing (the batching alone is measured, the same on a quiet or a busy machine)."""
    sizes: list[int] = []
    insert = store._insert

    async def counted(rows: list[dict[str, Any]]) -> None:
        sizes.append(len(rows))
        if commit_s:
            await asyncio.sleep(commit_s)
        else:
            await insert(rows)

    store._insert = counted  # type: ignore[method-assign]
    return sizes


def test_a_busy_server_commits_many_moves_at_once(tmp_path: Path) -> None:
    async def go(window: float) -> list[int]:
        store = _store(tmp_path)
        store.commit_window = window
        sizes = _count_batches(store, commit_s=0.002)
        moves = []
        for ply in range(300):  # a move every millisecond, as from many tables
            moves.append(asyncio.create_task(store.add_move("t", 0, ply, 0, "C7")))
            await asyncio.sleep(0.001)
        await asyncio.gather(*moves)
        await store.close()
        return sizes

    with_window, without = asyncio.run(go(0.02)), asyncio.run(go(0.0))
    assert sum(with_window) == sum(without) == 300
    # the same moves in clearly fewer commits
    assert len(with_window) * 3 < len(without), (len(with_window), len(without))


def test_every_move_of_a_busy_server_is_stored(tmp_path: Path) -> None:
    async def go() -> None:
        store = _store(tmp_path)
        await _tables(store, 40)
        store.commit_window = 0.02
        sizes = _count_batches(store)

        async def table(i: int) -> None:
            await asyncio.sleep(0.0005 * i)
            for ply in range(10):
                await store.add_move(f"table-{i:04d}", 0, ply, ply % 2, "C7")
                await asyncio.sleep(0.02)

        await asyncio.gather(*(table(i) for i in range(40)))
        assert sum(sizes) == 400 and len(sizes) < 400
        for i in range(40):
            st = await store.load(f"table-{i:04d}")
            assert st is not None and len(st.moves[0]) == 10
        await store.close()

    asyncio.run(go())


def test_a_lone_move_is_never_kept_waiting_for_company(tmp_path: Path) -> None:
    async def go() -> float:
        store = _store(tmp_path)
        await _tables(store, 1)
        store.commit_window = 30.0  # a wait would show at once
        worst = 0.0
        for ply in range(5):
            t0 = time.monotonic()
            await store.add_move("table-0000", 0, ply, 0, "C7")
            worst = max(worst, time.monotonic() - t0)
        await store.close()
        return worst

    assert asyncio.run(go()) < 10.0


def test_the_collector_thresholds_are_raised_while_serving_and_restored_after(
        tmp_path: Path) -> None:
    before = gc.get_threshold()

    async def go() -> tuple[int, ...]:
        store = _store(tmp_path)
        await store.init()
        tables = Tables(store, bot_delay=0.0)
        tables.start_sweeper()
        serving = gc.get_threshold()
        await tables.close()
        await store.close()
        return serving

    assert asyncio.run(go()) == (GC_YOUNG, *GC_OLDER)
    assert gc.get_threshold() == before


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**31 - 1),
       st.integers(0, 2**(len(CARDS)) - 1))
def test_a_hand_comes_out_in_sort_key_order_without_sorting_one_deck(name: str, seed: int,
                                                                    mask: int) -> None:
    """``Game.hand`` skips the sort when every card is of the first deck (ids run suit by
    suit, rank by rank); with a second deck or jokers it sorts. Both equal the long way."""
    rules = preset(name)
    g = Game(rules, max(rules.min_players, min(4, rules.max_players)), seed=seed)
    for s in range(g.n):
        assert g.hand(s) == sorted(g.hand(s), key=sort_key)
    for m in (mask, mask & ((1 << 52) - 1)):  # any set of cards, and one deck's only
        g._hands[0] = m
        got = g.hand(0)
        assert got == sorted((c for c in CARDS if (m >> int(c)) & 1), key=sort_key)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**31 - 1))
def test_the_broadcasts_row_cache_gives_what_building_every_row_gives(name: str,
                                                                      seed: int) -> None:
    """One cache through two whole deals (random legal moves): at every step the cached
    view equals the one built from scratch, also for the second game's first view."""
    rules = preset(name)
    n = max(rules.min_players, min(4, rules.max_players))
    rng = random.Random(seed)
    cache: dict[int, Any] = {}
    for deal in range(2):
        g = Game(rules, n, seed=seed + deal)
        steps = 0
        while True:
            assert public_view(g, cache) == public_view(g)
            if g.is_over() or steps > 400:
                break
            g.push(rng.choice(g.legal_moves()))
            steps += 1


# -- the log's sentences: the long way (describe_event before the lazy case forms), kept here
# to compare with

def _long_describe_event(event: Any, names: Any = None, lang: str = "fi",
                         you: int | None = None) -> str:
    from ristiseiska.cards import Card
    from ristiseiska.i18n import (
        _as_card,
        _describe_you,
        _event_dict,
        card_name,
        norm_lang,
        player_name,
        t,
    )
    from ristiseiska.i18n.grammar import CASES

    lang = norm_lang(lang)
    if you is not None:
        ev = _event_dict(event)
        return _describe_you(ev, names, lang, you, _long_describe_event(ev, names, lang))
    ev = _event_dict(event)
    kind = str(ev.get("type", ""))
    name = player_name(ev.get("seat"), names, lang)
    raw = ev.get("card")
    raw_card: Card | str = raw if isinstance(raw, Card) else str(raw)
    card = _as_card(raw_card) if raw is not None else None
    kw: dict[str, Any] = {"name": name}
    if card is not None:
        for case in CASES:  # {card_ade}, {card_par}, … for the templates that need them
            kw[f"card_{case}"] = card_name(raw_card, lang, case)
        kw["card"] = kw["card_acc"] = kw["card_gen"]
    if kind == "ask":
        kw["other"] = player_name(ev.get("from"), names, lang)
    elif kind == "give":
        kw["other"] = player_name(ev.get("to"), names, lang)

    if kind == "play":
        if card is None:
            return t("core.event.play_hidden", lang, **kw)
        as_card = ev.get("as")
        if card.is_joker and as_card is not None:
            kw["as_card"] = card_name(as_card if isinstance(as_card, Card) else str(as_card),
                                      lang, "acc")
            text = t("core.event.play_joker", lang, **kw)
        else:
            text = t("core.event.play", lang, **kw)
        extras = []
        if ev.get("end") in ("low", "high"):
            extras.append(t(f"core.event.end_{ev['end']}", lang))
        if isinstance(ev.get("row"), int) and not isinstance(ev.get("row"), bool):
            extras.append(t("core.event.row", lang, row=ev["row"] + 1))
        if extras:
            text = text.rstrip(".") + " (" + ", ".join(extras) + ")."
        return text
    if kind in ("give", "draw", "swap"):
        key = f"core.event.{kind}" if card is not None else f"core.event.{kind}_hidden"
        return t(key, lang, **kw)
    if kind in ("token", "pass", "stop", "ask", "chip"):
        return t(f"core.event.{kind}", lang, **kw)
    return t("core.event.other", lang, name=name, type=kind or "?")




_CARD_TEXTS = ([c.notation() for c in CARDS[:52]] + [c.notation(True) for c in CARDS[52:56]]
               + ["X1", "X2", "zz", "", "H6+"])
_EVENTS = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "give", "draw", "swap", "token", "pass", "stop", "ask",
                              "chip", "odd", ""]),
     "seat": st.one_of(st.integers(0, 5), st.none(), st.just("x"))},
    optional={"card": st.sampled_from(_CARD_TEXTS), "to": st.integers(0, 5),
              "from": st.integers(0, 5), "as": st.sampled_from(["H6", "C7", "SA"]),
              "end": st.sampled_from(["low", "high", "side"]), "row": st.integers(0, 7)})


@settings(max_examples=600, deadline=None)
@given(_EVENTS, st.sampled_from(["fi", "en", "sv"]), st.one_of(st.none(), st.integers(0, 5)),
       st.sampled_from([None, ["Aino", "Eero", "", "Olli"], ["load1", "B1", "B2", "B3", "x",
                                                             "y"]]))
def test_a_log_sentence_equals_the_long_way(event: dict[str, Any], lang: str, you: int | None,
                                             names: list[str] | None) -> None:
    """The log names a card's case form only when the sentence needs it (and reads a card
    text once): every event, language, reader and set of names gives the same sentence."""
    from ristiseiska import i18n

    assert (i18n.describe_event(event, names, lang, you)
            == _long_describe_event(event, names, lang, you))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["ristiseiska", "ristiseiska-pyynto", "kaksi-pakkaa", "jokerit", "sjuan"]),
       st.integers(0, 2**31 - 1))
def test_each_seats_events_equal_the_long_way_while_sharing_dicts(name: str, seed: int) -> None:
    """Every seat's cached events (one record-form dict per event, shared by the seats that
    may see it whole) equal the events converted for that seat alone, at every step."""
    from ristiseiska.view import public_event
    from ristiseiska.web.loadtest import MemoryStore
    from ristiseiska.web.tables import Conn, LiveTable

    async def go() -> None:
        rules = preset(name)
        n = max(rules.min_players, min(4, rules.max_players))
        config = {"preset": name, "rules": rules.to_dict(), "seed": seed,
                  "seats": [{"kind": "bot", "bot": "random", "name": f"B{i}"}
                            for i in range(n)]}
        t = LiveTable("events", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
        t.closed = True
        t.conns = {Conn(seat=0), Conn()}
        await t.start_first_deal()
        g = t.game
        assert g is not None
        mark = g.rules.distinct_decks
        while not g.is_over():
            await t._bot_step()
            for seat in [*range(n), None]:
                assert t._events(seat) == [public_event(e.to_dict(mark), seat)
                                           for e in g.events]

    asyncio.run(go())


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["ristiseiska", "ristiseiska-pyynto", "kaksi-pakkaa"]),
       st.integers(0, 2**31 - 1), st.sampled_from(["fi", "en"]))
def test_a_state_sent_late_or_early_carries_exactly_its_history_and_log(
        name: str, seed: int, lang: str) -> None:
    """The history and log texts are kept joined and extended by each new event: a state
    encoded at once, one encoded after later ones (an old message in a slow outbox), and one
    encoded again all carry exactly their own first events and sentences."""
    import json

    from ristiseiska.view import public_event
    from ristiseiska.web import clock as clockmod
    from ristiseiska.web.loadtest import MemoryStore
    from ristiseiska.web.tables import Conn, LiveTable

    async def go() -> None:
        rules = preset(name)
        config = {"preset": name, "rules": rules.to_dict(), "seed": seed,
                  "seats": [{"kind": "bot", "bot": "random", "name": f"B{i}"}
                            for i in range(4)]}
        t = LiveTable("texts", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
        t.closed = True
        conns = [Conn(seat=1), Conn()]
        t.conns = set(conns)
        await t.start_first_deal()
        g = t.game
        assert g is not None
        mark = g.rules.distinct_decks
        rng = random.Random(seed)
        held: list[tuple[Conn, dict[str, Any]]] = []
        while not g.is_over():
            await t._bot_step()
            for c in conns:
                while not c.queue.empty():
                    msg = c.queue.get_nowait()
                    if msg is not None and msg.get("view") is not None:
                        held.append((c, msg))
            rng.shuffle(held)  # encode some now, keep others for later
            keep = held[: rng.randint(0, len(held))]
            for c, msg in [*held[len(keep):], *keep[:1]]:
                got = json.loads(t.encode_state(msg, lang))
                n = msg["_hist"][2]
                want = [public_event(e.to_dict(mark), c.seat) for e in g.events[:n]]
                assert got["view"]["history"] == want
                assert got["log"] == [clockmod.describe(e, g.names, lang) for e in want]
            held = keep

    asyncio.run(go())


def test_a_move_the_store_refused_never_shows_in_a_later_state() -> None:
    """A broadcast while a move is being stored (the away-grace rebroadcast does not wait for
    the table's lock) caches the move's text; when the store then refuses it, the move is
    taken back and every cached form of it dropped: the next state carries the move played
    instead, never the refused one."""
    import json

    from ristiseiska.view import public_event
    from ristiseiska.web.loadtest import MemoryStore
    from ristiseiska.web.tables import ActionError, Conn, LiveTable

    class Refusing(MemoryStore):
        refuse = 0
        table: LiveTable | None = None

        async def add_move(self, *_a: Any, **_k: Any) -> None:
            if self.refuse:
                self.refuse -= 1
                assert self.table is not None
                self.table._broadcast()  # as the rebroadcast timer can, mid-store
                raise OSError("disk full")

    async def go() -> None:
        store = Refusing()
        config = {"preset": "ristiseiska", "rules": preset("ristiseiska").to_dict(), "seed": 5,
                  "seats": [{"kind": "bot", "bot": "random", "name": f"B{i}"}
                            for i in range(4)]}
        t = store.table = LiveTable("refused", config, store, 0.0)  # type: ignore[arg-type]
        t.closed = True
        conn = Conn(seat=0)
        t.conns = {conn}
        await t.start_first_deal()
        g = t.game
        assert g is not None
        while len(g.legal_moves()) < 2:
            await t._bot_step()
        seat = g.to_move
        first, second = g.legal_moves()[:2]
        store.refuse = 1
        try:
            await t._apply(seat, first)
        except ActionError:
            pass
        else:
            raise AssertionError("the store refused the move")
        await t._apply(seat, second)
        last = None
        while not conn.queue.empty():
            last = conn.queue.get_nowait()
        assert last is not None
        got = json.loads(t.encode_state(last, "en"))
        mark = g.rules.distinct_decks
        assert got["view"]["history"] == [public_event(e.to_dict(mark), 0) for e in g.events]
        assert first.text(mark) not in [e.get("card") for e in got["view"]["history"][-1:]]

    asyncio.run(go())


def test_the_write_ahead_log_is_checkpointed_off_the_commit_path(
        tmp_path: Path, monkeypatch: Any) -> None:
    """SQLite's own checkpoint would run inside the commit that crosses 1,000 pages, so one
    move's ack would wait for two fsyncs there. Automatic checkpoints are off on every
    connection and a thread of the store's own copies the log into the file after commits;
    every move is still there (docs/notes/2026-12-02-server-cpu-passes.md, *Fifth pass*)."""
    import sqlite3
    import threading

    import ristiseiska.store.writer as store_mod  # the move writer's home (issue 48)

    threads: list[str] = []
    real = store_mod._checkpoint

    def spy(path: Path) -> None:
        threads.append(threading.current_thread().name)
        real(path)

    monkeypatch.setattr(store_mod, "_checkpoint", spy)
    monkeypatch.setattr(store_mod, "CHECKPOINT_EVERY", 0.05)

    async def go() -> tuple[int, int]:
        store = _store(tmp_path)
        await _tables(store, 3)
        async with store.engine.connect() as conn:
            auto = (await conn.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar()
        for ply in range(40):
            await asyncio.gather(*(store.add_move(f"table-{i:04d}", 0, ply, 0, "C7")
                                   for i in range(3)))
            await asyncio.sleep(0.01)
        assert store._direct_conn is not None
        direct = store._direct_conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        for i in range(3):
            st = await store.load(f"table-{i:04d}")
            assert st is not None and len(st.moves[0]) == 40
        await store.close()
        return int(auto), int(direct)

    assert asyncio.run(go()) == (0, 0)
    moved = [t for t in threads if t.startswith("ristiseiska-checkpoint")]
    assert len(moved) >= 3, threads  # about every 0.05 s of the 0.4 s of moves
    # and the file itself (the log's contents copied in) has every move
    conn = sqlite3.connect(tmp_path / "moves.db")
    try:
        assert conn.execute("SELECT count(*) FROM rs_moves").fetchone()[0] == 120
    finally:
        conn.close()


def test_an_outbox_keeps_order_and_wakes_its_writer() -> None:
    from ristiseiska.web.tables import Outbox

    async def go() -> list[Any]:
        box = Outbox()
        got: list[Any] = []

        async def writer() -> None:
            while (msg := await box.get()) is not None:
                got.append(msg)

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)  # the writer waits on an empty outbox
        for i in range(5):
            box.put_nowait(i)
            if i % 2:
                await asyncio.sleep(0)
        box.put_nowait(None)
        await asyncio.wait_for(task, 5)
        assert box.empty() and box.qsize() == 0
        try:
            box.get_nowait()
        except asyncio.QueueEmpty:
            pass
        else:
            raise AssertionError("an empty outbox gave something")
        cancelled = asyncio.create_task(box.get())  # a writer cancelled while it waits
        await asyncio.sleep(0)
        cancelled.cancel()
        box.put_nowait("after")
        assert box.get_nowait() == "after"
        return got

    assert asyncio.run(go()) == [0, 1, 2, 3, 4]


def test_a_deal_asks_for_the_running_loop_rarely(tmp_path: Path, monkeypatch: Any) -> None:
    """On Python 3.11 every ``asyncio.get_running_loop()`` (and ``asyncio.sleep``, an empty
    ``asyncio.Queue``'s wait) is a ``getpid`` system call: 4.5% of the server's CPU at a
    thousand tables, from the bots' pauses, the store's queue and each connection's outbox.
    A whole deal played by bots, stored and sent to a connection, now asks a few times in
    all: 0.1-0.2 times per move, the rest being this test's own (it asked 2.3 times)."""
    import asyncio.events as events

    from ristiseiska.web.tables import Conn, LiveTable

    calls = [0]
    callers: collections.Counter[str] = collections.Counter()
    for mod, name in ((events, "get_running_loop"), (events, "_get_running_loop"),
                      (asyncio, "get_running_loop")):
        real = getattr(mod, name)

        def counted(real: Any = real) -> Any:
            calls[0] += 1
            f = sys._getframe(1)
            callers[f"{f.f_code.co_filename.rsplit('/', 1)[-1]}:{f.f_code.co_name}"] += 1
            return real()

        monkeypatch.setattr(mod, name, counted)

    async def go() -> int:
        store = _store(tmp_path)
        await store.init()
        config = {"preset": "ristiseiska", "rules": preset("ristiseiska").to_dict(), "seed": 3,
                  "seats": [{"kind": "bot", "bot": "random", "name": f"B{i}"}
                            for i in range(4)]}
        await store.create_table("loop", config, [f"B{i}" for i in range(4)])
        t = LiveTable("loop", config, store, 0.001)
        conn = Conn(seat=0)
        t.conns = {conn}
        await t.start_first_deal()
        g = t.game
        assert g is not None
        sent = [0]

        async def writer() -> None:
            while await conn.queue.get() is not None:
                sent[0] += 1

        w = asyncio.create_task(writer())
        calls[0] = 0
        callers.clear()
        t.kick()
        assert t._bot_task is not None
        await asyncio.wait_for(t._bot_task, 60)  # the bots play until the deal is over
        assert g.is_over()
        asked = calls[0]
        conn.queue.put_nowait(None)
        await w
        await store.close()
        assert sent[0] >= len(g.moves) > 20
        return asked * 100 // len(g.moves)

    per_hundred_moves = asyncio.run(go())
    assert per_hundred_moves < 30, (per_hundred_moves, callers.most_common(5))
