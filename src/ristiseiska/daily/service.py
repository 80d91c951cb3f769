"""The daily deal on a server (issue 57): the pure library (:mod:`ristiseiska.daily`) with the
store (``store/daily.py``) and a clock. The web routes (``web/daily_api.py``) and the tests use
:class:`DailyService`; nothing here knows of HTTP.

Fairness: the deals come from the server's secret (made once and kept in the store, or given
to ``serve``), a day's seed is published only after the day (Finnish time) is over, no request
gets the cards of a day that has not begun, and a result counts only from a deal the server
played itself (a table) or replayed itself from a record (:mod:`.verify`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ..game import Game
from ..i18n import move_words, norm_lang
from ..moves import Move
from ..record import dumps_record, parse_record_line, record_from_game, replay_record
from ..store import Store
from ..store import daily as stored
from .compare import compare, field_stats, reference_game
from .day import DailyError, check_played, day_of, parse_day
from .deal import (
    BOT_LEVEL,
    DEALER,
    OFFERED,
    PLAYERS,
    SEAT,
    DailyDeal,
    bot_seed,
    check_preset,
    daily_deal,
)
from .share import game_name, share_text
from .streak import streaks
from .verify import Forged, verify_record

log = logging.getLogger("ristiseiska.web")

PUBLISHED_DAYS = 7
MAX_RECORD = 60_000  # characters: a daily deal's record is far smaller


class Refused(DailyError):
    """A request the daily deal refuses: ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Begun:
    deal: DailyDeal
    counted: bool


def bot_seeds(deal: DailyDeal) -> dict[str, int]:
    return {str(s): bot_seed(deal.seed, s) for s in range(PLAYERS) if s != SEAT}


def public_record(deal: DailyDeal, game: Game) -> dict[str, Any]:
    """The record as the server keeps it: the commitment, not the seed (published later)."""
    extra = {k: v for k, v in deal.record_extra().items()
             if k not in ("match_seed", "match_seed_salt")}
    return record_from_game(game, preset=deal.preset, extra=extra)


