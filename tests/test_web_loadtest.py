"""The load benchmark runs end to end (small and fast here; the real figures come from
``python -m ristiseiska.web.loadtest``)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from ristiseiska.web import loadtest


def test_loadtest_small_run_finishes_without_errors() -> None:
    args = argparse.Namespace(tables=4, players=3, deals=2, bot_delay=0.0, think=0.0,
                              timeout=60, seed=3, url=None, json=True)
    report = asyncio.run(loadtest.run(args))
    assert report["errors"] == 0, report["error_samples"]
    assert report["tables_finished"] == 4 and report["deals_finished"] == 8
    assert report["client_moves"] > 0 and report["rtt_ms"]["p50"] > 0
    assert report["moves_all_seats"] >= 8 * 17  # at least every card of a 3-player deal
    # the server's /metrics, scraped at the end of the run, counted every move played
    assert report["metrics_moves_total"] == report["moves_all_seats"], report


def test_percentile() -> None:
    xs = [float(i) for i in range(1, 101)]
    assert loadtest.pct(xs, 50) == 50 and loadtest.pct(xs, 99) == 99
    assert loadtest.pct(xs, 100) == 100


def test_move_cost_benchmark_runs() -> None:
    import asyncio

    from ristiseiska.web.loadtest import move_cost

    cost = asyncio.run(move_cost(deals=1, preset_name="ristiseiska", players=3))
    assert cost and 0 in cost and all(ms > 0 for ms in cost.values())


def test_table_cost_benchmark_runs() -> None:
    assert 0 < asyncio.run(loadtest.table_cost(deals=1)) < 1000


def test_loadtest_reports_cpu_per_process_and_core() -> None:
    args = argparse.Namespace(tables=3, players=3, deals=1, bot_delay=0.0, think=0.0,
                              timeout=60, seed=4, url=None, json=True, processes=1,
                              server_path=None)
    report = asyncio.run(loadtest.run(args))
    assert report["errors"] == 0, report["error_samples"]
    pc = report["play_cpu"]
    servers = [p for p in pc["processes"] if p["role"] == "server"]
    assert len(servers) == 1 and servers[0]["moves"] == report["moves_all_seats"]
    assert pc["server_cpu_ms_per_move"] > 0 and pc["cores_used"] > 0
    assert pc["moves_per_s_per_core"] > 0


def test_table_cost_under_another_tree(tmp_path: Path) -> None:
    """``--cost --server-path DIR`` measures the load test's table with DIR's server: this
    very tree works, and a tree whose package has no server fails, naming the tree (so the
    child really imports from DIR)."""
    src = str(Path(loadtest.__file__).resolve().parents[2])
    assert 0 < loadtest.table_cost_in(src, deals=1) < 1000
    (tmp_path / "ristiseiska").mkdir()
    (tmp_path / "ristiseiska" / "__init__.py").write_text("")
    with pytest.raises(RuntimeError, match="failed under"):
        loadtest.table_cost_in(str(tmp_path), deals=1)


def test_loadtest_database_dir_puts_the_fresh_database_there(tmp_path: Path) -> None:
    """``--database-dir DIR``: the started server's SQLite file lies under DIR while it runs
    (e.g. /dev/shm, to see the latency without the disk), the report says where (and with
    which ``--durability``), and the directory made for it is removed afterwards."""
    seen: list[str] = []

    async def go() -> dict[str, object]:
        args = argparse.Namespace(tables=2, players=3, deals=1, bot_delay=0.0, think=0.0,
                                  timeout=60, seed=5, url=None, json=True, processes=1,
                                  server_path=None, database_url=None,
                                  database_dir=str(tmp_path), durability="crash")
        task = asyncio.ensure_future(loadtest.run(args))
        while not task.done():
            seen.extend(str(p) for p in tmp_path.glob("rs-load-*/load.db"))
            await asyncio.sleep(0.05)
        return await task

    report = asyncio.run(go())
    assert report["errors"] == 0, report["error_samples"]
    assert seen, "no database file appeared under --database-dir"
    assert report["database"] == f"SQLite file in {tmp_path}"
    assert report["durability"] == "crash"  # passed on to the server, which accepted it
    assert not list(tmp_path.glob("rs-load-*/load.db"))  # cleaned up


@pytest.mark.parametrize("argv, says", [
    (["--database-dir", "/no/such/dir"], "no such directory"),
    (["--url", "http://127.0.0.1:1", "--database-dir", "/tmp"], "not with --url"),
    (["--url", "http://127.0.0.1:1", "--durability", "crash"], "not with --url"),
    (["--durability", "sometimes"], "invalid choice"),
    (["--database-url", "sqlite:///x.db", "--database-dir", "/tmp"],
     "cannot be used with --database-url"),
])
def test_loadtest_database_options_refused_clearly(argv: list[str], says: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        loadtest.main(argv)
    assert e.value.code == 2
    assert says in capsys.readouterr().err


def test_the_report_names_the_database_without_its_password() -> None:
    def shown(**kw: str | None) -> str:
        return loadtest._database_shown(argparse.Namespace(**{"url": None, **kw}))

    assert shown(database_url="postgresql+psycopg://anna:secret@db/rs") == \
        "postgresql+psycopg://anna:***@db/rs"
    assert shown(database_url="postgresql+psycopg://anna@db/rs") == \
        "postgresql+psycopg://anna@db/rs"
    assert shown(database_dir="/dev/shm") == "SQLite file in /dev/shm"
    assert shown(url="http://127.0.0.1:8000") == "(the running server's)"


def test_the_clients_collector_is_quiet_while_playing_and_restored_after() -> None:
    """The client's own collections must not count as the server's round trip: while the
    tables play, what exists is frozen and young collections are rare; afterwards the
    collector is as it was (also when playing fails)."""
    import gc

    from ristiseiska.web.tables import GC_YOUNG

    before = gc.get_threshold()
    keep = [[i] for i in range(1000)]  # something to freeze
    with pytest.raises(RuntimeError), loadtest._quiet_collector():
        assert gc.get_threshold()[0] == GC_YOUNG
        assert gc.get_freeze_count() >= len(keep)
        raise RuntimeError("a table failed")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_fsync_probe_times_the_disk_and_leaves_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--fsync-probe SECONDS``: the disk's flushes where the database would lie, as the
    operator checks a disk before choosing ``serve --durability``."""
    import json

    assert loadtest.main(["--fsync-probe", "1", "--database-dir", str(tmp_path), "--json"]) == 0
    probe = json.loads(capsys.readouterr().out)
    assert probe["directory"] == str(tmp_path)
    assert probe["flushes"] >= 10  # one every 10 ms, each well under the second
    assert 0 <= probe["p50_ms"] <= probe["p99_ms"] <= probe["p999_ms"] <= probe["max_ms"]
    assert 0 <= probe["over_100_ms"] <= probe["flushes"]
    assert list(tmp_path.iterdir()) == []  # its file is gone
    assert loadtest.main(["--fsync-probe", "1", "--database-dir", str(tmp_path)]) == 0
    assert "flushes of 16 KiB in" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        loadtest.main(["--fsync-probe", "0"])
    assert e.value.code == 2
    assert "--fsync-probe 1..3600" in capsys.readouterr().err


def test_the_client_makes_its_forced_moves_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """The load test's tables leave forced moves to the client (``auto_forced`` false): the
    server making them after its pause raced the client's own move, refused with
    ``not-your-turn`` once the round trip grew past the pause (111 of 2,000 tables at load
    10, docs/notes/2026-12-08-loadtest.md)."""
    bodies: list[dict[str, object]] = []

    def post(url: str, body: dict[str, object]) -> dict[str, object]:
        bodies.append(body)
        return {"id": "t" * 10, "token": "x", "_process": ""}

    monkeypatch.setattr(loadtest, "_post", post)
    asyncio.run(loadtest.create_tables("http://x", 2, 3, 1))
    made = [b for b in bodies if "seats" in b]
    assert len(made) == 2 and all(b["auto_forced"] is False for b in made)
