"""Sevens puzzles (issue 21): positions from master self-play where one move is clearly best.

A puzzle is a position of a real deal (played by ``master`` bots in every seat) seen from the
seat to move: the record of the deal up to that moment, the seat, the answer and every other
legal move's expected loss. A position becomes a puzzle when, judged by the analysis engine
(:func:`ristiseiska.analysis.evaluate_view`: the hidden cards sampled from the seat's view, the
deal played out by the kernel), the best move's expected points beat *every* alternative by at
least :data:`MARGIN` points and by at least :data:`Z` standard errors of that difference, and the
position is neither forced (one legal move) nor trivial (the answer goes out at once).

Each puzzle's difficulty is how often the ``expert`` and ``basic`` bots and a uniformly random
player miss the answer, folded into a rating (see :func:`grade_of` and docs/analysis.md).

``make_puzzles`` finds them, ``check_puzzle`` re-evaluates one with a larger budget,
``read_puzzles``/``parse_puzzle`` read and validate puzzle files, ``shipped`` loads the set
that ships in the package (``puzzles/data/shipped.jsonl.gz``).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from ..analysis import Budget, MoveValue, evaluate_view
from ..game import Game
from ..i18n import LANGS
from ..moves import Move
from ..record import json_type

# -- the criterion (docs/analysis.md, "Puzzles") -----------------------------------------------
MARGIN = 4.0  # the answer beats every alternative by at least this many expected points
Z = 4.0  # ... and by at least Z standard errors of that difference
CHECK_MARGIN = 3.0  # `puzzles check`: still best by this much (the analysis's inaccuracy step)
CHECK_Z = 2.0  # ... and by this many standard errors at the larger budget

SCREEN = Budget(worlds=300, rollouts=1, batches=4)  # a quick look at every decision
MAKE = Budget(worlds=2000, rollouts=2, batches=8)  # the analysis's worlds, twice its playouts, as two looks
CHECK = Budget(worlds=4000, rollouts=2, batches=8)  # twice the worlds, other seeds
SCREEN_GAP = 0.6 * MARGIN  # a decision goes on to the full budget when the quick gap is this

MAX_GAMES = 10_000
MAX_PER_DEAL = 10
BOT_SEEDS = 4  # the expert and basic bots are asked this many times (with different seeds)

GRADES = ("easy", "medium", "hard")
FORMAT = "ristiseiska-puzzle"
VERSION = 1

REQUIRED = ("preset", "rules", "record", "seat", "answer", "alternatives", "why", "difficulty")


class PuzzleError(ValueError):
    """A puzzle (or a puzzle file) that cannot be used; the message says what is wrong."""


@lru_cache(maxsize=1)
def kernel_presets() -> tuple[str, ...]:
    """Every preset the compiled kernel plays (the presets puzzles are made from)."""
    from ..kernel import unsupported
    from ..rules import preset, preset_names

    return tuple(n for n in preset_names() if unsupported(preset(n)) is None)


def players_for(name: str, game_index: int) -> int:
    """The number of players of game ``game_index`` of a preset: 4, 3, 5 in turn, inside the
    preset's range (two-player presets: 2)."""
    from ..rules import preset

    r = preset(name)
    wish = (4, 3, 5)[(game_index // max(1, len(kernel_presets()))) % 3]
    return max(r.min_players, min(r.max_players, wish))


# -- the judgment of one position ---------------------------------------------------------------

@dataclass
class Judgment:
    values: list[MoveValue]  # best first
    gap: float  # best's advantage over the second best (expected points)
    clear: bool  # the criterion holds against every alternative

    @property
    def best(self) -> str:
        return self.values[0].move


def evaluate_twice(view: Any, budget: Budget, seed: int,
                   legal: list[Move] | None = None) -> list[MoveValue]:
    """Every legal move valued by two independent looks, each with half of ``budget``'s worlds
    and batches and its own seed (so its own sample of the hidden cards), best first. A move's
    value is the mean of the two; the standard error of its difference to the best adds the
    two looks' batch errors and the disagreement between the looks, so a position whose value
    hangs on a few sampled deals (the batches of one sample then agree with each other but not
    with another sample) is not taken for a clear one."""
    half = replace(budget, worlds=max(1, budget.worlds // 2),
                   batches=max(2, budget.batches // 2))
    looks = [evaluate_view(view, half, mix_seed(seed, k), legal) for k in (1, 2)]
    by = [{m.move: m for m in look} for look in looks]
    moves = [m.move for m in looks[0]]
    mean = {mv: (by[0][mv].points + by[1][mv].points) / 2 for mv in moves}
    win = {mv: (by[0][mv].win + by[1][mv].win) / 2 for mv in moves}
    order = sorted(moves, key=lambda mv: (mean[mv], -win[mv], moves.index(mv)))
    best = order[0]
    out = []
    for mv in order:
        if mv == best:
            out.append(MoveValue(mv, mean[mv], win[mv], 0.0))
            continue
        parts = []
        diffs = []
        for k in (0, 1):
            diffs.append(by[k][mv].points - by[k][best].points)
            # each look's error is against its own best move; when that is another move, the
            # larger of the two moves' errors stands in for the error of this difference
            parts.append(by[k][mv].se if looks[k][0].move == best
                         else max(by[k][mv].se, by[k][best].se))
        se = math.sqrt((parts[0] ** 2 + parts[1] ** 2) / 4 + ((diffs[0] - diffs[1]) / 2) ** 2)
        out.append(MoveValue(mv, mean[mv], win[mv], se))
    return out


def judge(view: Any, budget: Budget, seed: int, margin: float = MARGIN, z: float = Z,
          legal: list[Move] | None = None) -> Judgment:
    """Every legal move of ``view`` valued by :func:`evaluate_twice`; ``clear`` when the best
    beats each alternative by ``margin`` points and ``z`` standard errors."""
    values = evaluate_twice(view, budget, seed, legal)
    best = values[0]
    clear = len(values) > 1
    for v in values[1:]:
        loss = v.points - best.points
        if not (loss >= margin and loss >= z * v.se):
            clear = False
    gap = values[1].points - best.points if len(values) > 1 else math.inf
    return Judgment(values, gap, clear)


def difficulty_of(view: Any, answer: str, seed: int) -> dict[str, Any]:
    """How often the expert bot, the basic bot and a uniformly random player miss ``answer``
    (shares from 0 to 1), the rating and the grade."""
    from ..bots import get_bot

    legal = [str(m) for m in view.legal_moves]
    miss = {}
    for level in ("expert", "basic"):
        wrong = 0
        for k in range(BOT_SEEDS):
            bot = get_bot(level, seed=seed * 31 + k)
            if str(bot.choose(view)) != answer:
                wrong += 1
        miss[level] = wrong / BOT_SEEDS
    miss["random"] = (len(legal) - 1) / len(legal)  # the random bot is uniform over legal moves
    rating = rating_of(miss["expert"], miss["basic"], miss["random"])
    return {"expert": miss["expert"], "basic": miss["basic"], "random": round(miss["random"], 3),
            "rating": rating, "grade": grade_of(rating)}


def rating_of(expert: float, basic: float, random_: float) -> int:
    """A chess-puzzle-like rating: 800, plus 600 times the expert bot's miss rate, 300 times
    the basic bot's and 400 times a random player's (which grows with the number of legal
    moves: 200 for two, 267 for three, 300 for four)."""
    return int(round(800 + 600 * expert + 300 * basic + 400 * random_))


EASY_BELOW = 1050  # both bots find it and there are only two moves to choose from
HARD_FROM = 1550  # the expert bot misses it (no puzzle the expert finds reaches 1550)


def grade_of(rating: int) -> str:
    """hard from 1550 (the expert bot misses it), easy below 1050 (the expert and the basic bot
    find it among two moves), medium between."""
    if rating >= HARD_FROM:
        return "hard"
    if rating >= EASY_BELOW:
        return "medium"
    return "easy"


# -- making puzzles -----------------------------------------------------------------------------

Progress = Callable[[int, int, int], None]  # (games done, games, puzzles so far)


def mix_seed(seed: int, *parts: int) -> int:
    """A seed derived from ``seed`` and ``parts`` in turn (:func:`ristiseiska.sim.derive_seed`):
    the seeds of the made puzzles' games, bots and judgments."""
    from ..sim import derive_seed

    s = seed
    for p in parts:
        s = derive_seed(s, p)
    return s


def self_play(name: str, players: int, deal_seed: int, dealer: int) -> Game:
    """A deal of preset ``name`` played to its end by master bots (seeded from ``deal_seed``)."""
    from ..bots import get_bot
    from ..rules import preset

    g = Game(preset(name), players, seed=deal_seed, dealer=dealer)
    bots = [get_bot("master", seed=mix_seed(deal_seed, 1 + s)) for s in range(players)]
    while not g.is_over():
        legal = g.legal_moves()
        if len(legal) == 1:
            g.push(legal[0])
            continue
        s = g.to_move
        g.push(bots[s].choose(g.view(s)))
    return g


def puzzles_of_game(name: str, game: Game, game_seed: int, per_deal: int,
                    tag: str) -> list[dict[str, Any]]:
    """The puzzles found in one finished deal (at most ``per_deal``: the hardest, then others
    picked at random with the game's seed)."""
    from ..record import move_of, record_from_game, setup_game

    full = record_from_game(game, preset=name)
    replay = setup_game(full)
    found: list[dict[str, Any]] = []
    for i, ev in enumerate(full["events"]):
        seat = replay.to_move
        legal = replay.legal_moves()
        if len(legal) >= 2 and ev.get("seat") == seat:
            p = _try_position(name, replay, full, i, seat, list(legal), mix_seed(game_seed, 1000 + i), tag)
            if p is not None:
                found.append(p)
        replay.push(move_of(ev, f"event {i}"))
    if len(found) <= per_deal:
        return found
    rng = random.Random(game_seed)
    found.sort(key=lambda p: (-p["difficulty"]["rating"], p["index"]))
    keep = [found[0]]
    rest = found[1:]
    rng.shuffle(rest)
    keep.extend(rest[: per_deal - 1])
    return sorted(keep, key=lambda p: p["index"])


def _try_position(name: str, game: Game, full: Mapping[str, Any], index: int, seat: int,
                  legal: list[Move], seed: int, tag: str) -> dict[str, Any] | None:
    view = game.view(seat)
    # trivial: a move that ends the deal at once (going out) needs no thought
    for m in legal:
        g = game.copy()
        g.push(m)
        if g.is_over():
            return None
    quick = evaluate_view(view, SCREEN, seed, legal)
    if quick[1].points - quick[0].points < SCREEN_GAP:
        return None
    full_j = judge(view, MAKE, mix_seed(seed, 7), legal=legal)
    if not full_j.clear or full_j.best != quick[0].move:
        return None
    return build_puzzle(name, full, index, seat, view, legal, full_j, seed, tag)


def build_puzzle(name: str, full: Mapping[str, Any], index: int, seat: int, view: Any,
                 legal: list[Move], j: Judgment, seed: int, tag: str) -> dict[str, Any]:
    from .text import why

    best = j.values[0]
    rec = dict(full)
    rec["events"] = list(full["events"][:index])
    rec["result"] = None
    alts = [{"move": v.move, "loss": round(v.points - best.points, 2), "se": round(v.se, 2)}
            for v in j.values[1:]]
    sentences, reason = why(view, legal, j.values, seed)
    return {
        "id": f"{tag}-{index}",
        "preset": name,
        "rules": full["rules"],
        "players": len(full["players"]),
        "index": index,
        "seat": seat,
        "answer": best.move,
        "points": round(best.points, 2),
        "alternatives": alts,
        "why": sentences,
        "reason": reason,
        "difficulty": difficulty_of(view, best.move, seed),
        "record": rec,
    }


def make_puzzles(games: int, seed: int, per_deal: int = 2, presets: Iterable[str] | None = None,
                 progress: Progress | None = None) -> Iterator[dict[str, Any]]:
    """Puzzles from ``games`` master self-play deals, the presets in turn (default: every
    preset the kernel plays). The same arguments always give the same puzzles."""
    names = tuple(presets) if presets is not None else kernel_presets()
    check_make_args(games, seed, per_deal, names)
    total = 0
    for i in range(games):
        name = names[i % len(names)]
        n = players_for(name, i)
        gseed = mix_seed(seed, i)
        game = self_play(name, n, gseed, i % n)
        for p in puzzles_of_game(name, game, gseed, per_deal, f"{name}-{seed}-{i}"):
            total += 1
            yield p
        if progress is not None:
            progress(i + 1, games, total)


def check_make_args(games: Any, seed: Any, per_deal: Any, names: tuple[str, ...]) -> None:
    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not whole(games) or not 1 <= games <= MAX_GAMES:
        raise PuzzleError(f"the number of games must be from 1 to {MAX_GAMES}, not {games!r}")
    if not whole(seed) or not 0 <= seed < 2**63:
        raise PuzzleError(f"the seed must be a whole number from 0 to 2^63 - 1, not {seed!r}")
    if not whole(per_deal) or not 1 <= per_deal <= MAX_PER_DEAL:
        raise PuzzleError(f"puzzles per deal must be from 1 to {MAX_PER_DEAL}, not {per_deal!r}")
    known = kernel_presets()
    for n in names:
        if n not in known:
            raise PuzzleError(f"puzzles are made from the presets the compiled kernel plays "
                              f"({', '.join(known)}), not {n!r}")
    if not names:
        raise PuzzleError("no preset to make puzzles from")


# -- reading and validating ---------------------------------------------------------------------

def position_of(p: Mapping[str, Any]) -> Game:
    """The game at the puzzle's position (its record replayed). Raises PuzzleError."""
    from ..record import RecordError, replay_record

    try:
        return replay_record(p["record"])
    except RecordError as e:
        raise PuzzleError(f"its record does not replay: {e}") from None
    except (KeyError, TypeError, ValueError) as e:
        raise PuzzleError(f"its record does not replay: {e}") from None


def parse_puzzle(obj: Any) -> dict[str, Any]:
    """``obj`` checked as a puzzle (the record replays to the seat's turn, the answer and every
    alternative are that seat's legal moves, losses are numbers ≥ 0); returned as a dict.
    Raises :class:`PuzzleError` naming the first problem."""
    if not isinstance(obj, dict):
        raise PuzzleError(f"a puzzle must be a JSON object, not {json_type(obj)}")
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise PuzzleError(f"the puzzle has no {', '.join(repr(k) for k in missing)}")
    if not isinstance(obj["preset"], str):
        raise PuzzleError(f"preset must be text, not {json_type(obj['preset'])}")
    rec = obj["record"]
    if not isinstance(rec, dict):
        raise PuzzleError(f"record must be an object, not {json_type(rec)}")
    if rec.get("rules") != obj["rules"]:
        raise PuzzleError("rules differ from the record's rules")
    game = position_of(obj)
    seat = obj["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.n:
        raise PuzzleError(f"seat must be a seat number from 0 to {game.n - 1}, not {seat!r}")
    if game.is_over() or game.to_move != seat:
        raise PuzzleError(f"the record does not stop where seat {seat} is to move "
                          f"(seat {game.to_move} is)")
    legal = [str(m) for m in game.legal_moves()]
    if len(legal) < 2:
        raise PuzzleError("the position is forced (one legal move): not a puzzle")
    answer = obj["answer"]
    if not isinstance(answer, str) or answer not in legal:
        raise PuzzleError(f"answer {answer!r} is not a legal move here ({', '.join(legal)})")
    alts = obj["alternatives"]
    if not isinstance(alts, list):
        raise PuzzleError(f"alternatives must be a list, not {json_type(alts)}")
    seen = {answer}
    for k, a in enumerate(alts):
        if not isinstance(a, dict) or not isinstance(a.get("move"), str):
            raise PuzzleError(f"alternatives[{k}] must be an object with a 'move' (text)")
        loss = a.get("loss")
        if not isinstance(loss, int | float) or isinstance(loss, bool) or not math.isfinite(loss) \
                or loss < 0:
            raise PuzzleError(f"alternatives[{k}].loss must be a number ≥ 0, not {loss!r}")
        if a["move"] not in legal:
            raise PuzzleError(f"alternatives[{k}] {a['move']!r} is not a legal move here")
        if a["move"] in seen:
            raise PuzzleError(f"alternatives[{k}] {a['move']!r} is given twice")
        seen.add(a["move"])
    if seen != set(legal):
        left = sorted(set(legal) - seen)
        raise PuzzleError(f"alternatives leave out legal moves: {', '.join(left)}")
    why = obj["why"]
    # (the sentence is written again from ``reason`` in any language; the stored ones are the
    # languages of the day the puzzle was made)
    if not isinstance(why, dict) or not why or not all(
            la in LANGS and isinstance(text, str) for la, text in why.items()):
        raise PuzzleError("why must be an object of language code: sentence "
                          f"(languages: {', '.join(LANGS)})")
    reason = obj.get("reason")
    if reason is not None and not (isinstance(reason, dict) and isinstance(reason.get("key"), str)):
        raise PuzzleError("reason must be an object with a 'key' (text)")
    diff = obj["difficulty"]
    if not isinstance(diff, dict) or diff.get("grade") not in GRADES:
        raise PuzzleError(f"difficulty must be an object with a grade ({', '.join(GRADES)})")
    return obj


def read_puzzles(path: str) -> list[dict[str, Any]]:
    """Every puzzle of a ``.jsonl`` file, validated. Raises :class:`PuzzleError` with the
    file name and line number of the first problem (OSError for an unreadable file is turned
    into a PuzzleError too)."""
    try:
        with open(path, "rb") as f:
            return parse_lines(f, path)
    except OSError as e:
        raise PuzzleError(f"cannot read {path}: {e.strerror or e}") from None


def parse_lines(lines: Iterable[bytes | str], where: str) -> list[dict[str, Any]]:
    out = []
    for no, raw in enumerate(lines, 1):
        try:
            line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            raise PuzzleError(f"{where}:{no}: not UTF-8 text") from None
        if not line.strip():
            continue
        try:
            obj = json.loads(line.lstrip("\ufeff"))
        except (json.JSONDecodeError, RecursionError) as e:
            msg = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            raise PuzzleError(f"{where}:{no}: not valid JSON ({msg})") from None
        try:
            out.append(parse_puzzle(obj))
        except PuzzleError as e:
            raise PuzzleError(f"{where}:{no}: {e}") from None
    if not out:
        raise PuzzleError(f"{where} holds no puzzles")
    return out


def dumps_puzzle(p: Mapping[str, Any]) -> str:
    return json.dumps(p, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


SHIPPED = "data/shipped.jsonl.gz"  # gzip-compressed JSON lines (the records make it ~3 KB a puzzle)


@lru_cache(maxsize=1)
def _shipped_text() -> str:
    import gzip

    return gzip.decompress(resources.files(__name__).joinpath(SHIPPED).read_bytes()).decode("utf-8")


def shipped() -> list[dict[str, Any]]:
    """The puzzle set that ships in the package (validated once per process)."""
    return [dict(p) for p in _shipped_cached()]


@lru_cache(maxsize=1)
def _shipped_cached() -> tuple[dict[str, Any], ...]:
    return tuple(parse_lines(_shipped_text().splitlines(), "shipped puzzles"))


# -- checking -----------------------------------------------------------------------------------

@dataclass
class CheckResult:
    puzzle: dict[str, Any]
    ok: bool
    best: str
    losses: dict[str, float]  # every alternative's loss against the answer at the check budget
    problem: str = ""


def check_puzzle(p: Mapping[str, Any], budget: Budget = CHECK, seed: int = 1,
                 margin: float = CHECK_MARGIN, z: float = CHECK_Z) -> CheckResult:
    """Re-evaluate a puzzle at ``budget`` (by default twice the worlds of making it, another
    seed): ``ok`` when the answer is still best by ``margin`` points and ``z`` standard errors
    against every alternative."""
    game = position_of(p)
    seat = int(p["seat"])
    view = game.view(seat)
    values = evaluate_twice(view, budget, mix_seed(seed, int(p.get("index", 0)), seat))
    by = {v.move: v for v in values}
    ans = by.get(str(p["answer"]))
    if ans is None:
        return CheckResult(dict(p), False, values[0].move, {}, "the answer is not a legal move")
    losses: dict[str, float] = {}
    problem = ""
    for v in values:
        if v.move == ans.move:
            continue
        loss = v.points - ans.points
        losses[v.move] = round(loss, 2)
        # the standard error of (v - answer): v.se is against the best; when the answer is
        # not the best, fall back to the larger of the two
        se = max(v.se, ans.se)
        if not problem and not (loss >= margin and loss >= z * se):
            problem = (f"{v.move} is only {loss:.1f} ± {se:.1f} points worse than the answer "
                       f"{ans.move}" if loss >= 0 else
                       f"{v.move} is {-loss:.1f} points better than the answer {ans.move}")
    return CheckResult(dict(p), not problem, values[0].move, losses, problem)


__all__ = [
    "MARGIN", "Z", "CHECK_MARGIN", "CHECK_Z", "SCREEN", "MAKE", "CHECK", "GRADES", "PuzzleError",
    "Judgment", "judge", "evaluate_twice", "difficulty_of", "rating_of", "grade_of", "make_puzzles", "self_play",
    "puzzles_of_game", "parse_puzzle", "read_puzzles", "parse_lines", "dumps_puzzle", "shipped",
    "check_puzzle", "CheckResult", "kernel_presets", "players_for", "position_of", "mix_seed",
]
