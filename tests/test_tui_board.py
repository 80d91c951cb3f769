"""The table's rows keep a gap between cells (issue 62): "+10" (the ten fits) never runs into
the nine before it ("9+10"), and the rows stay aligned."""

from __future__ import annotations

import random

import pytest

from ristiseiska.game import Game
from ristiseiska.rules import preset
from ristiseiska.tui.widgets import render_table


@pytest.mark.parametrize("lang", ["fi", "en"])
def test_plus_ten_stands_apart_from_the_nine(lang: str) -> None:
    seen = 0
    for seed in range(1, 30):
        g = Game(preset("ristiseiska"), 4, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            text = render_table(g.view(0), lang).plain
            lines = text.splitlines()
            for line in lines:
                at = line.find("+10")
                if at > 0:
                    seen += 1
                    assert line[at - 1] == " ", line
            g.push(rng.choice(g.legal_moves()))
        if seen > 3:
            break
    assert seen, "no position with the ten fitting"
