"""Rules: one frozen, validated object holding every rule option; presets by name; TOML files.

    >>> from ristiseiska.rules import Rules, preset
    >>> r = preset("ristiseiska")
    >>> r.token_value, r.order, r.ace
    (21, 'low-first', 'low')
    >>> preset("sjuan").opening
    'H7'
    >>> Rules(failure="pass", hoarding="all-but-sevens")
    Traceback (most recent call last):
    ...
    ristiseiska.rules.RulesError: hoarding='all-but-sevens' needs failure='token' (hoarding means taking the token instead of playing)

Every option of the rule book (docs/rules.en.md §4) is a field here; a variant is a value of an option, never a copy of
the engine. :meth:`Rules.replace` makes a changed copy and validates it again.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .cards import CardError, parse_card


class RulesError(ValueError):
    """A rule option with a wrong value, or options that do not fit together."""


# Allowed values of the enumerated options, with a one-line meaning each (used by help texts).
CHOICES: dict[str, dict[str, str]] = {
    "order": {
        "low-first": "after the centre card the card below it, only then the one above (7, 6, 8)",
        "high-first": "after the centre card the card above it, only then the one below (7, 8, 6)",
        "both": "both neighbours of the centre card are playable at once",
    },
    "ace": {
        "low": "the ace is below the two",
        "high": "the ace is above the king",
        "first-decides": "aces fit at either end until the first ace fixes the end for all suits",
    },
    "first_ace_closing": {
        "base": "after the first ace, the card completing a pile closes it and gives the extra move",
        "aces-only": "only aces give the extra move (the reading before issue 13; old records)",
    },
    "layout": {
        "rows": "each suit builds down and up from its centre card",
        "upward": "the first card's rank starts every suit, which builds upward, wrapping K to A",
    },
    "failure": {
        "token": "a player who cannot play takes the token (pantti)",
        "ask": "a player who cannot play is given a card by the previous player",
        "pass": "a player who cannot play passes",
        "chip": "a player who cannot play pays one chip into the pot",
    },
    "hoarding": {
        "none": "a player with a playable card must play",
        "sevens-sixes-eights": "sevens, sixes and eights may be held back by taking the token",
        "all-but-sevens": "any card but a seven may be held back by taking the token",
        "any-with-penalty": "any card may be held back, at a penalty each time",
    },
    "end": {
        "first-out": "the deal ends when the first player runs out of cards",
        "last-left": "players who run out drop out; the last one holding cards loses",
    },
    "last_left_scoring": {
        "losses": "in a deal played to the last player, the loser scores 1, the others 0",
        "cards": "in a deal played to the last player, cards left in hand are scored",
    },
    "card_values": {
        "ace14": "cards at face value, J 11, Q 12, K 13, ace 14",
        "ace1": "cards at face value, J 11, Q 12, K 13, ace 1",
        "one": "one point for every card",
    },
    "token_mode": {
        "object": "one token moves to whoever cannot play; its holder pays it once at the end",
        "per-miss": "every turn a player cannot play costs the token value again (V18)",
    },
    "stock_opening": {
        "laid-out": "with the stock: the opening card lies on the table before the deal",
        "dealt": "with the stock: the opening card is dealt like the others and played first",
    },
    "tie": {
        "draw": "a shared lowest total is a draw",
        "extra": "a shared lowest total is broken by further deals",
    },
}

# A one-line description of every option, for help and the rules screen (English; the
# interfaces translate these through their catalogs).
OPTION_HELP: dict[str, str] = {
    "center": "rank of the centre card each suit is built around (7; 8 in Ristikasi)",
    "opening": "card that must open the deal ('C7'), or 'any' for a free start",
    "order": "how the two neighbours of the centre card open",
    "ace": "where the ace goes",
    "first_ace_closing": "with the first ace deciding: which closing cards give the extra move after it",
    "layout": "how suits are built",
    "extra_move": "after a closing card (ace or king) the player may play one more card",
    "multi_play": "a player may play several cards in one turn",
    "failure": "what happens to a player who cannot play",
    "first_round_pass": "with asking: a player who cannot play on their first turn just passes",
    "stock": "two players: 17 cards each and a stock to draw from when unable to play",
    "stock_opening": "with the stock: whether the opening card is laid out before the deal",
    "hoarding": "whether a playable card may be held back by taking the token",
    "hoarding_penalty": "points for each illegal hoarding (with 'any-with-penalty')",
    "end": "when the deal ends",
    "last_left_scoring": "what a deal played to the last player scores",
    "card_values": "points of a card left in hand",
    "token_value": "points for holding the token at the end",
    "token_mode": "one token that moves, or a fine for every turn missed",
    "joker_value": "points of a joker left in hand",
    "decks": "number of decks (1 or 2)",
    "distinct_decks": "with two decks: the decks differ and never mix (eight suits)",
    "jokers": "number of jokers (0, 1 or 2; needs asking)",
    "ante": "chips: everyone puts one chip into the pot before the deal",
    "short_hand_chip": "chips: players dealt a card fewer add one chip",
    "pay_per_card": "chips: at the end each loser pays the winner one chip per card in hand",
    "stall_turns": "the deal ends if this many turns in a row pass with no card played",
    "match_deals": "a match is this many deals (0: no limit)",
    "match_target": "a match ends after the deal in which someone reaches this total (0: none)",
    "tie": "how a shared lowest total ends a match",
    "min_players": "fewest players",
    "max_players": "most players",
}


@dataclass(frozen=True)
class Rules:
    """Every rule option. The defaults are the default game of docs/rules.en.md §2."""

    center: int = 7
    opening: str = "C7"
    order: str = "low-first"
    ace: str = "low"
    first_ace_closing: str = "base"
    layout: str = "rows"
    extra_move: bool = True
    multi_play: bool = False
    failure: str = "token"
    first_round_pass: bool = True
    stock: bool = False
    stock_opening: str = "laid-out"
    hoarding: str = "none"
    hoarding_penalty: int = 50
    end: str = "first-out"
    last_left_scoring: str = "losses"
    card_values: str = "ace14"
    token_value: int = 21
    token_mode: str = "object"
    joker_value: int = 20
    decks: int = 1
    distinct_decks: bool = False
    jokers: int = 0
    ante: bool = False
    short_hand_chip: bool = False
    pay_per_card: bool = False
    stall_turns: int = 200
    match_deals: int = 3
    match_target: int = 0
    tie: str = "draw"
    min_players: int = 2
    max_players: int = 8
    # Set by presets; not a rule (kept out of comparisons).
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        _validate(self)

    # -- convenience -----------------------------------------------------------------------
    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        unknown = sorted(set(changes) - OPTION_NAMES - {"name"})
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(unknown)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name (what a record's ``rules`` holds)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "name"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base: Rules | None = None) -> Rules:
        """Options by name on top of ``base`` (default rules if none). Unknown names and
        wrong types are refused with a message naming them."""
        if not isinstance(data, Mapping):
            raise RulesError("rules must be a table of option = value")
        unknown = sorted(set(data) - OPTION_NAMES)
        if unknown:
            raise RulesError(
                f"unknown rule option(s): {', '.join(map(str, unknown))} "
                f"(known: {', '.join(sorted(OPTION_NAMES))})"
            )
        base = base or Rules()
        typed: dict[str, Any] = {}
        for name, value in data.items():
            typed[name] = _coerce(name, value)
        return dataclasses.replace(base, **typed)

    def check_players(self, n: int) -> None:
        """Refuse a player count these rules cannot be played with."""
        if not isinstance(n, int) or isinstance(n, bool):
            raise RulesError(f"number of players must be a whole number, not {n!r}")
        if not self.min_players <= n <= self.max_players:
            hint = ""
            alt = TWO_PLAYER_PRESETS.get(self.name.split("+", 1)[0])
            if n == 2 and alt:
                hint = f"; two players play the preset {alt!r}"
            raise RulesError(
                f"these rules are for {self.min_players}–{self.max_players} players, not {n}{hint}"
            )

    @property
    def uses_token(self) -> bool:
        return self.failure == "token"

    @property
    def fines_per_miss(self) -> bool:
        """V18: every failure is a fine of its own (no token object that moves)."""
        return self.failure == "token" and self.token_mode == "per-miss"

    @property
    def laid_out(self) -> str | None:
        """The card laid on the table before the deal (V13 with a fixed opening card)."""
        if self.stock and self.opening != "any" and self.stock_opening == "laid-out":
            return self.opening
        return None

    @property
    def uses_chips(self) -> bool:
        return self.failure == "chip"

    def differences(self, other: Rules | None = None) -> dict[str, Any]:
        """Options that differ from ``other`` (default rules if none)."""
        other = other or Rules()
        return {k: v for k, v in self.to_dict().items() if getattr(other, k) != v}


OPTION_NAMES = frozenset(f.name for f in fields(Rules) if f.name != "name")

# Options whose value a record written before the option existed must take (when the record's
# rules block lacks it) to replay as it was played, if that differs from the default. Issue 13
# changed V5: before it, only aces gave the extra move under ``ace = "first-decides"``.
LEGACY_VALUES: dict[str, tuple[Any, str, Any]] = {
    # option: (its value for old records, only when this option, has this value)
    "first_ace_closing": ("aces-only", "ace", "first-decides"),
}
_FIELD_TYPES = {f.name: f.type for f in fields(Rules)}


# -- bounds of the whole-number options ---------------------------------------------------------
# One place for every integer option's range, used by rules validation and so by the CLI, the
# web server and the record checker alike. The bounds keep points within 64-bit arithmetic (the
# compiled engine) and a match finite; options without an entry get INT_DEFAULT_BOUNDS.
# (center, decks, jokers and the player counts have narrower checks of their own in _validate.)
INT_BOUNDS: dict[str, tuple[int, int]] = {
    "hoarding_penalty": (0, 10_000),
    "token_value": (0, 10_000),
    "joker_value": (0, 10_000),
    "stall_turns": (1, 10_000),
    "match_deals": (0, 1_000),
    "match_target": (0, 1_000_000),
}
INT_DEFAULT_BOUNDS = (-1_000_000, 1_000_000)


def int_bounds(name: str) -> tuple[int, int]:
    """The smallest and largest value of the whole-number option ``name``."""
    return INT_BOUNDS.get(name, INT_DEFAULT_BOUNDS)


def _coerce(name: str, value: Any) -> Any:
    kind = _FIELD_TYPES[name]
    if kind == "bool":
        if not isinstance(value, bool):
            raise RulesError(f"option {name} must be true or false, not {value!r}")
    elif kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise RulesError(f"option {name} must be a whole number, not {_short(value)}")
        lo, hi = int_bounds(name)
        if not lo <= value <= hi:
            raise RulesError(f"option {name} must be from {lo} to {hi}, not {_short(value)}")
    elif not isinstance(value, str):
        raise RulesError(f"option {name} must be text, not {value!r}")
    return value


def _short(value: Any) -> str:
    """A value for an error message, cut short (a 5,000-digit number is not repeated back)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number that large"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _validate(r: Rules) -> None:
    for name, allowed in CHOICES.items():
        value = getattr(r, name)
        if value not in allowed:
            raise RulesError(
                f"option {name}={value!r} is not one of: {', '.join(allowed)}"
            )
    for name in OPTION_NAMES:
        _coerce(name, getattr(r, name))
    if not 2 <= r.min_players <= r.max_players <= 8:
        raise RulesError(
            f"min_players={r.min_players} and max_players={r.max_players} must satisfy 2 ≤ min ≤ max ≤ 8"
        )
    if not 2 <= r.center <= 12:
        raise RulesError(f"center={r.center} must be a rank from 2 to 12 (a card with cards on both sides)")
    if r.opening != "any":
        try:
            c = parse_card(r.opening)
        except CardError as e:
            raise RulesError(f"opening={r.opening!r}: {e}") from None
        if c.is_joker:
            raise RulesError("opening cannot be a joker")
        if str(c) != r.opening:
            raise RulesError(f"opening must be written canonically, e.g. {str(c)!r}, not {r.opening!r}")
        if r.layout == "rows" and c.rank != r.center:
            raise RulesError(
                f"opening={r.opening!r} and center={r.center} conflict: the opening card must be a centre card"
            )
    if r.layout == "upward":
        if r.opening != "any":
            raise RulesError("layout='upward' (free Fan Tan) needs opening='any': the first card sets the starting rank")
        if r.ace != "low":
            raise RulesError(f"layout='upward' and ace={r.ace!r} conflict: suits wrap from king to ace")
        if r.order != "both":
            raise RulesError(f"layout='upward' and order={r.order!r} conflict: suits build one way only (use order='both')")
    if r.first_ace_closing != "base" and r.ace != "first-decides":
        raise RulesError(
            f"first_ace_closing={r.first_ace_closing!r} needs ace='first-decides'"
        )
    if r.ace == "first-decides" and r.center in (2, 12):
        raise RulesError(
            f"ace='first-decides' and center={r.center} conflict: the centre needs at least two cards on each side"
        )
    if r.hoarding != "none" and r.failure != "token":
        raise RulesError(
            f"hoarding={r.hoarding!r} needs failure='token' (hoarding means taking the token instead of playing)"
        )
    if r.jokers:
        if r.jokers not in (1, 2):
            raise RulesError(f"jokers={r.jokers} must be 0, 1 or 2")
        if r.failure != "ask":
            raise RulesError(f"jokers={r.jokers} needs failure='ask' (jokers are played with asking)")
        if r.layout != "rows":
            raise RulesError("jokers and layout='upward' conflict")
    if r.decks not in (1, 2):
        raise RulesError(f"decks={r.decks} must be 1 or 2")
    if r.distinct_decks and r.decks != 2:
        raise RulesError("distinct_decks=true needs decks=2")
    if r.stock:
        if r.min_players != 2 or r.max_players != 2:
            raise RulesError("stock=true is the two-player game: set min_players=2 and max_players=2")
        if r.decks != 1 or r.jokers:
            raise RulesError(
                f"stock=true and decks={r.decks}, jokers={r.jokers} conflict: the stock game is played with one deck and no jokers"
            )
    if r.token_mode != "object" and r.failure != "token":
        raise RulesError(
            f"token_mode={r.token_mode!r} needs failure='token' (the fines are token fines)"
        )
    if (r.ante or r.short_hand_chip or r.pay_per_card) and r.failure != "chip":
        raise RulesError("ante, short_hand_chip and pay_per_card need failure='chip'")
    if r.token_value < 0 or r.hoarding_penalty < 0 or r.joker_value < 0:
        raise RulesError("token_value, hoarding_penalty and joker_value cannot be negative")
    if r.stall_turns < 1:
        raise RulesError(f"stall_turns={r.stall_turns} must be at least 1")
    if r.match_deals < 0 or r.match_target < 0:
        raise RulesError("match_deals and match_target cannot be negative")
    if r.match_deals == 0 and r.match_target == 0:
        raise RulesError("a match needs an end: set match_deals or match_target (or both)")


