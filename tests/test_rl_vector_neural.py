"""The Gymnasium vector environment's ``"neural"`` opponents: the shipped network plays the
other seats, deciding as the engine-side ``neural`` bot would from its own seat's view (its
observation and the public known-absent cards, tracked over every move of every row), and
rules the network does not play are refused with a clear error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from ristiseiska.bots.neural import NeuralBot  # noqa: E402
from ristiseiska.cards import Card  # noqa: E402
from ristiseiska.game import Game  # noqa: E402
from ristiseiska.kernel.vecenv import C_DEAL  # noqa: E402
from ristiseiska.learn import features as F  # noqa: E402
from ristiseiska.rl.encoding import Encoding  # noqa: E402
from ristiseiska.rl.vector import RistiseiskaVectorEnv  # noqa: E402
from ristiseiska.rules import Rules, preset  # noqa: E402


class Recorder:
    """Logs, per row, every deal as dealt and every move the kernel applied (with the seat,
    the observation and the tracker's knowledge of that seat just before it)."""

    def __init__(self, env: RistiseiskaVectorEnv) -> None:
        self.env = env
        self.log: list[list[tuple[Any, ...]]] = [[] for _ in range(env.num_envs)]
        self._step, self._reset = env.vec.step_rows, env.vec.reset
        env.vec.step_rows = self.step_rows  # type: ignore[method-assign]
        env.vec.reset = self.reset  # type: ignore[method-assign]

    def reset(self) -> Any:
        out = self._reset()
        for i in range(self.env.num_envs):
            self.log[i].append(("deal", self.env.vec.deal_setup(i)))
        return out

    def step_rows(self, actions: Any, active: Any) -> Any:
        v, env = self.env.vec, self.env
        a, act = np.asarray(actions).copy(), np.asarray(active, np.bool_).copy()
        seats, deal = v.seats.copy(), v.st[:, C_DEAL].copy()
        for i in np.flatnonzero(act):
            void = env.void.relative(seats[i:i + 1], np.array([i]))[0].copy()
            self.log[i].append(("move", int(seats[i]), int(a[i]), v.obs[i].copy(), void))
        out = self._step(actions, active)
        for i in np.flatnonzero(v.st[:, C_DEAL] != deal):
            self.log[i].append(("deal", v.deal_setup(i)))
        return out


def play(name: str, deals: int, seed: int,
         opponents: Any = "neural") -> tuple[RistiseiskaVectorEnv, Recorder]:
    env = RistiseiskaVectorEnv(num_envs=2, preset=name, players=4, opponents=opponents)
    rec = Recorder(env)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    finished = 0
    while finished < deals:
        a = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        # now and then an illegal action: that deal ends at once (and is dealt anew)
        a[rng.random(a.shape) < 0.03] = 109 if name == "sjuan" else 200
        obs, _r, term, _t, _info = env.step(a)
        finished += int(term.sum())
    return env, rec


@pytest.mark.parametrize(("name", "opponents"), [
    ("ristiseiska", "neural"), ("sjuan", "neural"),
    ("ristiseiska", ["strong", "neural", "random"])])
def test_neural_opponents_move_as_the_neural_bot_from_the_engine_view(name: str,
                                                                      opponents: Any) -> None:
    """Replay the environment's deals in the engine: at every move of a neural seat, the
    observation is the engine view's, the tracked known-absent cards are what the bot reads
    from that view, and the move is the one ``NeuralBot`` chooses there (also with kernel
    policies at the table, whose moves the environment then asks for row by row)."""
    env, rec = play(name, deals=6 if opponents == "neural" else 12, seed=7, opponents=opponents)
    rules, n = env.rules, env.n
    enc = Encoding(rules, n)
    bot = NeuralBot()
    compared = voids = whole = abandoned = 0
    for events in rec.log:
        g: Game | None = None
        given = False
        for ev in events:
            if ev[0] == "deal":
                if g is not None and g.is_over():
                    whole += 1
                s = ev[1]
                g = Game(rules, n, dealer=s["dealer"], stock=[Card(c) for c in s["stock"]],
                         hands=[[Card(c) for c in h] for h in s["hands"]])
                given = False
                continue
            _kind, seat, action, obs, void = ev
            assert g is not None and not g.is_over()
            if action < 0:  # the learner's illegal action abandoned the deal
                abandoned += 1
                continue
            assert g.to_move == seat
            view = g.view(seat)
            assert np.array_equal(enc.observe(view), obs)
            given = given or any(e["type"] == "give" for e in view.history)
            if seat in env.neural_seats:
                if not given:  # after a given card the bot's knowledge is the more careful
                    assert np.array_equal(void, F.view_void(view)), (name, len(view.history))
                    voids += 1
                    if len(g.legal_moves()) > 1:
                        assert enc.move_to_action(bot.choose(view)) == action, \
                            (name, len(view.history))
                        compared += 1
            move = next(m for m in g.legal_moves() if enc.move_to_action(m) == action)
            g.push(move)
    assert whole >= 3 and abandoned >= 1 and voids > 60 and compared > 25, \
        (whole, abandoned, voids, compared)


def test_neural_opponents_are_deterministic_and_sit_with_callables() -> None:
    """Greedy network: the same seed and learner actions give the same run; a callable seat
    and a neural seat play side by side (and the tracker is cleared by reset)."""

    def first(obs: np.ndarray, mask: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return np.argmax(mask, axis=1)

    runs = []
    for stale in (False, True):
        env = RistiseiskaVectorEnv(num_envs=4, preset="ristiseiska", players=4,
                                   opponents=["neural", first, "neural"])
        if stale:  # knowledge left from an earlier run: reset must forget it
            env.reset(seed=9)
            env.void.void[:] = 1.0
        obs, _ = env.reset(seed=3)
        out = [obs["observation"], env.void.void.copy()]
        for _ in range(80):
            obs, r, _term, _t, _info = env.step(np.argmax(obs["action_mask"], axis=1))
            out += [obs["observation"], r, env.void.void.copy()]
        runs.append(out)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))


