"""Player pages and leaderboards (issue 58; web/player_pages.py, store/history.py, players/):
the history a rated match writes, a leaderboard's order with provisional players apart and the
bots for reference, a player's page (JSON and HTML) after two rated matches, and the public
handle, which never shows the device key or its hash."""

from __future__ import annotations

import asyncio
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska import players
from ristiseiska.ratings import PROVISIONAL, Rating, bot_ratings, standings
from ristiseiska.store import Store, history
from ristiseiska.store import ratings as stored
from ristiseiska.store.history import SeatFacts

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for  # noqa: E402
from test_web_rated import DEVICE, _play_match  # noqa: E402


@pytest.fixture(scope="module")
def pg_cluster() -> Any:
    import pg_kit

    if not pg_kit.available():
        pytest.skip("PostgreSQL or psycopg is not installed")
    with pg_kit.cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database: a SQLite file or a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    import os

    import pg_kit

    cluster = request.getfixturevalue("pg_cluster")
    return str(pg_kit.new_database(cluster, f"rs_pages_{os.getpid()}_{tmp_path.name[-12:]}"
                                   .replace("-", "_").lower()))


def _facts(n: int, points: list[int] | None = None) -> list[SeatFacts]:
    points = points or list(range(n))
    return [SeatFacts(f"P{i}", points[i], 2, 1 if i == 0 else 0) for i in range(n)]


def test_a_leaderboard_lists_established_players_by_rating_and_provisional_apart(
        db: str) -> None:
    """Anna always beats Ben (twelve matches each: established), Cecilia played twice and
    won both (provisional, above Ben): she is not in the top list."""
    async def go() -> dict[str, Any]:
        store = Store(db)
        await store.init()
        try:
            for k in range(PROVISIONAL + 2):
                got = await stored.rate_match(store, f"m{k}", "sjuan", ["anna", "ben"],
                                              standings([1, 9]), facts=_facts(2))
                assert got is not None
            for k in range(2):
                await stored.rate_match(store, f"c{k}", "sjuan", ["cecilia", "dan"],
                                        standings([1, 9]), facts=_facts(2))
            await stored.rate_match(store, "old", "sjuan", ["eve", "ben"], [1, 2])  # no facts
            board = await history.leaderboard(store, "sjuan")
            assert (await history.leaderboard(store, "ristiseiska")) == {
                "established": [], "provisional": []}
            with pytest.raises(Exception, match="unknown family"):
                await history.leaderboard(store, "poker")
            return board
        finally:
            await store.close()

    board = asyncio.run(go())
    est = [(x["name"], x["rating"].matches) for x in board["established"]]
    assert est == [("P0", PROVISIONAL + 2), ("P1", PROVISIONAL + 3)]  # Anna, then Ben
    assert board["established"][0]["handle"] == history.handle("anna")
    prov = [(x["handle"], x["rating"].matches) for x in board["provisional"]]
    assert prov == [(history.handle("cecilia"), 2), (history.handle("dan"), 2)]
    # Cecilia is above Ben, yet apart: ten matches make a place in the top list
    assert board["provisional"][0]["rating"].shown > board["established"][1]["rating"].shown
    # Eve's match was rated without the history's facts: no page, so not listed
    assert history.handle("eve") not in {x["handle"] for part in board.values() for x in part}


