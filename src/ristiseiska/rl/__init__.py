"""Standard AI interfaces (the optional extra ``ristiseiska[rl]``).

* PettingZoo AEC: ``from ristiseiska.rl import env``; ``env(preset="ristiseiska", players=4)``.
* PettingZoo parallel: ``from ristiseiska.rl import parallel_env`` (the same arguments; only
  the seat to move acts each step).
* A trained policy as a bot: :class:`ristiseiska.rl.agent.AgentBot`.
* Gymnasium: after ``import ristiseiska.rl``, ``gymnasium.make("ristiseiska/Ristiseiska-v0",
  preset=..., players=..., opponents=("expert", "random", "random"))``.
* OpenSpiel: after ``import ristiseiska.rl.openspiel``, ``pyspiel.load_game(
  "python_ristiseiska", {"preset": "ristiseiska", "players": 4})``.
* The compiled vectorised environment: :class:`ristiseiska.kernel.vecenv.VecEnv`; as a
  Gymnasium ``VectorEnv``: :class:`ristiseiska.rl.vector.RistiseiskaVectorEnv`; as
  Stable-Baselines3's ``VecEnv``: :func:`ristiseiska.rl.sb3.make_sb3_env`.

The action table and observation layout (:mod:`.encoding`) need only numpy; the library
modules import PettingZoo, Gymnasium and OpenSpiel only when used. See docs/rl.md.
"""

from __future__ import annotations

from typing import Any

from .encoding import ActionError, Encoding

GYM_ID = "ristiseiska/Ristiseiska-v0"


def env(**kwargs: Any) -> Any:
    """The PettingZoo AEC environment (needs ``pettingzoo``)."""
    try:
        from .aec import RistiseiskaAEC
    except ImportError as e:
        raise ImportError(f"the PettingZoo environment needs the rl extra: pip install "
                          f"'ristiseiska[rl]' ({e})") from e

    return RistiseiskaAEC(**kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """The PettingZoo parallel environment (needs ``pettingzoo``; :mod:`.parallel`)."""
    try:
        from .parallel import RistiseiskaParallel
    except ImportError as e:
        raise ImportError(f"the PettingZoo environment needs the rl extra: pip install "
                          f"'ristiseiska[rl]' ({e})") from e

    return RistiseiskaParallel(**kwargs)


def _register_gym() -> None:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # the extra is not installed: only the numpy parts work
        return
    if GYM_ID not in registry:
        # gymnasium.make_vec(GYM_ID, num_envs=N) builds the compiled vector environment (N deals
        # at once in the kernel, with action_masks()); vectorization_mode="sync" or "async"
        # still wraps N single environments
        register(id=GYM_ID, entry_point="ristiseiska.rl.gym_env:RistiseiskaGym",
                 vector_entry_point="ristiseiska.rl.vector:RistiseiskaVectorEnv")


_register_gym()

__all__ = ["env", "parallel_env", "Encoding", "ActionError", "GYM_ID"]
