"""Card values, the token, chips and penalties: the result of one deal.

    >>> from ristiseiska.rules import Rules
    >>> from ristiseiska.cards import parse_cards
    >>> hand_points(parse_cards("SA SK S4"), Rules())          # docs/rules.en.md §2
    31
    >>> hand_points(parse_cards("SA SK S4"), Rules(card_values="ace1"))
    18
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .rules import Rules


def card_value(c: Card, rules: Rules) -> int:
    """Points of one card left in hand."""
    if c.is_joker:
        return rules.joker_value
    if rules.card_values == "one":
        return 1
    r = c.rank
    if r == 1:
        return 14 if rules.card_values == "ace14" else 1
    return r


def hand_points(cards: Iterable[Card], rules: Rules) -> int:
    return sum(card_value(c, rules) for c in cards)


@dataclass(frozen=True)
class Result:
    """The outcome of a deal (docs/records.md ``result``). ``points`` is what goes on the score
    sheet: lower is better. With chips, ``points`` is the net number of chips paid (negative
    for the winner, who collects)."""

    winner: int | None
    card_points: tuple[int, ...]
    token_points: tuple[int, ...]
    points: tuple[int, ...]
    token_holder: int | None
    out_order: tuple[int, ...]
    penalty_points: tuple[int, ...] = ()
    chips: tuple[int, ...] | None = None
    loser: int | tuple[int, ...] | None = None
    end: str = "out"
    next_dealer: int | None = None
    token_fines: tuple[int, ...] | None = None  # V18: fines per seat (per-miss rules only)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "winner": self.winner,
            "card_points": list(self.card_points),
            "token_points": list(self.token_points),
            "points": list(self.points),
            "token_holder": self.token_holder,
            "out_order": list(self.out_order),
            "end": self.end,
            "next_dealer": self.next_dealer,
        }
        if any(self.penalty_points):
            d["penalty_points"] = list(self.penalty_points)
        if self.token_fines is not None:
            d["token_fines"] = list(self.token_fines)
        if self.chips is not None:
            d["chips"] = list(self.chips)
        if self.loser is not None:
            d["loser"] = list(self.loser) if isinstance(self.loser, tuple) else self.loser
        return d


def score_deal(
    rules: Rules,
    hands: Sequence[Sequence[Card]],
    winner: int | None,
    out_order: Sequence[int],
    token_holder: int | None,
    penalties: Sequence[int],
    chips_paid: Sequence[int] | None,
    pot: int,
    end: str,
    dealt_sizes: Sequence[int],
    dealer: int,
    token_fines: Sequence[int] | None = None,
) -> Result:
    """Score a finished deal from the hands left and what happened during it.
    ``token_fines``: per seat, the fines taken under V18 (``token_mode = "per-miss"``)."""
    n = len(hands)
    holding = [i for i in range(n) if hands[i]]
    loser: int | tuple[int, ...] | None = None
    # A deal that ends because no card left can be played (jokers, V11) is lost by everyone
    # still holding cards, as a deal played to the last player is.
    if rules.end == "last-left" or end == "stuck":
        if len(holding) == 1:
            loser = holding[0]
        elif holding:
            loser = tuple(holding)
    card_pts = [hand_points(h, rules) for h in hands]
    token_pts = [0] * n
    # The holder pays for the token unless they ran out of cards (docs/rules.en.md §2, "The token").
    fines: list[int] | None = None
    if rules.fines_per_miss:
        # V18 [decision]: every fine stays with whoever took it, the winner included.
        fines = list(token_fines or [0] * n)
        token_pts = [rules.token_value * fines[i] for i in range(n)]
    elif rules.uses_token and token_holder is not None and hands[token_holder]:
        token_pts[token_holder] = rules.token_value
    pen = list(penalties)
    chips: tuple[int, ...] | None = None
    if rules.end == "last-left" and rules.last_left_scoring == "losses":
        card_pts = [0] * n
        token_pts = [0] * n
        losers = holding
        points = [(1 if i in losers else 0) + pen[i] for i in range(n)]
    else:
        points = [card_pts[i] + token_pts[i] + pen[i] for i in range(n)]
    if rules.uses_chips:
        paid = list(chips_paid or [0] * n)
        net = paid[:]
        collector = winner if winner is not None else None
        if collector is not None:
            net[collector] -= pot
            if rules.pay_per_card:
                for i in range(n):
                    if i != collector:
                        net[i] += len(hands[i])
                        net[collector] -= len(hands[i])
        chips = tuple(net)
        points = [net[i] + pen[i] for i in range(n)]
        card_pts = [0] * n
    # Who deals next: to the left, or the loser when the deal is played to the last player
    # (the one holding most cards when several are left; the first of them from the dealer's
    # left on a tie).
    if (rules.end == "last-left" or end == "stuck") and holding:
        order = [(dealer + 1 + k) % n for k in range(n)]
        most = max(len(hands[i]) for i in holding)
        next_dealer = next(i for i in order if i in holding and len(hands[i]) == most)
    else:
        next_dealer = (dealer + 1) % n
    del dealt_sizes
    return Result(
        winner=winner,
        card_points=tuple(card_pts),
        token_points=tuple(token_pts),
        points=tuple(points),
        token_holder=token_holder,
        out_order=tuple(out_order),
        penalty_points=tuple(pen),
        chips=chips,
        loser=loser,
        end=end,
        next_dealer=next_dealer,
        token_fines=tuple(fines) if fines is not None else None,
    )
