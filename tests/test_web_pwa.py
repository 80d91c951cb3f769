"""Issue 47 without a browser: the manifest, the service worker's lists, the icons, the engine
archive the browser runs (self-sufficient without numpy and numba, and making the server's
records), and offline.py's handling of bad input. The browser side: tests/browser/test_browser_offline.py."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska import offline
from ristiseiska.web import pwa
from ristiseiska.web.security import CSP

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.web.app import create_app  # noqa: E402

STATIC = Path(pwa.__file__).parent / "static"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db = tmp_path_factory.mktemp("pwa") / "t.db"
    with TestClient(create_app(f"sqlite+aiosqlite:///{db}", bot_delay=0.0)) as c:
        yield c


def test_the_icons_are_committed_in_the_sizes_the_manifest_names() -> None:
    Image = pytest.importorskip("PIL.Image")

    for name, (size, maskable) in pwa_icon_sizes().items():
        with Image.open(STATIC / "icons" / name) as img:
            assert img.size == (size, size)
            corner = img.convert("RGBA").getpixel((0, 0))
            # maskable: the felt to the edges (the launcher cuts its own shape)
            assert (corner[3] == 255) if maskable else (corner[3] == 0)


def pwa_icon_sizes() -> dict[str, tuple[int, bool]]:
    from ristiseiska.web.icons import SIZES

    return SIZES


def test_the_manifest_has_what_an_installable_app_needs(client: TestClient) -> None:
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/manifest")
    m = r.json()
    assert m["display"] == "standalone" and m["start_url"] == "/" and m["scope"] == "/"
    assert m["name"] == "Ristiseiska" and m["theme_color"] == pwa.THEME
    for icon in m["icons"]:
        assert client.get(icon["src"]).status_code == 200
    page = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert f'<meta name="theme-color" content="{pwa.THEME}">' in page


def test_the_service_worker_caches_files_that_exist_by_version(client: TestClient) -> None:
    r = client.get("/sw.js")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    text = r.text
    assert "__VERSION__" not in text and "__SHELL__" not in text and "__ENGINE__" not in text
    o = pwa.offline()
    assert f'const VERSION = "{o.version}";' in text
    assert "/static/app.js" in o.shell and "/static/ui/offline.js" in o.shell
    assert "/static/vendor/pyodide/pyodide.asm.wasm" in o.engine
    assert "/offline/engine.zip" in o.engine
    for url in o.shell + o.engine:
        assert client.get(url).status_code == 200, url
    assert client.get("/offline.html").status_code == 200
    assert client.get("/offline-game").text == client.get("/").text


def test_only_the_worker_may_compile_webassembly(client: TestClient) -> None:
    assert "wasm-unsafe-eval" not in CSP
    assert client.get("/").headers["content-security-policy"] == CSP
    worker = client.get("/offline/worker.js")
    assert worker.headers["content-security-policy"] == pwa.WORKER_CSP
    assert "script-src 'self' 'wasm-unsafe-eval';" in pwa.WORKER_CSP
    assert pwa.WORKER_CSP.replace(" 'wasm-unsafe-eval'", "") == CSP


def test_the_engine_archive_is_the_same_bytes_for_the_same_source() -> None:
    assert pwa.engine_zip() == pwa.engine_zip()
    names = set(zipfile.ZipFile(io.BytesIO(pwa.engine_zip())).namelist())
    for module in pwa.ENGINE_MODULES:
        assert f"ristiseiska/{module}" in names
    src = Path(offline.__file__).parent
    for module in pwa.ENGINE_MODULES:  # the server's own files, unchanged
        data = zipfile.ZipFile(io.BytesIO(pwa.engine_zip())).read(f"ristiseiska/{module}")
        assert data == (src / module).read_bytes()
    # the neural bot's weights: the server's file itself
    data = zipfile.ZipFile(io.BytesIO(pwa.engine_zip())).read(f"ristiseiska/{pwa.WEIGHTS}")
    assert data == (src / pwa.WEIGHTS).read_bytes()


PLAY = r"""
import json, sys
for blocked in ("numpy", "numba", "fastapi", "sqlalchemy", "orjson"):
    sys.modules[blocked] = None  # Pyodide's core has none of them
