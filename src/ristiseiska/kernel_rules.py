"""Which rules the compiled kernel plays, and the codes it gives their options: plain Python,
so that what cannot load numba (the offline app in Pyodide, issue 47) asks the same question
in the same words. ``kernel/codes.py`` takes its option codes from here."""

from __future__ import annotations

from .rules import Rules

ORDER_LOW_FIRST, ORDER_HIGH_FIRST, ORDER_BOTH = 0, 1, 2
FAIL_PASS, FAIL_TOKEN, FAIL_ASK, FAIL_CHIP = 0, 1, 2, 3
HOARD_NONE, HOARD_678, HOARD_NOT_7, HOARD_ANY = 0, 1, 2, 3

ORDERS = {"low-first": ORDER_LOW_FIRST, "high-first": ORDER_HIGH_FIRST, "both": ORDER_BOTH}
FAILURES = {"pass": FAIL_PASS, "token": FAIL_TOKEN, "ask": FAIL_ASK, "chip": FAIL_CHIP}
HOARDS = {"none": HOARD_NONE, "sevens-sixes-eights": HOARD_678,
          "all-but-sevens": HOARD_NOT_7, "any-with-penalty": HOARD_ANY}


def unsupported(rules: Rules, players: int | None = None) -> str | None:
    """Why the kernel cannot play these rules (one phrase), or ``None`` if it can.

    >>> from ristiseiska.rules import preset
    >>> unsupported(preset("ristiseiska"), 4) is None
    True
    >>> unsupported(preset("jokerit"))
    'the kernel does not play jokers'
    """
    checks = [
        (rules.decks == 1, "two decks"),
        (rules.jokers == 0, "jokers"),
        (rules.ace in ("low", "high"), f"ace={rules.ace}"),
        (rules.end == "first-out", f"end={rules.end}"),
        (rules.failure in FAILURES, f"failure={rules.failure}"),
        (rules.hoarding in HOARDS, f"hoarding={rules.hoarding}"),
        (rules.order in ORDERS, f"order={rules.order}"),
        (rules.card_values in ("ace14", "ace1", "one"), f"card_values={rules.card_values}"),
    ]
    for ok, what in checks:
        if not ok:
            return f"the kernel does not play {what}"
    if players is not None:
        if not 2 <= players <= 8:
            return f"the kernel plays 2–8 players, not {players}"
        if not rules.min_players <= players <= rules.max_players:
            return f"these rules are for {rules.min_players}–{rules.max_players} players, not {players}"
    return None
