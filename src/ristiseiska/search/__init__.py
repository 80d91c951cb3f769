"""The determinized search: what the ``master`` bots, ``master-neural``, the analysis, the hints
and the puzzles share.

A seat cannot see the others' hands, so the search looks at many *worlds*: deals of the hidden
cards consistent with everything that seat's view shows (:class:`Sampler`), weighted by how
well they explain the opponents' plays. In every world each legal move is made and the deal
played to its end (a *playout*), and a move's value is its mean outcome over the worlds. All
moves see the same worlds and playout seeds, so their comparison is not drowned in the noise
of the deals.

The public interface:

- :class:`Sampler` (``beta``, ``oversample``): :meth:`~Sampler.masks` (deals as rows of seat
  hand bitmasks, compiled; ``None`` where the kernel's sampler does not apply),
  :meth:`~Sampler.worlds` (deals as lists of cards, every rule set), :attr:`~Sampler.sensible`
  (each opponent's chance of playing sensibly, from the last draw) and
  :meth:`~Sampler.playout_policy` (the kernel playout policy of every seat);
  :func:`game_of_world` and :func:`worlds_after` turn a row of masks into a game and carry the
  rows past a move; :func:`behind_masks`, :func:`check_policies`, :data:`KERNEL_POLICIES`.
- :func:`kernel_values`: every legal move's mean points and chance of going out first over the
  sampled deals, by the compiled kernel's playouts (with the searching seat's next choices
  searched inside them: ``lookahead``).
- :func:`exact_values` (with an :class:`ExactTable`): the moves' values by exact leaves late in
  a deal, the seat's next choice optionally pooled over the worlds (extended PIMC).
- Python playouts for the rule sets outside the kernel: :func:`rollout` with a
  :data:`Policy` (:data:`POLICIES`: ``random_policy``, ``greedy_policy``, ``smart_policy``).
- :mod:`ristiseiska.search.network` (imported on its own: it loads the learned network's code):
  playouts where the network plays (``playout_values``) and the network's weighting of the
  deals (``past_choices``, ``policy_log_likelihood``, ``resample``).

Every input is one seat's view; the deals are samples of what it cannot see. The same ``rng``
state gives the same deals and values.

    >>> import random
    >>> from ristiseiska.game import Game
    >>> from ristiseiska.rules import preset
    >>> from ristiseiska.search import Sampler, kernel_values
    >>> g = Game(preset("ristiseiska"), 4, seed=3)
    >>> view = g.view(g.to_move)
    >>> sampler = Sampler()
    >>> masks = sampler.masks(view, random.Random(1), 40)  # 40 deals of the hidden cards
    >>> masks.shape
    (40, 4)
    >>> legal = list(view.legal_moves)
    >>> policy = sampler.playout_policy(view.players, view.seat, own="strong", opp="auto")
    >>> points, wins = kernel_values(view, legal, masks, random.Random(1), policy=policy,
    ...                              rollouts=1, lookahead=(view.seat, 0, 1, 0.0))
    >>> points.shape == (len(legal), 1)
    True

Layering: the search uses the engine, the inference of :mod:`ristiseiska.bots.knowledge` and
the kernel; the bots, the analysis and the puzzles use the search, by these names only.
"""

from __future__ import annotations

from .exact import ExactTable, exact_values
from .playouts import POLICIES, Policy, greedy_policy, random_policy, rollout, smart_policy
from .values import kernel_values
from .worlds import (
    DEFAULT_BETA,
    DEFAULT_OVERSAMPLE,
    FULL_MASK,
    KERNEL_POLICIES,
    Sampler,
    behind_masks,
    check_policies,
    game_of_world,
    worlds_after,
)

__all__ = [
    "DEFAULT_BETA", "DEFAULT_OVERSAMPLE", "ExactTable", "FULL_MASK", "KERNEL_POLICIES", "POLICIES", "Policy",
    "Sampler", "behind_masks", "check_policies", "game_of_world", "greedy_policy",
    "exact_values", "kernel_values", "random_policy", "rollout", "smart_policy", "worlds_after",
]
