"""Rule options: validation of combinations, presets, dict round trips and TOML house rules."""

from __future__ import annotations

import re

import pytest

from ristiseiska.rules import (
    CHOICES,
    OPTION_HELP,
    OPTION_NAMES,
    PRESETS,
    Rules,
    RulesError,
    load_rules_toml,
    preset,
    preset_description,
    preset_names,
)

# (options, the two option names the refusal must mention)
NONSENSE = [
    ({"failure": "pass", "hoarding": "all-but-sevens"}, ("hoarding", "failure")),
    ({"failure": "ask", "hoarding": "sevens-sixes-eights"}, ("hoarding", "failure")),
    ({"failure": "chip", "hoarding": "any-with-penalty"}, ("hoarding", "failure")),
    ({"jokers": 1}, ("jokers", "failure")),
    ({"stock": True, "max_players": 4}, ("stock", "max_players")),
    ({"stock": True, "min_players": 2, "max_players": 2, "decks": 2}, ("stock", "decks")),
    ({"stock": True, "min_players": 2, "max_players": 2, "jokers": 1, "failure": "ask"},
     ("stock", "jokers")),
    ({"token_mode": "per-miss", "failure": "pass"}, ("token_mode", "failure")),
    ({"ante": True}, ("ante", "failure")),
    ({"pay_per_card": True, "failure": "pass"}, ("pay_per_card", "failure")),
    ({"short_hand_chip": True}, ("short_hand_chip", "failure")),
    ({"distinct_decks": True}, ("distinct_decks", "decks")),
    ({"layout": "upward"}, ("layout", "opening")),
    ({"layout": "upward", "opening": "any", "order": "low-first"}, ("layout", "order")),
    ({"layout": "upward", "opening": "any", "order": "both", "ace": "high"}, ("layout", "ace")),
    ({"opening": "H8"}, ("opening", "center")),
    ({"ace": "first-decides", "center": 2, "opening": "C2"}, ("ace", "center")),
    ({"match_deals": 0, "match_target": 0}, ("match_deals", "match_target")),
    ({"min_players": 5, "max_players": 3}, ("min_players", "max_players")),
]


@pytest.mark.parametrize("options,names", NONSENSE, ids=[str(o) for o, _ in NONSENSE])
def test_nonsensical_combinations_are_refused_naming_both(options, names) -> None:
    with pytest.raises(RulesError) as info:
        Rules(**options)
    msg = str(info.value)
    for name in names:
        assert name in msg, f"{name!r} not named in: {msg}"


