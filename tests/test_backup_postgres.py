"""Issue 63: ``ristiseiska backup`` of a PostgreSQL database runs pg_dump (custom format).
Skipped without PostgreSQL, psycopg or pg_dump."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

pytest.importorskip("psycopg")
if shutil.which("pg_dump") is None:
    pytest.skip("pg_dump is not installed (apt-get install -y postgresql-client)",
                allow_module_level=True)

from ristiseiska.cli import main  # noqa: E402
from ristiseiska.store import Store  # noqa: E402
from test_failover import pg_url  # noqa: E402,F401


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
