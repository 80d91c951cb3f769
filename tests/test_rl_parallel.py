"""The PettingZoo parallel wrapper (issue 59): only the seat to move acts."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import parallel_api_test  # noqa: E402

from ristiseiska.rl import env as aec_env  # noqa: E402
from ristiseiska.rl import parallel_env  # noqa: E402


@pytest.mark.parametrize("preset, players", [("ristiseiska", 4), ("ristiseiska-pyynto", 3), ("fan-tan", 5)])
def test_parallel_api(preset, players) -> None:
    parallel_api_test(parallel_env(preset=preset, players=players), num_cycles=400)


def test_same_deal_as_the_aec_env_and_only_the_mover_acts() -> None:
    par = parallel_env(players=4)
    aec = aec_env(players=4)
    obs, infos = par.reset(seed=7)
    aec.reset(seed=7)
    steps = 0
    while par.agents:
        mover = infos["player_0"]["to_move"]
        assert mover == aec.agent_selection
        for a in par.agents:
            assert obs[a]["action_mask"].any() == (a == mover)
            np.testing.assert_array_equal(obs[a]["observation"], aec.observe(a)["observation"])
        action = int(np.flatnonzero(obs[mover]["action_mask"])[-1])
        # the others' actions (even illegal ones) are ignored
        actions = {a: (action if a == mover else 10**6) for a in par.agents}
        obs, rewards, terms, truncs, infos = par.step(actions)
        aec.step(action)
        steps += 1
        if not par.agents:
            assert all(terms.values())
            assert rewards == {a: aec._cumulative_rewards[a] for a in rewards}
            assert sum(rewards.values()) < 0  # points are lost by all but the winner
    assert steps > 10
    with pytest.raises(RuntimeError, match="reset"):
        par.step({})


def test_a_missing_action_is_a_clear_error() -> None:
    par = parallel_env(players=3)
    _obs, infos = par.reset(seed=1)
    mover = infos["player_0"]["to_move"]
    with pytest.raises(ValueError, match=f"{mover} is to move"):
        par.step({a: 0 for a in par.agents if a != mover})
    assert par.agents  # nothing was played
