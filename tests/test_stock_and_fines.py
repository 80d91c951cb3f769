"""Issue 13: the stock game on any base rules (V13, preset ``domino-fan-tan``), a fine for every
turn missed (V18, ``token_mode = "per-miss"``) and the asking preset's player count.

Scenario tests build positions from chosen hands and stocks and drive them by real moves;
hypothesis properties check that cards are conserved, every deal ends and records replay.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_kit import all_cards, cards, drive, hands_with, legal, legal_plays, push
from ristiseiska.cards import Card, full_deck
from ristiseiska.game import Game
from ristiseiska.match import Match
from ristiseiska.record import check_record, dumps_record, record_from_game, replay_record
from ristiseiska.rules import Rules, RulesError, preset

DFT = preset("domino-fan-tan")


def _far_first(c: Card) -> tuple[int, int]:
    """Cards far from the sevens first (A, K, 2, Q, …): fillers that stay unplayable long."""
    return (-abs(c.rank - 7), int(c))


def stock_game(rules: Rules, hand0: str, hand1: str, top: str = "", dealer: int = 0) -> Game:
    """A two-player stock deal: each seat holds its named cards, filled up to 17 with cards
    far from the sevens; the stock is ``top`` (top first) and then every other card."""
    taken = cards(" ".join(x for x in (hand0, hand1, top, rules.laid_out or "") if x))
    assert len(set(map(int, taken))) == len(taken)
    free = sorted((c for c in full_deck() if c not in taken), key=_far_first)
    hands = [cards(hand0), cards(hand1)]
    for h in hands:
        while len(h) < 17:
            h.append(free.pop(0))
    stock = cards(top) + sorted(free, key=int)
    return Game(rules, 2, hands=hands, stock=stock, dealer=dealer)


def failure_moves_follow_the_stock(g: Game, rng: random.Random, *when_empty: str) -> int:
    """Play a deal out at random; every turn without a playable card must be a draw while the
    stock lasts and ``when_empty`` after. Returns how many such turns came after the stock."""
    after = 0
    while not g.is_over():
        lm = g.legal_moves()
        if g.phase == "turn" and not any(m.kind == "play" for m in lm):
            kinds = [m.kind for m in lm]
            assert kinds == ["draw"] if g.stock else (len(kinds) == 1 and kinds[0] in when_empty)
            after += not g.stock and kinds[0] == when_empty[0]
        g.push(rng.choice(lm))
    return after


# == V13: the stock with any base rules =======================================================

def test_domino_fan_tan_deals_17_each_and_a_stock_of_18() -> None:
    for seed in range(20):
        g = Game(DFT, 2, seed=seed, dealer=seed % 2)
        assert g.hand_sizes() == [17, 17] and len(g.stock) == 18
        assert g.initial_table == ()  # nothing laid out in advance
        assert sorted(all_cards(g)) == sorted(int(c) for c in full_deck())
        holder = g.holder_of("H7")
        non_dealer = 1 - g.dealer
        # the holder of the seven of hearts opens; if it is in the stock, the non-dealer starts
        assert g.to_move == (holder if holder is not None else non_dealer)


def test_domino_fan_tan_seven_of_hearts_in_the_stock_the_players_draw_in_turn() -> None:
    # Dealer 0: seat 1 (the non-dealer) moves first. H7 is the second card of the stock.
    g = stock_game(DFT, "C7 H6 H8", "", top="SK H7", dealer=0)
    assert g.to_move == 1 and legal(g) == {"draw"}  # no H7: draw one card, the turn ends
    push(g, "draw")
    assert "SK" in {str(c) for c in g.hand(1)} and g.to_move == 0
    assert legal(g) == {"draw"}  # the seven of clubs may not open: the seven of hearts does
    push(g, "draw")  # seat 0 draws H7 but may not play it on this turn
    assert "H7" in {str(c) for c in g.hand(0)} and g.to_move == 1
    push(g, "draw")
    assert g.to_move == 0 and legal(g) == {"H7"}
    push(g, "H7")
    g.push(g.legal_moves()[0])  # seat 1: whatever it has (a card or a draw)
    # Sjuan building: both the 6 and the 8 fit at once, and other sevens open their suits
    assert {"H6", "H8", "C7"} <= legal_plays(g)
    assert g.events[0].to_dict() == {"seat": 1, "type": "draw", "card": "SK"}


def test_domino_fan_tan_the_dealer_holding_the_seven_opens() -> None:
    g = stock_game(DFT, "H7 H6 H8", "", top="SK", dealer=0)
    assert g.to_move == 0 and legal(g) == {"H7"}
    push(g, "H7")
    assert g.to_move == 1


def test_domino_fan_tan_no_extra_card_after_a_king_and_one_point_a_card() -> None:
    g = stock_game(DFT, "H7 H8 H9 H10 HJ HQ HK", "", top="SA", dealer=1)
    assert g.to_move == 0
    for card in ("H7", "H8", "H9", "H10", "HJ", "HQ", "HK"):
        while g.to_move != 0:
            g.push(g.legal_moves()[0])
        push(g, card)
    assert g.table.is_closed(2, "high")
    assert g.to_move == 1 and g.phase == "turn"  # V14: no extra card after the king
    failure_moves_follow_the_stock(g, random.Random(2), "pass")
    res = g.result
    assert res is not None and res.winner is not None
    loser = 1 - res.winner
    assert res.points[loser] == g.hand_size(loser) > 0 and res.points[res.winner] == 0
    assert res.token_points == (0, 0)


@pytest.mark.parametrize(("name", "after"), [("fan-tan", ("chip",)), ("ristiseiska", ("token",)),
                                             ("sjuan", ("pass",)),
                                             # asking passes when the other has one card left
                                             ("ristiseiska-pyynto", ("ask", "pass"))])
def test_the_stock_then_the_base_failure_rule(name: str, after: tuple[str, ...]) -> None:
    rules = preset(name).replace(stock=True, min_players=2, max_players=2,
                                 first_round_pass=False)
    seen = 0
    for seed in range(30):
        seen += failure_moves_follow_the_stock(Game(rules, 2, seed=seed), random.Random(seed),
                                               *after)
    assert seen > 0  # the rule after the stock was met


def test_stock_with_the_default_game_and_the_seven_of_clubs_dealt() -> None:
    rules = Rules(stock=True, stock_opening="dealt", min_players=2, max_players=2)
    g = Game(rules, 2, seed=5)
    assert g.initial_table == () and len(g.stock) == 18
    holder = g.holder_of("C7")
    if holder is not None:
        assert g.to_move == holder and legal(g) == {"C7"}
    else:
        assert legal(g) == {"draw"}


def test_stock_with_a_laid_out_opening_card_of_other_rules() -> None:
    # Ristikasi for two: the eight of clubs is laid out, the seven of clubs or any eight opens.
    rules = preset("ristikasi").replace(stock=True, min_players=2, max_players=2)
    assert rules.laid_out == "C8"
    g = Game(rules, 2, seed=1, dealer=0)
    assert [str(c) for c in g.initial_table] == ["C8"] and len(g.stock) == 17
    assert g.to_move == 1
    allowed = {"C7", "D8", "H8", "S8"}
    plays = legal_plays(g)
    assert plays <= allowed and (plays or legal(g) == {"draw"})


def test_old_kahdestaan_pakka_records_still_replay() -> None:
    """A record written before stock_opening existed has no such key: the preset's value
    (the seven of clubs laid out) applies and the record replays."""
    g = Game(preset("kahdestaan-pakka"), 2, seed=8)
    rng = random.Random(8)
    while not g.is_over():
        g.push(rng.choice(g.legal_moves()))
    rec = json.loads(dumps_record(record_from_game(g)))
    del rec["rules"]["stock_opening"]
    del rec["rules"]["token_mode"]
    assert check_record(rec) is None


def test_old_fan_tan_records_keep_their_own_rules_block() -> None:
    """Fan Tan records made when the preset had the card maker's extras carry them in their
    rules block, which stays authoritative."""
    old = preset("fan-tan").replace(ante=True, short_hand_chip=True, pay_per_card=True,
                                    name="fan-tan")
    g = Game(old, 3, seed=4)
    rng = random.Random(4)
    while not g.is_over():
        g.push(rng.choice(g.legal_moves()))
    rec = json.loads(dumps_record(record_from_game(g)))
    assert rec["preset"] == "fan-tan" and rec["rules"]["ante"] is True
    assert check_record(rec) is None
    assert replay_record(rec).pot == g.pot


# == V18: a fine for every turn missed =========================================================

PER_MISS = Rules(token_mode="per-miss")


def test_v18_every_miss_is_a_fine_nothing_moves() -> None:
    # Seat 0 holds C7 and the far cards of clubs; seat 1 holds all hearts and clubs 6/8 ...
    g = Game(PER_MISS, 3, hands=hands_with(3, {0: "C7 C5 C4", 1: "SK SQ HK HQ"},
                                           rest=2), dealer=2)
    assert g.to_move == 0
    push(g, "C7")
    assert legal(g) == {"token"}  # seat 1 cannot play
    push(g, "token")
    assert g.token_fines == [0, 1, 0] and g.token_holder is None
    push(g, "C6")  # seat 2
    push(g, "token")  # seat 0: C5 waits for C8 (7-6-8)
    push(g, "token")  # seat 1 again: another fine; seat 0 is not freed
    assert g.token_fines == [1, 2, 0]
    assert [e.type for e in g.events].count("token") == 3


def test_v18_fines_stay_with_the_winner_and_show_apart() -> None:
    # Seat 1 misses twice and then goes out: it keeps its two fines [decision].
    rules = PER_MISS.replace(token_value=10)
    g = Game(rules, 2, hands=hands_with(2, {1: "C9 C10"}, rest=0), dealer=1)
    push(g, "C7", "token", "C6", "token", "C8", "C9")
    assert g.token_fines == [0, 2]
    g.push(next(m for m in g.legal_moves() if m.kind == "play" and str(m.card) != "C10"))
    push(g, "C10")
    res = g.result
    assert res is not None and res.winner == 1
    assert res.token_points == (0, 20) and res.points[1] == 20
    assert res.token_holder is None and res.token_fines == (0, 2)
    assert res.to_dict()["token_fines"] == [0, 2]
    # the score sheet shows the fines part apart, as it does the token
    m = Match(rules, 2, seed=1)
    m.add_result(res)
    assert m.sheet[0].cell(1) == "0 + 20"


@pytest.mark.parametrize(("mode", "want"), [("object", 21), ("per-miss", 63)])
def test_v18_three_misses_one_token_or_three_fines(mode: str, want: int) -> None:
    """E4 under both modes: three misses keep one token (21) or make three fines (63)."""
    g = Game(Rules(token_mode=mode), 3,
             hands=hands_with(3, {0: "C7 C6 C8 C5", 1: "SK SQ HK HQ DK"}, rest=2), dealer=2)
    drive(g, {0: ["C7", "C6", "C8", "C5"]},
          other=lambda h: next(m for m in h.legal_moves() if m.kind in ("play", "token")))
    res = g.result
    assert res is not None and res.winner == 0
    assert [e.type for e in g.events if e.seat == 1] == ["token"] * 3
    assert res.token_points == (0, want, 0)
    assert res.points[1] == res.card_points[1] + want


def test_v18_needs_token_rules() -> None:
    with pytest.raises(RulesError, match="token_mode='per-miss' needs failure='token'"):
        Rules(token_mode="per-miss", failure="pass")


def test_v18_hoarding_takes_a_fine_too() -> None:
    rules = Rules(token_mode="per-miss", hoarding="any-with-penalty", hoarding_penalty=5)
    g = Game(rules, 2, hands=hands_with(2, {1: "C6 SK"}, rest=0), dealer=1)
    push(g, "C7")
    assert legal(g) == {"C6", "token"}
    push(g, "token")
    assert g.token_fines == [0, 1] and g.penalties == [0, 5]


# == ristiseiska-pyynto: three players or more ===================================================

def test_pyynto_refuses_two_players_and_names_the_two_player_preset() -> None:
    with pytest.raises(RulesError, match="kahdestaan-pakka"):
        Game(preset("ristiseiska-pyynto"), 2, seed=1)
    assert Game(preset("ristiseiska-pyynto"), 3, seed=1).n == 3


# == properties ================================================================================

STOCK_RULES = st.builds(
    lambda base, laid, mode, failure: preset(base).replace(
        stock=True, min_players=2, max_players=2, stock_opening=laid,
        **({"failure": failure, "token_mode": mode if failure == "token" else "object"}
           if base == "ristiseiska" else {})),
    st.sampled_from(["ristiseiska", "sjuan", "fan-tan", "free-fan-tan", "ristikasi",
                     "wikipedia", "domino-fan-tan"]),
    st.sampled_from(["laid-out", "dealt"]),
    st.sampled_from(["object", "per-miss"]),
    st.sampled_from(["token", "pass", "ask", "chip"]),
)


@settings(max_examples=40, deadline=None)
@given(rules=STOCK_RULES, seed=st.integers(0, 2**32), dealer=st.integers(0, 1),
       play=st.integers(0, 2**32))
def test_stock_games_conserve_cards_end_and_replay(rules: Rules, seed: int, dealer: int,
                                                  play: int) -> None:
    g = Game(rules, 2, seed=seed, dealer=dealer)
    deck = sorted(int(c) for c in full_deck())
    rng = random.Random(play)
    steps = 0
    while not g.is_over():
        assert sorted(all_cards(g)) == deck  # hands + table + stock = the deck
        g.push(rng.choice(g.legal_moves()))
        steps += 1
        assert steps < 52 * 2 * rules.stall_turns + 100  # every deal ends
    rec = json.loads(dumps_record(record_from_game(g)))
    assert check_record(rec, verify_seed=True) is None
    assert replay_record(rec).result == g.result


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), play=st.integers(0, 2**32),
       value=st.integers(0, 50), hoarding=st.sampled_from(["none", "all-but-sevens",
                                                           "any-with-penalty"]))
def test_per_miss_fines_conserve_cards_end_and_replay(n: int, seed: int, play: int, value: int,
                                                      hoarding: str) -> None:
    rules = Rules(token_mode="per-miss", token_value=value, hoarding=hoarding)
    g = Game(rules, n, seed=seed)
    deck = sorted(int(c) for c in full_deck())
    rng = random.Random(play)
    while not g.is_over():
        assert sorted(all_cards(g)) == deck
        g.push(rng.choice(g.legal_moves()))
    res = g.result
    assert res is not None and res.token_fines is not None
    tokens = [sum(1 for e in g.events if e.type == "token" and e.seat == s) for s in range(n)]
    assert list(res.token_fines) == tokens  # one token event per fine
    assert list(res.token_points) == [value * k for k in tokens]
    assert res.token_holder is None
    rec = json.loads(dumps_record(record_from_game(g)))
    assert check_record(rec, verify_seed=True) is None
    # a changed fine is caught by the replay check
    k = next(i for i, f in enumerate(res.token_fines) if f) if any(res.token_fines) else None
    if k is not None:
        rec["result"]["token_fines"][k] += 1
        assert "token_fines" in (check_record(rec) or "")


def test_v18_fines_show_in_the_terminal_players_panel() -> None:
    from ristiseiska.tui.widgets import render_players

    g = Game(PER_MISS, 2, hands=hands_with(2, {1: "C9 SK"}, rest=0), dealer=1)
    push(g, "C7", "token", "C6", "token")
    assert g.view(0).to_dict()["token_fines"] == [0, 2]
    text = render_players(g.view(0), "en").plain
    assert "fines 2" in text and "A fine of 21 for every turn missed." in text
    assert "sakkoja 2" in render_players(g.view(1), "fi").plain


def test_web_editor_offers_the_new_options_and_preset() -> None:
    """The browser's house-rule editor is built from /api/meta: it must list the new option
    values and the new preset, and the table set-up must accept and refuse as the rules do."""
    pytest.importorskip("fastapi")
    from ristiseiska.web.app import ActionError, build_config, lobby_meta

    meta = lobby_meta("en")
    opts = meta["options"]
    assert opts["token_mode"]["choices"] == ["object", "per-miss"]
    assert opts["token_mode"]["choice_labels"]["per-miss"] == "a fine for every turn missed"
    assert opts["stock_opening"]["choices"] == ["laid-out", "dealt"]
    assert opts["first_ace_closing"]["choices"] == ["base", "aces-only"]
    presets = {p["name"]: p for p in meta["presets"]}
    assert presets["domino-fan-tan"]["title"] == "Domino Fan Tan"
    assert presets["domino-fan-tan"]["rules"]["stock_opening"] == "dealt"
    assert presets["fan-tan"]["rules"]["ante"] is False
    seats = [{"kind": "friend", "name": "A"}, {"kind": "bot", "bot": "expert"}]
    build_config({"preset": "domino-fan-tan", "seats": seats})
    four = [{"kind": "friend", "name": "A"}, {"kind": "bot", "bot": "expert"},
            {"kind": "friend", "name": "B"}, {"kind": "bot", "bot": "expert"}]
    build_config({"preset": "ristiseiska", "seats": four,
                  "options": {"token_mode": "per-miss"}})
    with pytest.raises(ActionError, match="kahdestaan-pakka"):
        build_config({"preset": "ristiseiska-pyynto", "seats": seats})


@pytest.mark.asyncio
async def test_terminal_setup_offers_domino_fan_tan_for_two(tmp_path) -> None:
    from textual.widgets import Input, Select

    from ristiseiska.tui.app import GameScreen, PlayApp, SetupScreen, default_settings

    app = PlayApp(default_settings(seed=3, pace=0.0), data_dir_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        select = app.screen.query_one("#preset", Select)
        select.value = "domino-fan-tan"
        await pilot.pause()
        assert app.screen.query_one("#players", Input).value == "2"  # kept within 2–2
        await pilot.press(*"Aino", "enter")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        s = app.session
        assert s is not None and s.game.rules.stock and s.game.n == 2
        assert sorted(all_cards(s.game)) == sorted(int(c) for c in full_deck())
        assert len(s.game.initial_stock) == 18 and s.game.initial_table == ()


def test_rules_command_explains_domino_fan_tan_and_fines(capsys) -> None:
    from ristiseiska.cli import main

    assert main(["rules", "--preset", "domino-fan-tan", "--lang", "en", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "# Rules: Domino Fan Tan" in out
    assert "Each player is dealt 17 cards" in out and "the other 18 cards make a face-down stock" in out
    assert "If neither player holds it, it is in the stock" in out
    assert "every card is 1 point" in out and "reaches 100" in out
    from ristiseiska.explain import explain_rules

    fi = explain_rules(Rules(token_mode="per-miss"), "fi")
    en = explain_rules(Rules(token_mode="per-miss"), "en")
    assert "Jokainen väliin jäänyt vuoro on oma sakkonsa" in fi
    assert "Every fine adds 21 points to whoever took it" in en
    fan = explain_rules(preset("fan-tan"), "en")
    assert "before the deal" not in fan  # no ante in the preset
