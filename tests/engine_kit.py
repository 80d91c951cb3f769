"""Helpers for the engine tests (helper B): build a deal from chosen hands, drive it.

Positions are built by choosing who holds which card (the rest of the deck goes to named
seats) and then pushing real moves, so every example runs through the engine's own turn logic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from ristiseiska.cards import Card, full_deck, parse_cards
from ristiseiska.game import Game
from ristiseiska.moves import Move, parse_move
from ristiseiska.rules import Rules


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def hands_with(n: int, spec: dict[int, str], rest: int | Sequence[int],
               rules: Rules | None = None, exclude: Iterable[Card] = ()) -> list[list[Card]]:
    """Hands for ``n`` seats: ``spec`` gives some seats their named cards; every other card of
    the deck goes to ``rest`` (one seat, or round-robin over several seats)."""
    rules = rules or Rules()
    hands: list[list[Card]] = [[] for _ in range(n)]
    used: set[int] = set(int(c) for c in exclude)
    for seat, text in spec.items():
        for c in parse_cards(text):
            assert int(c) not in used, f"{c} given twice"
            used.add(int(c))
            hands[seat].append(c)
    rest_seats = [rest] if isinstance(rest, int) else list(rest)
    k = 0
    for c in full_deck(rules.decks, rules.jokers):
        if int(c) in used:
            continue
        hands[rest_seats[k % len(rest_seats)]].append(c)
        k += 1
    return hands


def game_with(n: int, spec: dict[int, str], rest: int | Sequence[int], rules: Rules | None = None,
              dealer: int | None = None, **kw: object) -> Game:
    rules = rules or Rules()
    exclude = parse_cards(rules.laid_out) if rules.laid_out else []
    hands = hands_with(n, spec, rest, rules, exclude)
    return Game(rules, n, hands=hands, dealer=(n - 1) if dealer is None else dealer, **kw)  # type: ignore[arg-type]


def legal(g: Game) -> set[str]:
    return {str(m) for m in g.legal_moves()}


def legal_plays(g: Game) -> set[str]:
    return {str(m) for m in g.legal_moves() if m.kind == "play"}


def push(g: Game, *texts: str) -> None:
    """Push moves by text (each must be legal)."""
    for t in texts:
        g.push_text(t)


def prefer_stop(g: Game) -> Move:
    """A simple deterministic player: stop when offered, else the first legal move."""
    lm = g.legal_moves()
    for m in lm:
        if m.kind == "stop":
            return m
    return lm[0]


def drive(g: Game, script: dict[int, list[str]],
          other: Callable[[Game], Move] = prefer_stop, until: Callable[[Game], bool] | None = None
          ) -> None:
    """Play on: seats in ``script`` make their listed moves in order (each must be legal),
    other seats (and scripted seats whose list is used up) use ``other``."""
    queues = {s: list(v) for s, v in script.items()}
    while not g.is_over() and not (until and until(g)):
        q = queues.get(g.to_move)
        if q:
            g.push(g.parse_move(q.pop(0)))
        else:
            g.push(other(g))


def mv(text: str) -> Move:
    return parse_move(text)


def all_cards(g: Game) -> Counter[int]:
    """Every card of the deal where it is now: hands, table, stock."""
    c: Counter[int] = Counter()
    for s in range(g.n):
        c.update(int(x) for x in g.hand(s))
    for occ in g.table.occupant:
        c.update(occ.values())
    c.update(int(x) for x in g.stock)
    return c
