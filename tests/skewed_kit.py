"""Skewed legal policies and the end-of-deal checks of issue 52 (tests/test_skewed_policies.py
and ``tools/skewed_search.py``).

Uniform random play almost never reaches some corners of the rules (a joker standing for a
seven while the table fills up, a swap as the last legal move, the second row of two decks, a
closing card with the extra move declined or taken). Each policy here picks a kind of legal
move whenever one is offered and otherwise plays uniformly at random, so those corners come up
in most deals.

:func:`nothing_playable` answers "can any card left in any hand ever be played?" from the
table as the seats see it (the cards and jokers on each row), independently of the engine's own
bookkeeping of dead cards: a real card can be played while one of its places on the table is
free or a visible joker stands for it; a joker while any place is free. Every card not on the
table is in a hand (jokers are never played with a stock), so the card next to a free place can
always be played by its holder some day, and a free place is always reachable.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ristiseiska.cards import JOKER_BASE
from ristiseiska.game import Game
from ristiseiska.moves import Move
from ristiseiska.record import check_record, record_from_game, replay_record
from ristiseiska.rules import Rules, preset, preset_names

Policy = Callable[[Game, random.Random], Move]


def _uniform(g: Game, rng: random.Random) -> Move:
    return rng.choice(g.legal_moves())


def _prefer(pick: Callable[[Game, list[Move]], list[Move]]) -> Policy:
    """A policy that plays one of ``pick(game, legal)`` when that is not empty, else any."""
    def policy(g: Game, rng: random.Random) -> Move:
        legal = g.legal_moves()
        chosen = pick(g, legal)
        return rng.choice(chosen or legal)
    return policy


def _is_joker_play(m: Move) -> bool:
    return m.kind == "play" and m.card is not None and m.card.is_joker


def _jokers(g: Game, legal: list[Move]) -> list[Move]:
    return [m for m in legal if _is_joker_play(m)]


def _joker_sevens(g: Game, legal: list[Move]) -> list[Move]:
    centre = g.rules.center
    sevens = [m for m in legal
              if _is_joker_play(m) and m.as_ is not None and m.as_.rank == centre]
    return sevens or _jokers(g, legal)


def _swaps(g: Game, legal: list[Move]) -> list[Move]:
    return [m for m in legal if m.kind == "swap"]


def _no_swaps(g: Game, legal: list[Move]) -> list[Move]:
    return [m for m in legal if m.kind != "swap"]


def _second_row(g: Game, legal: list[Move]) -> list[Move]:
    # a play names its row only when the card fits more than one
    return [m for m in legal if m.kind == "play" and m.row is not None and m.row >= 1]


def _closed_piles(g: Game) -> int:
    t = g.table
    return sum(t.is_closed(row, end) for row in range(t.nrows) for end in ("low", "high"))


def _closing(g: Game, legal: list[Move]) -> list[Move]:
    plays = [m for m in legal if m.kind == "play"]
    if len(plays) < 2:
        return plays
    before = _closed_piles(g)
    out = []
    for m in plays:
        h = g.copy()
        h.push(m)
        if _closed_piles(h) > before or h.phase == "more":
            out.append(m)
    return out


def _stop(g: Game, legal: list[Move]) -> list[Move]:
    return [m for m in legal if m.kind == "stop"]


def _go_on(g: Game, legal: list[Move]) -> list[Move]:
    return [m for m in legal if m.kind != "stop"] if g.phase == "more" else []


def _token(g: Game, legal: list[Move]) -> list[Move]:
    if any(m.kind == "play" for m in legal):
        return [m for m in legal if m.kind == "token"]
    return []


POLICIES: dict[str, Policy] = {
    "joker": _prefer(_jokers),                # a joker whenever one can be played
    "joker-seven": _prefer(_joker_sevens),    # a joker standing for a seven first
    "swap-first": _prefer(_swaps),            # a swap whenever one is offered
    "swap-last": _prefer(_no_swaps),          # a swap only when it is the only play
    "second-row": _prefer(_second_row),       # the second row whenever a card fits both
    "closing-first": _prefer(_closing),       # closing cards first
    "always-stop": _prefer(_stop),            # always stop after a closing card
    "never-stop": _prefer(_go_on),            # never stop after a closing card
    "token": _prefer(_token),                 # the token whenever hoarding allows it
}

# The rules each policy's skew shows in (every preset is played by every policy besides).
_JOKERS: dict[str, Rules] = {
    "jokerit": preset("jokerit"),
    "jokers-1-first-out": Rules(failure="ask", jokers=1),
    "jokers-2-first-out": Rules(failure="ask", jokers=2),
    "jokers-no-first-round-pass": Rules(failure="ask", jokers=2, first_round_pass=False),
    "jokers-2-two-decks": Rules(failure="ask", jokers=2, decks=2, end="last-left"),
    "jokers-two-decks-first-out": Rules(failure="ask", jokers=2, decks=2),
    "jokers-two-different-decks": Rules(failure="ask", jokers=2, decks=2, distinct_decks=True,
                                        end="last-left"),
    "jokers-first-ace": Rules(failure="ask", jokers=2, ace="first-decides"),
    "jokers-first-ace-last-left": preset("jokerit").replace(ace="first-decides"),
    "jokers-eight-before-six": preset("jokerit").replace(ace="high", order="high-first"),
    "jokers-several-at-once": preset("jokerit").replace(multi_play=True),
    "jokers-several-first-out": Rules(failure="ask", jokers=2, multi_play=True),
    "jokers-ristikasi": preset("ristikasi").replace(failure="ask", jokers=1),
    "jokers-points": preset("jokerit").replace(last_left_scoring="cards"),
}
_TWO_DECKS: dict[str, Rules] = {
    "kaksi-pakkaa": preset("kaksi-pakkaa"),
    "first-ace-two-decks": Rules(ace="first-decides", decks=2),
    "jokers-2-two-decks": _JOKERS["jokers-2-two-decks"],
    "jokers-two-decks-first-out": _JOKERS["jokers-two-decks-first-out"],
    "two-decks-several": Rules(decks=2, multi_play=True),
}
_CLOSING: dict[str, Rules] = {
    "first-ace": Rules(ace="first-decides"),
    "eight-before-six": Rules(ace="high", order="high-first"),
    "first-ace-two-decks": Rules(ace="first-decides", decks=2),
    "several-at-once": Rules(multi_play=True),
    **{k: v for k, v in _JOKERS.items() if v.extra_move or v.multi_play},
}
_HOARDING: dict[str, Rules] = {
    "hoard-678": Rules(hoarding="sevens-sixes-eights"),
    "hoard-all-but-sevens": Rules(hoarding="all-but-sevens"),
    "hoard-penalty": Rules(hoarding="any-with-penalty"),
    "hoard-per-miss": Rules(hoarding="all-but-sevens", token_mode="per-miss"),
    "hoard-pantti25": preset("ristiseiska-pantti25").replace(hoarding="sevens-sixes-eights"),
    "hoard-stock": preset("kahdestaan-pakka").replace(hoarding="all-but-sevens"),
    "hoard-first-ace": Rules(hoarding="any-with-penalty", ace="first-decides"),
}
PRESETS: dict[str, Rules] = {p: preset(p) for p in preset_names()}
FOCUS: dict[str, dict[str, Rules]] = {
    "joker": _JOKERS, "joker-seven": _JOKERS, "swap-first": _JOKERS, "swap-last": _JOKERS,
    "second-row": _TWO_DECKS, "closing-first": _CLOSING, "always-stop": _CLOSING,
    "never-stop": _CLOSING, "token": _HOARDING,
}


def rule_sets(policy: str) -> dict[str, Rules]:
    """Every preset and the option combinations where ``policy``'s skew shows."""
    return {**PRESETS, **FOCUS[policy]}