def test_unsupported_rules_are_refused() -> None:
    """Rules or a table the network does not play, and an unknown name, are clear errors."""
    with pytest.raises(ValueError, match="'neural' opponent cannot play these rules at 2 "
                                         "players.*3–6 players"):
        RistiseiskaVectorEnv(num_envs=2, preset="ristiseiska", players=2, opponents="neural")
    with pytest.raises(ValueError, match="cannot play these rules: the kernel does not play "
                                         "two decks"):
        RistiseiskaVectorEnv(num_envs=2, players=4, opponents="neural",
                             rules=Rules(decks=2))
    with pytest.raises(ValueError, match="'neural' or a callable"):
        RistiseiskaVectorEnv(num_envs=2, players=4, opponents="neurall")
    assert F.supported(Rules(), 2) is not None and F.supported(preset("sjuan"), 4) is None


@pytest.mark.parametrize("policy", ["strong", "random", "sensible"])
def test_kernel_policy_moves_asked_row_by_row_equal_the_kernels_own(policy: str) -> None:
    """With a neural seat the kernel policies' moves are asked outside the kernel's step: the
    same moves (same random stream) as the kernel makes inside it, over whole deals."""
    from ristiseiska.kernel import POLICIES
    from ristiseiska.kernel.vecenv import VecEnv
    from ristiseiska.rl.kernel_moves import kernel_actions

    rules = preset("ristiseiska-pyynto")
    outside = VecEnv(rules, 4, 1, seed=11)
    inside = VecEnv(rules, 4, 1, seed=11, opponents=[None, policy, None, None])
    outside.reset()
    inside.reset()
    rng = np.random.default_rng(2)
    asked = deals = 0
    while deals < 5:
        if outside.seats[0] == 1:
            a = kernel_actions(outside, np.array([0]), POLICIES[policy])
            asked += 1
            outside.step(a)
        else:
            a = np.array([rng.choice(np.flatnonzero(outside.mask[0]))])
            outside.step(a)
            inside.step(a)
        deals += int(outside.dones[0])
        if outside.seats[0] != 1:
            assert np.array_equal(outside.st, inside.st)
            assert np.array_equal(outside.obs, inside.obs)
            assert np.array_equal(outside.hands, inside.hands)
    assert asked > 40
