"""Catalogs, event sentences, move labels, rule explanations and the ``rules`` command."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections import defaultdict
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from ristiseiska import i18n
from ristiseiska.cards import CARDS, JOKERS, parse_card
from ristiseiska.cli import main
from ristiseiska.explain import (
    explain_rules,
    option_help,
    option_label,
    option_rows,
    option_value_label,
    preset_summary,
    preset_title,
)
from ristiseiska.game import Game
from ristiseiska.i18n import (
    LANGS,
    card_name,
    catalog,
    describe_event,
    describe_move,
    placeholders,
    points_label,
    result_lines,
    t,
    tn,
)
from ristiseiska.moves import KINDS, Move
from ristiseiska.rules import CHOICES, OPTION_HELP, OPTION_NAMES, Rules, preset, preset_names

NAMES = ["Aino", "Olli", "Sara", "Ville", "Leena", "Toni"]


# --- catalogs ----------------------------------------------------------------------------------

def _files() -> dict[str, dict[str, dict[str, str]]]:
    """area -> lang -> catalog, read straight from the JSON files (duplicates refused)."""
    def no_dupes(pairs):
        keys = [k for k, _ in pairs]
        dup = {k for k in keys if keys.count(k) > 1}
        assert not dup, f"duplicate keys {dup}"
        return dict(pairs)

    out: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for entry in resources.files("ristiseiska.i18n").iterdir():
        if entry.name.endswith(".json") and entry.name != "languages.json":
            area, lang = entry.name[: -len(".json")].split(".")
            out[area][lang] = json.loads(entry.read_text("utf-8"), object_pairs_hook=no_dupes)
    return out


def test_catalog_files_are_found_and_named_area_lang():
    files = _files()
    assert "core" in files
    for area, langs in files.items():
        assert set(langs) <= set(LANGS), f"{area}: unknown language file {set(langs) - set(LANGS)}"
    assert {(a, la) for a, la, _ in i18n.catalog_files()} == {
        (a, la) for a, langs in files.items() for la in langs}


def _base_names(text: str) -> set[str]:
    """The placeholders of a template, a card's case suffix left out (``{card_ade}`` is the
    card ``{card}`` in the Finnish adessive: the same value in another form)."""
    from ristiseiska.i18n.grammar import CASES

    out = set()
    for name in placeholders(text):
        head, _, tail = name.rpartition("_")
        out.add(head if head and (tail in CASES or tail == "acc") else name)
    return out


@pytest.mark.parametrize("area", sorted(_files()))
def test_every_catalog_has_the_same_keys_and_placeholders_in_every_language(area):
    langs = _files()[area]
    assert set(langs) == set(LANGS), f"{area}: missing a language file: {set(LANGS) - set(langs)}"
    en = langs["en"]
    for lang, texts in langs.items():  # every language against English
        assert sorted(set(texts) - set(en)) == [], f"{area}: keys only in {lang}"
        assert sorted(set(en) - set(texts)) == [], f"{area}: keys missing in {lang}"
        for key in texts:
            assert key.startswith(area + "."), f"{key} in {area}.*.json must start with '{area}.'"
            assert isinstance(texts[key], str), f"{lang}: {key}"
            assert texts[key].strip(), f"{lang}: {key} is empty"
            assert _base_names(texts[key]) == _base_names(en[key]), \
                f"{lang}: {key}: placeholders differ from English"


def test_plural_keys_come_in_pairs():
    for langs in _files().values():
        keys = set(langs.get("en", {}))
        for k in keys:
            if "{n}" not in langs["en"][k]:
                continue  # not a count (e.g. the option value card_values=one)
            if k.endswith(".one"):
                assert k[:-4] + ".other" in keys, k
            if k.endswith(".other"):
                assert k[:-6] + ".one" in keys, k


def test_t_fills_placeholders_and_falls_back(monkeypatch):
    assert t("core.player", "fi", n=3) == "Pelaaja 3"
    assert t("core.player", "en", n=3) == "Player 3"
    assert t("core.player", n=1) == "Pelaaja 1"  # Finnish by default
    assert t("no.such.key", "fi") == "no.such.key"
    assert t("no.such.key", "en", x=1) == "no.such.key"
    assert t("core.player", "fi") == "Pelaaja {n}"  # a missing placeholder stays visible
    assert t("core.player", "de", n=2) == "Player 2"  # unknown language: English
    assert t("core.player", "sv", n=2) == "Spelare 2"
    assert t("core.player", "fi_FI.UTF-8", n=2) == "Pelaaja 2"
    assert t("core.player", None, n=2) == "Pelaaja 2"  # type: ignore[arg-type]

    fake = {"fi": {"x.only_fi": "vain {a}", "x.bad": "rikki {"},
            "en": {"x.only_en": "English {a}", "x.only_fi": "never used {a}"}}
    monkeypatch.setattr(i18n, "_catalog", lambda lang: fake.get(lang, {}))
    assert t("x.only_en", "fi", a=1) == "English 1"  # Finnish falls back to English
    assert t("x.only_fi", "fi", a=1) == "vain 1"
    assert t("x.bad", "fi", a=1) == "rikki {"  # malformed template shown, never raised
    assert catalog("fi") == {"x.only_en": "English {a}", "x.only_fi": "vain {a}", "x.bad": "rikki {"}


def test_tn_chooses_the_plural_form():
    assert tn("core.cards", 1, "fi") == "1 kortti"
    assert tn("core.cards", 5, "fi") == "5 korttia"
    assert tn("core.chips", 1, "en") == "1 chip"
    assert tn("core.chips", 0, "en") == "0 chips"


def test_catalog_is_complete_and_a_copy():
    fi = catalog("fi")
    assert fi["core.move.token"] == "Ota pantti"
    fi["core.move.token"] = "changed"
    assert catalog("fi")["core.move.token"] == "Ota pantti"
    assert set(catalog("en")) >= set(_files()["core"]["en"])


# --- card names ----------------------------------------------------------------------------------

# Every Finnish rank word in its two forms, checked against standard Finnish.
FI_FORMS = {
    "HA": ("herttaässä", "herttaässän"), "S2": ("patakakkonen", "patakakkosen"),
    "D3": ("ruutukolmonen", "ruutukolmosen"), "C4": ("ristinelonen", "ristinelosen"),
    "H5": ("herttaviitonen", "herttaviitosen"), "H6": ("herttakuutonen", "herttakuutosen"),
    "C7": ("ristiseiska", "ristiseiskan"), "S8": ("patakasi", "patakasin"),
    "D9": ("ruutuysi", "ruutuysin"), "H10": ("herttakymppi", "herttakympin"),
    "CJ": ("ristijätkä", "ristijätkän"), "SQ": ("patakuningatar", "patakuningattaren"),
    "DK": ("ruutukuningas", "ruutukuninkaan"),
}


@pytest.mark.parametrize("text", sorted(FI_FORMS))
def test_finnish_card_names(text):
    nom, acc = FI_FORMS[text]
    assert card_name(text, "fi") == nom
    assert card_name(text, "fi", "acc") == acc
    assert parse_card(card_name(text, "fi")) == parse_card(text)


def test_card_name_of_a_second_deck_card_and_of_garbage():
    assert card_name("C7+", "fi") == "ristiseiska (toinen pakka)"
    assert card_name("C7+", "en") == "seven of clubs (second deck)"
    assert card_name("zz", "fi") == "zz"


# --- events -------------------------------------------------------------------------------------

def _play_out(rules: Rules, n: int, seed: int, pick=None) -> Game:
    g = Game(rules, n, seed=seed, names=NAMES[:n])
    rnd = random.Random(seed)
    while not g.is_over():
        moves = g.legal_moves()
        g.push(pick(moves) if pick else rnd.choice(moves))
    return g


def _event_samples() -> dict[str, list[dict]]:
    """Real events of every type the engine makes, from games under several presets."""
    found: dict[str, list[dict]] = defaultdict(list)
    for name, n in (("ristiseiska", 4), ("ristiseiska-pyynto", 4), ("wikipedia", 3),
                    ("kahdestaan-pakka", 2), ("fan-tan", 4), ("sjuan", 4)):
        for seed in range(3):
            g = _play_out(preset(name), n, seed)
            for e in g.events:
                d = e.to_dict()
                if len(found[d["type"]]) < 6:
                    found[d["type"]].append(d)
    # stop comes from declining the extra card: prefer 'stop' whenever offered
    g = _play_out(preset("ristiseiska"), 3, 5,
                  pick=lambda ms: Move.stop() if Move.stop() in ms else ms[0])
    found["stop"].extend(e.to_dict() for e in g.events if e.type == "stop")
    # jokers and swaps (V11) as records write them
    found["play"].append({"seat": 1, "type": "play", "card": "X1", "as": "H6"})
    found["swap"].append({"seat": 2, "type": "swap", "card": "H6"})
    found["play"].append({"seat": 0, "type": "play", "card": "SA", "end": "high"})
    found["play"].append({"seat": 0, "type": "play", "card": "H4", "row": 1})
    return found


SAMPLES = _event_samples()


def test_the_samples_cover_every_event_type():
    assert set(SAMPLES) >= {"play", "token", "pass", "stop", "ask", "give", "draw", "chip", "swap"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_describe_event_every_type(kind, lang):
    assert SAMPLES[kind]
    for ev in SAMPLES[kind]:
        text = describe_event(ev, NAMES, lang)
        assert text.strip() and text.endswith("."), text
        assert NAMES[ev["seat"]] in text
        for other in ("from", "to"):
            if other in ev:
                assert NAMES[ev[other]] in text
        if "card" in ev:
            shown = ev["as"] if "as" in ev else ev["card"]
            assert card_name(shown, lang, "acc") in text, (ev, text)
        # another language's words never leak in
        assert ("pelasi" in text) == (lang == "fi" and kind == "play")


@pytest.mark.parametrize("lang", LANGS)
def test_hidden_cards_are_described_without_the_card(lang):
    g = _play_out(preset("ristiseiska-pyynto"), 4, 1)
    gives = [e for e in g.events if e.type == "give"]
    assert gives
    hidden = 0
    for seat in range(4):
        view = g.view(seat)
        for d in view.history:
            text = describe_event(d, NAMES, lang)
            if d["type"] == "give" and "card" not in d:
                hidden += 1
                real = next(e for e in gives if e.seat == d["seat"] and e.other == d["to"])
                assert real.card is not None
                for c in CARDS[:52]:  # no card name at all, in any form
                    assert card_name(c, lang) not in text and card_name(c, lang, "acc") not in text
    assert hidden >= 2 * len(gives)  # each give is hidden from the two other seats
    for kind in ("give", "draw", "swap", "play"):
        text = describe_event({"seat": 0, "type": kind, "to": 1}, NAMES, lang)
        assert text and all(card_name(c, lang, "acc") not in text for c in CARDS[:52])


def test_describe_event_finnish_and_english_sentences():
    assert describe_event({"seat": 0, "type": "play", "card": "H6"}, NAMES, "fi") == \
        "Aino pelasi herttakuutosen."
    assert describe_event({"seat": 0, "type": "play", "card": "H6"}, NAMES, "en") == \
        "Aino played the six of hearts."
    assert describe_event({"seat": 1, "type": "token"}, NAMES, "fi") == "Olli otti pantin."
    assert describe_event({"seat": 2, "type": "ask", "from": 0}, NAMES, "fi") == \
        "Sara ei voinut pelata ja pyysi korttia. Kortin antaa Aino."
    assert describe_event({"seat": 0, "type": "stop"}, NAMES, "fi") == \
        "Aino jätti lisäkortin pelaamatta."
    assert describe_event({"seat": 0, "type": "play", "card": "X1", "as": "H6"}, NAMES, "fi") \
        == "Aino pelasi jokerin herttakuutosen paikalle."
    # unknown seats and names
    assert describe_event({"seat": 7, "type": "token"}, NAMES[:2], "en") == "Player 8 took the token."
    assert describe_event({"seat": 0, "type": "token"}, None, "fi") == "Pelaaja 1 otti pantin."


def test_describe_event_accepts_event_objects():
    g = _play_out(preset("ristiseiska"), 3, 2)
    e = g.events[0]
    assert describe_event(e, g.names, "fi") == describe_event(e.to_dict(), g.names, "fi")


_junk = st.one_of(st.none(), st.integers(-3, 10), st.text(max_size=5), st.booleans(),
                  st.sampled_from(["C7", "X1", "H10+", "zz", ""]))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["seat", "type", "card", "as", "row", "end", "from", "to"]),
                       st.one_of(_junk, st.sampled_from(list(KINDS) + ["low", "high"]))),
       st.sampled_from(["fi", "en", "xx"]))
def test_describe_event_never_raises(ev, lang):
    assert isinstance(describe_event(ev, NAMES, lang), str)


# --- moves and labels ---------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_describe_move_every_kind(lang):
    h6 = parse_card("H6")
    moves = [Move.play(h6), Move.stop(), Move.token(), Move.pass_(), Move.ask(), Move.draw(),
             Move.chip(), Move.give(h6), Move.swap(h6)]
    assert {m.kind for m in moves} == set(KINDS)
    labels = set()
    for m in moves:
        label = describe_move(m, lang)
        assert label.strip() and label != m.kind and label == describe_move(str(m), lang)
        if m.card is not None:
            assert card_name(h6, lang) in label
        labels.add(label)
    assert len(labels) == len(moves)
    assert card_name("H6", lang, "acc") in describe_move("X1=H6", lang)
    assert "1" not in describe_move("SA@high", lang) and describe_move("SA@high", lang) != \
        describe_move("SA@low", lang)
    assert describe_move("H4@1", lang) != describe_move("H4@0", lang)
    assert describe_move("not a move", lang) == "not a move"


def test_describe_move_finnish_buttons():
    assert describe_move("H6", "fi") == "Pelaa herttakuutonen"
    assert describe_move("stop", "fi") == "Lopeta vuoro"
    assert describe_move("token", "fi") == "Ota pantti"
    assert describe_move("token", "en") == "Take the token"


def test_points_and_result_labels():
    assert points_label(10, 21) == "10 + 21"
    assert points_label(10) == "10"
    assert points_label(0, 0, 50) == "0 + 50"
    g = _play_out(preset("ristiseiska"), 4, 3)
    res = g.result
    for lang in LANGS:
        lines = result_lines(res, g.names, lang)
        assert len(lines) >= g.n
        holder = res.token_holder
        if holder is not None and res.token_points[holder]:
            line = next(x for x in lines if x.startswith(g.names[holder] + ":"))
            assert f"+ {res.token_points[holder]} = {res.points[holder]}" in line
        assert result_lines(res.to_dict(), g.names, lang) == lines
    chips = _play_out(preset("fan-tan"), 4, 3).result
    assert any("pelimerk" in x for x in result_lines(chips, NAMES, "fi"))
    assert i18n.token_label(None, NAMES, "fi") == "Pantti: ei kenelläkään"
    assert i18n.token_label(1, NAMES, "en") == "Token: Olli"
    for phase in ("turn", "more", "give", "over"):
        assert i18n.phase_label(phase, "fi") != f"core.phase.{phase}"


# --- option labels and explanations --------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_every_option_and_value_has_a_label(lang):
    assert set(OPTION_HELP) == OPTION_NAMES
    for name in OPTION_NAMES:
        assert option_label(name, lang) != name
        assert option_help(name, lang) and option_help(name, lang) != f"core.help.{name}"
    for name, values in CHOICES.items():
        labels = {option_value_label(name, v, lang) for v in values}
        assert len(labels) == len(values), name
        assert not any(x.startswith("core.") for x in labels), name
        if lang == "fi":  # (English may use the option's own word, e.g. "pass")
            assert not labels & set(values), f"{name}: a value is shown untranslated"
    assert option_value_label("opening", "C7", lang) == card_name("C7", lang)
    assert option_value_label("extra_move", True, lang) != option_value_label("extra_move", False, lang)
    assert "21" in option_value_label("token_value", 21, lang)
    for p in preset_names():
        assert preset_title(p, lang) != p or p in ("sjuan", "ristikasi")
        assert preset_summary(p, lang)


def test_english_option_help_matches_the_engine_list():
    # the catalog's English help is a reworded OPTION_HELP; make sure none is forgotten
    for name in OPTION_HELP:
        assert t(f"core.help.{name}", "en") != f"core.help.{name}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", preset_names())
def test_explain_rules_for_every_preset(name, lang):
    r = preset(name)
    text = explain_rules(r, lang)
    assert text.startswith("# ")
    assert f"`{name}`" in text
    if r.uses_token:
        assert f" {r.token_value} " in text
        assert t("core.token", lang) in text.lower()
    if r.opening != "any":
        assert card_name(r.opening, lang) in text.lower()
    if r.match_target:
        assert str(r.match_target) in text
    if r.match_deals and not r.match_target:
        assert tn("core.deals", r.match_deals, lang) in text
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(sections) >= 7
    assert "{" not in text and "core." not in text  # every placeholder filled, every key found
    other = "en" if lang == "fi" else "fi"
    assert explain_rules(r, other) != text


def test_explain_mentions_the_values_that_change():
    fi = explain_rules(preset("ristiseiska"), "fi")
    assert "ässä 14" in fi and "Ristiseiska aloittaa" in fi
    assert "ässä 1." in explain_rules(preset("wikipedia"), "fi")
    assert "ensimmäisellä kierroksella" in explain_rules(preset("ristiseiska-pyynto"), "fi").lower()
    assert "Cards are asked for from the very first round" in explain_rules(preset("wikipedia"), "en")
    assert "1 point" in explain_rules(preset("sjuan"), "en")
    assert "kasin (8)" in explain_rules(preset("ristikasi"), "fi")
    assert "jokeri" in explain_rules(preset("jokerit"), "fi").lower()
    assert "chip" in explain_rules(preset("fan-tan"), "en")
    en = explain_rules(Rules(hoarding="all-but-sevens", multi_play=True, ace="first-decides"), "en")
    assert "Hoarding is allowed" in en and "one after another" in en and "either end" in en
    assert "50" in explain_rules(Rules(hoarding="any-with-penalty"), "en")


@pytest.mark.parametrize("lang", LANGS)
def test_explain_lists_house_rule_changes(lang):
    r = preset("ristiseiska").replace(token_value=25, tie="extra", name="ristiseiska+house")
    text = explain_rules(r, lang)
    assert option_label("token_value", lang) in text and option_label("tie", lang) in text
    assert "25" in text and option_value_label("tie", "extra", lang) in text
    assert t("core.explain.no_changes", lang) not in text
    plain = explain_rules(preset("ristiseiska"), lang)
    assert t("core.explain.no_changes", lang) in plain
    nameless = explain_rules(Rules(token_value=30), lang)
    assert t("core.explain.changes_default", lang) in nameless


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(preset_names()), st.data())
def test_explain_rules_any_valid_house_rules(name, data):
    base = preset(name)
    changes = {}
    for opt in data.draw(st.lists(st.sampled_from(sorted(CHOICES)), max_size=3, unique=True)):
        changes[opt] = data.draw(st.sampled_from(sorted(CHOICES[opt])))
    changes["token_value"] = data.draw(st.integers(0, 99))
    for opt in data.draw(st.lists(st.sampled_from(
            ["extra_move", "multi_play", "first_round_pass", "stock", "distinct_decks", "ante",
             "short_hand_chip", "pay_per_card"]), max_size=3, unique=True)):
        changes[opt] = data.draw(st.booleans())
    if data.draw(st.booleans()):
        center = data.draw(st.integers(2, 12))
        changes.update(center=center, opening=data.draw(st.sampled_from(
            ["any", "CDHS"[data.draw(st.integers(0, 3))] + {11: "J", 12: "Q"}.get(center, str(center))])))
    changes["decks"] = data.draw(st.sampled_from([base.decks, 1, 2]))
    changes["jokers"] = data.draw(st.sampled_from([base.jokers, 0, 1, 2]))
    changes["match_deals"] = data.draw(st.sampled_from([base.match_deals, 0, 1, 7]))
    changes["match_target"] = data.draw(st.sampled_from([base.match_target, 0, 150]))
    try:
        r = base.replace(**changes)
    except ValueError:
        event("refused")
        return  # a combination the engine refuses
    for lang in LANGS:
        text = explain_rules(r, lang)
        assert "{" not in text and "core." not in text
        for opt in r.differences(base):
            assert option_label(opt, lang) in text
        if r.center != 7 and r.layout == "rows":
            assert f"({r.center if r.center <= 10 else 'JQ'[r.center - 11]})" in text


def test_option_rows_cover_every_option():
    rows = option_rows(preset("sjuan"), "fi")
    assert [r[0] for r in rows] == list(preset("sjuan").to_dict())
    assert dict((r[0], r[1]) for r in rows)["opening"] == "herttaseiska"


# --- the rules command ---------------------------------------------------------------------

def test_rules_command_prints_the_default_in_finnish(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Säännöt: Ristiseiska") and "21" in out


def test_rules_command_preset_english_with_options(capsys):
    assert main(["rules", "--preset", "sjuan", "--lang", "en", "--options"]) == 0
    out = capsys.readouterr().out
    assert "# Rules: Sjuan" in out and "seven of hearts" in out
    for name in OPTION_NAMES:
        assert f"| {name} " in out


def test_rules_command_reads_a_toml_file(tmp_path, capsys):
    f = tmp_path / "talo.toml"
    f.write_text('preset = "ristiseiska"\n[rules]\ntoken_value = 25\nhoarding = "all-but-sevens"\n',
                 encoding="utf-8")
    assert main(["rules", "--rules", str(f), "--lang", "fi"]) == 0
    out = capsys.readouterr().out
    assert "Talon säännöt" in out and "25" in out and "Pihtaus" in out


@pytest.mark.parametrize("argv, message", [
    (["rules", "--preset", "nope"], "unknown preset 'nope'"),
    (["rules", "--lang", "de"], "unknown language 'de'"),
    (["rules", "--rules", "/nonexistent/x.toml"], "--rules /nonexistent/x.toml: cannot read it"),
])
def test_rules_command_errors(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("content, message", [
    ("token_value = ", "not valid TOML"),
    ('token_value = "x"', "token_value must be a whole number"),
    ("colour = 3", "unknown rule option"),
    ('failure = "pass"\nhoarding = "all-but-sevens"', "needs failure='token'"),
    ('preset = "nope"', "unknown preset"),
])
def test_rules_command_bad_toml(tmp_path, capsys, content, message):
    f = tmp_path / "bad.toml"
    f.write_text(content, encoding="utf-8")
    assert main(["rules", "--rules", str(f)]) == 2
    assert message in capsys.readouterr().err


def test_rules_command_bad_bytes(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_bytes(b"\xff\xfe\x00bad")
    assert main(["rules", "--rules", str(f)]) == 2
    assert "rules file" in capsys.readouterr().err


def test_rules_command_runs_as_a_program():
    # the installed console script, as a user types it
    exe = shutil.which("ristiseiska", path=str(Path(sys.executable).parent))
    assert exe, "the ristiseiska console script is not installed"
    p = subprocess.run([exe, "rules", "--preset", "fan-tan", "--lang", "en"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "# Rules: Fan Tan" in p.stdout
    p = subprocess.run([exe, "rules", "--preset", "x"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "unknown preset" in p.stderr


def test_jokers_are_named():
    assert card_name(JOKERS[0], "fi") == "jokeri"
    assert describe_move(Move.play(JOKERS[0], as_=parse_card("C5")), "en") == \
        "Play the joker as the five of clubs"


def test_rules_command_html_and_explain_html(capsys):
    from ristiseiska.explain import explain_rules_html, markdown_to_html

    assert main(["rules", "--preset", "ristiseiska", "--format", "html", "--options"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<h1>Säännöt: Ristiseiska</h1>") and "<table>" in out
    assert "<h2>" in explain_rules_html(preset("sjuan"), "en")
    assert "<script>" not in markdown_to_html("<script>alert(1)</script>")