@pytest.mark.parametrize("option,value", [
    ("order", "sideways"), ("ace", "middle"), ("failure", "cry"), ("end", "never"),
    ("card_values", "double"), ("tie", "coin"), ("hoarding", "always"), ("layout", "circle"),
])
def test_bad_choice_lists_the_allowed_values(option: str, value: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules(**{option: value})
    msg = str(info.value)
    assert option in msg and value in msg
    assert all(choice in msg for choice in CHOICES[option])


@pytest.mark.parametrize("options", [
    {"token_value": -1}, {"stall_turns": 0}, {"decks": 3}, {"jokers": 3, "failure": "ask"},
    {"center": 13}, {"opening": "Z9"}, {"opening": "c7"}, {"opening": "X1"},
    {"token_value": "21"}, {"extra_move": 1}, {"min_players": 1}, {"max_players": 9},
])
def test_bad_values_are_refused(options) -> None:
    with pytest.raises(RulesError):
        Rules(**options)


def test_every_preset_is_valid_and_described() -> None:
    assert preset_names() == list(PRESETS)
    for name in preset_names():
        r = preset(name)
        assert r.name == name
        assert preset_description(name).strip()
        assert Rules.from_dict(r.to_dict()) == r


def test_presets_match_rules_md_section_4() -> None:
    d = preset("ristiseiska")
    assert (d.token_value, d.card_values, d.order, d.ace, d.extra_move, d.failure, d.end) == (
        21, "ace14", "low-first", "low", True, "token", "first-out")
    p = preset("ristiseiska-pyynto")
    assert p.failure == "ask" and p.first_round_pass and p.end == "first-out"
    assert p.card_values == "ace14"
    assert (p.min_players, p.max_players) == (3, 8)  # 001: "at least three"
    t = preset("ristiseiska-pantti25")
    assert t.token_value == 25 and t.match_target == 200 and t.card_values == "ace14"
    w = preset("wikipedia")
    assert w.failure == "ask" and not w.first_round_pass and w.card_values == "ace1"
    assert w.match_target == 100 and w.end == "first-out"
    s = preset("sjuan")
    assert (s.opening, s.order, s.failure, s.extra_move, s.card_values, s.match_target) == (
        "H7", "both", "pass", False, "one", 100)
    assert s.min_players == 3
    f = preset("fan-tan")
    assert (f.opening, f.order, f.failure) == ("any", "both", "chip")
    # V15 as the sources give it: Bicycle's extras stay options, off in the preset.
    assert (f.ante, f.short_hand_chip, f.pay_per_card) == (False, False, False)
    k = preset("kahdestaan-pakka")
    assert k.stock and k.min_players == k.max_players == 2
    assert k.laid_out == "C7" and d.token_mode == "object"
    dft = preset("domino-fan-tan")  # V13 on Sjuan
    assert dft.differences(s) == {"stock": True, "stock_opening": "dealt", "min_players": 2,
                                  "max_players": 2}
    assert dft.laid_out is None


def test_two_players_are_pointed_to_the_two_player_preset() -> None:
    with pytest.raises(RulesError, match="3–8 players, not 2; two players play the preset 'kahdestaan-pakka'"):
        preset("ristiseiska-pyynto").check_players(2)
    with pytest.raises(RulesError, match="'domino-fan-tan'"):
        preset("sjuan").check_players(2)
    with pytest.raises(RulesError) as info:
        preset("sjuan").check_players(9)
    assert "two players" not in str(info.value)


def test_stock_combines_with_any_base_rules_for_two() -> None:
    for name in ("ristiseiska", "sjuan", "fan-tan", "free-fan-tan", "ristikasi", "wikipedia"):
        r = preset(name).replace(stock=True, min_players=2, max_players=2)
        assert r.stock


def test_unknown_preset() -> None:
    with pytest.raises(RulesError, match="unknown preset 'nope'.*ristiseiska"):
        preset("nope")


def test_every_option_has_help_and_is_reachable_alone() -> None:
    assert set(OPTION_HELP) == set(OPTION_NAMES)
    # Each choice of every enumerated option can be set on top of some valid base.
    for option, choices in CHOICES.items():
        for value in choices:
            base: dict[str, object] = {option: value}
            if option == "hoarding":
                base["failure"] = "token"
            if option == "first_ace_closing":
                base["ace"] = "first-decides"
            if option == "layout" and value == "upward":
                base.update(opening="any", order="both")
            Rules(**base)  # type: ignore[arg-type]


def test_replace_validates_and_refuses_unknown() -> None:
    r = Rules()
    assert r.replace(token_value=25).token_value == 25
    with pytest.raises(RulesError, match="tokn_value"):
        r.replace(tokn_value=3)
    with pytest.raises(RulesError, match="hoarding"):
        r.replace(failure="pass", hoarding="all-but-sevens")


def test_from_dict_errors() -> None:
    with pytest.raises(RulesError, match="unknown rule option.*colour"):
        Rules.from_dict({"colour": "red"})
    with pytest.raises(RulesError, match="token_value must be a whole number"):
        Rules.from_dict({"token_value": "lots"})
    with pytest.raises(RulesError, match="extra_move must be true or false"):
        Rules.from_dict({"extra_move": "yes"})
    with pytest.raises(RulesError, match="must be text"):
        Rules.from_dict({"failure": 3})
    with pytest.raises(RulesError):
        Rules.from_dict(["failure"])  # type: ignore[arg-type]


def test_differences() -> None:
    assert Rules().differences() == {}
    assert preset("ristiseiska-pantti25").differences() == {
        "token_value": 25, "match_deals": 0, "match_target": 200}


# -- TOML house rules --------------------------------------------------------------------------

def test_toml_valid_file() -> None:
    r = load_rules_toml('preset = "ristiseiska"\n[rules]\ntoken_value = 25\n'
                        'hoarding = "all-but-sevens"\n')
    assert r.token_value == 25 and r.hoarding == "all-but-sevens"
    assert r.failure == "token"


def test_toml_top_level_options_and_preset_base() -> None:
    r = load_rules_toml('preset = "sjuan"\nmatch_target = 200\n')
    assert r.opening == "H7" and r.match_target == 200 and r.card_values == "one"


def test_toml_without_overrides_is_the_preset() -> None:
    assert load_rules_toml('preset = "wikipedia"') == preset("wikipedia")
    assert load_rules_toml("") == Rules()


@pytest.mark.parametrize("text,pattern", [
    ("[rules]\ncolour = 'red'\n", r"unknown rule option.*colour"),
    ("token_value = 'many'\n", r"token_value must be a whole number"),
    ("extra_move = 1\n", r"extra_move must be true or false"),
    ("[rules]\nfailure = 'pass'\nhoarding = 'all-but-sevens'\n", r"hoarding.*failure"),
    ("preset = 'nope'\n", r"unknown preset"),
    ("preset = 3\n", r"preset"),
    ("rules = 5\n", r"\[rules\] must be a table"),
    ("token_value = \n", r"not valid TOML"),
    ("[rules\n", r"not valid TOML"),
    ("x = 'unterminated\n", r"not valid TOML"),
    ("order = 'sideways'\n", r"order='sideways' is not one of"),
])
def test_toml_errors_are_clear(text: str, pattern: str) -> None:
    with pytest.raises(RulesError) as info:
        load_rules_toml(text, source="house.toml")
    msg = str(info.value)
    assert msg.startswith("house.toml: "), msg
    assert re.search(pattern, msg), msg
