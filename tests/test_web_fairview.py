"""Every view leaks nothing (RULES.md §5): whole deals of every preset are played through the
web server's table, and every message each seat and a spectator would receive (both
languages, as the exact JSON text sent) is searched for cards that viewer may not see."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska import i18n
from ristiseiska.cards import CARDS
from ristiseiska.rules import PRESETS, preset
from ristiseiska.web.loadtest import MemoryStore  # keeps nothing, every write succeeds
from ristiseiska.web.tables import Conn, LiveTable


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _visible(ev: dict[str, Any], viewer: int | None) -> bool:
    """RULES.md §5, written out again here independently of the server's filter: a handed
    card is seen by giver and receiver only, a drawn card by the drawer only."""
    if ev["type"] == "give":
        return viewer in (ev["seat"], ev.get("to"))
    if ev["type"] == "draw":
        return viewer == ev["seat"]
    return True


def _forbidden(t: LiveTable, viewer: int | None) -> set[str]:
    """Card codes ``viewer`` may not be told now: the other hands and the stock, less what a
    public (or the viewer's own private) event already showed."""
    g = t.game
    assert g is not None
    if g.is_over():
        # a finished deal has no secrets: the hands left are scored and shown face up
        # (final_hands), as the record and the replay show them
        return set()
    mark = g.rules.distinct_decks
    hidden = {c.notation(mark) for s in range(g.n) if s != viewer for c in g.hand(s)}
    hidden |= {c.notation(mark) for c in g.stock}
    known: set[str] = set()
    for e in g.events:
        d = e.to_dict(mark)
        if _visible(d, viewer):
            known |= {v for k, v in d.items() if isinstance(v, str) and k != "type"}
    if viewer is not None:
        known |= {c.notation(mark) for c in g.hand(viewer)}  # the other copy of two decks
    return hidden - known


def _names(codes: set[str], lang: str) -> set[str]:
    by_code = {c.notation(True): c for c in CARDS} | {str(c): c for c in CARDS}
    # jokers share one name ("jokeri"), so a played joker would match a held one: codes only
    return {i18n.card_name(by_code[c], lang) for c in codes
            if c in by_code and not by_code[c].is_joker}


def _check_chat(sent: dict[str, Any], bad: set[str], lang: str) -> None:
    """A chat frame names no hidden card: no card code as a word (the letters of ``HA`` in
    capitals, a digit's in any case), no card's name in either language (written out here
    again, independently of the server's filter)."""
    from ristiseiska.web.chat import BY_ID

    assert set(sent) <= {"type", "seat", "name", "phrase", "text"}, sent
    if "phrase" in sent:
        assert sent["phrase"] in BY_ID and "text" not in sent
        return
    text = sent["text"]
    words = set(re.findall(r"[A-Za-z0-9]+", text))
    low = {w.lower() for w in words}
    for code in bad:
        bare = code.rstrip("+")
        if bare in words or bare[1:].isdigit() and bare.lower() in low:
            raise AssertionError(f"a chat frame carries the hidden card {code}: {text!r}")
    folded = text.casefold()
    for c in CARDS[:104]:
        for name in (c.name("fi"), c.name("fi", "acc"), c.name("fi", "par"), c.name("en")):
            assert name.casefold() not in folded, (c, text)
    assert not set(text) & set("♣♦♥♠♧♢♡♤"), text


def _check(t: LiveTable, conns: dict[int | None, Conn]) -> int:
    checked = 0
    for viewer, conn in conns.items():
        bad = _forbidden(t, viewer)
        while not conn.queue.empty():
            msg = conn.queue.get_nowait()
            assert msg is not None
            for lang in ("fi", "en"):
                sent = json.loads(t.encode_state(msg, lang))
                if sent["type"] == "chat":  # issue 20: talk never carries a card
                    _check_chat(sent, bad, lang)
                body = {k: v for k, v in sent.items() if k != "table"}  # rules name C7
                leaked = bad & set(_strings(body))
                assert not leaked, f"viewer {viewer} was sent hidden cards {leaked}: {body}"
                if bad and t.rules.decks == 1:  # two decks' copies share a name
                    names = _names(bad, lang)
                    for line in sent.get("log", []):
                        hit = [n for n in names if n in line]
                        assert not hit, f"viewer {viewer} log names hidden {hit}: {line}"
                if sent.get("view"):
                    v = sent["view"]
                    assert v["seat"] == viewer
                    assert "open_hands" not in v
                    assert "final_hands" not in v or t.game is not None and t.game.is_over()
                    if viewer is None:
                        assert v["hand"] == [] and v["legal_moves"] == []
                        assert v.get("dead", []) == []
            checked += 1
    return checked


async def _play(name: str, players: int, seed: int) -> int:
    config = {"preset": name, "rules": preset(name).to_dict(), "seed": seed,
              "seats": [{"kind": "friend", "bot": None, "name": f"P{i}"} for i in range(players)]}
    t = LiveTable("leaktest-0001", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
    t.closed = True  # no bot driver: this test moves every seat itself
    t.started = True  # as if every friend had sat down (before that nothing of a deal shows)
    conns: dict[int | None, Conn] = {None: Conn()}
    for s in range(players):
        conns[s] = Conn(seat=s)
    t.conns = set(conns.values())
    await t.start_first_deal()
    t._broadcast()
    rng = random.Random(seed)
    g = t.game
    assert g is not None
    checked = _check(t, conns)
    while not g.is_over():
        move = rng.choice(list(g.legal_moves()))
        async with t.lock:
            await t._apply(g.to_move, move)
        checked += _check(t, conns)
    return checked


@pytest.mark.parametrize("name", sorted(PRESETS))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62), extra=st.integers(0, 6))
def test_no_message_carries_a_card_its_viewer_may_not_see(name: str, seed: int,
                                                           extra: int) -> None:
    rules = preset(name)
    players = min(rules.max_players, rules.min_players + extra % 3)
    assert asyncio.run(_play(name, players, seed)) > 0