def test_the_history_keeps_each_match_and_forget_removes_it(db: str) -> None:
    bot = bot_ratings()["sjuan"]["expert"]

    async def go() -> None:
        store = Store(db)
        await store.init()
        try:
            facts = [SeatFacts("Anna", 3, 2, 2), SeatFacts("Kalle", 20, 2, 0),
                     SeatFacts("Ben", 9, 2, 0)]
            after = await stored.rate_match(store, "t1", "sjuan", ["anna", bot, "ben"],
                                            standings([3, 20, 9]), facts=facts)
            assert after is not None
            rows = await history.history(store, "anna")
            assert len(rows) == 1 and rows[0]["rating"] == after[0]
            assert (rows[0]["place"], rows[0]["players"], rows[0]["points"],
                    rows[0]["deals"], rows[0]["deals_won"]) == (1, 3, 3, 2, 2)
            assert await history.player_of(store, history.handle("anna")) == ("anna", "Anna")
            assert await history.player_of(store, "not-a-handle") is None
            with pytest.raises(Exception, match="2 seats' facts for 3"):
                await stored.rate_match(store, "t2", "sjuan", ["anna", bot, "ben"],
                                        [1, 2, 3], facts=facts[:2])
            # the refused match changed nothing: neither the rating nor the history
            assert (await stored.ratings(store, "sjuan", ["anna"]))["anna"] == after[0]
            assert await history.count(store, "anna") == 1
            assert await history.forget(store, "anna") == 2  # a history row and the name
            assert await history.history(store, "anna") == []
            assert await history.player_of(store, history.handle("anna")) is None
            assert await history.count(store, "ben") == 1
        finally:
            await store.close()

    asyncio.run(go())


def test_summary_series_and_nearest_level() -> None:
    assert players.summary([]) == {"matches": 0, "deals": 0, "deals_won": 0,
                                   "won_share": None, "points_per_deal": None}
    rows = [{"family": "sjuan", "rating": Rating(26.0, 8, 1)},
            {"family": "ristiseiska", "rating": Rating(24.0, 8, 1)},
            {"family": "sjuan", "rating": Rating(27.0, 8, 2)}]
    assert players.series(rows) == {"ristiseiska": [1500, 1452], "sjuan": [1500, 1548, 1596]}
    levels = bot_ratings()["ristiseiska"]
    for level, r in levels.items():
        assert players.nearest_level(r, "ristiseiska") == level
    assert players.nearest_level(Rating(99.0), "ristiseiska") == max(levels, key=lambda x: levels[x].mu)
    svg = players.chart_svg(players.series(rows), {}, "Chart <x>")
    assert svg.startswith("<svg") and svg.count("<polyline") == 2 and "Chart &lt;x&gt;" in svg
    assert "style=" not in svg  # the CSP forbids inline style