sys.path.insert(0, sys.argv[1])
from ristiseiska import offline
assert offline.__file__.startswith(sys.argv[1]), offline.__file__
out = json.loads(offline.handle(json.dumps({"type": "start", "lang": "en", "config": {
    "preset": sys.argv[2], "bots": sys.argv[3].split(","), "seed": 11, "name": "Äiti"}})))
rules = json.loads(offline.handle('{"type": "rules", "lang": "fi"}'))[0]
assert rules["html"].startswith("<h1>"), rules
while True:
    if offline.bot_due():
        offline.handle('{"type": "bot"}')
        continue
    state = json.loads(offline.handle('{"type": "state"}'))[0]
    if state["view"]["phase"] == "over":
        break
    offline.handle(json.dumps({"type": "move", "move": state["view"]["legal_moves"][-1]}))
print(json.dumps({"saved": offline._MATCH[0].saved(),
                  "record": json.loads(offline.handle('{"type": "record"}'))[0]["text"]}))
"""


@pytest.mark.parametrize(("preset_name", "levels"), [
    ("ristiseiska", "random,basic,expert"), ("sjuan", "random,basic,expert"),
    ("jokerit", "random,basic,expert"),
    # the network in plain Python (bots/neural_plain.py) against the server's numpy bot; on
    # jokers the network does not play and both fall back to the expert's move
    ("ristiseiska", "neural,neural,neural"), ("ristiseiska-pyynto", "neural,expert,neural"),
    ("fan-tan", "basic,neural,neural"), ("jokerit", "neural,neural,basic")])
def test_the_archive_plays_alone_and_makes_the_servers_records(tmp_path: Path,
                                                               preset_name: str,
                                                               levels: str) -> None:
    zipfile.ZipFile(io.BytesIO(pwa.engine_zip())).extractall(tmp_path / "engine")
    done = subprocess.run([sys.executable, "-I", "-c", PLAY, str(tmp_path / "engine"),
                           preset_name, levels], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # the server's engine and bots (the full package) on the same seed and moves
    from ristiseiska.bots import get_bot
    from ristiseiska.match import Match
    from ristiseiska.record import check_record, record_from_game
    from ristiseiska.rules import preset

    cfg = out["saved"]["config"]
    assert cfg["bots"] == levels.split(",")
    g = Match(preset(preset_name), 4, seed=11, names=cfg["names"]).new_deal()
    bots = {s: get_bot(level, 11 * 31 + s) for s, level in enumerate(cfg["bots"], 1)}
    for text in out["saved"]["moves"][0]:
        move = g.parse_move(text)
        if g.to_move != 0 and len(g.legal_moves()) > 1:
            assert bots[g.to_move].choose(g.view(g.to_move)) == move
        g.push(move)
    record = json.loads(out["record"])
    assert record == record_from_game(g, preset=preset_name, extra={"deal": 1})
    assert check_record(record) is None


@pytest.mark.parametrize("level", ["expert", "neural"])
def test_a_saved_match_resumes_exactly(level: str) -> None:
    m = offline.OfflineMatch({"preset": "ristiseiska", "bots": [level] * 3, "seed": 3})
    while not m.game.is_over():
        if m.bot_due():
            m.bot_step()
        else:
            m.play(m.game.legal_moves()[0].text(False))
    m.next_deal()
    m.play(m.game.legal_moves()[0].text(False)) if not m.bot_due() else m.bot_step()
    again = offline.OfflineMatch.from_saved(json.loads(json.dumps(m.saved())))
    assert again.saved() == m.saved() and again.state("fi") == m.state("fi")
    assert again.records() == m.records() and again.records().count("\n") == 1


BAD = st.one_of(
    st.text(max_size=40),
    st.builds(json.dumps, st.dictionaries(st.sampled_from(["type", "move", "lang", "config",
                                                           "saved", "deal", "id"]),
                                          st.one_of(st.none(), st.integers(), st.text(max_size=8),
                                                    st.sampled_from(["move", "bot", "hint",
                                                                     "next-deal", "resume",
                                                                     "C7", "stop"]),
                                                    st.lists(st.integers(), max_size=3)))))


@settings(max_examples=150, deadline=None)
@given(BAD)
def test_bad_input_is_an_error_answer_and_changes_nothing(text: str) -> None:
    offline.handle(json.dumps({"type": "start", "config": {"preset": "ristiseiska",
                                                           "bots": ["basic"] * 3, "seed": 1}}))
    before = offline._MATCH[0].saved()
    answers = json.loads(offline.handle(text))
    assert isinstance(answers, list) and answers
    if answers[0]["type"] == "error":
        assert offline._MATCH[0].saved() == before
        assert answers[0]["code"] != "engine-error", answers


def test_the_offline_state_has_the_servers_view_of_the_seat() -> None:
    """offline.py builds the server's state message without importing the server (Pyodide
    has no FastAPI): the same view, layout, final hands, labels and log sentences."""
    from ristiseiska import i18n
    from ristiseiska.view import make_view, public_event
    from ristiseiska.web.clock import describe
    from ristiseiska.web.tables import LiveTable, board_layout

    m = offline.OfflineMatch({"preset": "sjuan", "bots": ["basic"] * 3, "seed": 8})
    while True:
        g = m.game
        st_ = m.state("en")
        view = st_["view"]
        assert view["layout"] == board_layout(g.table)
        server = dict(make_view(g, 0, history=False).to_dict())
        LiveTable._decorate(g, server)
        assert {k: v for k, v in view.items() if k != "history"} == \
            {k: v for k, v in server.items() if k != "history"}
        events = [public_event(e.to_dict(g.rules.distinct_decks), 0) for e in g.events]
        assert view["history"] == events
        assert st_["log"] == [describe(e, view["names"], "en") for e in events]
        assert st_["labels"] == {mv: i18n.describe_move(mv, "en") for mv in view["legal_moves"]}
        if g.is_over():
            break
        if m.bot_due():
            m.bot_step()
        else:
            m.play(view["legal_moves"][0])


def test_the_offline_hint_is_the_networks_move_with_the_experts_reason() -> None:
    """Offline the hint is the neural bot's choice (the server's numpy bot's too) with the
    expert's reason for that move and a note; where the network does not play the rules, the
    expert's move, saying so."""
    from ristiseiska.bots import get_bot
    from ristiseiska.bots.expert import ExpertBot
    from ristiseiska.bots.reasons import render
    from ristiseiska.i18n import t

    server = get_bot("neural", seed=0)
    for preset_name, note in (("ristiseiska", "analysis.hint.network"),
                              ("jokerit", "analysis.hint.offline_rule")):
        m = offline.OfflineMatch({"preset": preset_name, "bots": ["basic"] * 3, "seed": 21})
        hints = 0
        while not m.game.is_over() and hints < 12:
            if m.bot_due():
                m.bot_step()
                continue
            view = m.game.view(0)
            h = m.hint("en")
            if len(view.legal_moves) > 1:
                move = server.choose(view)
                assert h["move"] == move.text(m.rules.distinct_decks)
                assert h["reason"] == (render(*ExpertBot(seed=0).reason_for(view, move), "en")
                                       .rstrip() + " " + t(note, "en"))
                assert m.hint("fi")["reason"].endswith(t(note, "fi"))
                hints += 1
            m.play(m.game.legal_moves()[-1].text(m.rules.distinct_decks))
        assert hints >= 3


