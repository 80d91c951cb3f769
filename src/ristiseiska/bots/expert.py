"""Rule-based bots: ``basic`` (a simple sensible heuristic) and ``expert`` (the strategy notes
of the rule book's tips (docs/rules.en.md §7): blocking with sixes and eights, opening long suits, dumping expensive cards when
an opponent is nearly out, giving others the fewest openings, token-aware hoarding, giving the
least useful card, stopping or going on after a closing card).

Both read only the seat's view. The expert's central measure is *what a card unlocks*: put the
card on a copy of the table, then count which cards of its suit could follow (directly or after
others) that could not follow without it, split into the seat's own cards and the hidden cards
(someone else's). A card that frees many of your own cards and few of theirs is a good play; a
six or eight that would free a suit you hardly hold is a block worth keeping.
"""

from __future__ import annotations

from typing import Any

from ..cards import JOKER_BASE, Card
from ..moves import GIVE, PLAY, STOP, SWAP, TOKEN, Move
from ..scoring import card_value
from ..table import NO, Table
from .base import Bot, Reason, legal_of
from .cardtypes import _type_values, card_type
from .history import ReplayCache
from .knowledge import Knowledge, infer

FORCED = {"token": "forced_token", "pass": "forced_pass", "ask": "forced_ask",
          "draw": "forced_draw", "chip": "forced_chip"}
URGENCY = {1: 1.0, 2: 0.45, 3: 0.15}
LEVEL_EXP = [0.0]  # how fast a freed card counts less the further it lies behind others


def _bits(m: int) -> int:
    return m.bit_count()


def _iter_bits(m: int):  # type: ignore[no-untyped-def]
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


# The fast paths of issue 24 (the same answers, computed without copying tables); tests
# switch them off to compare with the long way (tests/test_expert_fast.py).
FAST = [True]
# _unlock1's answers by the rows' ends: (freed types with weights, their mask, whether every
# weight is 1.0, the row's fits after the card)
_UNLOCK1: dict[tuple[Any, ...], tuple[list[tuple[int, float]], int, bool, int]] = {}


def _row_fits1(order: str, c: int, minr: int, maxr: int, tt: list[int], lo: int, hi: int) -> int:
    """``Table._row_fits`` of one opened-table row of a "rows" layout, on its ends alone."""
    if lo == NO:
        return 1 << tt[c]
    m = 0
    if lo > minr and (order == "both" or (
            (lo == c or hi > c or maxr == c) if order == "low-first" else (hi > c or maxr == c))):
        m |= 1 << tt[lo - 1]
    if hi < maxr and (order == "both" or (
            (lo < c or minr == c) if order == "low-first" else (hi == c or lo < c or minr == c))):
        m |= 1 << tt[hi + 1]
    return m


def _reach1(order: str, c: int, minr: int, maxr: int, tt: list[int], lo: int, hi: int,
            exclude: int) -> dict[int, int]:
    """``Features.reach`` on one row, played on the row's ends: the same rounds, and within
    a round the same order (ascending type) and the same re-check before each card that
    ``Table.placements`` makes after the previous card of the round."""
    levels: dict[int, int] = {}
    for level in range(1, 30):
        m = _row_fits1(order, c, minr, maxr, tt, lo, hi) & ~exclude
        placed = False
        while m:
            low = m & -m
            u = low.bit_length() - 1
            m ^= low
            if not (_row_fits1(order, c, minr, maxr, tt, lo, hi) >> u) & 1:
                continue
            if lo == NO:
                lo = hi = c
            elif lo > minr and tt[lo - 1] == u and (order == "both" or (
                    (lo == c or hi > c or maxr == c) if order == "low-first"
                    else (hi > c or maxr == c))):
                lo -= 1
            else:
                hi += 1
            levels.setdefault(u, level)
            placed = True
        if not placed:
            break
    return levels


# the last rules seen and their _type_values (one tuple: read and replaced whole)
_LAST_VALUES: list[tuple[Any, list[int]]] = [(None, [])]


