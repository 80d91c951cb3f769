"""``ristiseiska daily --server URL`` against a ``serve`` on loopback (issue 57): the deal is
fetched, played (``--auto``), submitted and compared with the server's players; the second
try is practice; ``--show`` prints the server's result; a server that is not there is one
clear line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ristiseiska.cli import main


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("daily-serve")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                        env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
         "--database-url", f"sqlite:///{tmp / 'games.db'}", "--bot-delay", "0",
         "--daily-reference", "expert", "--daily-secret-file", str(tmp / "secret"),
         "--no-limits"],
        stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        for _ in range(50):
            line = proc.stdout.readline()
            if not line or "http://" in line:
                break
        assert "http://" in line, line
        yield next(w for w in line.split() if w.startswith("http://")).rstrip("/")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert len((tmp / "secret").read_text().strip()) == 64  # the given secret file was made


def test_daily_server_auto_counts_then_practice_then_show(server: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    argv = ["daily", "--server", server, "--auto", "expert", "--data-dir", str(tmp_path),
            "--lang", "en", "--preset", "sjuan"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Counted: the server replayed" in out
    assert "You are the first to play this deal." in out
    assert "Streak: 1 day" in out and "Sjuan daily deal" in out
    assert (tmp_path / "daily-device").exists()
    other = tmp_path / "other"
    assert main([*argv[:-6], "--auto", "random", "--data-dir", str(other), "--lang", "en",
                 "--preset", "sjuan"]) == 0
    out = capsys.readouterr().out
    assert "Everyone who played this deal: 2" in out and "Counted" in out
    assert main(argv) == 0  # the same device again: practice
    out = capsys.readouterr().out
    assert "Practice: this try does not count" in out
    assert main([*argv[:3], "--show", "--data-dir", str(tmp_path), "--lang", "en",
                 "--preset", "sjuan"]) == 0
    out = capsys.readouterr().out
    assert "Sjuan – daily deal" in out and "Practice" in out
    from datetime import UTC, datetime, timedelta

    from ristiseiska.daily import day_of

    past = (day_of(datetime.now(UTC)) - timedelta(days=3)).isoformat()
    assert main([*argv, "--date", past]) == 0  # a past day: practice, checked all the same
    out = capsys.readouterr().out
    assert f"daily deal {past}" in out and "Practice" in out


def test_no_server_there_is_one_clear_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from ristiseiska.web.processes import free_port

    port = free_port("127.0.0.1")
    url = f"http://127.0.0.1:{port}"
    assert main(["daily", "--server", url, "--auto", "expert", "--data-dir", str(tmp_path),
                 "--lang", "en"]) != 0
    err = capsys.readouterr().err
    assert f"Cannot reach the server {url}" in err and "Traceback" not in err
    assert main(["daily", "--server", "ftp://x", "--data-dir", str(tmp_path)]) != 0
    assert "http://" in capsys.readouterr().err


def test_the_terminal_game_plays_a_servers_deal_and_a_quit_try_continues(
        server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ristiseiska.commands import daily_play as daily
    from ristiseiska.tui import app
    from test_daily_cli import _FakeApp

    monkeypatch.setattr(daily, "_terminal", lambda: True)
    monkeypatch.setattr(app, "PlayApp", _FakeApp)
    _FakeApp.seen = []
    argv = ["daily", "--server", server, "--data-dir", str(tmp_path), "--lang", "en",
            "--preset", "ristiseiska-pyynto"]
    _FakeApp.moves = 2  # quit: nothing is submitted, the counted try is saved here
    assert main(argv) == 0
    assert (f"Continue with: ristiseiska daily --server {server} --preset ristiseiska-pyynto"
            in capsys.readouterr().out)
    kept = [m.text() for m in _FakeApp.seen[-1].game.moves]
    assert (tmp_path / "server" / "daily").is_dir()
    _FakeApp.moves = None  # back to it: the same try (the server hands it out again)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert [m.text() for m in _FakeApp.seen[-1].game.moves][:len(kept)] == kept
    assert "Counted: the server replayed" in out and "Your points:" in out
