"""Several processes starting together on one new database all come up (issue 63): the
migrations run under a lock (PostgreSQL's advisory lock, SQLite's write lock), so no table is
created twice (once: ``IntegrityError: duplicate key … pg_type_typname_nsp_index``).

Three worker processes are started once; for each try they are given the URL of a new, empty
database at the same moment (one line on their standard input each) and open it as ``serve``
does (``Store.check``), answering ``ok`` or the error."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import pg_kit

TRIES = 20
WORKER = """
import asyncio, sys
from ristiseiska.store import Store, StoreError
async def open_it(url):
    store = Store(url, shared=True)
    try:
        await store.check()
        return "ok"
    except StoreError as e:
        return "error: " + str(e)
    finally:
        await store.close()
print("ready", flush=True)
for line in sys.stdin:
    try:
        print(asyncio.run(open_it(line.strip())), flush=True)
    except Exception as e:  # anything else is a failure too, said in one line
        print("crash: " + type(e).__name__ + ": " + " ".join(str(e).split())[:300], flush=True)
"""


@pytest.fixture(scope="module")
def workers() -> Iterator[list[subprocess.Popen[str]]]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(__file__).parents[1] / "src"), os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        yield procs
    finally:
        for p in procs:
            assert p.stdin is not None
            p.stdin.close()
        for p in procs:
            p.wait(timeout=60)


def _start_together(procs: list[subprocess.Popen[str]], url: str) -> list[str]:
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(url + "\n")
    for p in procs:  # written in one go, flushed one right after another
        assert p.stdin is not None
        p.stdin.flush()
    out = []
    for p in procs:
        assert p.stdout is not None
        out.append(p.stdout.readline().strip())
    return out


# run with the quiet ones (dev.py: alone, after the rest): the three only race truly together
# when the machine is not busy with other tests; under load they would pass one by one
@pytest.mark.quiet
def test_three_processes_come_up_together_on_new_postgresql_databases(
        workers: list[subprocess.Popen[str]]) -> None:
    if not pg_kit.available():
        pytest.skip("PostgreSQL or psycopg is not installed")
    with pg_kit.cluster() as cluster:
        for i in range(TRIES):
            url = pg_kit.new_database(cluster, f"rs_first_{os.getpid()}_{i}")
            assert _start_together(workers, url) == ["ok"] * 3, f"try {i + 1}"


@pytest.mark.quiet
def test_three_processes_come_up_together_on_new_sqlite_files(
        workers: list[subprocess.Popen[str]], tmp_path: Path) -> None:
    for i in range(TRIES // 2):
        url = f"sqlite+aiosqlite:///{tmp_path / f'games{i}.db'}"
        assert _start_together(workers, url) == ["ok"] * 3, f"try {i + 1}"
