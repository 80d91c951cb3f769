"""A match: several deals, a score sheet, an agreed end, ties, dealer rotation.

    >>> from ristiseiska import preset
    >>> from ristiseiska.match import Match
    >>> m = Match(preset("ristiseiska"), players=3, seed=1)
    >>> g = m.new_deal()
    >>> while not g.is_over():
    ...     g.push(g.legal_moves()[0])
    >>> m.add_result(g.result)
    >>> len(m.sheet), m.is_over()
    (1, False)

Deal ``i`` of a match with seed ``S`` is shuffled with :func:`deal_seed` ``(S, i)``, so a match
is reproducible from its seed. The score sheet keeps the token part of each deal separate so
that a large score can be traced to cards or token.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .game import Game, SetupError
from .rules import Rules
from .scoring import Result


def deal_seed(seed: int, index: int) -> int:
    """The shuffle seed of deal ``index`` (0-based) of a match or simulation with ``seed``."""
    digest = hashlib.sha256(f"ristiseiska:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class SheetRow:
    """One deal on the score sheet: per seat the card part (with any penalty), the token part
    and the total, plus who won the deal."""

    deal: int
    dealer: int
    card_points: tuple[int, ...]
    token_points: tuple[int, ...]
    points: tuple[int, ...]
    winner: int | None

    def cell(self, seat: int) -> str:
        """``'10 + 21'`` when the token was held, else ``'10'``."""
        tok = self.token_points[seat]
        rest = self.points[seat] - tok
        return f"{rest} + {tok}" if tok else f"{rest}"


class Match:
    """Deals under one set of rules until the agreed end (docs/rules.en.md §2 "The match" and
    §4 "How a match ends")."""

    def __init__(
        self,
        rules: Rules,
        players: int,
        seed: int | None = None,
        names: Sequence[str] | None = None,
        dealer: int = 0,
    ) -> None:
        rules.check_players(players)
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise SetupError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        self.rules = rules
        self.players = players
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.names = list(names) if names is not None else [f"P{i + 1}" for i in range(players)]
        if len(self.names) != players:
            raise SetupError(f"{len(self.names)} names given for {players} players")
        self.first_dealer = dealer
        self.dealer = dealer
        self.results: list[Result] = []
        self.sheet: list[SheetRow] = []

    @property
    def deals_played(self) -> int:
        return len(self.results)

    def new_deal(self) -> Game:
        """The next deal, shuffled from the match seed, dealt by the current dealer."""
        if self.is_over():
            raise SetupError("the match is over")
        return Game(self.rules, self.players, seed=deal_seed(self.seed, len(self.results)),
                    dealer=self.dealer, names=self.names)

    def add_result(self, result: Result) -> None:
        """Write a finished deal on the score sheet and pass the deal on."""
        if len(result.points) != self.players:
            raise SetupError("the result is for a different number of players")
        cards = tuple(p - t for p, t in zip(result.points, result.token_points, strict=True))
        self.sheet.append(SheetRow(len(self.results) + 1, self.dealer, cards,
                                   tuple(result.token_points), tuple(result.points),
                                   result.winner))
        self.results.append(result)
        if result.next_dealer is not None:
            self.dealer = result.next_dealer
        else:
            self.dealer = (self.dealer + 1) % self.players

    @property
    def totals(self) -> list[int]:
        tot = [0] * self.players
        for r in self.results:
            for i, p in enumerate(r.points):
                tot[i] += p
        return tot

    def _end_reached(self) -> bool:
        r = self.rules
        if r.match_deals and len(self.results) >= r.match_deals:
            return True
        return bool(r.match_target) and any(t >= r.match_target for t in self.totals)

    def is_over(self) -> bool:
        """Whether the agreed end is reached (with ``tie='extra'``, and only when the lowest
        total is not shared)."""
        if not self.results or not self._end_reached():
            return False
        if self.rules.tie == "extra":
            return len(self.leaders) == 1
        return True

    @property
    def leaders(self) -> list[int]:
        """Seats with the lowest total now."""
        tot = self.totals
        best = min(tot)
        return [i for i, t in enumerate(tot) if t == best]

    @property
    def winners(self) -> list[int]:
        """The match winner(s) once it is over (several on an accepted draw); else []."""
        return self.leaders if self.is_over() else []

    # -- saving -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "preset": self.rules.name or None,
            "players": self.players,
            "names": self.names,
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "results": [r.to_dict() for r in self.results],
            "dealers": [row.dealer for row in self.sheet],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match saved with :meth:`to_dict` (results are taken as saved)."""
        rules = Rules.from_dict(data["rules"])
        if data.get("preset"):
            rules = rules.replace(name=data["preset"])
        m = cls(rules, int(data["players"]), seed=int(data["seed"]), names=data["names"],
                dealer=int(data.get("first_dealer", 0)))
        for d in data.get("results", []):
            m.add_result(result_from_dict(d, m.players))
        return m


def result_from_dict(d: dict[str, Any], players: int) -> Result:
    """A :class:`Result` from its record form."""
    n = players
    loser = d.get("loser")
    return Result(
        winner=d.get("winner"),
        card_points=tuple(d.get("card_points", [0] * n)),
        token_points=tuple(d.get("token_points", [0] * n)),
        points=tuple(d["points"]),
        token_holder=d.get("token_holder"),
        out_order=tuple(d.get("out_order", [])),
        penalty_points=tuple(d.get("penalty_points", [0] * n)),
        chips=tuple(d["chips"]) if d.get("chips") is not None else None,
        loser=tuple(loser) if isinstance(loser, list) else loser,
        end=d.get("end", "out"),
        next_dealer=d.get("next_dealer"),
        token_fines=tuple(d["token_fines"]) if d.get("token_fines") is not None else None,
    )
