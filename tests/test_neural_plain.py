"""The plain-Python ``neural`` bot of the offline app (bots/neural_plain.py) against the server's
numpy bot (bots/neural.py): the same weights file, the same features, the same moves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ristiseiska import Game
from ristiseiska.bots import get_bot
from ristiseiska.bots import neural_plain as P
from ristiseiska.learn import features as F
from ristiseiska.rl.encoding import Encoding
from ristiseiska.rules import PRESETS, Rules, preset

# (preset, players): the rule sets the network was trained on and others it plays
PLAYED = [("ristiseiska", 4), ("ristiseiska", 3), ("ristiseiska-pyynto", 5), ("sjuan", 4),
          ("sjuan", 6), ("fan-tan", 3), ("ristiseiska-pantti25", 4), ("wikipedia", 4),
          ("free-fan-tan", 4), ("ristikasi", 5), ("free-fan-tan", 6)]


@pytest.fixture(scope="module")
def bots() -> tuple[object, P.PlainNeuralBot]:
    return get_bot("neural", seed=5), P.PlainNeuralBot(seed=5)


def test_the_layout_and_the_words_are_the_networks() -> None:
    assert P.FEATURE_SIZE == F.FEATURE_SIZE
    assert P.OFFSETS == {k: at for k, (at, _size) in F.OFFSETS.items()}
    odd = [Rules(ace="first-decides"), Rules(end="last-left"), Rules(order="both"), Rules(hoarding="any-with-penalty", failure="token")]
    for rules in [preset(p) for p in PRESETS] + odd:
        for n in range(2, 9):
            assert P.unsupported(rules, n) == F.supported(rules, n), (rules, n)
        if F.supported(rules, 4) is None:
            v = np.zeros(F.RULES_SIZE + 52, np.float32)
            for i, x in P._rule_features(rules, 4):
                v[i - P.OFFSETS["rules"]] = x
            assert np.array_equal(v, F.rules_vector(rules, 4))


def test_the_same_moves_and_values_as_the_servers_bot(bots: tuple[object, P.PlainNeuralBot]
                                                      ) -> None:
    srv, plain = bots
    decisions = 0
    for k, (name, n) in enumerate(PLAYED):
        rules = preset(name)
        for seed in (k, 100 + k):
            g = Game(rules, players=n, seed=seed)
            while not g.is_over():
                view = g.view(g.to_move)
                if len(g.legal_moves()) > 1:
                    obs = Encoding(rules, n).observe(view)[None, :]
                    X = F.build(obs, n, F.view_void(view)[None], rules)[0]
                    mine, _h, _u, _near = P.features(view)
                    x = np.zeros(F.FEATURE_SIZE, np.float32)
                    for i, v in [*mine, *P._rule_features(rules, n)]:
                        x[i] = v
                    np.testing.assert_allclose(x, X, rtol=0, atol=1e-7)
                    legal, q = srv.action_values(view)  # type: ignore[attr-defined]
                    legal2, q2 = plain.action_values(view)
                    assert legal2 == legal
                    np.testing.assert_allclose(q2, q, rtol=0, atol=1e-5)
                    decisions += 1
                move, reason = plain.decide(view)
                assert (move, reason) == srv.decide(view)  # type: ignore[attr-defined]
                g.push(move)
    assert decisions >= 500


def test_rules_the_network_does_not_play_fall_back_as_on_the_server(
        bots: tuple[object, P.PlainNeuralBot]) -> None:
    srv, plain = bots
    seen = 0
    for name, n in (("kaksi-pakkaa", 4), ("jokerit", 4), ("kahdestaan-pakka", 2),
                    ("kaksi-erilaista-pakkaa", 3), ("domino-fan-tan", 2), ("ristiseiska", 7)):
        rules = preset(name)
        if not rules.min_players <= n <= rules.max_players:
            continue
        g = Game(rules, players=n, seed=3)
        for _ in range(40):
            if g.is_over():
                break
            view = g.view(g.to_move)
            move, (key, params) = plain.decide(view)
            assert (move, (key, params)) == srv.decide(view)  # type: ignore[attr-defined]
            if len(g.legal_moves()) > 1:
                assert key == "neural_fallback" and params["why"]
                seen += 1
            g.push(move)
    assert seen >= 20


def test_the_offline_engine_plays_it_without_numpy(tmp_path: Path) -> None:
    """As in Pyodide: the engine archive the server packs (web/pwa.py), with numpy (and so
    numba and the kernel) impossible to import, plays offline matches against ``neural`` bots."""
    import io
    import zipfile

    from ristiseiska.web.pwa import engine_zip

    zipfile.ZipFile(io.BytesIO(engine_zip())).extractall(tmp_path)
    code = ("import json, sys; sys.modules['numpy'] = None\n"
            "from ristiseiska import offline\n"
            "cfg = {'preset': 'sjuan', 'bots': ['neural'] * 3, 'seed': 9, 'name': 'A'}\n"
            "offline.handle(json.dumps({'type': 'start', 'config': cfg}))\n"
            "m = offline._MATCH[0]\n"
            "while not m.game.is_over():\n"
            "    m.bot_step() if m.bot_due() else m.play(m.game.legal_moves()[0].text())\n"
            "print(type(m.bots[1]).__name__, 'numba' in sys.modules, len(m.game.moves))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path)}, timeout=300)
    assert out.returncode == 0, out.stderr
    kind, numba, moves = out.stdout.split()
    assert (kind, numba) == ("PlainNeuralBot", "False") and int(moves) > 40


def test_a_file_that_is_not_weights_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(P.WeightsError, match="not a network weights file"):
        P.PlainNet(bad)
    with pytest.raises(P.WeightsError, match="does not exist"):
        P.PlainNet(tmp_path / "missing.npz")
