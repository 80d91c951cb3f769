"""Issue 63: PostgreSQL stopped for 60 s under a running ``ristiseiska serve``; every table
goes on within 15 s of its return, on the same connections (none reconnects), and each page
was told that saving was being retried and then that it works again. Skipped without
PostgreSQL or psycopg (Debian's packages, started and stopped by the test, loopback only)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("psycopg")
websockets = pytest.importorskip("websockets")

from test_failover import BIN, _as_postgres, pg_url  # noqa: E402,F401

SRC = str(Path(__file__).parents[1] / "src")
TABLES = 5
OUTAGE = 60.0
RECOVER = 15.0


@pytest.fixture
def server(pg_url: str, tmp_path: Path) -> Iterator[str]:  # noqa: F811
    env = dict(os.environ, PYTHONPATH=SRC, HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0", "--database-url",
         pg_url, "--bot-delay", "0.4", "--no-limits"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ristiseiska: http://127.0.0.1:"), line
        yield line.split()[1].rstrip("/")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _pg(pg: str, action: str) -> None:
    """pg_ctl stop or start on the fixture's cluster (its data directory from the server)."""
    data = _data_dir(pg)
    port = pg.rsplit(":", 1)[1].split("/")[0]
    if action == "stop":
        cmd = [f"{BIN}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"]
    else:
        sock = os.path.dirname(data)
        cmd = [f"{BIN}/pg_ctl", "-D", data, "-o",
               f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "-w",
               "start", "-l", os.path.join(sock, "log")]
    subprocess.run(_as_postgres(cmd), check=True, capture_output=True)


_DATA: dict[str, str] = {}


def _data_dir(pg: str) -> str:
    if pg not in _DATA:
        import psycopg

        with psycopg.connect(pg.replace("+psycopg", "")) as conn:
            row = conn.execute("SHOW data_directory").fetchone()
            assert row is not None
            _DATA[pg] = str(row[0])
    return _DATA[pg]


@pytest.mark.quiet  # it times the recovery against 15 s: it needs the machine to itself
def test_every_table_goes_on_after_postgresql_returns(pg_url: str, server: str) -> None:  # noqa: F811
    ids = []
    for k in range(TABLES):
        req = urllib.request.Request(
            f"{server}/api/tables", method="POST",
            data=json.dumps({"seats": [{"kind": "bot"}] * 3, "seed": 100 + k}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            ids.append(json.loads(r.read())["id"])
    _data_dir(pg_url)  # asked while the database is up
    ws_base = server.replace("http://", "ws://")

    async def watch(tid: str, marks: dict[str, float], out: dict[str, Any]) -> None:
        """One page: the position's progress and the notices, on one connection."""
        seen: list[tuple[float, tuple[int, int]]] = []
        notices: list[tuple[float, str]] = []
        async with websockets.connect(f"{ws_base}/ws/{tid}",
                                      origin=server) as ws:  # type: ignore[attr-defined]
            while "done" not in marks:
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                m = json.loads(raw)
                if m["type"] == "state":
                    seen.append((time.monotonic(), (m["deal"], len(m["log"]))))
                elif m["type"] == "notice":
                    notices.append((time.monotonic(), m["code"]))
                elif m["type"] == "error":
                    notices.append((time.monotonic(), "error:" + m["code"]))
        out[tid] = (seen, notices)

    async def run() -> dict[str, Any]:
        marks: dict[str, float] = {}
        out: dict[str, Any] = {}
        tasks = [asyncio.create_task(watch(t, marks, out)) for t in ids]
        await asyncio.sleep(4.0)  # every table under way
        await asyncio.to_thread(_pg, pg_url, "stop")
        marks["stopped"] = time.monotonic()
        await asyncio.sleep(OUTAGE)
        await asyncio.to_thread(_pg, pg_url, "start")
        marks["back"] = time.monotonic()
        await asyncio.sleep(RECOVER + 3.0)
        marks["done"] = time.monotonic()
        await asyncio.gather(*tasks)  # a connection that closed would raise here
        out["marks"] = marks
        return out

    out = asyncio.run(run())
    marks = out.pop("marks")
    for tid, (seen, notices) in out.items():
        before = max((key for t, key in seen if t < marks["stopped"]), default=(0, 0))
        resumed = [t for t, key in seen if t > marks["back"] and key > before]
        assert resumed, f"table {tid} did not go on: {notices}"
        assert resumed[0] - marks["back"] <= RECOVER, (tid, resumed[0] - marks["back"])
        codes = [c for _t, c in notices]
        assert "saving-retry" in codes and codes[-1] == "saved", (tid, codes)
        assert not [c for c in codes if c.startswith("error:")], (tid, codes)