def _secrets() -> list[str]:
    from ristiseiska.web.rated import player_id
    from ristiseiska.web.seats import check_device

    device_hash = check_device(DEVICE)
    assert device_hash is not None
    return [DEVICE, device_hash, device_hash[:12], player_id(device_hash)]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Aino (on DEVICE) plays two rated one-deal matches against three expert bots."""
    db = tmp_path_factory.mktemp("pages") / "web.db"
    with TestClient(app_for(f"sqlite+aiosqlite:///{db}")) as client:
        r = client.post("/api/ratings/mine", json={"device": DEVICE})
        assert r.json()["handle"] is None  # no page before a rated match
        _play_match(client, open=True)
        _play_match(client, open=True)
        yield client


def test_the_player_page_after_two_rated_matches(played: TestClient) -> None:
    mine = played.post("/api/ratings/mine", json={"device": DEVICE}).json()
    handle = mine["handle"]
    assert re.fullmatch(r"[0-9a-f]{12}", handle)
    assert mine["ratings"]["other"]["matches"] == 2
    assert mine["ratings"]["other"]["like"] in players.LEVELS_SHOWN
    d = played.get(f"/api/players/{handle}").json()
    assert d["name"] == "Aino" and d["handle"] == handle
    assert d["ratings"] == {"other": mine["ratings"]["other"]}  # only families played
    assert [m["family"] for m in d["matches"]] == ["other", "other"]
    newest, first = d["matches"]
    assert newest["rating"] == mine["ratings"]["other"]["rating"]
    assert first["change"] == first["rating"] - 1500
    assert newest["change"] == newest["rating"] - first["rating"]
    for m in d["matches"]:
        assert m["deals"] == 1 and m["players"] == 4 and 1 <= m["place"] <= 4
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", m["date"]) and m["provisional"]
    s = d["summary"]
    assert s["matches"] == 2 and s["deals"] == 2
    assert s["won_share"] == sum(m["deals_won"] for m in d["matches"]) / 2
    assert s["points_per_deal"] == sum(m["points"] for m in d["matches"]) / 2
    assert d["series"] == {"other": [1500, first["rating"], newest["rating"]]}
    assert d["daily"] is None  # no daily results store registered
    page = played.get(f"/p/{handle}?lang=en").text
    assert 'data-testid="rating-chart"' in page and page.count("<polyline") == 1
    assert "<h1 data-testid=\"player-name\">Aino</h1>" in page
    assert page.count("<tr>") == 3 and "provisional" in page and "Other rules" in page
    fi = played.get(f"/p/{handle}").text  # Finnish by default
    assert '<html lang="fi">' in fi and "alustava" in fi and "Muut säännöt" in fi
    sv = played.get(f"/p/{handle}?lang=sv").text
    assert "preliminärt" in sv and "Andra regler" in sv


def test_the_leaderboard_pages_and_bad_requests(played: TestClient) -> None:
    handle = played.post("/api/ratings/mine", json={"device": DEVICE}).json()["handle"]
    b = played.get("/api/leaderboard/other").json()
    assert b["established"] == [] and [x["handle"] for x in b["provisional"]] == [handle]
    assert [x["level"] for x in b["bots"]] == sorted(
        bot_ratings()["other"], key=lambda lv: -bot_ratings()["other"][lv].shown)
    page = played.get("/leaderboard/other?lang=en").text
    assert f'href="/p/{handle}?lang=en"' in page and "Bots, for reference" in page
    r = played.get("/api/leaderboard/poker")
    assert r.status_code == 404 and r.json()["error"] == "bad-family"
    assert played.get("/leaderboard/poker").status_code == 404
    for bad in ("000000000000", "nothex", "zz-zz.zz_zzz", "A" * 12):
        r = played.get(f"/api/players/{bad}")
        assert r.status_code == 404 and r.json()["error"] == "no-player"
        assert played.get(f"/p/{bad}?lang=en").status_code == 404


def test_nothing_public_shows_the_device_or_its_hash(played: TestClient) -> None:
    handle = played.post("/api/ratings/mine", json={"device": DEVICE}).json()["handle"]
    for secret in _secrets():
        assert secret not in handle and handle not in secret
    texts = [played.get(f"/api/players/{handle}").text, played.get(f"/p/{handle}").text,
             played.get("/api/leaderboard/other").text, played.get("/leaderboard/other").text]
    for text in texts:
        for secret in _secrets():
            assert secret not in text
        assert "device:" not in text


def test_the_daily_section_shows_what_a_registered_reader_answers(played: TestClient,
                                                                  monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """Issue 57's results come through players.register_daily; a failing reader is skipped."""
    handle = played.post("/api/ratings/mine", json={"device": DEVICE}).json()["handle"]

    async def broken(store: Any, player: str) -> Any:
        raise RuntimeError("no table")

    async def reader(store: Any, player: str) -> Any:
        assert player.startswith("device:")
        return {"streak": {"current": 3, "best": 5},
                "results": [{"day": "2026-12-07", "preset": "sjuan", "points": 4, "place": 2}]}

    monkeypatch.setattr(players, "DAILY_READERS", [])
    players.register_daily(broken)
    assert played.get(f"/api/players/{handle}").json()["daily"] is None
    players.register_daily(reader)
    d = played.get(f"/api/players/{handle}").json()
    assert d["daily"]["streak"] == {"current": 3, "best": 5}
    page = played.get(f"/p/{handle}?lang=en").text
    assert 'data-testid="daily"' in page and "Streak now 3 days, best 5" in page
