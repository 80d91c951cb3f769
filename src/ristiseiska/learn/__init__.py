"""A learned policy and value for the rule sets of the compiled kernel (issue 22).

* :mod:`.features` — the network's input, built from the kernel's observation plus public
  knowledge (which cards each opponent is known not to hold) and a description of the rules;
  the same code serves training (batched over the vector environment) and the bots (one view);
  also the per-action features φ, shared with the linear ``policy`` bot and its training.
* :mod:`.net` — a small multi-layer network in plain numpy (inference and training).
* :mod:`.dmc` — Deep Monte-Carlo self-play training on :class:`ristiseiska.kernel.vecenv.VecEnv`
  (``ristiseiska train``).
* Search on top of the network (the ``master-neural`` bot) lives with the rest of the search:
  :mod:`ristiseiska.search.network`.

Playing needs only numpy (and numba for the kernel); no training library.
"""