def _reach_rows(order: str, c: int, minr: int, maxr: int, tt: list[int], los: list[int],
                his: list[int], exclude: int) -> dict[int, int]:
    """``_reach1`` on several rows sharing their types (two identical decks), their ends in
    ``los``/``his`` (changed): each card goes to the first of the rows where it fits, as
    ``Table.placements`` lists it first."""
    levels: dict[int, int] = {}
    k = len(los)
    for level in range(1, 30):
        m = 0
        for i in range(k):
            m |= _row_fits1(order, c, minr, maxr, tt, los[i], his[i])
        m &= ~exclude
        placed = False
        while m:
            low = m & -m
            u = low.bit_length() - 1
            m ^= low
            for i in range(k):
                lo, hi = los[i], his[i]
                if not (_row_fits1(order, c, minr, maxr, tt, lo, hi) >> u) & 1:
                    continue
                if lo == NO:
                    los[i] = his[i] = c
                elif lo > minr and tt[lo - 1] == u and (order == "both" or (
                        (lo == c or hi > c or maxr == c) if order == "low-first"
                        else (hi > c or maxr == c))):
                    los[i] = lo - 1
                else:
                    his[i] = hi + 1
                levels.setdefault(u, level)
                placed = True
                break
        if not placed:
            break
    return levels


