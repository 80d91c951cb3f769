"""Issue 63: ``ristiseiska backup`` of a PostgreSQL database runs pg_dump (custom format), and
the restore command it shows (pg_restore) brings a live server's tables and moves back into a
new database. Skipped without PostgreSQL, psycopg or pg_dump."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("psycopg")
if shutil.which("pg_dump") is None:
    pytest.skip("pg_dump is not installed (apt-get install -y postgresql-client)",
                allow_module_level=True)

import pg_kit  # noqa: E402
from ristiseiska.cli import main  # noqa: E402
from ristiseiska.ops.backup import pg_restore_command  # noqa: E402
from ristiseiska.store import Store  # noqa: E402
from test_failover import pg_url  # noqa: E402,F401
from test_web import TestClient, app_for, claim, live, new_table, play_first_moves, recv_until  # noqa: E402


def test_pg_dump_writes_a_custom_format_backup(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    async def one_table() -> None:
        s = Store(pg_url)
        await s.init()
        try:
            await s.create_table("backuptable01", {"seats": []}, ["a", "b"])
        finally:
            await s.close()

    asyncio.run(one_table())
    out = tmp_path / "rs.dump"
    assert main(["backup", "--db", pg_url, str(out)]) == 0, capsys.readouterr().err
    assert out.read_bytes()[:5] == b"PGDMP"  # pg_restore's custom format
    assert "pg_dump wrote" in capsys.readouterr().out
    assert main(["backup", "--db", pg_url, str(out)]) == 2  # not replaced without --force
    assert "already exists" in capsys.readouterr().err
    bad = pg_url.rsplit("/", 1)[0] + "/no_such_database"
    assert main(["backup", "--force", "--db", bad, str(out)]) == 2
    err = capsys.readouterr().err
    assert "pg_dump failed" in err and "Traceback" not in err
    assert out.read_bytes()[:5] == b"PGDMP"  # the old backup is kept
    assert main(["restore", "--db", pg_url, str(out)]) == 2
    assert "pg_restore --clean" in capsys.readouterr().err


def _tables(url: str, ids: list[str]) -> dict[str, object]:
    """Each table as the store loads it: configuration, seats, deals and moves."""
    async def go() -> dict[str, object]:
        s = Store(url)
        await s.init()
        try:
            out: dict[str, object] = {}
            for tid in ids:
                st = await s.load(tid)
                assert st is not None, tid
                out[tid] = (st.config, st.seat_names, st.deals, st.moves)
            return out
        finally:
            await s.close()
    return asyncio.run(go())


def test_a_live_server_s_backup_restores_with_the_shown_command(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    if shutil.which("pg_restore") is None:
        pytest.skip("pg_restore is not installed")
    src = pg_kit.new_database(pg_url, "rs_live_backup")
    out = tmp_path / "live.dump"
    with TestClient(app_for(src)) as c:
        quiet = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka")
        tokens = {s: claim(c, quiet, s) for s in (0, 1)}
        with c.websocket_connect(f"/ws/{quiet}") as ws:
            play_first_moves(ws, tokens, 5)
        busy = new_table(c, ["bot", "bot", "bot"], seed=2)
        with c.websocket_connect(f"/ws/{busy}") as ws:
            recv_until(ws, lambda m: m["type"] == "state" and len(m["log"]) >= 3, limit=5000)
            assert main(["backup", "--db", src, str(out)]) == 0  # while the bots write
            recv_until(ws, lambda m: m["type"] == "state" and len(m["log"]) >= 3, limit=5000)
        live_busy = {d: [m.text(False) for m in g.moves]
                     for d, g in enumerate(live(c, busy).games)}
    capsys.readouterr()
    new = pg_kit.new_database(pg_url, "rs_restored")
    assert main(["restore", "--db", new, str(out)]) == 2
    shown = capsys.readouterr().err
    command = pg_restore_command(new, out)
    assert command in shown  # what the operator is told to run is what is run here
    subprocess.run(shlex.split(command), check=True, capture_output=True)
    got, was = _tables(new, [quiet, busy]), _tables(src, [quiet, busy])
    assert got[quiet] == was[quiet]  # nothing moved there while the backup ran
    config, names, _deals, moves = got[busy]  # type: ignore[misc]
    assert (config, names) == was[busy][:2]  # type: ignore[index]
    assert sum(map(len, moves.values())) >= 3
    for d, texts in moves.items():  # a consistent moment of a table still being played
        assert texts == live_busy[d][:len(texts)]
    with TestClient(app_for(new)) as c:  # a server starts on the restored database
        assert c.get(f"/api/tables/{quiet}").status_code == 200
        assert len(live(c, quiet).game.moves) == 5
