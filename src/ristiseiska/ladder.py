"""A ladder: bots (plugins included) rated by the duplicate deals they play against each other.

    >>> from ristiseiska.rules import Rules
    >>> lad = run_ladder(Rules(), ["basic", "random", "expert"], deals=20, seed=1, workers=1)
    >>> [e.name for e in lad.entries], lad.entries[0].deals
    (['expert', 'basic', 'random'], 60)

The deals are the tournament's duplicate deals (:func:`ristiseiska.tournament.run_tournament`
with ``duplicate``): every deal is played once for every rotation of the seats. With more bots
than seats at a table, the line-ups (every choice of ``players`` bots, in an order shuffled by
the seed) take the deals in turn, deal ``i`` going to line-up ``i mod L``; line-up ``k`` is
dealt from the seed :func:`~ristiseiska.sim.derive_seed` ``(seed, k)``.

Every duplicate deal is ONE match for the rating, its bots ranked by their points summed over
the deal's seat rotations (the fewest first, equal sums sharing a rank): every bot has held
every hand, so the cards' luck cancels and what is left is play. Rating each rotation alone
(ranked winner first) let the luck in: a good hand for basic moved the ratings as much as a
good play, and at a table of four basic came out above expert although expert won far more
deals (issue 59). The matches are rated with openskill's Plackett-Luce model with ``tau`` 0 (a
bot's strength is fixed, so its uncertainty shrinks with every deal), in a fixed order
(line-up, deal), so the same arguments always give the same ratings. ``deals``, ``wins`` and
``mean_rank`` of an :class:`Entry` still count plays (one deal in one seating).

The rating scale: openskill's skill ``mu`` starts at 25 with uncertainty ``sigma`` 25/3; a
rating is ``1500 + 48 (mu - 25)``, so a new bot is 1500 and one ``beta`` (25/6, the spread of a
single performance) of skill is 200 points, which, as in Elo, makes the better of two players
win about three times in four. The interval is ``mu ± 2 sigma`` on the same scale (about 95 %).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from . import ratings as _ratings
from .bots.plugins import MOVE_LIMIT
from .rules import Rules
from .sim import derive_seed
from .tournament import Play, TournamentError, check_setup, run_tournament

FORMAT = "ristiseiska-ladder"
VERSION = 1
# the scale of people's ratings (one home: ratings/__init__.py)
BASE, MU0, PER_MU = float(_ratings.BASE), _ratings.MU, _ratings.SCALE


def to_scale(mu: float) -> float:
    """openskill's ``mu`` on the ladder's scale (``1500 + 48 (mu - 25)``)."""
    return BASE + PER_MU * (mu - MU0)


class LadderError(ValueError):
    """Arguments that do not make a ladder, or a file that is not a ladder's."""


@dataclass
class Entry:
    """One bot's line: its rating with the ``mu ± 2 sigma`` interval on the ladder's scale,
    openskill's ``mu`` and ``sigma``, plays (seat-deals) played, deals won (shared on a tie),
    mean rank, and the faults of a plugin bot by kind."""

    name: str
    rating: float
    interval: list[float]
    mu: float
    sigma: float
    deals: int
    wins: float
    mean_rank: float
    faults: dict[str, int] = field(default_factory=dict)