class Features:
    """Measures of a position from one seat's view, shared by the rule-based bots and hints."""

    def __init__(self, view: Any, know: Knowledge | None = None) -> None:
        self.view = view
        self.rules = view.rules
        self.table: Table = view.table
        self.me = view.seat
        self.know = know if know is not None else infer(view)
        r = self.rules
        fold = r.decks == 2 and not r.distinct_decks  # card_type, inline (many cards)
        my_types = 0
        for c in view.hand:
            if c < JOKER_BASE:
                my_types |= 1 << (c % 52 if fold else c)
        self.my_types = my_types
        pool_types = 0
        for c in self.know.pool:
            if c < JOKER_BASE:
                pool_types |= 1 << (c % 52 if fold else c)
        self.pool_types = pool_types
        last = _LAST_VALUES[0]  # card_value of each type (a joker: its own value); found
        if last[0] is not r:  # by the rules' identity (hashing them cost more than the sum)
            last = _LAST_VALUES[0] = (r, _type_values(r))
        values: list[int] = last[1]
        self.hand_points: int = sum(r.joker_value if c >= JOKER_BASE else values[c % 52]
                               for c in view.hand)
        self.threat_now, self.threat_seat = self.threat(self.table.playable)
        self._unlocked: dict[Move, dict[str, Any] | None] = {}

    # -- the table after a move -------------------------------------------------------------
    def placement(self, table: Table, move: Move) -> tuple[int, int, str | None] | None:
        card = move.as_ if move.as_ is not None else move.card
        if card is None:
            return None
        t = card_type(self.rules, int(card))
        places = table.placements(t)
        for row, end in places:
            if move.row is not None and row // 4 != move.row and len({p[0] for p in places}) > 1:
                continue
            if move.end is not None and end is not None and end != move.end:
                continue
            return t, row, end
        return None

    def reach(self, table: Table, rows: tuple[int, ...], exclude: int) -> dict[int, int]:
        """Types that could still be added to ``rows`` (never using ``exclude``), with the round
        in which each first fits. Changes ``table``."""
        levels: dict[int, int] = {}
        for level in range(1, 30):
            m = 0
            for row in rows:
                m |= table.fits[row]
            m &= ~exclude
            placed = False
            for u in _iter_bits(m):
                for prow, pend in table.placements(u):
                    if prow in rows:
                        table.place(u, prow, pend, u)
                        levels.setdefault(u, level)
                        placed = True
                        break
            if not placed:
                break
        return levels

    def unlock(self, move: Move) -> dict[str, Any] | None:
        """What playing ``move`` opens: weighted counts of own and hidden cards freed, the
        cards that become playable at once, and the playable types after it (``playable``,
        the mask ``Table.playable`` of the table after the move). Worked out once per
        move (scoring and explaining a move both ask); treat the answer as read-only."""
        try:
            return self._unlocked[move]
        except KeyError:
            pass
        except AttributeError:  # a Features made without __init__
            self._unlocked = {}
        u = self._unlocked[move] = self._unlock(move)
        return u

    def _unlock(self, move: Move) -> dict[str, Any] | None:
        table = self.table
        if FAST[0] and table.opened and not table.upward and not table.first_decides:
            card = move.as_ if move.as_ is not None else move.card
            if card is None:
                return None
            t = card_type(self.rules, int(card))
            rows = table.type_rows[t] if t < len(table.type_rows) else ()
            if len(rows) == 1:  # placement(), for a type of one row (one place at most)
                row = rows[0]
                if not (table.fits[row] >> t) & 1:
                    return None
                end = table.fixed_end_side(t, row)
                if move.end is not None and end is not None and end != move.end:
                    return None
                return self._unlock1(t, rows, row, end)
        p = self.placement(table, move)
        if p is None:
            return None
        t, row, end = p
        rows = table.type_rows[t] if t < len(table.type_rows) else (row,)
        if (FAST[0] and table.identical and len(rows) > 1 and row in rows and table.opened
                and not table.upward and not table.first_decides):
            # two identical decks: a suit's rows share their types (and every type of them
            # these rows, in this order)
            return self._unlock1(t, rows, row, end)
        try:
            before = self.reach(self.table.copy(), rows, 1 << t)
            after_table = self.table.copy()
            after_table.place(t, row, end, int(move.card or 0))
            after = self.reach(after_table.copy(), rows, 0)
        except Exception:  # an unusual layout state: judge the move without this measure
            return None
        return self._unlock_answer(t, before, after, after_table.playable,
                                   self.table.lo[row] == NO)

    def _unlock1(self, t: int, rows: tuple[int, ...], row: int,
                 end: str | None) -> dict[str, Any]:
        """``_unlock`` of a card of ``rows`` (its type's rows, sharing their types), put on
        ``row``, the table opened, a "rows" layout with fixed ace ends: played on the rows'
        ends instead of table copies, and remembered by those ends (the same ends always
        free the same cards)."""
        table = self.table
        order, c, minr, maxr = table.order, table.center, table.minr, table.maxr
        tt = table.types[row]
        lo, hi = table.lo[row], table.hi[row]
        exp = LEVEL_EXP[0]
        # the row's types are fixed by its first and last (ace low or ace high, one suit)
        if len(rows) == 1:
            key: tuple[Any, ...] = (order, c, minr, maxr, tt[0], tt[-1], len(tt), lo, hi, t,
                                    end, exp)
        else:
            key = (order, c, minr, maxr, tt[0], tt[-1], len(tt),
                   tuple([table.lo[r] for r in rows]), tuple([table.hi[r] for r in rows]),
                   rows.index(row), t, end, exp)
        got = _UNLOCK1.get(key)
        if got is None:
            if lo == NO:  # Table.place, for this row
                lo2 = hi2 = c
            elif end == "low":
                lo2, hi2 = lo - 1, hi
            else:
                lo2, hi2 = lo, hi + 1
            if len(rows) == 1:
                before = _reach1(order, c, minr, maxr, tt, lo, hi, 1 << t)
                after = _reach1(order, c, minr, maxr, tt, lo2, hi2, 0)
            else:
                los = [table.lo[r] for r in rows]
                his = [table.hi[r] for r in rows]
                before = _reach_rows(order, c, minr, maxr, tt, los[:], his[:], 1 << t)
                i = rows.index(row)
                los[i], his[i] = lo2, hi2
                after = _reach_rows(order, c, minr, maxr, tt, los, his, 0)
            freed = [(u, 1.0 / lvl ** exp) for u, lvl in after.items()
                     if u != t and u not in before]
            fmask = 0
            for u, _w in freed:
                fmask |= 1 << u
            if len(_UNLOCK1) > 100_000:
                _UNLOCK1.clear()
            got = _UNLOCK1[key] = (freed, fmask, all(w == 1.0 for _u, w in freed),
                                   _row_fits1(order, c, minr, maxr, tt, lo2, hi2))
        freed, fmask, ones, playable = got
        for r, f in enumerate(table.fits):
            if r != row:
                playable |= f
        my, pool = self.my_types, self.pool_types
        if ones:  # every weight 1.0: the sums are the counts
            mine = _bits(fmask & my)
            theirs = _bits(fmask & pool & ~my)
            mine_w, theirs_w = float(mine), float(theirs)
        else:
            mine_w = theirs_w = 0.0
            mine = theirs = 0
            for u, w in freed:
                if (my >> u) & 1:
                    mine_w += w
                    mine += 1
                elif (pool >> u) & 1:
                    theirs_w += w
                    theirs += 1
        new = playable & ~table.playable
        return {
            "type": t, "mine_w": mine_w, "theirs_w": theirs_w, "mine": mine, "theirs": theirs,
            "new_mine": _bits(new & my), "new_theirs": _bits(new & pool),
            "playable": playable, "opens_row": lo == NO,
        }

    def _unlock_answer(self, t: int, before: dict[int, int], after: dict[int, int],
                       playable: int, opens_row: bool) -> dict[str, Any]:
        mine_w = theirs_w = 0.0
        mine = theirs = 0
        for u, lvl in after.items():
            if u == t or u in before:
                continue
            w = 1.0 / lvl ** LEVEL_EXP[0]
            if (self.my_types >> u) & 1:
                mine_w += w
                mine += 1
            elif (self.pool_types >> u) & 1:
                theirs_w += w
                theirs += 1
        new = playable & ~self.table.playable
        return {
            "type": t, "mine_w": mine_w, "theirs_w": theirs_w, "mine": mine, "theirs": theirs,
            "new_mine": _bits(new & self.my_types), "new_theirs": _bits(new & self.pool_types),
            "playable": playable, "opens_row": opens_row,
        }

    # -- opponents near out -----------------------------------------------------------------
    def threat(self, playable: int) -> tuple[float, int | None]:
        """How likely an opponent goes out soon with these cards playable (0..1), and who."""
        safe = 1.0
        worst, worst_seat = 0.0, None
        r = self.rules
        for s, o in self.know.opponents.items():
            k = o.size
            if k not in URGENCY:
                continue
            if o.known and any((playable >> card_type(r, c)) & 1 for c in o.known):
                p = 1.0
            else:
                cands = self.pool_types & ~(0 if o.free else o.excluded)
                total = _bits(cands)
                p = _bits(cands & playable) / total if total else 0.0
            risk = URGENCY[k] * (1 - (1 - p) ** k)
            safe *= 1 - risk
            if risk > worst:
                worst, worst_seat = risk, s
        return 1 - safe, worst_seat

    def distance(self, t: int) -> int:
        """How many cards are missing between the table and type ``t``."""
        table = self.table
        best = 99
        if t >= len(table.type_rows):
            return 0
        for row in table.type_rows[t]:
            line = table.types[row]
            if not line:
                return 0
            lo, hi = table.lo[row], table.hi[row]
            for idx, u in enumerate(line):
                if u != t:
                    continue
                if lo == NO:
                    d = abs(idx - table.center)
                elif idx < lo:
                    d = lo - 1 - idx
                elif idx > hi:
                    d = idx - hi - 1
                else:
                    d = 0
                best = min(best, d)
        return 0 if best == 99 else best

    def beyond_mine(self, t: int) -> int:
        """My cards further from the centre than ``t`` on its side of the row."""
        table = self.table
        where = table.slot_of(t)
        if where is None:
            return 0
        row, idx = where
        line = table.types[row]
        c = table.center
        if idx == c:
            rng = range(len(line))
        elif idx < c:
            rng = range(0, idx)
        else:
            rng = range(idx + 1, len(line))
        return sum(1 for i in rng if (self.my_types >> line[i]) & 1 and line[i] != t)


