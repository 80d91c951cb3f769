"""rl.evaluate on duplicate deals, the policy in every seat (issue 59)."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from ristiseiska.rl.evaluate import evaluate
from ristiseiska.rules import Rules
from ristiseiska.tournament import run_tournament


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_duplicate_is_the_tournament_of_the_same_deals(tmp_path, monkeypatch) -> None:
    """The same deals, seats and opponents' seeds as ``tournament --duplicate``: the policy
    played as a plugin there scores exactly what evaluate reports."""
    (tmp_path / "p59first.py").write_text(textwrap.dedent('''
        import numpy as np
        from ristiseiska.rl.agent import AgentBot

        class First(AgentBot):
            def __init__(self, seed=None):
                super().__init__(lambda o: int(np.flatnonzero(o["action_mask"])[0]), seed=seed)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        got = evaluate(first_legal, opponents=("expert", "random", "basic"), deals=3, seed=5)
        t = run_tournament(Rules(), ["p59first:First", "expert", "random", "basic"], 3, seed=5,
                           duplicate=True, workers=1)
    finally:
        sys.modules.pop("p59first", None)
    s = t.stats()["p59first:First"]
    assert got["duplicate"] and got["seat_deals"] == s["deals"] == 12
    assert got["points"] == pytest.approx(s["mean_points"])
    assert got["win_rate"] == pytest.approx(s["win_rate"])
    assert got["illegal"] == 0
    assert got["win_ci"][0] <= got["win_rate"] <= got["win_ci"][1]


def test_illegal_actions_are_counted_and_played_by_the_basic_bot() -> None:
    got = evaluate(lambda o, m: int(np.flatnonzero(m == 0)[0]), deals=1, seed=1)
    assert got["illegal"] > 0 and got["seat_deals"] == 4


def test_seat_zero_mode_and_bad_arguments() -> None:
    old = evaluate(first_legal, deals=2, seed=1, duplicate=False)
    assert old["seat_deals"] == 2 and not old["duplicate"]
    with pytest.raises(ValueError, match="deals"):
        evaluate(first_legal, deals=0)
    with pytest.raises(ValueError, match="one opponent per other seat"):
        evaluate(first_legal, opponents=("expert",), deals=1)
