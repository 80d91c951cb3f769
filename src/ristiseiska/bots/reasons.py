"""Short reasons for a move, in Finnish and English (hint button, open-cards teaching mode)."""

from __future__ import annotations

from typing import Any

from ..cards import Card
from ..i18n.grammar import card_forms

SUIT_PLURAL_FI = ("ristit", "ruudut", "hertat", "padat")
SUIT_PLURAL_EN = ("clubs", "diamonds", "hearts", "spades")

# Imperatives take the nominative in Finnish ("Pelaa herttakuutonen"); {card} is nominative,
# {card_acc} the object form for indicative sentences, and every case of
# ristiseiska.i18n.grammar is there by its suffix ({card_ade}: "Jatka ruutukolmosella").
TEXTS: dict[str, dict[str, str]] = {
    "only": {
        "fi": "Ainoa sallittu siirto.",
        "en": "It is the only legal move.",
    },
    "forced_token": {
        "fi": "Sinulla ei ole pelattavaa korttia, joten otat pantin.",
        "en": "You have no playable card, so you take the token.",
    },
    "forced_pass": {
        "fi": "Sinulla ei ole pelattavaa korttia: sano ohi.",
        "en": "You have no playable card: pass.",
    },
    "forced_ask": {
        "fi": "Sinulla ei ole pelattavaa korttia: pyydä kortti edelliseltä pelaajalta.",
        "en": "You have no playable card: ask the previous player for a card.",
    },
    "forced_draw": {
        "fi": "Sinulla ei ole pelattavaa korttia: nosta kortti pakasta.",
        "en": "You have no playable card: draw a card from the stock.",
    },
    "forced_chip": {
        "fi": "Sinulla ei ole pelattavaa korttia: maksa merkki pottiin.",
        "en": "You have no playable card: pay a chip into the pot.",
    },
    "last_card": {
        "fi": "Pelaa {card}: se on viimeinen korttisi, ja voitat jaon.",
        "en": "Play the {card}: it is your last card and wins the deal.",
    },
    "dump": {
        "fi": "Pelaa {card}: {player} pääsee kohta korteistaan eroon, joten pelaa kallis kortti ({value} pistettä) pois kädestäsi.",
        "en": "Play the {card}: {player} is nearly out, so get rid of an expensive card ({value} points).",
    },
    "open_long": {
        "fi": "Pelaa {card}: avaat {suit}, joissa sinulla on eniten kortteja.",
        "en": "Play the {card}: it opens {suit}, where you hold the most cards.",
    },
    # Finnish counts take the partitive from two on ("2 korttia", "1 kortti"): {mine_fi} and
    # {theirs_fi} are the counted words. Equal counts and none for the others read differently.
    "unlock_own": {
        "fi": "Pelaa {card}: sen jälkeen sinulle vapautuu pelattavaksi {mine_fi}, muille vain {theirs_fi}.",
        "en": "Play the {card}: it frees {mine} of your own cards and only {theirs} of the others' cards.",
    },
    "unlock_own_none": {
        "fi": "Pelaa {card}: sen jälkeen sinulle vapautuu pelattavaksi {mine_fi}, muille ei yhtään.",
        "en": "Play the {card}: it frees {mine} of your own cards and none of the others' cards.",
    },
    "unlock_even": {
        "fi": "Pelaa {card}: sen jälkeen sinulle vapautuu pelattavaksi {mine_fi}, muille saman verran.",
        "en": "Play the {card}: it frees {mine} of your own cards and as many of the others' cards.",
    },
    "fewest_openings": {
        "fi": "Pelaa {card}: se avaa muille vähiten uusia paikkoja.",
        "en": "Play the {card}: it gives the others the fewest new openings.",
    },
    "keep_block": {
        "fi": "Pelaa {card} ja pidä {block} kiusallasi: niin {suit} pysyvät muilta kiinni.",
        "en": "Play the {card} and keep the {block} back: that keeps {suit} shut for the others.",
    },
    "continue": {
        "fi": "Jatka {card_ade}: lisäkortti vie sinua kohti voittoa.",
        "en": "Go on with the {card}: the extra card brings you closer to going out.",
    },
    "stop": {
        "fi": "Lopeta tähän: seuraava kortti auttaisi muita enemmän kuin sinua.",
        "en": "Stop here: another card would help the others more than you.",
    },
    "hoard_free": {
        "fi": "Ota pantti ja pidä {card} kiusallasi: pantti on jo sinulla, joten se ei maksa lisää.",
        "en": "Take the token and hold the {card} back: you already have the token, so it costs nothing more.",
    },
    "hoard": {
        "fi": "Ota pantti ja pidä {card} kiusallasi: se avaisi muille liikaa.",
        "en": "Take the token and hold the {card} back: playing it would open too much for the others.",
    },
    "give": {
        "fi": "Anna {card}: se on sinulle hyödyttömin kortti, kaukana pöydän korteista.",
        "en": "Give the {card}: it is your least useful card, far from the cards on the table.",
    },
    "give_expensive": {
        "fi": "Anna {card}: se on kallis ({value} pistettä) eikä pääse pöytään pian.",
        "en": "Give the {card}: it is expensive ({value} points) and will not reach the table soon.",
    },
    "ace_end": {
        "fi": "Pelaa {card} {end_fi}: se sopii parhaiten omiin kortteihisi.",
        "en": "Play the {card} at the {end} end: it suits your own cards best.",
    },
    "play_generic": {
        "fi": "Pelaa {card}.",
        "en": "Play the {card}.",
    },
    "move_generic": {
        "fi": "Siirto: {move}.",
        "en": "Move: {move}.",
    },
    "policy": {
        "fi": "Opetetun mallin valinta: {move}.",
        "en": "The trained policy's choice: {move}.",
    },
    "random": {
        "fi": "Satunnainen valinta sallituista siirroista: {move}.",
        "en": "A random choice among the legal moves: {move}.",
    },
    "basic": {
        "fi": "Pelaa {card}: se avaa muille vähiten ja on arvokkaimpia korttejasi.",
        "en": "Play the {card}: it opens the least for the others and is one of your most expensive cards.",
    },
    "master_points": {
        "fi": "{base} (Laskin {worlds} mahdollista korttijakoa: tällä siirrolla jäät keskimäärin {points} pisteeseen.)",
        "en": "{base} (I tried {worlds} possible deals of the hidden cards: with this move you end with {points} points on average.)",
    },
    "master": {
        "fi": "{base} (Laskin {worlds} mahdollista korttijakoa: tällä siirrolla voitit {pct} % niistä.)",
        "en": "{base} (I tried {worlds} possible deals of the hidden cards: this move won {pct}% of them.)",
    },
    "neural": {
        "fi": "Oppineen neuroverkon valinta: {move}.",
        "en": "The learned network's choice: {move}.",
    },
    "neural_fallback": {
        "fi": "{base} (Neuroverkko ei pelaa näillä säännöillä, joten siirron valitsi asiantuntijabotti.)",
        "en": "{base} (The network does not play these rules, so the expert bot chose this move.)",
    },
    "master_neural": {
        "fi": "{base} (Kokeilin {worlds} mahdollista korttijakoa oppineen mallin peleillä: tämä siirto arvioitiin parhaaksi.)",
        "en": "{base} (I tried {worlds} possible deals of the hidden cards, played on by the learned network: this move came out best.)",
    },
}