def test_the_joker_game_spectator_gets_no_dead_cards() -> None:
    """The reported leak: under jokerit a spectator's view carried seat 0's dead cards."""
    async def run() -> None:
        for seed in range(40):
            config = {"preset": "jokerit", "rules": preset("jokerit").to_dict(), "seed": seed,
                      "seats": [{"kind": "friend", "bot": None, "name": f"P{i}"}
                                for i in range(3)]}
            t = LiveTable("leaktest-0002", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
            t.closed = True
            t.started = True  # every friend has sat down
            await t.start_first_deal()
            g = t.game
            assert g is not None
            rng = random.Random(seed)
            while not g.is_over():
                if g.dead_cards(0):
                    view = t.view_for(None)
                    assert view is not None and view["dead"] == []
                    assert t.view_for(0)["dead"]  # type: ignore[index]  # seat 0 sees its own
                    return
                async with t.lock:
                    await t._apply(g.to_move, rng.choice(list(g.legal_moves())))
        pytest.fail("no deal gave seat 0 a dead card to check")

    asyncio.run(run())


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_fast_views_are_exactly_the_engine_views(name: str) -> None:
    """The server builds the public part once per move and adds each seat's own fields; the
    result must be what ``Game.view(seat).to_dict()`` gives, at every position."""
    from ristiseiska.view import make_view

    async def run() -> None:
        rules = preset(name)
        n = min(rules.max_players, 3)
        config = {"preset": name, "rules": rules.to_dict(), "seed": 11,
                  "seats": [{"kind": "friend", "bot": None, "name": f"P{i}"} for i in range(n)]}
        t = LiveTable("fastview-001", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
        t.closed = True
        t.started = True  # as if every friend had sat down (before that nobody has moves)
        await t.start_first_deal()
        g = t.game
        assert g is not None
        rng = random.Random(5)
        while True:
            fast = t._views({None, *range(n)})
            for s in range(n):
                # the engine's view plus what the table adds for everyone (layout, final hands)
                want = t._decorate(g, dict(make_view(g, s, history=False).to_dict()))
                want["history"] = fast[s]["history"]  # type: ignore[index]
                assert fast[s] == want, (name, s, len(g.moves))
            assert fast[None] == t._view(None)
            if g.is_over():
                break
            async with t.lock:
                await t._apply(g.to_move, rng.choice(list(g.legal_moves())))

    asyncio.run(run())


_WORDS = ["hei", "kiva", "peli", "odota", "nyt", "minulla", "on", "sulla", "onko", "good",
          "game", "wait", "I", "have", "the", "nice", "ha", "oho", "kohta", "vuoro"]


def _card_piece(c: Any, how: int) -> str:
    forms = [c.notation(), c.notation(True), c.notation().lower(), c.symbol(), c.name("fi"),
             c.name("fi", "acc"), c.name("fi", "par"), c.name("en"), c.name("en").upper(),
             f"{c.name('fi')[:-1]}"]
    return forms[how % len(forms)]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62),
       talk=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 200), st.integers(0, 9),
                               st.lists(st.sampled_from(_WORDS), max_size=6)),
                     min_size=5, max_size=40))
def test_chat_frames_carry_no_hidden_card(seed: int, talk: list[Any]) -> None:
    """Issue 20: a deal is played while the players (and a spectator) chat: phrases,
    reactions and free text, much of it trying to name a card of the player's hand. Every
    chat frame anyone receives is searched as the state frames are."""
    from ristiseiska.web import chat
    from ristiseiska.web.chat import PHRASES

    async def run() -> int:
        players = 3
        config = {"preset": "ristiseiska", "rules": preset("ristiseiska").to_dict(),
                  "seed": seed, "chat_text": True,
                  "seats": [{"kind": "friend", "bot": None, "name": f"P{i}"}
                            for i in range(players)]}
        t = LiveTable("leaktest-chat", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
        t.closed = True
        t.started = True
        conns: dict[int | None, Conn] = {None: Conn(addr="spectator")}
        for s in range(players):
            conns[s] = Conn(seat=s, addr=f"a{s}")
        t.conns = set(conns.values())
        await t.start_first_deal()
        g = t.game
        assert g is not None
        rng = random.Random(seed)
        checked = sent = 0
        steps = iter(talk)
        chat.clock = iter(range(0, 10**9, 3)).__next__  # far apart: no rate limit here
        try:
            while not g.is_over():
                step = next(steps, None)
                if step is not None:
                    who, pick, how, words = step
                    conn = conns[None if who == players else who]
                    seat_hand = g.hand(conn.seat) if conn.seat is not None else []
                    if pick % 3 == 0:
                        msg = {"type": "chat", "phrase": PHRASES[pick % len(PHRASES)].id}
                    else:
                        text = list(words)
                        if seat_hand and pick % 3 == 1:
                            card = seat_hand[pick % len(seat_hand)]
                            text.insert(pick % (len(text) + 1), _card_piece(card, how))
                        msg = {"type": "chat", "text": " ".join(text) or "hei"}
                    chat.handle(t, conn, msg)
                    sent += 1
                    checked += _check(t, conns)
                async with t.lock:
                    await t._apply(g.to_move, rng.choice(list(g.legal_moves())))
                checked += _check(t, conns)
        finally:
            chat.clock = time.monotonic
        return sent

    assert asyncio.run(run()) > 0
