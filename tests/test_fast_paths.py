"""The shortcuts of issue 24's move path give exactly what the long way gives: the card-name
cache, the table copy that names every slot, the replay cache's identity check."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska import i18n
from ristiseiska.bots.knowledge import ReplayCache, infer
from ristiseiska.cards import CARDS, JOKERS
from ristiseiska.game import Game
from ristiseiska.i18n.grammar import CASES
from ristiseiska.rules import PRESETS, Rules, preset
from ristiseiska.table import Table


def _uncached(card: object, lang: str, case: str) -> str:
    i18n._CARD_NAMES.clear()
    try:
        return i18n.card_name(card, lang, case)  # type: ignore[arg-type]
    finally:
        i18n._CARD_NAMES.clear()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(CARDS[:104]) + list(JOKERS[:2])),
       st.sampled_from(["fi", "en", "FI", "sv", ""]), st.sampled_from([*CASES, "bogus"]), st.booleans(), st.booleans())
def test_card_name_cached_equals_uncached(card: object, lang: str, case: str, as_text: bool,
                                          mark: bool) -> None:
    arg = card.notation(mark) if as_text else card  # type: ignore[attr-defined]
    want = _uncached(arg, lang, case)
    assert i18n.card_name(arg, lang, case) == want  # fills the cache
    assert i18n.card_name(arg, lang, case) == want  # from the cache


def test_card_name_cache_tells_a_card_from_its_int_and_odd_text() -> None:
    c = CARDS[5]
    assert i18n.card_name(c, "fi") == _uncached(c, "fi", "nom")
    assert i18n.card_name(5, "fi") == _uncached(5, "fi", "nom")  # type: ignore[arg-type]
    assert i18n.card_name("not a card", "en") == "not a card"
    i18n.reload()
    assert i18n._CARD_NAMES == {}


def _slots(t: Table) -> dict[str, object]:
    return {name: getattr(t, name) for name in Table.__slots__}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_table_copy_every_slot_and_independent(name: str) -> None:
    rules = preset(name)
    g = Game(rules, max(rules.min_players, min(4, rules.max_players)), seed=3)
    rng = random.Random(3)
    for _ in range(25):
        if g.is_over():
            break
        g.push(rng.choice(g.legal_moves()))
    t = g.table
    c = t.copy()
    assert _slots(c) == _slots(t)  # every slot, the same value
    before = _slots(t)
    before = {k: (v[:] if isinstance(v, list) else v) for k, v in before.items()}
    for row in range(c.nrows):  # changing the copy leaves the original alone
        c.lo[row] = c.hi[row] = -5
        c.occupant[row][999] = 1
    c.fits[0] = -1
    c.jokers[999] = (0, 0)
    assert _slots(t) == before


def test_replay_cache_refuses_equal_but_other_events() -> None:
    """The cache resumes only from the very same event objects: equal copies replay anew
    (and give the same answer as a replay without the cache)."""
    g = Game(Rules(), 4, seed=11)
    rng = random.Random(11)
    cache = ReplayCache()
    for _ in range(30):
        if g.is_over():
            break
        v = g.view(g.to_move)
        a = infer(v, cache)
        b = infer(v)
        assert (a.pool, {s: vars(o) for s, o in a.opponents.items()}) == (
            b.pool, {s: vars(o) for s, o in b.opponents.items()})
        g.push(rng.choice(g.legal_moves()))
    st_before = cache._state
    v = g.view(g.to_move)  # a new view: equal events, other objects
    infer(v, cache)
    assert st_before is None or cache._state is not st_before


@pytest.mark.parametrize("text", ["H6", "stop", "token", "pass", "S7", "H6+", "XJ1=H5",
                                  "garbage", "C13@low", ""])
@pytest.mark.parametrize("lang", ["fi", "en", "sv"])
def test_move_label_cached_equals_uncached(text: str, lang: str) -> None:
    i18n.reload()
    want = i18n._describe_move(text, lang)
    i18n.card_name(text, lang, "move")  # an odd case of a card name: no clash with labels
    assert i18n.describe_move(text, lang) == want
    assert i18n.describe_move(text, lang) == want
    i18n.reload()
    assert i18n._MOVE_LABELS == {}