class DailyService:
    """``secret``: the deals' secret (None: the store's, made on first use); ``reference``:
    the bot level the players are compared with (``master``; tests use ``expert``);
    ``clock``: the time now (aware)."""

    def __init__(self, store: Store, secret: bytes | None = None, reference: str = "master",
                 clock: Callable[[], datetime] | None = None,
                 choose: Callable[[str, int, Any], Awaitable[Move]] | None = None) -> None:
        self.store = store
        self._given = secret
        self._secret: bytes | None = None
        self.reference_level = reference
        self.clock = clock or (lambda: datetime.now(UTC))
        self.choose = choose  # (level, seed, view) -> move, e.g. in the web's bot pool
        self._references: dict[tuple[str, str], Game] = {}
        self._ref_lock = asyncio.Lock()

    # -- days and deals -------------------------------------------------------------------------
    async def secret(self) -> bytes:
        if self._secret is None:
            self._secret = await stored.secret(self.store, self._given)
        return self._secret

    def today(self) -> date:
        return day_of(self.clock())

    def day(self, text: str) -> date:
        try:
            return parse_day(text)
        except DailyError as e:
            raise Refused("bad-day", str(e)) from None

    async def deal(self, day: date, preset: str) -> DailyDeal:
        """The deal of a day that has begun (a later day: ``not-begun``, 403)."""
        try:
            check_preset(preset)
        except DailyError as e:
            raise Refused("bad-preset", str(e), 404) from None
        try:
            check_played(day, self.clock())
        except DailyError as e:
            raise Refused("not-begun", f"{e}; a deal is dealt only once its day has begun",
                          403) from None
        return daily_deal(await self.secret(), day, preset)

    async def published(self) -> list[dict[str, Any]]:
        """The seeds of the days that are over (the last :data:`PUBLISHED_DAYS`)."""
        today = self.today()
        secret = await self.secret()
        out = []
        for k in range(1, PUBLISHED_DAYS + 1):
            day = today - timedelta(days=k)
            for preset in OFFERED:
                d = daily_deal(secret, day, preset)
                out.append({"day": day.isoformat(), "preset": preset, "seed": d.seed,
                            "salt": d.salt, "commitment": d.commitment})
        return out

    # -- tries ------------------------------------------------------------------------------------
    async def begin(self, player: str, day: date, preset: str, kind: str) -> Begun:
        """Start a try: the first of today's deal is the counted one (claimed now, so a
        second is practice even while the first is unfinished); a past day is practice."""
        deal = await self.deal(day, preset)
        if day != self.today():
            return Begun(deal, False)
        d = day.isoformat()
        if await stored.claim_try(self.store, player, d, preset, kind):
            return Begun(deal, True)
        held = await stored.counted_try(self.store, player, d, preset)
        done = any(r.counted for r in await stored.results(self.store, player, d, preset))
        return Begun(deal, held is not None and held.kind == kind == "package" and not done)

    async def package(self, player: str, day: date, preset: str) -> dict[str, Any]:
        """The deal to play offline. [decision] Offline play needs the deal on the client, so
        today's is handed out only as the player's counted try (a second fetch of the same
        try gets it again) or, once that is in, as practice; a past day's is practice."""
        begun = await self.begin(player, day, preset, "package")
        deal = begun.deal
        if not begun.counted and day == self.today() and not any(
                r.counted for r in await stored.results(self.store, player, day.isoformat(),
                                                        preset)):
            # the counted try is under way: the whole deal would help it
            raise Refused("no-package", "today's deal goes offline only as your counted try, "
                          "and that one is under way at a table: finish it first", 409)
        return {"day": day.isoformat(), "preset": preset, "counted": begun.counted,
                "seed": deal.seed, "salt": deal.salt, "commitment": deal.commitment,
                "shuffle_seed": deal.shuffle_seed, "rules": deal.rules.to_dict(),
                "players": PLAYERS, "dealer": DEALER, "seat": SEAT, "bot_level": BOT_LEVEL,
                "bot_seeds": bot_seeds(deal), "record_extra": deal.record_extra()}

    async def submit(self, player: str, day: date, preset: str, text: Any,
                     lang: str = "fi", practice: bool = False) -> dict[str, Any]:
        """Count an offline try from its record, replayed here; refused (nothing stored)
        unless it is the player's counted try of the deal, played to the end honestly.
        ``practice``: a try that is not to count (checked alike, stored as practice)."""
        deal = await self.deal(day, preset)
        d = day.isoformat()
        if not isinstance(text, str) or not text.strip():
            raise Refused("bad-record", "send the deal's record as text (one JSON line)")
        if len(text) > MAX_RECORD:
            raise Refused("bad-record", f"a record is at most {MAX_RECORD} characters")
        if not practice:
            await self._check_counted(player, d, preset)
        rec = parse_record_line(text.strip())
        if isinstance(rec, str):
            raise Refused("bad-record", f"the record does not parse: {rec}")
        try:
            game = await asyncio.to_thread(verify_record, deal, rec)
        except Forged as e:
            raise Refused(e.code, e.message, 422) from None
        if not await self.count(player, deal, game, not practice):  # a second, at once
            raise Refused("second-try", f"your counted try of {d} ({preset}) is in already", 409)
        out = await self.result(player, day, preset, lang, not practice)
        assert out is not None
        return out

    async def _check_counted(self, player: str, d: str, preset: str) -> None:
        """Refuse unless the player's counted try of the deal is an offline one not in yet."""
        held = await stored.counted_try(self.store, player, d, preset)
        mine = await stored.results(self.store, player, d, preset)
        if any(r.counted for r in mine):
            raise Refused("second-try", f"your counted try of {d} ({preset}) is in already; "
                          "later tries are practice", 409)
        if held is None:
            raise Refused("no-try", f"no counted try of {d} ({preset}) was handed out to you: "
                          "fetch the package on the day, then play it", 409)
        if held.kind != "package":
            raise Refused("second-try", f"your counted try of {d} ({preset}) is played at a "
                          "table; this one does not count", 409)

    async def count(self, player: str, deal: DailyDeal, game: Game, counted: bool,
                    table_id: str | None = None) -> bool:
        """Store a finished try (the counted one once)."""
        assert game.result is not None
        points = list(game.result.points)
        mine = points[SEAT]
        place = 1 + sum(1 for s, p in enumerate(points) if s != SEAT and p < mine)
        record = dumps_record(public_record(deal, game))
        return await stored.add_result(self.store, player, deal.day.isoformat(), deal.preset,
                                       counted, mine, place, record, table_id)

    # -- answers ----------------------------------------------------------------------------------
    async def reference(self, deal: DailyDeal) -> Game:
        """The reference bot's play of the deal: played once, kept in the store (a bot with a
        time limit may play otherwise another time; every process compares with the first)
        and here."""
        key = (deal.day.isoformat(), deal.preset)
        if key not in self._references:
            async with self._ref_lock:
                if key not in self._references:
                    self._references[key] = await self._stored_reference(deal)
        return self._references[key]

    async def _stored_reference(self, deal: DailyDeal) -> Game:
        who = stored.REFERENCE + self.reference_level
        for _ in range(2):
            for r in await stored.results(self.store, who, deal.day.isoformat(), deal.preset):
                return replay_record(json.loads(r.record))
            game = await self._play_reference(deal)
            if await self.count(who, deal, game, False):
                return game
        return game  # pragma: no cover - stored by another process, then gone

    async def _play_reference(self, deal: DailyDeal) -> Game:
        level, seed = self.reference_level, bot_seed(deal.seed, SEAT)
        if self.choose is None:
            from ..bots import get_bot

            return await asyncio.to_thread(reference_game, deal, get_bot(level, seed=seed))
        game = deal.new_game()
        bots = deal.bots()
        while not game.is_over():
            seat = game.to_move
            legal = game.legal_moves()
            if seat != SEAT:
                move = bots[seat].choose(game.view(seat))
            elif len(legal) == 1:
                move = legal[0]
            else:
                move = await self.choose(level, seed, game.view(seat))
                if move not in legal:  # a faulty bot must not stop the comparison
                    move = legal[0]
            game.push(move)
        return game

    async def result(self, player: str, day: date, preset: str, lang: str = "fi",
                     counted: bool | None = None) -> dict[str, Any] | None:
        """The player's latest finished try of the deal (``counted``: that one) compared with
        the reference and the field; None before any."""
        lang = norm_lang(lang)
        deal = await self.deal(day, preset)
        mine = await stored.results(self.store, player, day.isoformat(), preset)
        if counted is not None:
            mine = [r for r in mine if r.counted == counted]
        if not mine:
            return None
        row = mine[0]
        game = replay_record(json.loads(row.record))
        ref = await self.reference(deal)
        c = compare(deal, game, ref)
        field = await stored.field_points(self.store, day.isoformat(), preset)
        others = [p for who, p in field.items() if who != player]
        fs = field_stats(c.points, others)
        d = c.difference
        diff = None if d is None else {
            "index": d.index, "turn": d.turn, "player": d.player.text(),
            "reference": d.reference.text(), "player_words": move_words(d.player, lang),
            "reference_words": move_words(d.reference, lang)}
        analysis = (f"/api/tables/{row.table_id}/deals/0/analysis" if row.table_id else None)
        return {
            "day": day.isoformat(), "preset": preset, "name": game_name(preset, lang),
            "points": c.points, "place": c.place, "table": list(c.table), "counted": row.counted,
            "master": {"level": self.reference_level, "points": c.reference_points,
                       "place": c.reference_place, "first_difference": diff},
            "field": {"players": fs.count, "rank": fs.rank, "percentile": fs.percentile,
                      "histogram": [{"low": b.low, "high": b.high, "count": b.count}
                                    for b in fs.bins],
                      "your_bin": fs.your_bin},
            "share": share_text(day, preset, c.points, self.reference_level,
                                c.reference_points, rank=fs.rank, count=fs.count, lang=lang),
            "analysis": analysis, "table_id": row.table_id,
        }

    async def record(self, player: str, day: date, preset: str) -> str | None:
        """The player's latest record of the deal; once the day is over with the seed and
        salt that open its commitment (``replay --check --verify-seed`` checks it)."""
        deal = await self.deal(day, preset)
        mine = await stored.results(self.store, player, day.isoformat(), preset)
        if not mine:
            return None
        rec = json.loads(mine[0].record)
        if day < self.today():
            rec["match_seed"], rec["match_seed_salt"] = deal.seed, deal.salt
        return dumps_record(rec)

    async def lobby(self, player: str, lang: str = "fi") -> dict[str, Any]:
        lang = norm_lang(lang)
        today = self.today()
        offers = []
        for preset in OFFERED:
            offers.append({"preset": preset, "name": game_name(preset, lang),
                           "counted": await self.result(player, today, preset, lang, True)})
        days = [parse_day(d) for d in await stored.counted_days(self.store, player)]
        s = streaks([d for d in days if d <= today], today)
        yesterday = None
        for preset in OFFERED:
            yesterday = await self.result(player, today - timedelta(days=1), preset, lang, True)
            if yesterday is not None:
                break
        secret = await self.secret()
        commitments = [{"preset": p, "commitment": daily_deal(secret, today, p).commitment}
                       for p in OFFERED]  # today's seeds, sealed until the day is over
        return {"day": today.isoformat(), "offers": offers, "commitments": commitments,
                "streak": {"current": s.current, "best": s.best}, "yesterday": yesterday,
                "published": await self.published()}

    async def forget(self, player: str) -> int:
        return await stored.forget(self.store, player)


__all__ = ["Begun", "DailyService", "Refused", "bot_seeds", "public_record"]


async def count_finished(t: Any) -> None:
    """The deal of a daily table ``t`` ended (web/live_table.py calls this): store the try.
    Never raises: a result that cannot be stored is logged, the table stays as played."""
    info = t.config.get("daily")
    if not isinstance(info, dict) or not t.games or not t.games[0].is_over():
        return
    try:
        # the table's configuration holds the day's seed and salt: no secret needed here
        deal = DailyDeal(parse_day(info["day"]), info["preset"], int(t.config["seed"]),
                         str(t.config["seed_salt"]))
        await DailyService(t.store).count(info["player"], deal, t.games[0],
                                          bool(info["counted"]), t.id)
    except Exception as e:  # noqa: BLE001 - the deal itself is stored already
        log.warning("table %s: the daily result could not be stored: %s", t.id, e)
