"""Whether a move makes a seat *certainly* go out first, from that seat's view alone (issue 45).

An explanation may say "you certainly go out first" only when it is true in every deal
consistent with what the seat has seen, whatever the others hold and however they play. The
analysis samples hidden hands, so a chance of 99 % or 100 % in its sample is not a proof; this
module is the proof, by a bound that needs no hidden card:

* the seat's own plan: the fewest turns ``F`` in which the seat can empty its hand playing
  only its own cards (each turn one card, one more after every closing card where the rules
  give an extra card). Cards the others lay can only open more places, never close one, so the
  plan stays playable whatever they do;
* the others' best case: before the seat's ``F``-th turn each other player has ``F`` turns, in
  which it lays at most ``F`` cards plus one extra card for each closing card it lays; it can
  hold at most every closing card the seat has not seen (``K``). A player holding more than
  ``F + K`` cards cannot be out first.

So the seat certainly goes out first when ``F == 0`` (the hand empties in this turn) or every
other player holds more than ``F + K`` cards. The bound is conservative (it may say "not
certain" where inference would prove more), never the other way; rule sets where cards change
hands, come from a stock, or where the layout can close a place (jokers, two decks, a first ace
deciding the ends, the upward layout, several cards a turn) are never called certain.
"""

from __future__ import annotations

from typing import Any

from ..moves import Move, parse_move

INF = 10 ** 6
MAX_HAND = 13  # larger hands are never certain here (and the search stays small)


def supported(rules: Any) -> bool:
    """Rules under which the bound above holds (no card changes hands or closes a place)."""
    return (rules.decks == 1 and rules.jokers == 0 and not rules.stock and not rules.multi_play
            and rules.layout == "rows" and rules.ace in ("low", "high")
            and rules.failure in ("token", "pass", "chip"))


def _closing_types(table: Any) -> set[int]:
    """The card types that close a pile end (the last slot at either end of a row)."""
    out: set[int] = set()
    for row in range(table.nrows):
        tt = table.types[row]
        for slot in (table.minr, table.maxr):
            if 0 <= slot < len(tt) and tt[slot] >= 0:
                out.add(int(tt[slot]))
    return out


def turns_to_empty(table: Any, hand: frozenset[int], extra: bool, cont: bool) -> int:
    """The fewest new turns in which a seat holding ``hand`` (card ids) empties it on ``table``
    by its own cards alone; ``cont``: it is now in the middle of a turn and may play one more
    card first. ``INF`` when it cannot."""

    return _search(table, hand, extra, cont)


def _search(table: Any, hand: frozenset[int], extra: bool, cont: bool) -> int:
    memo: dict[tuple[frozenset[int], bool], int] = {}

    def go(tab: Any, h: frozenset[int], more: bool) -> int:
        if not h:
            return 0
        key = (h, more)
        if key in memo:
            return memo[key]
        memo[key] = INF  # no loops: a turn always lays a card
        best = go(tab, h, False) if more else INF
        for c in sorted(h):
            places = tab.placements(c)
            if not places:
                continue
            t2 = tab.copy()
            row, end = places[0]
            closing = t2.place(c, row, end, c)
            rest = h - {c}
            after = 0 if not rest else go(t2, rest, bool(closing and extra))
            best = min(best, after if more else 1 + after)
        memo[key] = best
        return best

    return go(table, hand, cont)


def turns_after(view: Any, move: Move | str) -> int:
    """The fewest new turns in which ``view``'s seat, having made ``move``, can empty its hand
    with its own cards alone (0: in this turn); ``INF`` when it cannot or the rules are not
    :func:`supported`."""
    rules = view.rules
    if not supported(rules) or view.phase not in ("turn", "more") or view.to_move != view.seat:
        return INF
    m = move if isinstance(move, Move) else parse_move(str(move))
    if m not in view.legal_moves:
        return INF
    hand = frozenset(int(c) for c in view.hand)
    if len(hand) > MAX_HAND:
        return INF
    table = view.table.copy()
    cont = False
    if m.card is not None:
        c = int(m.card)
        places = table.placements(c)
        if c not in hand or not places:
            return INF
        row, end = places[0]
        closing = table.place(c, row, end, c)
        hand = hand - {c}
        if not hand:
            return 0
        cont = bool(closing and rules.extra_move)
    return _search(table, hand, rules.extra_move, cont)


def certainly_first_out(view: Any, move: Move | str) -> bool:
    """True when ``move`` makes ``view``'s seat go out first in every deal consistent with the
    view, however the others play (see the module's text); False when that cannot be shown."""
    if view.out_order:
        return False
    f = turns_after(view, move)
    if f == 0:
        return True
    if f >= INF:
        return False
    table = view.table
    seen = set(int(c) for c in view.hand)
    for r in range(table.nrows):
        seen.update(int(c) for c in table.occupant[r].values())
    unseen_closing = len(_closing_types(table) - seen) if view.rules.extra_move else 0
    others = [s for s in range(view.players) if s != view.seat]
    return all(view.hand_sizes[s] > f + unseen_closing for s in others)


__all__ = ["certainly_first_out", "supported", "turns_after", "turns_to_empty"]