def players_for(r: Rules, k: int) -> int:
    """A player count the rules allow, cycling with ``k`` (2 to 6 players)."""
    top = min(r.max_players, 6)
    return r.min_players + k % (top - r.min_players + 1)


def nothing_playable(g: Game) -> bool:
    """Whether cards are left in some hand and none of them can ever be played (see the
    module's docstring); computed from what lies on the table, not from the engine's
    bookkeeping of dead cards."""
    hands = [g.hand(s) for s in range(g.n)]
    if not any(hands):
        return False
    table = g.table
    if not any(table.occupant):
        return False  # nothing down yet (free Fan Tan's first card may be anything)
    r = g.rules
    identical = r.decks == 2 and not r.distinct_decks
    places = 2 if identical else 1

    def kind(cid: int) -> int:
        return cid % 52 if identical and cid < JOKER_BASE else cid

    filled: dict[int, int] = {}
    visible: set[int] = set()
    down = 0
    for row, slots in enumerate(table.occupant):
        for slot, cid in slots.items():
            down += 1
            t = kind(cid) if cid < JOKER_BASE else table.types[row][slot]  # a joker: its card
            filled[t] = filled.get(t, 0) + 1
            if cid >= JOKER_BASE and table.joker_visible(row, slot):
                visible.add(t)
    free_place = down < 52 * r.decks
    for hand in hands:
        for c in hand:
            if c.is_joker:
                if free_place:
                    return False
            elif filled.get(kind(int(c)), 0) < places or kind(int(c)) in visible:
                return False
    return True


def check_action(g: Game) -> None:
    """The checks after every action: a deal where nothing can be played is over; a deal that
    ended stuck has nothing playable; one that stalled still had a playable card."""
    stuck = nothing_playable(g)
    if stuck:
        assert g.is_over(), (
            f"nothing left in any hand can be played but the deal goes on "
            f"(after {g.events[-1].to_dict() if g.events else 'no event'})"
        )
    if g.is_over():
        assert g.result is not None
        if g.result.end == "stuck":
            assert stuck, "the deal ended stuck while a card could still be played"
        if g.result.end == "stall":
            assert not stuck, "the deal ended as a stall when nothing could be played"


def check_record_of(g: Game, twice: bool = True) -> None:
    """The record replays to the same result and ``check_record`` accepts it (``twice``:
    both; otherwise the one replay ``check_record`` makes, enough for the long search)."""
    rec = record_from_game(g)
    problem = check_record(rec)
    assert problem is None, problem
    if g.is_over() and twice:
        assert replay_record(rec).result == g.result


def play(policy: str, r: Rules, n: int, seed: int, every_action: bool = True,
         records: str = "end") -> Game:
    """Play one deal with ``policy``; check after every action (``every_action``: the full
    check; otherwise only with jokers, the only rules where a deal can get stuck) and the
    record at the ``end`` or after ``every`` action."""
    g = Game(r, n, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    choose = POLICIES[policy]
    check_each = every_action or bool(r.jokers)
    bound = (52 * r.decks + r.jokers + 2) * (r.stall_turns + 2) * n
    for _ in range(bound):
        if g.is_over():
            break
        g.push(choose(g, rng))
        if check_each:
            check_action(g)
        if records == "every":
            check_record_of(g)
    assert g.is_over(), "the deal did not end"
    check_action(g)
    check_record_of(g, twice=every_action)
    return g


__all__ = ["POLICIES", "FOCUS", "PRESETS", "rule_sets", "players_for", "nothing_playable",
           "check_action", "check_record_of", "play"]
