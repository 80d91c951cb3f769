"""The compiled kernel: legal play (checked by replaying its deals as records through the
engine), termination, conservation of cards, determinism, rollouts, agreement with the
engine's statistics. No timing assertions."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ristiseiska.game import Game
from ristiseiska.record import check_record, dumps_record
from ristiseiska.rules import Rules, preset
from ristiseiska.sim import derive_seed as py_derive_seed
from ristiseiska.sim import play_random_deal

kernel = pytest.importorskip("ristiseiska.kernel")

FULL = (1 << 52) - 1


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    """Compile (or load from the disk cache) once for the whole module."""
    kernel.warm_up()


RULE_SETS = [
    (preset("ristiseiska"), 4),
    (preset("ristiseiska-pantti25"), 3),
    (preset("sjuan"), 5),
    (preset("ristiseiska-pyynto"), 4),
    (preset("wikipedia"), 6),
    (preset("fan-tan"), 4),
    (preset("free-fan-tan"), 5),
    (preset("kahdestaan-pakka"), 2),
    (preset("kahdestaan-pakka").replace(failure="ask"), 2),
    (Rules(layout="upward", opening="any", order="both", extra_move=True,
           hoarding="any-with-penalty"), 3),
    (preset("ristikasi"), 3),
    (Rules(failure="ask", stall_turns=3), 4),  # stalls happen
    (Rules(hoarding="sevens-sixes-eights"), 4),
    (Rules(hoarding="all-but-sevens", stall_turns=5), 5),
    (Rules(hoarding="any-with-penalty", hoarding_penalty=9), 3),
    (Rules(multi_play=True, ace="high"), 4),
    (Rules(ace="high", center=2, opening="D2", order="high-first"), 3),
    (Rules(failure="chip", pay_per_card=True, short_hand_chip=True, opening="any"), 5),
    (Rules(order="high-first", card_values="ace1", token_value=50), 2),
    (Rules(order="both", extra_move=False, card_values="one"), 8),
    (Rules(failure="pass", opening="S7"), 6),
    (Rules(), 7),
    # issue 13: V13 on any base rules, V18 fines, V15 with the card maker's extras
    (preset("domino-fan-tan"), 2),
    (preset("fan-tan").replace(ante=True, short_hand_chip=True, pay_per_card=True), 4),
    (Rules(token_mode="per-miss"), 4),
    (Rules(token_mode="per-miss", hoarding="any-with-penalty", hoarding_penalty=7), 3),
    (Rules(token_mode="per-miss", stock=True, min_players=2, max_players=2), 2),
    (preset("fan-tan").replace(stock=True, min_players=2, max_players=2, pay_per_card=True), 2),
    (preset("free-fan-tan").replace(stock=True, min_players=2, max_players=2), 2),
    (preset("ristikasi").replace(stock=True, min_players=2, max_players=2), 2),
    (preset("domino-fan-tan").replace(stock_opening="laid-out"), 2),
]


@pytest.mark.parametrize(("rules", "n"), RULE_SETS)
def test_kernel_deals_replay_as_legal_records(rules: Rules, n: int) -> None:
    run = kernel.play_deals(rules, n, seed=2024, count=120, record=True)
    for d, rec in enumerate(run.records()):
        problem = check_record(json.loads(dumps_record(rec)))
        assert problem is None, f"deal {d}: {problem}"


def test_kernel_records_pass_replay_check_cli(tmp_path, capsys) -> None:
    from ristiseiska.cli import main

    run = kernel.play_deals(Rules(), 4, seed=5, count=60, record=True)
    path = tmp_path / "k.jsonl"
    path.write_text("".join(dumps_record(r) + "\n" for r in run.records()), encoding="utf-8")
    assert main(["replay", "--check", str(path)]) == 0
    # and a tampered kernel record is caught
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ev = next(e for e in recs[0]["events"] if e["type"] == "play" and e["card"] != "C7")
    ev["card"] = "C7"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    assert main(["replay", "--check", str(path)]) == 1
    capsys.readouterr()


@settings(max_examples=60, deadline=None)
@given(
    order=st.sampled_from(["low-first", "high-first", "both"]),
    extra=st.booleans(),
    multi=st.booleans(),
    failure=st.sampled_from(["token", "pass", "ask", "chip"]),
    first_round_pass=st.booleans(),
    hoarding=st.sampled_from(["none", "sevens-sixes-eights", "all-but-sevens", "any-with-penalty"]),
    values=st.sampled_from(["ace14", "ace1", "one"]),
    token_value=st.integers(0, 60),
    ace=st.sampled_from(["low", "high"]),
    center=st.integers(2, 12),
    suit=st.sampled_from("CDHS*"),
    stall=st.integers(1, 300),
    chip_opts=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    per_miss=st.booleans(),
    n=st.integers(2, 8),
    seed=st.integers(-(2**63), 2**64 - 1),
)
def test_any_supported_rules_give_legal_records(order, extra, multi, failure, first_round_pass,
                                                hoarding, values, token_value, ace, center,
                                                suit, stall, chip_opts, per_miss, n,
                                                seed) -> None:
    from ristiseiska.cards import RANK_TEXT
    from ristiseiska.rules import RulesError

    opening = "any" if suit == "*" else suit + RANK_TEXT.get(center, str(center))
    try:
        rules = Rules(order=order, extra_move=extra, multi_play=multi, failure=failure,
                      first_round_pass=first_round_pass,
                      hoarding=hoarding if failure == "token" else "none",
                      card_values=values, token_value=token_value, ace=ace, center=center,
                      opening=opening, stall_turns=stall,
                      ante=chip_opts[0] and failure == "chip",
                      short_hand_chip=chip_opts[1] and failure == "chip",
                      pay_per_card=chip_opts[2] and failure == "chip",
                      token_mode="per-miss" if per_miss and failure == "token" else "object")
    except RulesError:
        assume(False)
    assert kernel.unsupported(rules, n) is None
    run = kernel.play_deals(rules, n, seed=seed, count=4, record=True, first_dealer=n - 1)
    for rec in run.records():
        assert check_record(rec) is None


@pytest.mark.parametrize("n", range(2, 9))
def test_termination_and_conservation(n: int) -> None:
    run = kernel.play_deals(Rules(), n, seed=77, count=300, record=True)
    values = kernel.rule_arrays(Rules())[3]
    shift = kernel.core.SEAT_SHIFT
    for d in range(run.count):
        hands = [int(h) for h in run.dealt[d]]
        union = 0
        for h in hands:
            assert union & h == 0  # no card in two hands
            union |= h
        assert union == FULL  # every card dealt
        dealer = run.dealer(d)
        for s in range(n):  # one card at a time from the dealer's left
            extra = 1 if (s - dealer - 1) % n < 52 % n else 0
            assert bin(hands[s]).count("1") == 52 // n + extra
        winner = int(run.winners[d])
        assert 0 <= winner < n
        assert run.card_points[d, winner] == 0
        # the cards played and the cards left add up to the deal
        codes = run.moves[d, : run.nmoves[d]].tolist()
        played = [c % shift for c in codes if c % shift < 52]
        assert len(played) == len(set(played))
        left = [sum(int(values[c]) for c in range(52) if hands[s] >> c & 1
                    and c not in played) for s in range(n)]
        assert left == run.card_points[d].tolist()
        for code in codes:  # every move was made by a seat that held the card
            seat, c = divmod(code, shift)
            if c < 52:
                assert hands[seat] >> c & 1


def test_determinism_and_independent_deals() -> None:
    a = kernel.play_deals(Rules(), 4, seed=9, count=50, record=True)
    b = kernel.play_deals(Rules(), 4, seed=9, count=50, record=True)
    assert (a.dealt == b.dealt).all() and (a.moves == b.moves).all()
    assert (a.card_points == b.card_points).all()
    c = kernel.play_deals(Rules(), 4, seed=10, count=50, record=True)
    assert not (a.dealt == c.dealt).all()
    # deal i depends only on (seed, i): a slice of the run plays the same deals
    part = kernel.play_deals(Rules(), 4, seed=9, count=7, start=20, record=True)
    assert (part.dealt == a.dealt[20:27]).all()
    assert (part.moves == a.moves[20:27]).all()
    assert [part.record(k) == a.record(20 + k) for k in range(7)] == [True] * 7
    # recording the moves does not change the play
    quiet = kernel.play_deals(Rules(), 4, seed=9, count=50)
    assert (quiet.card_points == a.card_points).all() and (quiet.winners == a.winners).all()


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(-(2**70), 2**70), i=st.integers(0, 2**40))
def test_python_and_kernel_seed_derivation_agree(seed: int, i: int) -> None:
    assert kernel.derive_seed(seed, i) == py_derive_seed(seed, i)
    assert 0 <= py_derive_seed(seed, i) < 2**63


def test_unsupported_rules_are_named() -> None:
    for name in ("ristiseiska", "ristiseiska-pantti25", "sjuan", "ristiseiska-pyynto",
                 "wikipedia", "fan-tan", "free-fan-tan", "ristikasi"):
        assert kernel.unsupported(preset(name), 4) is None
    assert kernel.unsupported(preset("kahdestaan-pakka"), 2) is None
    for name in ("kaksi-pakkaa", "kaksi-erilaista-pakkaa", "jokerit"):
        why = kernel.unsupported(preset(name), 4)
        assert why and why.startswith("the kernel does not play")
    assert kernel.unsupported(Rules(ace="first-decides"), 4) is not None
    assert kernel.unsupported(Rules(end="last-left"), 4) is not None
    assert kernel.unsupported(preset("sjuan"), 2) is not None  # Sjuan is for 3–8
    with pytest.raises(ValueError, match="two decks"):
        kernel.play_deals(preset("kaksi-pakkaa"), 4, 1, 10)


def _mean_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return x.mean(axis=0), x.std(axis=0, ddof=1) / np.sqrt(len(x))


@pytest.mark.parametrize(("rules", "n"), [(preset("ristiseiska"), 4), (preset("sjuan"), 5),
                                          (preset("ristiseiska-pyynto"), 4),
                                          (preset("fan-tan"), 4),
                                          (preset("domino-fan-tan"), 2),
                                          (Rules(token_mode="per-miss"), 4)])
def test_statistics_agree_with_the_engine(rules: Rules, n: int) -> None:
    """Fixed seeds, so deterministic; the bound is five standard errors of the difference."""
    games = 1500
    py = []
    for i in range(games):
        g = play_random_deal(rules, n, py_derive_seed(31, i), i % n)
        assert g.result is not None
        py.append(g.result.points)
    pm, pse = _mean_se(np.array(py, dtype=float))
    run = kernel.play_deals(rules, n, seed=32, count=60_000)
    km, kse = _mean_se(run.points().astype(float))
    assert (np.abs(pm - km) < 5 * np.sqrt(pse**2 + kse**2)).all(), (pm, km)
    # total points per deal (all seats together) is a sharper check
    pt = np.array(py, dtype=float).sum(axis=1)
    kt = run.points().sum(axis=1).astype(float)
    se = np.sqrt(pt.var(ddof=1) / len(pt) + kt.var(ddof=1) / len(kt))
    assert abs(pt.mean() - kt.mean()) <= 5 * se  # (always 0 with chips: they change hands)


@pytest.mark.parametrize(("name", "n", "depth"),
                         [("ristiseiska", 4, 25), ("ristiseiska-pyynto", 4, 25),
                          ("fan-tan", 4, 25), ("ristiseiska-pantti25", 4, 25),
                          ("free-fan-tan", 4, 12), ("free-fan-tan", 3, 0),
                          ("kahdestaan-pakka", 2, 6), ("domino-fan-tan", 2, 6),
                          ("per-miss", 4, 30)])
def test_rollouts_from_a_position_agree_with_engine_playouts(name: str, n: int,
                                                             depth: int) -> None:
    rules = Rules(token_mode="per-miss") if name == "per-miss" else preset(name)
    g = Game(rules, n, seed=12, dealer=1)
    rng = random.Random(3)
    for _ in range(depth):  # into the middle of a deal
        lm = g.legal_moves()
        g.push(rng.choice(lm))
    assert not g.is_over()
    pos = kernel.position_from_game(g)
    kv = kernel.rollout_values(**pos, n_rollouts=40_000, seed=5)
    assert (kernel.rollout_values(**pos, n_rollouts=40_000, seed=5) == kv).all()
    # the same position played out by the engine with random moves
    pts = []
    for k in range(1500):
        h = g.copy()
        r = random.Random(k)
        while not h.is_over():
            lm = h.legal_moves()
            h.push(lm[r.randrange(len(lm))])
        assert h.result is not None
        pts.append(h.result.points)
    pm, pse = _mean_se(np.array(pts, dtype=float))
    assert (np.abs(pm - kv) < 5 * pse + 0.5).all(), (pm, kv)
    # the input arrays are not changed
    assert pos["hands"].tolist() == [int(x) for x in kernel.position_from_game(g)["hands"]]


def test_rollout_where_the_player_to_move_goes_out() -> None:
    """A seat holding one playable card always goes out: it scores 0 in every rollout."""
    for seed in range(200):
        g = Game(Rules(), 3, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            seat = g.to_move
            lm = g.legal_moves()
            if g.hand_size(seat) == 1 and g.phase == "turn" and lm[0].kind == "play":
                pos = kernel.position_from_game(g)
                v = kernel.rollout_values(**pos, n_rollouts=300, seed=seed)
                assert v[seat] == 0
                others = [s for s in range(3) if s != seat]
                assert all(v[s] > 0 for s in others)
                return
            g.push(rng.choice(lm))
    pytest.fail("no position found")  # pragma: no cover


def test_rollout_arguments_are_checked() -> None:
    pos = kernel.position_from_game(Game(Rules(), 4, seed=1))
    with pytest.raises(ValueError):
        kernel.rollout_values(**pos, n_rollouts=0, seed=1)
    pos["rules"] = preset("kaksi-pakkaa")
    with pytest.raises(ValueError):
        kernel.rollout_values(**pos, n_rollouts=10, seed=1)


def test_position_from_view_matches_the_game() -> None:
    g = Game(Rules(), 4, seed=21)
    rng = random.Random(2)
    for _ in range(15):
        g.push(rng.choice(g.legal_moves()))
    view = g.view(g.to_move)
    true_hands = [g.hand(s) for s in range(4)]
    pv = kernel.position_from_view(view, true_hands)
    pg = kernel.position_from_game(g)
    assert pv["hands"].tolist() == [pg["hands"].tolist()]
    for key in ("lo", "hi"):
        assert pv[key].tolist() == pg[key].tolist()
    for key in ("turns", "stall", "chips", "pot", "penalties", "stock", "start_rank"):
        assert pv[key] == pg[key], key
    assert (pv["to_move"], pv["more"], pv["token_holder"]) == (pg["to_move"], pg["more"], pg["token_holder"])
    a = kernel.rollout_values(**pv, n_rollouts=500, seed=1)
    b = kernel.rollout_values(**pg, n_rollouts=500, seed=1)
    assert (a == b).all()
    # two determinizations: swap two opponents' hands (same sizes when they match)
    others = [s for s in range(4) if s != view.seat]
    swapped = list(true_hands)
    x, y = next((p, q) for p in others for q in others
                if p < q and len(true_hands[p]) == len(true_hands[q]))
    swapped[x], swapped[y] = true_hands[y], true_hands[x]
    two = kernel.position_from_view(view, [true_hands, swapped])
    assert two["hands"].shape == (2, 4)
    assert kernel.rollout_values(**two, n_rollouts=500, seed=1).shape == (4,)
    with pytest.raises(ValueError, match="cards"):
        kernel.position_from_view(view, [true_hands[0][:-1]] + true_hands[1:])


def test_module_docstring_examples() -> None:
    import doctest

    failures, tried = doctest.testmod(kernel, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def _engine_playouts(g: Game, k: int) -> tuple[np.ndarray, np.ndarray]:
    pts = []
    for j in range(k):
        h = g.copy()
        r = random.Random(j)
        while not h.is_over():
            lm = h.legal_moves()
            h.push(lm[r.randrange(len(lm))])
        assert h.result is not None
        pts.append(h.result.points)
    return _mean_se(np.array(pts, dtype=float))


@pytest.mark.parametrize(("name", "phase"), [("ristiseiska-pyynto", "give"),
                                             ("ristiseiska", "more")])
def test_rollouts_from_give_and_more_phases(name: str, phase: str) -> None:
    rules = preset(name)
    for seed in range(100):
        g = Game(rules, 4, seed=seed)
        rng = random.Random(seed)
        while not g.is_over() and not (g.phase == phase and len(g.moves) > 12):
            g.push(rng.choice(g.legal_moves()))
        if not g.is_over():
            break
    assert g.phase == phase
    pos = kernel.position_from_game(g)
    if phase == "give":
        assert pos["receiver"] == g.turn_seat and pos["to_move"] != g.turn_seat
    else:
        assert pos["more"]
    kv = kernel.rollout_values(**pos, n_rollouts=40_000, seed=3)
    pm, pse = _engine_playouts(g, 1200)
    assert (np.abs(pm - kv) < 5 * pse + 0.5).all(), (pm, kv)


@pytest.mark.parametrize("rules", [Rules(), preset("ristiseiska-pyynto"),
                                   Rules(hoarding="all-but-sevens"), Rules(multi_play=True)])
def test_kernel_choices_are_uniform_over_the_legal_moves(rules: Rules) -> None:
    """Replay kernel deals in the engine; at each decision with L legal moves the index of the
    chosen move among the engine's legal moves should average (L - 1) / 2."""
    from ristiseiska.cards import parse_card
    from ristiseiska.moves import Move
    from ristiseiska.record import replay_record

    run = kernel.play_deals(rules, 4, seed=8, count=600, record=True)
    picks: dict[int, list[int]] = {}
    for rec in run.records():
        g = replay_record({**rec, "events": [], "result": None})
        for ev in rec["events"]:
            legal = g.legal_moves()
            move = Move(ev["type"], parse_card(ev["card"]) if "card" in ev else None)
            match = legal.index(move)
            if len(legal) > 1:
                picks.setdefault(len(legal), []).append(match)
            g.push(move)
    assert len(picks) >= 3
    for size, idx in picks.items():
        if len(idx) < 200:
            continue
        a = np.array(idx, dtype=float)
        se = np.sqrt((size**2 - 1) / 12 / len(a))  # sd of a uniform index over 0..size-1
        assert abs(a.mean() - (size - 1) / 2) < 5 * se, (size, a.mean(), len(a))