def test_pyodide_comes_gzip_compressed_to_a_browser_that_accepts_it(client: TestClient) -> None:
    """The first download for offline play: Pyodide's large files on the wire as gzip (the
    browser decompresses them before they reach its caches); unchanged without gzip."""
    raw = zipped = 0
    for name in pwa.PYODIDE_FILES:
        url = f"/static/{pwa.PYODIDE}/{name}"
        data = (STATIC / pwa.PYODIDE / name).read_bytes()
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        assert plain.status_code == 200 and plain.content == data
        assert "content-encoding" not in plain.headers
        with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as r:
            wire = b"".join(r.iter_raw())
            assert r.status_code == 200
            assert r.headers.get("content-encoding") == ("gzip" if name in pwa.GZIP_FILES
                                                         else None)
        assert (gzip.decompress(wire) if name in pwa.GZIP_FILES else wire) == data
        raw, zipped = raw + len(data), zipped + len(wire)
    assert client.get(f"/static/{pwa.PYODIDE}/pyodide.asm.wasm").headers["content-type"] \
        == "application/wasm"
    assert client.get(f"/static/{pwa.PYODIDE}/nothing.js").status_code == 404
    assert client.get(f"/static/{pwa.PYODIDE}/.lock").status_code == 404
    wasm = client.get(f"/static/{pwa.PYODIDE}/pyodide.asm.wasm")
    assert wasm.headers["content-security-policy"] == CSP
    assert wasm.headers["x-content-type-options"] == "nosniff"
    assert client.get(f"/static/{pwa.PYODIDE}/package.json").status_code == 200
    assert zipped < 0.6 * raw


