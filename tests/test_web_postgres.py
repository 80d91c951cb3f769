"""The web server on PostgreSQL: a throwaway server (Debian's postgresql package) is started for
the test; skipped when PostgreSQL or psycopg is not installed."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

pytest.importorskip("psycopg")
BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
if not BINS:
    pytest.skip("PostgreSQL is not installed (apt-get install -y postgresql)",
                allow_module_level=True)
BIN = BINS[-1]

from test_web import (  # noqa: E402
    TestClient,
    claim,
    create_app,
    live,
    new_table,
    play_first_moves,
)


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:  # initdb refuses to run as root
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    tmp = tempfile.mkdtemp(prefix="rs-pg-")
    data = os.path.join(tmp, "data")
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    subprocess.run(_as_postgres([f"{BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres"]),
                   check=True, capture_output=True)
    subprocess.run(_as_postgres([f"{BIN}/pg_ctl", "-D", data, "-o",
                                 f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off",
                                 "-w", "start", "-l", os.path.join(tmp, "log")]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres([f"{BIN}/pg_ctl", "-D", data, "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def test_postgres_play_store_and_restart(pg_url: str) -> None:
    with TestClient(create_app(pg_url, bot_delay=0.0)) as c:
        tid = new_table(c, ["friend", "bot", "friend"], seed=12)
        tokens = {s: claim(c, tid, s) for s in (0, 2)}
        assert c.post(f"/api/tables/{tid}/seats/0", json={}).status_code == 409
        with c.websocket_connect(f"/ws/{tid}") as ws:
            play_first_moves(ws, tokens, 5)
        g = live(c, tid).game
        before = [str(m) for m in g.moves], [sorted(map(str, g.hand(s))) for s in range(3)]
    with TestClient(create_app(pg_url, bot_delay=0.0)) as c:
        g = live(c, tid).game
        assert ([str(m) for m in g.moves], [sorted(map(str, g.hand(s))) for s in range(3)]) \
            == before
