"""Random-play simulation: many deals with random legal players, summed up.

    >>> from ristiseiska.rules import preset
    >>> s = simulate(preset("ristiseiska"), players=4, games=20, seed=1, engine="python")
    >>> s.deals, len(s.mean_points())
    (20, 4)

Deal ``i`` of a run seeded with ``S`` is dealt from the seed :func:`derive_seed` ``(S, i)``
with dealer ``i mod n``; the random players of that deal draw from their own generator seeded
from the same number, so every deal can be played again alone, and the same arguments always
give the same deals, moves and records. Each random choice is uniform over the legal moves
(stopping after a closing card included).

Two engines: ``python`` (the full engine, :class:`~ristiseiska.game.Game`) and ``kernel`` (the
compiled kernel, :mod:`ristiseiska.kernel`, for the rules it supports). They shuffle with
different generators, so they play different deals for the same seed; their statistics agree.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from .game import Game
from .rules import Rules

M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
# The random players' generator is seeded with the deal seed xor this, so that it differs from
# the shuffle's stream.
PLAYER_SALT = 0x5EED_0F_91A7E25

KERNEL_CHUNK = 20_000  # deals per compiled call (progress updates and memory for move lists)
KERNEL_RECORD_CHUNK = 2_000
PYTHON_BLOCK = 1_000  # deals per task with several worker processes


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def derive_seed(seed: int, i: int) -> int:
    """The seed of deal ``i`` of a run seeded with ``seed``: a 63-bit integer (SplitMix64
    finaliser; the same function as the kernel's)."""
    return _mix64((_mix64(seed & M64) + (i & M64) * _GOLDEN) & M64) >> 1


@dataclass
class SimSummary:
    """Totals of a simulation run; means are per deal."""

    rules: Rules
    players: int
    seed: int
    engine: str
    deals: int = 0
    seconds: float = 0.0
    points: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    # deals ending with this seat holding the token; with per-miss fines (V18) the fines taken
    token_end: list[int] = field(default_factory=list)
    token_paid: int = 0  # deals where the token's points were scored
    chips: list[int] | None = None  # net chips paid per seat (chip rules)
    stalled: int = 0  # deals ended by the stall limit
    no_winner: int = 0

    def __post_init__(self) -> None:
        n = self.players
        self.points = self.points or [0] * n
        self.wins = self.wins or [0] * n
        self.token_end = self.token_end or [0] * n
        if self.rules.uses_chips and self.chips is None:
            self.chips = [0] * n

    def mean_points(self) -> list[float]:
        return [p / self.deals if self.deals else 0.0 for p in self.points]

    def win_rates(self) -> list[float]:
        return [w / self.deals if self.deals else 0.0 for w in self.wins]

    def token_rates(self) -> list[float]:
        return [t / self.deals if self.deals else 0.0 for t in self.token_end]

    def mean_chips(self) -> list[float] | None:
        if self.chips is None:
            return None
        return [c / self.deals if self.deals else 0.0 for c in self.chips]

    @property
    def deals_per_second(self) -> float:
        return self.deals / self.seconds if self.seconds > 0 else float("inf")

    def merge(self, other: SimSummary) -> None:
        """Add another part of the same run."""
        self.deals += other.deals
        for mine, theirs in ((self.points, other.points), (self.wins, other.wins),
                             (self.token_end, other.token_end)):
            for s, v in enumerate(theirs):
                mine[s] += v
        if self.chips is not None and other.chips is not None:
            for s, v in enumerate(other.chips):
                self.chips[s] += v
        self.token_paid += other.token_paid
        self.stalled += other.stalled
        self.no_winner += other.no_winner

    def add_result(self, result: Any) -> None:
        self.deals += 1
        for s, p in enumerate(result.points):
            self.points[s] += p
        if result.winner is not None:
            self.wins[result.winner] += 1
        else:
            self.no_winner += 1
        holder = result.token_holder
        if self.rules.fines_per_miss and result.token_fines is not None:
            for s, k in enumerate(result.token_fines):
                self.token_end[s] += k
            self.token_paid += any(result.token_points)
        elif holder is not None and self.rules.uses_token:
            self.token_end[holder] += 1
            if result.token_points[holder]:
                self.token_paid += 1
        if self.chips is not None and result.chips is not None:
            for s, c in enumerate(result.chips):
                self.chips[s] += c
        if result.end == "stall":
            self.stalled += 1

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "preset": self.rules.name or None,
            "players": self.players,
            "seed": self.seed,
            "engine": self.engine,
            "deals": self.deals,
            "seconds": round(self.seconds, 3),
            "deals_per_second": round(self.deals_per_second, 1),
            "mean_points": [round(x, 4) for x in self.mean_points()],
            "wins": list(self.wins),
            "win_rate": [round(x, 4) for x in self.win_rates()],
        }
        if self.rules.fines_per_miss:
            d["fines_per_deal"] = [round(x, 4) for x in self.token_rates()]
            d["token_paid_rate"] = round(self.token_paid / self.deals, 4) if self.deals else 0.0
        elif self.rules.uses_token:
            d["token_at_end"] = [round(x, 4) for x in self.token_rates()]
            d["token_paid_rate"] = round(self.token_paid / self.deals, 4) if self.deals else 0.0
        chips = self.mean_chips()
        if chips is not None:
            d["mean_chips"] = [round(x, 4) for x in chips]
        if self.stalled:
            d["stalled"] = self.stalled
        return d


