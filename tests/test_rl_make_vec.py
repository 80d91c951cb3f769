"""``gymnasium.make_vec`` builds the compiled vector environment (issue 45): the registered id
has a vector entry point, so ``vectorization_mode="vector_entry_point"`` (and the default)
gives ``RistiseiskaVectorEnv`` with ``action_masks()``, while ``"sync"`` still wraps single
environments."""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from ristiseiska.rl import GYM_ID  # noqa: E402
from ristiseiska.rl.vector import RistiseiskaVectorEnv  # noqa: E402


@pytest.mark.parametrize("mode", ["vector_entry_point", None])
def test_make_vec_gives_the_compiled_vector_environment(mode: str | None) -> None:
    envs = gym.make_vec(GYM_ID, num_envs=4, vectorization_mode=mode, players=4,
                        opponents="random")
    try:
        assert isinstance(envs.unwrapped, RistiseiskaVectorEnv) and envs.num_envs == 4
        obs, _info = envs.reset(seed=3)
        masks = envs.unwrapped.action_masks()
        assert masks.shape == (4, envs.single_action_space.n) and masks.dtype == np.int8
        assert (masks.sum(axis=1) >= 1).all()
        assert np.array_equal(masks, obs["action_mask"])
        rng = np.random.default_rng(0)
        for _ in range(50):
            masks = envs.unwrapped.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, reward, term, trunc, info = envs.step(actions)
            assert reward.shape == (4,) and term.shape == (4,)
    finally:
        envs.close()


def test_sync_mode_still_wraps_single_environments() -> None:
    envs = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync")
    try:
        assert not isinstance(envs.unwrapped, RistiseiskaVectorEnv)
        envs.reset(seed=1)
    finally:
        envs.close()