class ExpertBot(Bot):
    """Rule-based play following the tips of docs/rules.en.md §7."""

    name = "expert"

    # weights, tuned by duplicate tournaments (docs/strength.md)
    W_MINE = 4.0
    W_THEIRS = 0.4
    W_NEW_MINE = 0.5
    W_NEW_THEIRS = 0.2
    EXTRA_CARD = 2.5

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal = legal_of(view)
        if len(legal) == 1:
            m = legal[0]
            if m.kind in FORCED:
                return m, (FORCED[m.kind], {})
            if m.kind == PLAY and len(view.hand) == 1:
                return m, ("last_card", {"card": m.card})
            return m, ("only", {"move": str(m)})
        f = Features(view, know=infer(view, self._replays(view)))
        scored = self.score_moves(f, legal)
        best = max(scored, key=lambda x: x[0])
        return best[1], best[2]

    def _replays(self, view: Any) -> ReplayCache:
        """This bot's replay of the deal so far, for the seat it plays (a seat's bot is asked
        again and again in one deal; the cache replays only what happened since)."""
        caches: dict[int, ReplayCache] = self.__dict__.setdefault("_replay_caches", {})
        cache = caches.get(view.seat)
        if cache is None:
            cache = caches[view.seat] = ReplayCache()
        return cache

    def score_moves(self, f: Features, legal: tuple[Move, ...]) -> list[tuple[float, Move, Reason]]:
        """Every legal move with its score (higher is better) and reason."""
        view = f.view
        if view.phase == "give":
            return self._score_gives(f, legal)
        plays: list[tuple[float, Move, dict[str, Any] | None]] = []
        for m in legal:
            if m.kind == PLAY:
                plays.append((self._score_play(f, m), m, f.unlock(m)))
        out: list[tuple[float, Move, Reason]] = []
        for s, m, u in plays:
            out.append((s, m, self._play_reason(f, m, u, plays)))
        for m in legal:
            if m.kind == STOP:
                out.append((-self.EXTRA_CARD, m, ("stop", {})))
            elif m.kind == TOKEN:
                out.append(self._score_hoard(f, m, plays))
            elif m.kind == SWAP:
                out.append((1.0, m, ("move_generic", {"move": str(m)})))
            elif m.kind != PLAY:
                out.append((-50.0, m, (FORCED.get(m.kind, "move_generic"), {"move": str(m)})))
        return out

    def _score_play(self, f: Features, m: Move) -> float:
        view = f.view
        assert m.card is not None
        if len(view.hand) == 1 or (view.rules.multi_play and len(view.hand) == 1):
            return 1000.0
        v = card_value(m.card, f.rules)
        u = f.unlock(m)
        score = 0.0
        if u is not None:
            score += self.W_MINE * u["mine_w"] - self.W_THEIRS * u["theirs_w"]
            score += self.W_NEW_MINE * u["new_mine"] - self.W_NEW_THEIRS * u["new_theirs"]
            threat_after, _ = f.threat(u["playable"])
        else:
            threat_after = f.threat_now
        exposure = f.hand_points + (f.rules.token_value if view.token_holder == f.me else 0)
        # dumping: the nearer someone is to going out, the more a card's points matter
        score += v * (0.03 + f.threat_now)
        # opening a way out for an opponent who is nearly out costs what we still hold
        score -= max(0.0, threat_after - f.threat_now) * exposure * 0.5
        if view.phase == "more":
            score += self.EXTRA_CARD
        if m.card.is_joker:
            score -= 3.0  # a joker is worth keeping for a card that cannot be played otherwise
        return score

    def _play_reason(self, f: Features, m: Move, u: dict[str, Any] | None,
                     plays: list[tuple[float, Move, dict[str, Any] | None]]) -> Reason:
        view = f.view
        card = m.card
        assert card is not None
        if len(view.hand) == 1:
            return "last_card", {"card": card}
        if m.end is not None and sum(1 for _, p, _ in plays if p.card == card) > 1:
            return "ace_end", {"card": card, "end": m.end}
        if view.phase == "more":
            return "continue", {"card": card}
        v = card_value(card, f.rules)
        # (the most valuable play is looked for only when it can matter)
        if f.threat_now >= 0.3 and v >= 9 and f.threat_seat is not None and v >= max(
                card_value(p.card, f.rules) for _, p, _ in plays if p.card is not None):
            return "dump", {"card": card, "player": view.names[f.threat_seat], "value": v}
        if u is not None:
            if u["opens_row"] and u["mine"] >= 2 and u["mine"] >= u["theirs"] and card.suit >= 0:
                return "open_long", {"card": card, "suit_id": card.suit}
            if u["mine"] > 0 and u["mine"] >= u["theirs"]:
                return "unlock_own", {"card": card, "mine": u["mine"], "theirs": u["theirs"]}
        others = [(p, uu) for _, p, uu in plays if p.card != card and uu is not None]
        if others:
            p, uu = max(others, key=lambda x: x[1]["theirs_w"] - x[1]["mine_w"])
            if uu is not None and uu["theirs"] >= 3 and uu["theirs_w"] > uu["mine_w"] \
                    and p.card is not None and p.card.suit >= 0:
                return "keep_block", {"card": card, "block": p.card, "suit_id": p.card.suit}
        return "fewest_openings", {"card": card}

    def _score_hoard(self, f: Features, m: Move,
                     plays: list[tuple[float, Move, dict[str, Any] | None]]) -> tuple[float, Move, Reason]:
        view = f.view
        own = view.token_holder == f.me
        cost = 0.0 if own else f.rules.token_value * 0.5
        if f.rules.fines_per_miss:  # V18: every hoard is a fine of its own, never free
            cost = float(f.rules.token_value)
        if f.rules.hoarding == "any-with-penalty":
            cost += f.rules.hoarding_penalty
        score = -cost - 1.5 - 10 * f.threat_now
        worst = min(plays, key=lambda x: x[0]) if plays else None
        card = worst[1].card if worst else None
        key = "hoard_free" if own else "hoard"
        return score, m, (key, {"card": card} if card is not None else {"move": str(m)})

    def _score_gives(self, f: Features, legal: tuple[Move, ...]) -> list[tuple[float, Move, Reason]]:
        out: list[tuple[float, Move, Reason]] = []
        r = f.rules
        for m in legal:
            if m.kind != GIVE or m.card is None:
                out.append((-99.0, m, ("move_generic", {"move": str(m)})))
                continue
            c = m.card
            if c.is_joker:  # jokers fit anywhere: never give one away
                out.append((-20.0, m, ("give", {"card": c})))
                continue
            t = card_type(r, c)
            d = f.distance(t)
            v = card_value(c, r)
            playable = (f.table.playable >> t) & 1
            score = d + 0.15 * v - 1.5 * f.beyond_mine(t) - (3.0 if playable else 0.0)
            key = "give_expensive" if v >= 11 and d >= 2 else "give"
            out.append((score, m, (key, {"card": c, "value": v})))
        return out

    def reason_for(self, view: Any, move: Move) -> Reason:
        """The expert's reason for ``move`` (which may be another bot's choice)."""
        legal = legal_of(view)
        if len(legal) == 1:
            return self.decide(view)[1]
        for _s, m, reason in self.score_moves(Features(view), legal):
            if m == move:
                return reason
        return "move_generic", {"move": str(move)}