def test_move_lists_grow_when_a_deal_needs_room() -> None:
    rules = Rules(failure="ask", stall_turns=300)
    full = kernel.play_deals(rules, 3, seed=4, count=40, record=True)
    tight = kernel.play_deals(rules, 3, seed=4, count=40, record=True, width=8)
    assert int(full.nmoves.max()) > 8  # so the tight run had to grow
    assert tight.moves is not None and full.moves is not None
    assert [tight.record(d) for d in range(40)] == [full.record(d) for d in range(40)]


def test_position_from_view_with_a_stock() -> None:
    g = Game(preset("kahdestaan-pakka"), 2, seed=3)
    rng = random.Random(1)
    while len(g.stock) == 17:  # until someone has drawn
        g.push(rng.choice(g.legal_moves()))
    view = g.view(g.to_move)
    hands = [g.hand(s) for s in range(2)]
    with pytest.raises(ValueError, match="stock"):
        kernel.position_from_view(view, hands)
    pv = kernel.position_from_view(view, hands, stock=g.stock)
    pg = kernel.position_from_game(g)
    assert pv["stock"] == pg["stock"] == [int(c) for c in g.stock]
    a = kernel.rollout_values(**pv, n_rollouts=300, seed=2)
    assert (a == kernel.rollout_values(**pg, n_rollouts=300, seed=2)).all()


