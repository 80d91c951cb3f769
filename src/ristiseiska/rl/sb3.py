"""Stable-Baselines3's ``VecEnv`` over :class:`~ristiseiska.rl.vector.RistiseiskaVectorEnv`
(needs ``stable-baselines3``; ``sb3-contrib`` for MaskablePPO).

    >>> from sb3_contrib import MaskablePPO
    >>> from ristiseiska.rl.sb3 import make_sb3_env
    >>> env = make_sb3_env(num_envs=16, preset="ristiseiska", opponents="random")
    >>> model = MaskablePPO("MlpPolicy", env).learn(10_000)

The observation is the plain ``Box`` vector (``MlpPolicy``); the legal actions come from
``env_method("action_masks")``, which is how MaskablePPO reads them, so no wrapper is
needed. A finished deal's last observation is in ``infos[i]["terminal_observation"]`` and its
result in ``infos[i]["points"]``/``["winner"]``, as Stable-Baselines3 expects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .vector import RistiseiskaVectorEnv


class RistiseiskaSB3VecEnv(VecEnv):
    def __init__(self, venv: RistiseiskaVectorEnv) -> None:
        self.venv = venv
        space = venv.single_observation_space
        assert isinstance(space, spaces.Dict)
        super().__init__(venv.num_envs, space["observation"], venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return np.asarray(obs["observation"])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        obs, reward, term, trunc, info = self.venv.step(self._actions)
        done = term | trunc
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done):
            fin = info["final_info"]
            infos[i] = {"terminal_observation": info["final_obs"][i]["observation"],
                        "TimeLimit.truncated": False, "points": fin["points"][i],
                        "winner": int(fin["winner"][i]), "illegal": bool(fin["illegal"][i])}
        return (np.asarray(obs["observation"]), np.asarray(reward, np.float32),
                np.asarray(done), infos)

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks().astype(bool)

    def close(self) -> None:
        self.venv.close()

    def _rows(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.venv, attr_name) for _ in self._rows(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        rows = self._rows(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False for _ in self._rows(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def make_sb3_env(**kwargs: Any) -> RistiseiskaSB3VecEnv:
    """``RistiseiskaSB3VecEnv(RistiseiskaVectorEnv(**kwargs))``."""
    return RistiseiskaSB3VecEnv(RistiseiskaVectorEnv(**kwargs))


__all__ = ["RistiseiskaSB3VecEnv", "make_sb3_env"]