class BasicBot(Bot):
    """A simple sensible heuristic: play the card that opens the fewest new cards for the
    others, the more expensive one on a tie; always use an extra move; never hoard; give the
    card furthest from the table."""

    name = "basic"

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal = legal_of(view)
        if len(legal) == 1:
            m = legal[0]
            return m, (FORCED.get(m.kind, "only"), {"move": str(m)})
        r = view.rules
        table: Table = view.table
        if view.phase == "give":
            gives = [(m, m.card) for m in legal if m.card is not None]
            best = max(gives, key=lambda mc: (not mc[1].is_joker, _give_distance(table, r, mc[1]),
                                              card_value(mc[1], r)))[0]
            return best, ("give", {"card": best.card})
        mine = 0
        for c in view.hand:
            mine |= 1 << card_type(r, c)
        rng = self.rng_for(view)
        best_key: tuple[float, ...] | None = None
        best_move = legal[0]
        f = Features.__new__(Features)  # only placement() is used: no inference needed
        f.rules = r
        for m in legal:
            if m.kind != PLAY or m.card is None:
                continue
            p = f.placement(table, m)
            opened = 0
            if p is not None:
                t2 = table.copy()
                try:
                    t2.place(p[0], p[1], p[2], int(m.card))
                    opened = _bits(t2.playable & ~table.playable & ~mine)
                except Exception:
                    opened = 0
            key = (-opened, card_value(m.card, r), rng.random())
            if best_key is None or key > best_key:
                best_key, best_move = key, m
        if best_move.kind != PLAY:
            return best_move, ("move_generic", {"move": str(best_move)})
        return best_move, ("basic", {"card": best_move.card})


def _give_distance(table: Table, rules: Any, c: Card) -> int:
    where = table.slot_of(card_type(rules, c))
    if where is None:
        return 0
    row, idx = where
    lo, hi = table.lo[row], table.hi[row]
    if lo == NO:
        return abs(idx - table.center)
    return max(lo - 1 - idx, idx - hi - 1, 0)