@settings(max_examples=25, deadline=None)
@given(
    opening=st.sampled_from(["C7", "H7", "any"]),
    laid=st.sampled_from(["laid-out", "dealt"]),
    per_miss=st.booleans(),
    stock=st.booleans(),
    extra=st.booleans(),
    multi=st.booleans(),
    failure=st.sampled_from(["token", "pass", "ask", "chip"]),
    hoarding=st.sampled_from(["none", "sevens-sixes-eights", "any-with-penalty"]),
    order=st.sampled_from(["low-first", "high-first", "both"]),
    values=st.sampled_from(["ace14", "ace1", "one"]),
    n=st.integers(3, 8),
    seed=st.integers(0, 2**64 - 1),
)
def test_upward_and_stock_games_give_legal_records(opening, laid, per_miss, stock, extra,
                                                   multi, failure, hoarding, order, values, n,
                                                   seed) -> None:
    hoard = hoarding if failure == "token" else "none"
    mode = "per-miss" if per_miss and failure == "token" else "object"
    if stock:  # V13 on any base rules: a card laid out or not, any opening
        rules = Rules(stock=True, min_players=2, max_players=2, failure=failure, hoarding=hoard,
                      extra_move=extra, multi_play=multi, order=order, card_values=values,
                      opening=opening, stock_opening=laid, token_mode=mode)
        n = 2
    else:
        rules = Rules(layout="upward", opening="any", order="both", failure=failure,
                      hoarding=hoard, extra_move=extra, multi_play=multi, card_values=values)
    run = kernel.play_deals(rules, n, seed=seed, count=4, record=True)
    for rec in run.records():
        assert check_record(rec) is None