def render(key: str, params: dict[str, Any], lang: str = "fi") -> str:
    """The reason ``key`` with ``params`` in ``lang`` ('fi' or 'en')."""
    if lang not in ("fi", "en"):
        raise ValueError(f"language must be 'fi' or 'en', not {lang!r}")
    if key == "unlock_own" and "mine" in params and "theirs" in params:
        if params["theirs"] == 0:
            key = "unlock_own_none"
        elif params["theirs"] == params["mine"]:
            key = "unlock_even"
    texts = TEXTS.get(key) or TEXTS["move_generic"]
    fmt: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, Card):
            fmt.update(card_forms(v, lang, k))
        elif k == "move" and isinstance(v, str):  # a move's text ("token") in words
            from ..i18n import move_words

            fmt[k] = move_words(v, lang)
        elif isinstance(v, float) and lang == "fi":  # Finnish writes a decimal comma
            fmt[k] = str(v).replace(".", ",")
        else:
            fmt[k] = v
    for k in ("mine", "theirs"):
        if isinstance(params.get(k), int):
            fmt[k + "_fi"] = f"{params[k]} kortti" if params[k] == 1 else f"{params[k]} korttia"
    if "suit_id" in params:
        fmt["suit"] = (SUIT_PLURAL_FI if lang == "fi" else SUIT_PLURAL_EN)[params["suit_id"]]
    if "end" in params:
        fmt["end_fi"] = "alapäähän" if params["end"] == "low" else "yläpäähän"
    if "base" in params and isinstance(params["base"], tuple):
        bkey, bparams = params["base"]
        fmt["base"] = render(bkey, bparams, lang).rstrip(".") + "."
    try:
        return texts[lang].format(**fmt)
    except (KeyError, IndexError):
        return TEXTS["move_generic"][lang].format(move=params.get("move", "?"))