@dataclass
class Ladder:
    rules: Rules
    bots: list[str]
    players: int
    deals: int
    seed: int
    move_limit: float
    entries: list[Entry]  # best first
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "preset": self.rules.name or None,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "deals": self.deals,
            "seed": self.seed,
            "move_limit": self.move_limit,
            "model": "openskill PlackettLuce, tau 0, a duplicate deal a match (summed points)",
            "scale": {"base": BASE, "mu0": MU0, "per_mu": PER_MU, "interval": "mu +- 2 sigma"},
            "seconds": round(self.seconds, 3),
            "bots": [asdict(e) for e in self.entries],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Ladder:
        """The ladder of a ``ladder.json``'s contents; :class:`LadderError` names what is
        wrong with one that is not."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise LadderError(f"not a ladder file (its format is not {FORMAT!r})")
        if data.get("version") != VERSION:
            raise LadderError(f"ladder file version {data.get('version')!r}; this version reads "
                              f"version {VERSION}")
        try:
            rules = Rules.from_dict(data["rules"])
            entries = []
            for b in data["bots"]:
                entries.append(Entry(
                    name=str(b["name"]), rating=float(b["rating"]),
                    interval=[float(x) for x in b["interval"]][:2], mu=float(b["mu"]),
                    sigma=float(b["sigma"]), deals=int(b["deals"]), wins=float(b["wins"]),
                    mean_rank=float(b["mean_rank"]),
                    faults={str(k): int(v) for k, v in dict(b.get("faults", {})).items()}))
            return cls(rules, [e.name for e in entries], int(data["players"]),
                       int(data["deals"]), int(data["seed"]), float(data["move_limit"]),
                       entries, float(data.get("seconds", 0.0)))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise LadderError(f"the ladder file is malformed ({type(e).__name__}: {e})") from None

    def markdown(self, title: str, cols: Sequence[str], note: str = "",
                 fault_text: Callable[[dict[str, int]], str] | None = None) -> str:
        """A Markdown leaderboard with the given title and column heads (rank, bot, rating,
        interval, deals, wins, mean rank, faults); ``fault_text`` writes a bot's faults."""
        lines = [f"# {title}", ""]
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("|" + "|".join("---:" if i != 1 else ":---" for i in range(len(cols))) + "|")
        for i, e in enumerate(self.entries, 1):
            faults = (fault_text(e.faults) if fault_text
                      else ", ".join(f"{k} {v}" for k, v in e.faults.items()) or "0")
            lines.append(f"| {i} | {e.name.replace('|', '/')} | {e.rating:.0f} | "
                         f"{e.interval[0]:.0f}-{e.interval[1]:.0f} | {e.deals} | {e.wins:g} | "
                         f"{e.mean_rank:.2f} | {faults} |")
        if note:
            lines += ["", note]
        return "\n".join(lines) + "\n"