# --- presets (docs/rules.en.md §5) ------------------------------------------------------

PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "ristiseiska": (
        "Default rules: token 21, ace low worth 14, 7-6-8, forced play, extra card after ace or king",
        {},
    ),
    "ristiseiska-pyynto": (
        "Ask a card from the previous player instead of the token; first-round pass",
        {"failure": "ask", "first_round_pass": True, "min_players": 3},
    ),
    "ristiseiska-pantti25": (
        "Token worth 25, match to 200 points",
        {"token_value": 25, "match_deals": 0, "match_target": 200},
    ),
    "wikipedia": (
        "Ask a card (no first-round pass), ace worth 1, match to 100 points",
        {"failure": "ask", "first_round_pass": False, "card_values": "ace1",
         "match_deals": 0, "match_target": 100},
    ),
    "sjuan": (
        "Swedish Sjuan: hearts seven opens, 6 and 8 both on the 7, pass, 1 point a card, to 100",
        {"opening": "H7", "order": "both", "failure": "pass", "extra_move": False,
         "card_values": "one", "match_deals": 0, "match_target": 100, "min_players": 3},
    ),
    "fan-tan": (
        "Fan Tan: any seven starts, 6 and 8 both on the 7, a chip for every pass, "
        "the pot to the first out",
        {"opening": "any", "order": "both", "failure": "chip", "extra_move": False,
         "card_values": "one", "min_players": 3},
    ),
    "free-fan-tan": (
        "Free Fan Tan: the first card's rank starts every suit, which builds upward with wrap",
        {"opening": "any", "layout": "upward", "order": "both", "failure": "chip",
         "extra_move": False, "card_values": "one", "min_players": 3},
    ),
    "ristikasi": (
        "Ristikasi: clubs eight opens, eights in the centre, token 20, to 100 points",
        {"center": 8, "opening": "C8", "token_value": 20, "match_deals": 0, "match_target": 100},
    ),
    "kaksi-pakkaa": (
        "Two identical decks: two rows per suit",
        {"decks": 2},
    ),
    "kaksi-erilaista-pakkaa": (
        "Two different decks: eight suits that never mix",
        {"decks": 2, "distinct_decks": True},
    ),
    "jokerit": (
        "Asking a card with jokers; played to the last player",
        {"failure": "ask", "jokers": 2, "end": "last-left", "last_left_scoring": "losses",
         "match_deals": 5},
    ),
    "kahdestaan-pakka": (
        "Two players: seven of clubs on the table, a stock of 17 to draw from",
        {"stock": True, "min_players": 2, "max_players": 2},
    ),
    "domino-fan-tan": (
        "Domino Fan Tan: Sjuan for two, 17 cards each and a stock of 18 to draw from",
        {"opening": "H7", "order": "both", "failure": "pass", "extra_move": False,
         "card_values": "one", "match_deals": 0, "match_target": 100, "stock": True,
         "stock_opening": "dealt", "min_players": 2, "max_players": 2},
    ),
}
# The two-player game of a preset that needs three or more (docs/rules.en.md §5: the asking game's
# source sends two players to the stock game; 002 sends them to Domino Fan Tan).
TWO_PLAYER_PRESETS: dict[str, str] = {
    "ristiseiska-pyynto": "kahdestaan-pakka",
    "sjuan": "domino-fan-tan",
    "fan-tan": "domino-fan-tan",
    "free-fan-tan": "domino-fan-tan",
}
# Presets that need the variants of the next layer (jokers) are listed but refused until they
# work: see :data:`UNSUPPORTED`.
UNSUPPORTED: dict[str, str] = {}


