"""Bot tournaments: many deals, seats rotating, optionally duplicate; statistics per bot.

    >>> from ristiseiska.rules import Rules
    >>> t = run_tournament(Rules(), ["expert", "random", "random", "random"], games=4, seed=1,
    ...                    workers=1)
    >>> t.stats()["expert"]["deals"], t.stats()["random"]["deals"]
    (4, 12)

Deal ``i`` of a tournament seeded with ``S`` is dealt from :func:`derive_seed` ``(S, i)`` with
dealer ``i mod n``. Without ``duplicate`` deal ``i`` is played once, the bot list rotated by
``i mod n`` seats; with ``duplicate`` it is played once for every rotation, so every bot meets
the same cards from every seat and the luck of the deal cancels. Every bot of every play is
seeded from the same numbers, so the same arguments always give the same figures, whether run
in one process, in a pool or on Ray.

A bot is named by its level, optionally with options: ``master:iterations=50:time_limit=1``.
Bots with the same spec are counted together ("random" ×3 is one line).
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from .bots.plugins import MOVE_LIMIT, GuardedBot, PluginError, is_ours, make_bot
from .game import Game
from .rules import Rules, preset
from .sim import derive_seed

Z95 = 1.959963984540054


class TournamentError(ValueError):
    """Arguments that do not make a tournament."""


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``'master:iterations=50:time_limit=1'`` -> ``('master', {'iterations': 50, ...})``.

    The name may be a plugin's (an entry point, or ``package.module:Class``, whose colon is
    part of the name: ``mybots.greedy:Greedy:depth=2``; :mod:`ristiseiska.bots.plugins`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise TournamentError(f"a bot must be named, not {spec!r}")
    parts = [p.strip() for p in spec.strip().split(":")]
    name = parts[0]
    rest = parts[1:]
    if rest and "=" not in rest[0] and not is_ours(name):  # package.module:Class
        name, rest = f"{name}:{rest[0]}", rest[1:]
    if is_ours(name):
        name = name.lower()
    opts: dict[str, Any] = {}
    for p in rest:
        if "=" not in p:
            raise TournamentError(f"bot option {p!r} in {spec!r} must look like name=value")
        k, v = (x.strip() for x in p.split("=", 1))
        value: Any = v
        for conv in (int, float):
            try:
                value = conv(v)
                break
            except ValueError:
                continue
        opts[k] = value
    try:
        make_bot(name, seed=0, **opts)
    except PluginError as e:
        raise TournamentError(str(e)) from None
    except (ValueError, TypeError) as e:
        raise TournamentError(f"bot {spec!r}: {e}") from None
    return name, opts


@functools.lru_cache(maxsize=64)
def _parsed_items(spec: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    name, opts = parse_bot_spec(spec)
    return name, tuple(opts.items())


def _parsed(spec: str) -> tuple[str, dict[str, Any]]:
    """:func:`parse_bot_spec` once per process and spec (it makes the bot to check it: a
    plugin that loads a model would load it twice for every play)."""
    name, items = _parsed_items(spec)
    return name, dict(items)


@dataclass
class Play:
    """One deal played by one seating: per seat the bot label, points, win credit, rank."""

    deal: int
    rotation: int
    labels: tuple[str, ...]
    points: tuple[float, ...]
    win: tuple[float, ...]
    rank: tuple[float, ...]
    winner: int | None
    move_times: dict[str, list[float]] = field(default_factory=dict)
    # per plugin bot label, its faults by kind (error, timeout, illegal): moves its stand-in made
    faults: dict[str, dict[str, int]] = field(default_factory=dict)


def _ranks(points: Sequence[float], winner: int | None) -> tuple[float, ...]:
    """1 = best; the deal winner first, then by points; ties share the mean rank."""
    keys = [(0 if s == winner else 1, p) for s, p in enumerate(points)]
    out = []
    for k in keys:
        better = sum(1 for o in keys if o < k)
        same = sum(1 for o in keys if o == k)
        out.append(better + (same + 1) / 2)
    return tuple(out)


def play_one(rules: Rules, specs: Sequence[str], seed: int, deal: int, rotation: int,
             move_limit: float = MOVE_LIMIT) -> Play:
    """Play deal ``deal`` with the bot list rotated by ``rotation`` seats; a plugin bot has
    ``move_limit`` seconds a move (:class:`~ristiseiska.bots.plugins.GuardedBot`)."""
    n = len(specs)
    parsed = [_parsed(s) for s in specs]
    labels = tuple(specs[(s - rotation) % n] for s in range(n))
    deal_seed = derive_seed(seed, deal)
    bots = []
    for s in range(n):
        name, opts = parsed[(s - rotation) % n]
        bots.append(make_bot(name, seed=derive_seed(deal_seed, 1 + rotation * n + s),
                             move_limit=move_limit, **opts))
    g = Game(rules, n, seed=deal_seed, dealer=deal % n)
    times: dict[str, list[float]] = {}
    while not g.is_over():
        s = g.to_move
        legal = g.legal_moves()
        if len(legal) == 1:
            g.push(legal[0])
            continue
        v = g.view(s)
        t0 = time.perf_counter()
        m = bots[s].choose(v)
        times.setdefault(labels[s], []).append(time.perf_counter() - t0)
        g.push(m)
    res = g.result
    assert res is not None
    pts = tuple(float(p) for p in res.points)
    if res.winner is not None:
        win = tuple(1.0 if s == res.winner else 0.0 for s in range(n))
    else:  # no one went out: the lowest points win, shared
        low = min(pts)
        k = sum(1 for p in pts if p == low)
        win = tuple(1.0 / k if p == low else 0.0 for p in pts)
    faults: dict[str, dict[str, int]] = {}
    for s, bot in enumerate(bots):
        if isinstance(bot, GuardedBot) and bot.faults:
            mine = faults.setdefault(labels[s], {})
            for kind, k in bot.faults.items():
                mine[kind] = mine.get(kind, 0) + k
    return Play(deal, rotation, labels, pts, win, _ranks(pts, res.winner), res.winner, times,
                faults)


def jobs(games: int, players: int, duplicate: bool) -> list[tuple[int, int]]:
    if duplicate:
        return [(i, r) for i in range(games) for r in range(players)]
    return [(i, i % players) for i in range(games)]


def play_chunk(rules: Rules, specs: Sequence[str], seed: int,
               chunk: Sequence[tuple[int, int]], move_limit: float = MOVE_LIMIT) -> list[Play]:
    return [play_one(rules, specs, seed, d, r, move_limit) for d, r in chunk]


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (min(lo, p), max(hi, p))  # rounding must not push the bound past the estimate


def mean_ci(xs: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    n = len(xs)
    if n == 0:
        return (0.0, 0.0, 0.0)
    m = sum(xs) / n
    if n == 1:
        return (m, m, m)
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    half = z * math.sqrt(var / n)
    return (m, m - half, m + half)


@dataclass
class Tournament:
    rules: Rules
    specs: list[str]
    games: int
    seed: int
    duplicate: bool
    plays: list[Play] = field(default_factory=list)
    seconds: float = 0.0
    move_limit: float = MOVE_LIMIT

    def stats(self) -> dict[str, dict[str, Any]]:
        """Per bot label: deals, wins, win rate with a 95% Wilson interval, mean points with a
        95% interval, mean rank, and the bot's thinking time per decision."""
        per: dict[str, dict[str, Any]] = {}
        for label in dict.fromkeys(self.specs):
            per[label] = {"points": [], "wins": 0.0, "ranks": [], "times": [], "faults": {}}
        for p in sorted(self.plays, key=lambda p: (p.deal, p.rotation)):
            for s, label in enumerate(p.labels):
                d = per[label]
                d["points"].append(p.points[s])
                d["wins"] += p.win[s]
                d["ranks"].append(p.rank[s])
            for label, ts in p.move_times.items():
                per[label]["times"].extend(ts)
            for label, kinds in p.faults.items():
                f = per[label]["faults"]
                for kind, k in kinds.items():
                    f[kind] = f.get(kind, 0) + k
        out: dict[str, dict[str, Any]] = {}
        for label, d in per.items():
            n = len(d["points"])
            lo, hi = wilson(d["wins"], n)
            m, mlo, mhi = mean_ci(d["points"])
            times = sorted(d["times"])
            out[label] = {
                "deals": n,
                "wins": round(d["wins"], 3),
                "win_rate": d["wins"] / n if n else 0.0,
                "win_rate_ci": [lo, hi],
                "mean_points": m,
                "mean_points_ci": [mlo, mhi],
                "mean_rank": sum(d["ranks"]) / n if n else 0.0,
                "decisions": len(times),
                "move_seconds_median": times[len(times) // 2] if times else 0.0,
                "move_seconds_max": times[-1] if times else 0.0,
                # moves the stand-in made for a plugin bot, by kind of fault
                "faults": dict(sorted(d["faults"].items())),
            }
        return out

    def points_by_bot(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {label: [] for label in dict.fromkeys(self.specs)}
        for p in self.plays:
            for s, label in enumerate(p.labels):
                out[label].append(p.points[s])
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "ristiseiska-tournament",
            "version": 1,
            "preset": self.rules.name or None,
            "rules": self.rules.to_dict(),
            "players": len(self.specs),
            "bots": list(self.specs),
            "games": self.games,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "deals_played": len(self.plays),
            "seconds": round(self.seconds, 3),
            "move_limit": self.move_limit,
            "results": self.stats(),
            # every play, so that a later run on the same deals can be compared deal by deal
            # (paired_difference)
            "plays": [{"deal": p.deal, "rotation": p.rotation, "points": list(p.points),
                       "win": list(p.win)} for p in self.plays],
        }


def check_figures(t: Any, name: str) -> None:
    """Raise :class:`TournamentError` unless ``t`` looks like a tournament's ``to_dict`` form
    with its plays (what :func:`paired_difference` reads of it); ``name`` says which."""
    if not isinstance(t, dict) or t.get("format") != "ristiseiska-tournament":
        raise TournamentError(f"the {name} figures are not a tournament's --json file")
    players, bots = t.get("players"), t.get("bots")
    if (not isinstance(players, int) or players < 1 or not isinstance(bots, list)
            or not bots or not all(isinstance(b, str) for b in bots)):
        raise TournamentError(f"the {name} figures lack their players or bots")
    if not isinstance(t.get("plays"), list) or not t["plays"]:
        raise TournamentError(f"the {name} figures hold no plays (written by an older "
                              "version, or empty): run that tournament again with --json")


def same_deals(new: dict[str, Any], old: dict[str, Any]) -> None:
    """Raise :class:`TournamentError` unless two tournaments (``to_dict`` forms, or just
    their seed, players, duplicate and rules) deal the same cards to the same seats."""
    for key, what in (("seed", "seed"), ("players", "number of players"),
                      ("duplicate", "--duplicate"), ("rules", "rules")):
        if new.get(key) != old.get(key):
            raise TournamentError(f"the two tournaments differ in their {what} "
                                  f"({new.get(key)!r} and {old.get(key)!r} for {key}): "
                                  "they do not play the same deals")


def paired_difference(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """Compare two tournaments of the same deals (``to_dict`` forms) seat by seat: for every
    play both hold (same deal, same seating), the first-listed bot's win credit and points
    in ``new`` less those in ``old``, with 95% intervals. The same deal in the same seat
    cancels most of the cards' luck, so a difference is found with far fewer deals than by
    comparing two win rates. Raises :class:`TournamentError` when the two are not the same
    deals.

    >>> from ristiseiska.rules import Rules
    >>> a = run_tournament(Rules(), ["expert", "random", "random"], 3, seed=2, duplicate=True, workers=1)
    >>> b = run_tournament(Rules(), ["basic", "random", "random"], 3, seed=2, duplicate=True, workers=1)
    >>> d = paired_difference(a.to_dict(), b.to_dict())
    >>> d["deals"], d["new"], d["old"]
    (9, 'expert', 'basic')
    """
    check_figures(new, "new")
    check_figures(old, "old")
    same_deals(new, old)
    n = int(new["players"])

    def plays(t: dict[str, Any]) -> dict[tuple[int, int], tuple[float, float]]:
        out = {}
        try:
            for p in t["plays"]:
                seat = int(p["rotation"]) % n  # play_one: the first bot sits at seat rotation
                out[(int(p["deal"]), int(p["rotation"]))] = (float(p["win"][seat]),
                                                             float(p["points"][seat]))
        except (KeyError, TypeError, ValueError, IndexError):
            raise TournamentError("a play in the figures is malformed (deal, rotation, "
                                  "points and win for every seat are needed)") from None
        return out

    a, b = plays(new), plays(old)
    keys = sorted(set(a) & set(b))
    if not keys:
        raise TournamentError("the two tournaments have no deal in common")
    out: dict[str, Any] = {"new": new["bots"][0], "old": old["bots"][0], "deals": len(keys)}
    for i, name in ((0, "win"), (1, "points")):
        xa = [a[k][i] for k in keys]
        xb = [b[k][i] for k in keys]
        m, lo, hi = mean_ci([x - y for x, y in zip(xa, xb, strict=True)])
        out[name] = {"new": sum(xa) / len(xa), "old": sum(xb) / len(xb),
                     "difference": m, "half_width": (hi - lo) / 2}
    return out


def check_setup(rules: Rules, specs: Sequence[str], games: int) -> None:
    if not specs:
        raise TournamentError("name at least one bot")
    try:
        rules.check_players(len(specs))
    except ValueError as e:
        raise TournamentError(str(e)) from None
    for s in specs:
        parse_bot_spec(s)
    if not isinstance(games, int) or games < 1:
        raise TournamentError(f"games must be at least 1, not {games!r}")


def _chunks(items: list[tuple[int, int]], size: int) -> Iterator[list[tuple[int, int]]]:
    for i in range(0, len(items), size):
        yield items[i: i + size]


def run_tournament(rules: Rules, specs: Sequence[str], games: int, seed: int = 0,
                   duplicate: bool = False, workers: int | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   ray_address: str | None = None, chunk_size: int | None = None,
                   move_limit: float = MOVE_LIMIT) -> Tournament:
    """Play the tournament; ``progress(done, total)`` is called as plays finish.
    ``move_limit``: seconds a plugin bot may think per move before the stand-in plays.
    ``workers``: processes (``None``: one per core; 1: in this process). ``ray_address``:
    run on Ray (``'local'`` starts a local Ray)."""
    specs = [s.strip() for s in specs]
    check_setup(rules, specs, games)
    todo = jobs(games, len(specs), duplicate)
    total = len(todo)
    if not (isinstance(move_limit, (int, float)) and 0 < move_limit < math.inf):
        raise TournamentError(f"the move limit must be a positive number of seconds, not {move_limit!r}")
    t = Tournament(rules, list(specs), games, seed, duplicate, move_limit=float(move_limit))
    start = time.perf_counter()
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise TournamentError(f"workers must be at least 1, not {workers}")
    if chunk_size is None:
        chunk_size = max(1, min(200, total // (max(workers, 1) * 8) or 1))
    chunks = list(_chunks(todo, chunk_size))
    done = 0
    if ray_address is not None:
        for plays in _run_ray(rules, specs, seed, chunks, ray_address, move_limit):
            t.plays.extend(plays)
            done += len(plays)
            if progress:
                progress(done, total)
    elif workers == 1 or len(chunks) == 1:
        for ch in chunks:
            plays = play_chunk(rules, specs, seed, ch, move_limit)
            t.plays.extend(plays)
            done += len(plays)
            if progress:
                progress(done, total)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futs = [pool.submit(play_chunk, rules, specs, seed, ch, move_limit) for ch in chunks]
            for fut in as_completed(futs):
                plays = fut.result()
                t.plays.extend(plays)
                done += len(plays)
                if progress:
                    progress(done, total)
    t.plays.sort(key=lambda p: (p.deal, p.rotation))
    t.seconds = time.perf_counter() - start
    return t


def _run_ray(rules: Rules, specs: Sequence[str], seed: int,
             chunks: list[list[tuple[int, int]]], address: str,
             move_limit: float = MOVE_LIMIT) -> Iterator[list[Play]]:
    try:
        import ray  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise TournamentError(
            "Ray is not installed: install the extra with  pip install 'ristiseiska[ray]'"
        ) from None
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    started = False
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(play_chunk)
        pending = [remote.remote(rules, list(specs), seed, ch, move_limit)  # type: ignore[call-arg, unused-ignore]
                   for ch in chunks]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def plot(t: Tournament, path: str) -> None:
    """Win rates (with 95% intervals) and points distributions, as an image file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stats = t.stats()
    labels = list(stats)
    rates = [stats[k]["win_rate"] for k in labels]
    err_lo = [max(0.0, stats[k]["win_rate"] - stats[k]["win_rate_ci"][0]) for k in labels]
    err_hi = [max(0.0, stats[k]["win_rate_ci"][1] - stats[k]["win_rate"]) for k in labels]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    a1.bar(labels, rates, yerr=[err_lo, err_hi], capsize=6, color="#3b6ea5")
    a1.axhline(1 / len(t.specs), color="grey", linestyle="--", linewidth=1, label="even share")
    a1.set_ylim(0, 1)
    a1.set_ylabel("win rate (95% CI)")
    a1.set_title("Deals won")
    a1.legend()
    pts = t.points_by_bot()
    a2.boxplot([pts[k] for k in labels], showmeans=True)
    a2.set_xticks(range(1, len(labels) + 1), labels)
    a2.set_ylabel("points per deal (lower is better)")
    a2.set_title("Points")
    name = t.rules.name or "custom rules"
    fig.suptitle(f"{name}, {len(t.specs)} players, {len(t.plays)} deals played"
                 + (" (duplicate)" if t.duplicate else ""))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# -- a trained network measured (``ristiseiska train`` passes these to the training loop, which
# sits below the bots and so cannot import the tournament itself) -----------------------------

def evaluate_vs_expert(path: str, deals: int, seed: int, rules_name: str = "ristiseiska",
                       players: int = 4, opponent: str = "expert") -> dict[str, Any]:
    """The ``neural`` bot of ``path`` against ``players - 1`` bots of ``opponent`` (expert by
    default), duplicate deals, in the full engine: its win rate with its 95 % interval, the even
    share (``1 / players``: what an equal player wins) and mean points."""
    spec = f"neural:path={path}"
    t = run_tournament(preset(rules_name), [spec] + [opponent] * (players - 1), deals,
                       seed=seed, duplicate=True, workers=1)
    s = t.stats()[spec]
    return {"preset": rules_name, "players": players, "opponent": opponent, "deals": s["deals"],
            "win_rate": round(s["win_rate"], 4),
            "win_rate_ci": [round(x, 4) for x in s["win_rate_ci"]],
            "even_share": round(1 / players, 4),
            "mean_points": round(s["mean_points"], 2)}


def evaluate_both(path: str, deals: int, seed: int) -> dict[str, Any]:
    """The evaluation ``train`` reports: against expert bots (the record's own fields, as
    before) and, under ``vs_random``, against random players, the figure a newcomer can judge
    first (a network that learned anything wins well over the even share there)."""
    out = evaluate_vs_expert(path, deals, seed)
    out["vs_random"] = evaluate_vs_expert(path, deals, seed, opponent="random")
    return out