def kernel_reason(rules: Rules, players: int) -> str | None:
    """Why the kernel cannot run these rules (``None`` if it can); imports numba lazily."""
    try:
        from .kernel import unsupported
    except ImportError as e:  # pragma: no cover - numba is a dependency
        return f"the kernel is not available ({e})"
    return unsupported(rules, players)


def choose_engine(engine: str, rules: Rules, players: int) -> str:
    """``python`` or ``kernel`` for ``auto``; ``kernel`` for rules it cannot play raises
    ``ValueError`` with the reason."""
    if engine == "python":
        return "python"
    why = kernel_reason(rules, players)
    if engine == "kernel":
        if why:
            raise ValueError(why)
        return "kernel"
    if engine != "auto":
        raise ValueError(f"unknown engine {engine!r} (auto, python or kernel)")
    return "python" if why else "kernel"


def play_random_deal(rules: Rules, players: int, deal_seed: int, dealer: int,
                     names: list[str] | None = None) -> Game:
    """One deal through the full engine with random legal players."""
    g = Game(rules, players, seed=deal_seed, dealer=dealer, names=names)
    rng = random.Random(deal_seed ^ PLAYER_SALT)
    randbelow = rng.randrange
    legal = g.legal_moves
    push = g.push
    is_over = g.is_over
    while not is_over():
        lm = legal()
        push(lm[randbelow(len(lm))] if len(lm) > 1 else lm[0])
    return g


def simulate(rules: Rules, players: int, games: int, seed: int, engine: str = "auto",
             records: IO[str] | None = None, progress: Callable[[int], None] | None = None,
             names: list[str] | None = None, workers: int = 1) -> SimSummary:
    """Play ``games`` deals; write one record per line to ``records`` if given; call
    ``progress(k)`` after every ``k`` more deals. ``workers`` > 1 plays blocks of deals in
    that many processes; every figure and record is the same as with one. Bad arguments raise
    ``ValueError`` (rules errors are ``ValueError`` too)."""
    rules.check_players(players)
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    if workers < 1:
        raise ValueError(f"the number of workers must be at least 1, not {workers}")
    which = choose_engine(engine, rules, players)
    summary = SimSummary(rules, players, seed, which)
    if which == "kernel" and workers == 1:
        from .kernel import warm_up

        warm_up()  # compiling (or loading the compiled code) is not simulation time
    begin = time.perf_counter()
    if workers == 1:
        _play_range(summary, 0, games, records, progress, names)
    else:
        _simulate_parallel(summary, games, records, progress, names, workers)
    summary.seconds = time.perf_counter() - begin
    return summary


