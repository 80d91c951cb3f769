"""``python -m ristiseiska.web.smoke``: the end-to-end check the fresh install runs."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn

from ristiseiska.web import smoke
from ristiseiska.web.app import create_app


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_smoke_plays_a_deal_against_a_live_server(tmp_path: Path) -> None:
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", bot_delay=0.0)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        lines: list[str] = []
        summary = smoke.check(f"http://127.0.0.1:{port}/", timeout=600, seed=3, say=lines.append)
    finally:
        server.should_exit = True
        thread.join(30)
    assert summary["moves"] > 0 and summary["points"] is not None
    assert len(summary["points"]) == 4
    assert any("finished" in line for line in lines)


def test_smoke_reports_an_unreachable_server_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()  # nothing listens there
    assert smoke.main([f"http://127.0.0.1:{port}/", "--timeout", "5"]) == 1
    err = capsys.readouterr().err
    assert "smoke: FAILED" in err and "cannot connect" in err and len(err.splitlines()) == 1