def test_an_offline_deal_replays_as_the_server_replays_it() -> None:
    """Offline history (issue 60): the replay of a finished offline deal is the server's own
    replay of the same deal; a deal not finished, or no deal, is an error answer."""
    from ristiseiska.web.app import replay_frames

    m = offline.OfflineMatch({"preset": "kaksi-pakkaa", "bots": ["basic"] * 3, "seed": 5})
    with pytest.raises(offline.OfflineError):
        m.replay(0, "fi")  # still being played
    while not m.game.is_over():
        if m.bot_due():
            m.bot_step()
        else:
            m.play(m.game.legal_moves()[0].text(m.rules.distinct_decks))
    for lang in ("fi", "en"):
        assert m.replay(0, lang) == replay_frames(m.games[0], lang)
    offline._MATCH[:] = [m]
    answer = json.loads(offline.handle('{"type": "replay", "deal": 0, "lang": "en"}'))[0]
    assert answer["type"] == "replay" and len(answer["frames"]) == len(m.game.moves) + 1
    for bad in (1, -1, "0", True, None):
        got = json.loads(offline.handle(json.dumps({"type": "replay", "deal": bad})))[0]
        assert got["type"] == "error" and got["code"] == "no-deal", bad


def test_offline_a_forced_move_is_announced_then_made_for_the_player_as_online() -> None:
    """Issue 52 offline: seed 11's first decision of seat 0 is the token. The state says so (as
    the server's frame does, with the server's pause); the page's ``forced`` message makes it,
    marked in the log and kept over a reload; a stale one changes nothing; ``auto_forced``
    false leaves the move to the player."""
    from ristiseiska.web.forced import PAUSE

    assert offline.PAUSE_MS == int(PAUSE * 1000)
    offline.handle(json.dumps({"type": "start", "config": {"preset": "ristiseiska",
                                                           "bots": ["basic"] * 3, "seed": 11}}))
    m = offline._MATCH[0]
    while m.bot_due():
        m.bot_step()
    state = m.state("fi")
    assert state["table"]["auto_forced"] is True
    assert state["forced"] == {"seat": 0, "move": "token", "remaining_ms": offline.PAUSE_MS,
                               "deal": 0, "ply": 1}
    before = m.saved()
    stale = json.loads(offline.handle(json.dumps({"type": "forced", "deal": 0, "ply": 0})))
    assert [a["type"] for a in stale] == ["state"] and m.saved() == before
    answers = json.loads(offline.handle(json.dumps({"type": "forced", "deal": 0, "ply": 1,
                                                    "lang": "en"})))
    assert [a["type"] for a in answers] == ["state", "saved"]
    assert answers[0]["view"]["history"][1]["auto"] is True
    assert answers[0]["log"][1].endswith("(No card to play: the move was made for the player.)")
    assert answers[1]["saved"]["forced"] == [[0, 1]]
    again = offline.OfflineMatch.from_saved(json.loads(json.dumps(answers[1]["saved"])))
    assert again.state("en")["log"] == m.state("en")["log"]
    # the option off: no announcement, the player takes the token herself
    off = offline.OfflineMatch({"preset": "ristiseiska", "bots": ["basic"] * 3, "seed": 11,
                                "auto_forced": False})
    while off.bot_due():
        off.bot_step()
    assert "forced" not in off.state("fi") and off.forced_due() is None
    assert not off.play_forced(0, 1) and len(off.game.moves) == 1
    bad = json.loads(offline.handle(json.dumps({"type": "start", "config": {
        "preset": "ristiseiska", "bots": ["basic"] * 3, "seed": 1, "auto_forced": "yes"}})))
    assert bad[0]["code"] == "bad-auto-forced"