def _play_range(summary: SimSummary, start: int, count: int, records: IO[str] | None,
                progress: Callable[[int], None] | None, names: list[str] | None) -> None:
    if summary.engine == "python":
        _simulate_python(summary, start, count, records, progress, names)
    else:
        _simulate_kernel(summary, start, count, records, progress, names)


def _block(args: tuple[Rules, int, int, str, int, int, bool, list[str] | None]
           ) -> tuple[SimSummary, str]:
    """A worker's share: deals ``start .. start+count-1`` with their records as text."""
    import io

    rules, players, seed, engine, start, count, want_records, names = args
    part = SimSummary(rules, players, seed, engine)
    out = io.StringIO() if want_records else None
    _play_range(part, start, count, out, None, names)
    return part, out.getvalue() if out is not None else ""


def _simulate_parallel(summary: SimSummary, games: int, records: IO[str] | None,
                       progress: Callable[[int], None] | None, names: list[str] | None,
                       workers: int) -> None:
    from concurrent.futures import ProcessPoolExecutor

    if summary.engine == "kernel":
        block = KERNEL_RECORD_CHUNK if records is not None else KERNEL_CHUNK * 5
    else:
        block = PYTHON_BLOCK
    jobs = [(summary.rules, summary.players, summary.seed, summary.engine, start,
             min(block, games - start), records is not None, names)
            for start in range(0, games, block)]
    import multiprocessing

    # spawn, not fork: the caller may run threads (a progress bar) that fork would copy badly
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for part, text in pool.map(_block, jobs):  # in order, so records stay in order
            summary.merge(part)
            if records is not None:
                records.write(text)
            if progress is not None:
                progress(part.deals)


def _simulate_python(summary: SimSummary, first: int, games: int, records: IO[str] | None,
                     progress: Callable[[int], None] | None, names: list[str] | None) -> None:
    rules, n, seed = summary.rules, summary.players, summary.seed
    if records is not None:
        from .record import dumps_record, record_from_game
    step = 0
    for i in range(first, first + games):
        g = play_random_deal(rules, n, derive_seed(seed, i), i % n, names)
        assert g.result is not None
        summary.add_result(g.result)
        if records is not None:
            records.write(dumps_record(record_from_game(g, extra={"deal": i})) + "\n")
        step += 1
        if progress is not None and step >= 100:
            progress(step)
            step = 0
    if progress is not None and step:
        progress(step)


def _simulate_kernel(summary: SimSummary, first: int, games: int, records: IO[str] | None,
                     progress: Callable[[int], None] | None, names: list[str] | None) -> None:
    from .kernel import play_deals
    from .record import dumps_record

    rules, n, seed = summary.rules, summary.players, summary.seed
    chunk = KERNEL_RECORD_CHUNK if records is not None else KERNEL_CHUNK
    uses_token = rules.uses_token
    for start in range(first, first + games, chunk):
        count = min(chunk, first + games - start)
        run = play_deals(rules, n, seed, count, start=start, record=records is not None)
        summary.deals += count
        for s, total in enumerate(run.points().sum(axis=0).tolist()):
            summary.points[s] += int(total)
        for s in range(n):
            summary.wins[s] += int((run.winners == s).sum())
            if rules.fines_per_miss:  # the kernel's per-seat counters are the fines
                summary.token_end[s] += int(run.chips[:, s].sum())
            elif uses_token:
                summary.token_end[s] += int((run.holders == s).sum())
        summary.no_winner += int((run.winners < 0).sum())
        summary.stalled += int((run.ends == 1).sum())
        if uses_token:
            summary.token_paid += int((run.token_points() > 0).any(axis=1).sum())
        if summary.chips is not None:
            for s, total in enumerate(run.chips.sum(axis=0).tolist()):
                summary.chips[s] += int(total)
        if records is not None:
            for rec in run.records(names):
                records.write(dumps_record(rec) + "\n")
        if progress is not None:
            progress(count)