def read_ladder(path: str) -> Ladder:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as e:
        raise LadderError(f"cannot read {path}: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise LadderError(f"{path} is not a JSON file ({e})") from None
    return Ladder.from_dict(data)


def default_players(rules: Rules, bots: Sequence[str]) -> int:
    """All bots at one table when the rules allow; else tables of four (or the nearest size
    the rules allow)."""
    if rules.min_players <= len(bots) <= rules.max_players:
        return len(bots)
    return max(rules.min_players, min(4, rules.max_players))


def points_ranks(points: Sequence[float]) -> tuple[float, ...]:
    """Ranks (1 = best) by points, the fewest first; equal points share the mean rank.

    >>> points_ranks([7.0, 0.0, 7.0])
    (2.5, 1.0, 2.5)
    """
    return tuple(sum(1 for o in points if o < p) + (sum(1 for o in points if o == p) + 1) / 2
                 for p in points)


def lineups(bots: Sequence[str], players: int, seed: int) -> list[tuple[str, ...]]:
    """Every choice of ``players`` of the bots, in an order shuffled by ``seed``."""
    out = list(itertools.combinations(bots, players))
    if len(out) > 1:
        random.Random(derive_seed(seed, 0x1ADDE7)).shuffle(out)
    return out


def run_ladder(rules: Rules, bots: Sequence[str], deals: int, seed: int = 0,
               players: int | None = None, workers: int | None = 1,
               move_limit: float = MOVE_LIMIT,
               progress: Callable[[int, int], None] | None = None) -> Ladder:
    """Play ``deals`` duplicate deals between ``bots`` and rate them (best first);
    ``progress(done, total)`` is called as plays finish."""
    import time

    from openskill.models import PlackettLuce

    bots = [b.strip() for b in bots if isinstance(b, str) and b.strip()]
    if len(bots) < 2:
        raise LadderError("name at least two bots for a ladder")
    if len(set(bots)) != len(bots):
        dup = sorted({b for b in bots if bots.count(b) > 1})
        raise LadderError(f"a bot is named twice ({', '.join(dup)}): name each bot once")
    if not isinstance(deals, int) or deals < 1:
        raise LadderError(f"deals must be at least 1, not {deals!r}")
    n = default_players(rules, bots) if players is None else players
    if n > len(bots):
        raise LadderError(f"{n} players a table but only {len(bots)} bots named")
    try:
        check_setup(rules, bots[:n], 1)
        for b in bots[n:]:
            check_setup(rules, [b] + bots[: n - 1], 1)
    except TournamentError as e:
        raise LadderError(str(e)) from None
    ups = lineups(bots, n, seed)
    counts = [deals // len(ups) + (1 if k < deals % len(ups) else 0) for k in range(len(ups))]
    total = deals * n
    start = time.perf_counter()
    plays: list[Play] = []
    # one group a duplicate deal: the plays of its seat rotations, so its cards' luck cancels
    groups: list[list[Play]] = []
    for k, (up, g) in enumerate(zip(ups, counts, strict=True)):
        if g == 0:
            continue
        base = len(plays)

        def step(done: int, _total: int, base: int = base) -> None:
            if progress:
                progress(base + done, total)

        t = run_tournament(rules, list(up), g, seed=derive_seed(seed, k), duplicate=True,
                           workers=workers, progress=step, move_limit=move_limit)
        plays.extend(t.plays)  # already in (deal, rotation) order
        by_deal: dict[int, list[Play]] = {}
        for p in t.plays:
            by_deal.setdefault(p.deal, []).append(p)
        groups.extend(by_deal[d] for d in sorted(by_deal))
    # tau 0: a bot's strength does not change between deals, so its uncertainty may shrink
    # with every deal (openskill's default tau kept it at about +-150 points however long
    # the run)
    model = PlackettLuce(tau=0.0)
    ratings = {b: model.rating(name=b) for b in bots}
    tally: dict[str, dict[str, Any]] = {b: {"deals": 0, "wins": 0.0, "ranks": 0.0, "faults": {}}
                                        for b in bots}
    for group in groups:
        # one match a duplicate deal, ranked by points summed over its rotations: rating each
        # rotation alone let the cards' luck in, which put basic above expert (issue 59)
        labels = list(group[0].labels)
        summed = dict.fromkeys(labels, 0.0)
        for p in group:
            for s, label in enumerate(p.labels):
                summed[label] += p.points[s]
        teams = [[ratings[label]] for label in labels]
        rated = model.rate(teams, ranks=list(points_ranks([summed[x] for x in labels])))
        for label, team in zip(labels, rated, strict=True):
            ratings[label] = team[0]
    for p in plays:
        for s, label in enumerate(p.labels):
            d = tally[label]
            d["deals"] += 1
            d["wins"] += p.win[s]
            d["ranks"] += p.rank[s]
        for label, kinds in p.faults.items():
            f = tally[label]["faults"]
            for kind, c in kinds.items():
                f[kind] = f.get(kind, 0) + c
    entries = []
    for b in bots:
        r, d = ratings[b], tally[b]
        entries.append(Entry(
            name=b, rating=round(to_scale(r.mu), 1),
            interval=[round(to_scale(r.mu - 2 * r.sigma), 1),
                      round(to_scale(r.mu + 2 * r.sigma), 1)],
            mu=r.mu, sigma=r.sigma, deals=d["deals"], wins=round(d["wins"], 3),
            mean_rank=d["ranks"] / d["deals"] if d["deals"] else 0.0,
            faults=dict(sorted(d["faults"].items()))))
    entries.sort(key=lambda e: (-e.mu, e.name))
    return Ladder(rules, bots, n, deals, seed, float(move_limit), entries,
                  time.perf_counter() - start)
