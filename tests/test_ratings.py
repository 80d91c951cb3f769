"""Players' ratings (issue 58): openskill's Plackett-Luce updates by a match's final standings,
a leaver ranked last, the ~1500 scale and the provisional flag, the rule families, the bot
levels' fixed ratings (ratings/bots.json, ``ristiseiska rate-bots``) and the store's rows
(a match counted once; a round trip on SQLite)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ristiseiska import ratings
from ristiseiska.cli import main
from ristiseiska.ratings import Rating, RatingError, family, rate, standings
from ristiseiska.store import Store
from ristiseiska.store import ratings as stored


def test_the_winner_goes_up_and_the_last_goes_down() -> None:
    before = [Rating(), Rating(), Rating(), Rating()]
    after = rate(before, standings([12, 3, 40, 20]))
    assert after[1].mu > before[1].mu and after[1].shown > 1500  # the lowest total won
    assert after[2].mu < before[2].mu and after[2].shown < 1500
    assert after[1].shown > after[0].shown > after[3].shown > after[2].shown
    assert all(r.sigma < before[0].sigma for r in after)  # each match makes it surer
    assert all(r.matches == 1 for r in after)


def test_a_leaver_is_ranked_last_whatever_their_points() -> None:
    places = standings([2, 10, 30], left={0})
    assert places == [3, 1, 2]
    after = rate([Rating()] * 3, places)
    assert after[0].mu < after[2].mu < after[1].mu  # below the one who stayed and lost


def test_equal_totals_share_a_place() -> None:
    assert standings([5, 5, 9]) == [1, 1, 3]
    after = rate([Rating()] * 3, [1, 1, 3])
    assert after[0] == after[1]


def test_a_bots_seat_keeps_its_fixed_rating() -> None:
    bot = Rating(30.0, 2.0, 500)
    after = rate([Rating(), bot], [1, 2], fixed={1})
    assert after[1] == bot
    assert after[0].mu > 25 + 3  # beating a strong, certain opponent counts a lot


def test_the_scale_and_the_provisional_flag() -> None:
    assert Rating().shown == 1500 and Rating(26.0).shown == 1548 and Rating(20.0).shown == 1260
    r = Rating()
    for k in range(1, ratings.PROVISIONAL + 1):
        assert r.provisional  # before the k-th match
        r = rate([r, Rating()], [1, 2])[0]
        assert r.matches == k
    assert not r.provisional and r.matches == 10


def test_families() -> None:
    assert family("ristiseiska") == "ristiseiska"
    assert family("sjuan") == "sjuan"
    assert family("ristiseiska-pyynto") == "ristiseiska-pyynto"
    assert family("fan-tan") == family("jokerit") == family(None) == "other"


@pytest.mark.parametrize("call, words", [
    (lambda: rate([Rating()] * 2, [1]), "2 ratings for 1 places"),
    (lambda: rate([Rating()], [1]), "at least two players"),
    (lambda: rate([Rating()] * 2, [0, 1]), "whole numbers from 1"),
    (lambda: standings([1, 2], left={5}), "seat 5 left"),
    (lambda: standings([]), "at least one player"),
])
def test_bad_input_is_one_clear_error(call, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RatingError, match=words):
        call()


def test_the_shipped_bot_ratings_cover_every_family_and_level() -> None:
    from ristiseiska.ratings.bots import LEVELS

    path = Path(ratings.__file__).with_name("bots.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "ristiseiska-bot-ratings"
    made = data["made_with"]  # what `ristiseiska rate-bots` (its defaults) plays
    assert made["levels"] == list(LEVELS) and made["deals"] == 2 and made["seed"] == 1
    table = ratings.bot_ratings()
    assert set(table) == set(ratings.FAMILIES)
    for fam in ratings.FAMILIES:
        assert set(table[fam]) == set(LEVELS)
        levels = table[fam]
        assert levels["random"].mu < levels["expert"].mu  # the weakest is rated below
        assert ratings.bot_rating("expert", fam) == levels["expert"]
    assert ratings.bot_rating("no-such-level", "sjuan") == Rating()


def test_rate_bots_is_reproducible(tmp_path: Path) -> None:
    args = ["rate-bots", "--levels", "random,basic,expert", "--players", "3", "--deals", "1",
            "--families", "sjuan", "--workers", "1", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "a.json")]) == 0
    assert main([*args, "--out", str(tmp_path / "b.json")]) == 0
    a = json.loads((tmp_path / "a.json").read_text())
    assert a == json.loads((tmp_path / "b.json").read_text())
    assert set(a["families"]["sjuan"]) == {"random", "basic", "expert"}
    assert all(r["deals"] == 3 for r in a["families"]["sjuan"].values())


def test_rate_bots_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate-bots", "--families", "poker"]) == 2
    assert "unknown family 'poker'" in capsys.readouterr().err
    assert main(["rate-bots", "--levels", "random,nobody,expert,basic"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err


def test_the_store_counts_a_match_once_and_keeps_the_ratings(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    bot = ratings.bot_rating("expert", "sjuan")

    async def go() -> None:
        store = Store(url)
        await store.init()
        try:
            after = await stored.rate_match(store, "t1", "sjuan", ["anna", "ben", bot],
                                            standings([3, 20, 9]))
            assert after is not None and after[2] == bot
            again = await stored.rate_match(store, "t1", "sjuan", ["anna", "ben", bot],
                                            standings([3, 20, 9]))
            assert again is None  # the same match reported twice counts once
            got = await stored.ratings(store, "sjuan", ["anna", "ben", "cecilia"])
            assert got["anna"] == after[0] and got["ben"] == after[1]
            assert got["cecilia"] == Rating()
            assert (await stored.ratings(store, "ristiseiska", ["anna"]))["anna"] == Rating()
            with pytest.raises(RatingError, match="two seats"):
                await stored.rate_match(store, "t2", "sjuan", ["anna", "anna"], [1, 2])
            with pytest.raises(RatingError, match="unknown family"):
                await stored.ratings(store, "poker", ["anna"])
        finally:
            await store.close()
        store = Store(url)  # a new process reads what the last one stored
        await store.init()
        try:
            got = await stored.ratings(store, "sjuan", ["anna", "ben"])
            assert got["anna"].matches == 1 and got["anna"].shown > 1500 > got["ben"].shown
            # the refused match (two seats) changed nothing and was not marked rated
            assert (await stored.rate_match(store, "t2", "sjuan", ["anna", "ben"], [2, 1])
                    ) is not None
        finally:
            await store.close()

    asyncio.run(go())


def test_the_example_in_the_docs_runs() -> None:
    import doctest

    page = Path(__file__).resolve().parents[1] / "docs" / "ratings.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried >= 3 and failures == 0


def test_a_four_player_match_updates_exactly_as_openskill_computes() -> None:
    """The update is openskill's Plackett-Luce (mu 25, sigma 25/3), called directly here
    with the same ratings and ranks, with a bot seat kept fixed."""
    from openskill.models import PlackettLuce

    before = [Rating(27.0, 6.0, 3), Rating(), Rating(22.5, 4.0, 12), Rating(30.0, 2.0, 90)]
    totals = [14, 3, 40, 14]  # seats 0 and 3 share second place
    places = standings(totals)
    assert places == [2, 1, 4, 2]
    after = rate(before, places, fixed={3})
    model = PlackettLuce(mu=25.0, sigma=25.0 / 3)
    want = model.rate([[model.rating(mu=r.mu, sigma=r.sigma)] for r in before],
                      ranks=[2.0, 1.0, 4.0, 2.0])
    for seat in range(3):
        assert after[seat].mu == pytest.approx(want[seat][0].mu, abs=1e-12)
        assert after[seat].sigma == pytest.approx(want[seat][0].sigma, abs=1e-12)
        assert after[seat].matches == before[seat].matches + 1
    assert after[3] == before[3]  # the bot's seat: unchanged
