"""The web server's fast paths give exactly what the engine's views give: the public view a
broadcast builds straight from the game (``tables.public_view``), every seat's part of it, and
the bots' views with the cached history (``LiveTable.seat_view``), checked against
``make_view`` / ``Game.view`` at every position of random deals of every preset."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.rules import PRESETS, preset
from ristiseiska.view import make_view
from ristiseiska.web.loadtest import MemoryStore
from ristiseiska.web.tables import HISTORY, LiveTable, _dumps, public_view


def _spectator(g: Any) -> dict[str, Any]:
    """The spectator's view as it was built before the fast path: a seat's view with
    everything private emptied."""
    d = dict(make_view(g, 0, history=False).to_dict())
    d["seat"] = None
    d["hand"] = []
    d["legal_moves"] = []
    if "dead" in d:
        d["dead"] = []
    d.pop("open_hands", None)
    return d


def _table(name: str, players: int, seed: int) -> LiveTable:
    config = {"preset": name, "rules": preset(name).to_dict(), "seed": seed,
              "seats": [{"kind": "bot", "bot": "random", "name": f"P{i}"}
                        for i in range(players)]}
    t = LiveTable("fast-view-test", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
    t.closed = True
    return t


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(PRESETS)), players=st.integers(2, 6),
       seed=st.integers(0, 2**32), deal_seed=st.integers(0, 2**32))
def test_fast_views_equal_the_engine_views(name: str, players: int, seed: int,
                                           deal_seed: int) -> None:
    rules = preset(name)
    players = max(rules.min_players, min(rules.max_players, players))
    t = _table(name, players, seed)

    async def go() -> None:
        await t.start_first_deal()
        g = t.game
        assert g is not None
        rng = random.Random(deal_seed)
        while True:
            fast = public_view(g)
            fast["history"] = []
            assert fast == _spectator(g)
            assert _dumps(fast) == _dumps(_spectator(g))  # the same JSON text, key order too
            views = t._views({None, *range(players)})
            for s in range(players):
                v = views[s]
                assert v is not None and v["history"] == HISTORY
                want = make_view(g, s, history=False).to_dict()
                for key in ("seat", "hand", "legal_moves", "dead"):
                    assert v.get(key) == want.get(key), (key, s)
                bot_view = t.seat_view(g, s)
                engine = g.view(s)
                assert bot_view.history == engine.history
                assert bot_view.to_dict() == engine.to_dict()
            if g.is_over():
                return
            g.push(rng.choice(g.legal_moves()))

    asyncio.run(go())


def test_frames_with_a_revealed_256_bit_seed_are_encoded() -> None:
    # orjson takes integers of at most 64 bits; a finished match reveals its 256-bit seed, and
    # a frame that could not be encoded left the match's last state unsent (a hang)
    import json

    from ristiseiska.web.tables import _dumps

    value = {"seed": (1 << 255) + 12345, "name": "Äiti", "n": [1, None, True]}
    assert json.loads(_dumps(value)) == value
    assert _dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