def preset_names() -> list[str]:
    return list(PRESETS)


def preset(name: str) -> Rules:
    """The rules of a preset by name (docs/rules.en.md §5)."""
    if name not in PRESETS:
        raise RulesError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}")
    return Rules(name=name, **PRESETS[name][1])


def preset_description(name: str) -> str:
    return PRESETS[name][0]


MAX_TOML_DEPTH = 32  # arrays and inline tables inside each other; a rules file needs 1 or 2


def toml_depth(text: str) -> int:
    """How deeply arrays and inline tables of a TOML text lie inside each other (brackets in
    strings and comments do not count), without parsing it: the parser recurses once per
    level, so a deep enough text would crash it."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":  # a comment runs to the end of the line
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in "\"'":
            quote = text[i:i + 3] if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if c == '"' and text[i] == "\\":
                    i += 1  # an escaped character: skip it
                elif len(quote) == 1 and text[i] == "\n":
                    break  # a one-line string ends with its line (the parser reports it)
                i += 1
            i += len(quote)
            continue
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest


def parse_toml(text: str, source: str = "rules file") -> dict[str, Any]:
    """``tomllib.loads`` with its nesting bounded (:data:`MAX_TOML_DEPTH`): raises
    :class:`RulesError` with one sentence for bad TOML, never RecursionError."""
    depth = toml_depth(text)
    if depth > MAX_TOML_DEPTH:
        raise RulesError(f"{source}: arrays or tables are nested {depth} deep; a rules file "
                         f"may nest them at most {MAX_TOML_DEPTH} deep")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"{source}: not valid TOML: {e}") from None
    except RecursionError:  # the count above missed a way to nest: still one sentence
        raise RulesError(f"{source}: arrays or tables are nested too deeply") from None


def load_rules_toml(text: str, source: str = "rules file") -> Rules:
    """House rules from TOML: an optional ``preset = "name"`` and option overrides, either at
    the top level or under ``[rules]``::

        preset = "ristiseiska"
        [rules]
        token_value = 25
        hoarding = "all-but-sevens"
    """
    data = parse_toml(text, source)
    base_name = data.pop("preset", "ristiseiska")
    if not isinstance(base_name, str):
        raise RulesError(f"{source}: preset must be a name in quotes")
    overrides: dict[str, Any] = {}
    table = data.pop("rules", {})
    if not isinstance(table, dict):
        raise RulesError(f"{source}: [rules] must be a table")
    overrides.update(table)
    overrides.update(data)
    try:
        base = preset(base_name)
        rules = Rules.from_dict(overrides, base=base)
    except RulesError as e:
        raise RulesError(f"{source}: {e}") from None
    return dataclasses.replace(rules, name=base_name if not overrides else f"{base_name}+house")
