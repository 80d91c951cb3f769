"""Every table survives being rebuilt from storage (issue 19): random deals of every preset and
house-rule family are played through the web layer's message handler, and every few moves the
table is loaded afresh from a new store on the same database; the rebuilt table must equal the
live one (every seat's view, the spectator's, the table, the score sheet, the records) and the
game goes on on the rebuilt copy. On SQLite always, on PostgreSQL where it is installed."""

from __future__ import annotations

import asyncio
import glob
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.rules import preset_names
from ristiseiska.store import Store

warnings.filterwarnings("ignore", message=".*httpx2.*")
from ristiseiska.web.app import build_config, handle  # noqa: E402
from ristiseiska.web.tables import ActionError, Conn, LiveTable, Tables, record_of  # noqa: E402

PRESETS = preset_names()
# What is compared is what the database holds, not whether a commit waited for the disk's
# fsync (tests/test_web_storage.py covers the durability modes): "crash" keeps every commit
# but lets the tests run without an fsync per move.
DURABILITY = "crash"

# House-rule families: the options that change what a move's text must carry (rows, ends,
# jokers' cards, deck marks) or how a turn goes, on top of any preset.
HOUSE = st.fixed_dictionaries({}, optional={
    "failure": st.sampled_from(["token", "ask", "pass", "chip"]),
    "order": st.sampled_from(["low-first", "high-first", "both"]),
    "extra_move": st.booleans(),
    "multi_play": st.booleans(),
    "first_round_pass": st.booleans(),
    "end": st.sampled_from(["first-out", "last-left"]),
    "card_values": st.sampled_from(["ace14", "ace1", "one"]),
    "jokers": st.integers(0, 2),
    "decks": st.integers(1, 2),
    "distinct_decks": st.booleans(),
    "opening": st.sampled_from(["C7", "H7", "any"]),
})


def _state(t: LiveTable) -> dict[str, Any]:
    """Everything a player, a spectator or a download can see of a table."""
    info = t.public_info()
    for s in info["seats"]:
        s.pop("away", None)  # depends on when the live table's seats were claimed
    return {
        "views": {seat: t.view_for(seat) for seat in [*range(t.n), None]},
        "info": info,
        "sheet": t.sheet(),
        "records": [record_of(t, i, g) for i, g in enumerate(t.games) if g.is_over()],
        "moves": [[m.text(True) for m in g.moves] for g in t.games],
        "hands": [[[c.notation(True) for c in g.hand(s)] for s in range(g.n)] for g in t.games],
        "started": t.started,
        "standins": t._standins(),
    }


async def _send(t: LiveTable, conn: Conn, msg: dict[str, Any]) -> dict[str, Any] | None:
    """One WebSocket message through the app's handler; the reply to this connection."""
    while not conn.queue.empty():
        conn.queue.get_nowait()
    await handle(t, conn, json.dumps(msg))
    out = None
    while not conn.queue.empty():
        item = conn.queue.get_nowait()
        if item is not None and item.get("type") in ("ack", "error"):
            out = item
    return out


async def _play(url: str, options: dict[str, Any], name: str, k: int, seed: int, choice: int,
                every: int, budget: int) -> int:
    """Play ``budget`` moves on a table of ``name`` + ``options`` with ``players_for(k)``
    seats, rebuilding it from a fresh store after every ``every`` moves. Returns the number
    of rebuilds compared."""
    from ristiseiska.rules import Rules, preset

    base = preset(name)
    try:
        rules = Rules.from_dict(options, base=base) if options else base
    except Exception:  # noqa: BLE001 - a combination these rules refuse: nothing to test
        return -1
    n = rules.min_players + k % (rules.max_players - rules.min_players + 1)
    try:
        config = build_config({"preset": name, "options": options,
                               "seats": [{"kind": "friend", "name": f"P{i}"} for i in range(n)]})
    except ActionError:
        return -1
    store = Store(url, durability=DURABILITY)
    await store.init()
    tables = Tables(store, 0.0, seed_source=lambda: seed)
    t = await tables.create(config)
    tid = t.id
    tokens = [await t.claim(i, f"P{i}") for i in range(n)]
    rng = random.Random(choice)
    rebuilds = 0

    async def conns(table: LiveTable) -> list[Conn]:
        out = []
        for i in range(n):
            c = Conn()
            await _send(table, c, {"type": "join", "seat": i, "token": tokens[i]})
            assert c.seat == i
            out.append(c)
        return out

    seat_conns = await conns(t)
    played = 0
    try:
        while played < budget and not t.match.is_over():
            g = t.game
            assert g is not None
            if g.is_over():
                assert await _send(t, seat_conns[0], {"type": "next-deal"}) is None
                continue
            seat = g.to_move
            view = t.view_for(seat)
            assert view is not None
            move = rng.choice(view["legal_moves"])
            reply = await _send(t, seat_conns[seat], {"type": "move", "move": move,
                                                      "id": played})
            assert reply is not None and reply["type"] == "ack", reply
            # the ack names the move in the text that replays it, deck mark and all
            assert reply["move"] == move, (reply, move)
            played += 1
            if played % every == 0 or t.match.is_over() or (t.game and t.game.is_over()):
                fresh = Store(url, durability=DURABILITY)
                try:
                    # a reader's copy (own=False): with several processes on one database
                    # it does not take the table from the process that plays it
                    rebuilt = await Tables(fresh, 0.0).get(tid, own=False)
                    assert _state(rebuilt) == _state(t)
                finally:
                    await fresh.close()
                rebuilds += 1
                # play goes on on a copy loaded from storage (as after a restart)
                tables.live.pop(tid, None)
                await t.close()
                t = await tables.get(tid)
                assert _state(t) == _state(rebuilt)
                seat_conns = await conns(t)
    finally:
        await t.close()
        await tables.close()
        await store.close()
    return rebuilds


SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("name", PRESETS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, 6), seed=st.integers(0, 2**62 - 1), choice=st.integers(0, 2**32),
       every=st.integers(2, 9))
def test_every_preset_round_trips_through_sqlite(name: str, k: int, seed: int, choice: int,
                                                 every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{os.path.join(tmp, 'rt.db')}"
        assert asyncio.run(_play(url, {}, name, k, seed, choice, every, 120)) > 0


@SETTINGS
@given(name=st.sampled_from(PRESETS), options=HOUSE, k=st.integers(0, 6),
       seed=st.integers(0, 2**62 - 1), choice=st.integers(0, 2**32), every=st.integers(3, 12))
def test_house_rule_families_round_trip_through_sqlite(name: str, options: dict[str, Any],
                                                       k: int, seed: int, choice: int,
                                                       every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{os.path.join(tmp, 'rt.db')}"
        asyncio.run(_play(url, options, name, k, seed, choice, every, 100))


def test_a_second_deck_move_is_stored_with_its_deck_mark(tmp_path: Any) -> None:
    """The defect of issue 19: ``D7+`` was acknowledged and stored as ``D7``, and the table
    rebuilt from storage answered ``broken-table``."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'marks.db'}"

    async def go() -> None:
        for seed in range(40):
            store = Store(url, durability=DURABILITY)
            await store.init()
            tables = Tables(store, 0.0, seed_source=lambda s=seed: s)
            config = build_config({"preset": "kaksi-erilaista-pakkaa",
                                   "seats": [{"kind": "friend"}] * 3})
            t = await tables.create(config)
            tokens = [await t.claim(i, f"P{i}") for i in range(3)]
            conns = []
            for i in range(3):
                c = Conn()
                await _send(t, c, {"type": "join", "seat": i, "token": tokens[i]})
                conns.append(c)
            marked = None
            for _ in range(200):
                g = t.game
                assert g is not None
                if g.is_over():
                    break
                legal = t.view_for(g.to_move)["legal_moves"]  # type: ignore[index]
                move = next((m for m in legal if "+" in m), legal[0])
                reply = await _send(t, conns[g.to_move], {"type": "move", "move": move})
                assert reply == {"type": "ack", "move": move}
                if "+" in move:
                    marked = move
                    break
            await t.close()
            await store.close()
            if marked is None:
                continue
            fresh = Store(url, durability=DURABILITY)
            try:
                rebuilt = await Tables(fresh, 0.0).get(t.id)  # was 400 broken-table
                assert rebuilt.game is not None
                assert [m.text(True) for m in rebuilt.game.moves][-1] == marked
            finally:
                await fresh.close()
            return
        raise AssertionError("no second-deck move came up")

    asyncio.run(go())


# -- PostgreSQL -------------------------------------------------------------------------------

def _pg_bin() -> str | None:
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None
    return bins[-1] if bins else None


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:  # initdb refuses to run as root
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A throwaway PostgreSQL server, as tests/test_web_postgres.py starts one."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL or psycopg is not installed")
    tmp = tempfile.mkdtemp(prefix="rs-pg-rt-")
    data = os.path.join(tmp, "data")
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    subprocess.run(_as_postgres([f"{bin_dir}/initdb", "-D", data, "-A", "trust",
                                 "-U", "postgres"]), check=True, capture_output=True)
    subprocess.run(_as_postgres([f"{bin_dir}/pg_ctl", "-D", data, "-o",
                                 f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 "
                                 "-c fsync=off", "-w", "start", "-l",
                                 os.path.join(tmp, "log")]), check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres([f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate",
                                     "stop"]), capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


@settings(max_examples=8, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(PRESETS), options=HOUSE, k=st.integers(0, 6),
       seed=st.integers(0, 2**62 - 1), choice=st.integers(0, 2**32), every=st.integers(3, 12))
def test_presets_and_house_rules_round_trip_through_postgres(pg_url: str, name: str,
                                                             options: dict[str, Any], k: int,
                                                             seed: int, choice: int,
                                                             every: int) -> None:
    asyncio.run(_play(pg_url, options, name, k, seed, choice, every, 80))


def test_two_different_decks_round_trip_through_postgres(pg_url: str) -> None:
    for seed in range(3):
        assert asyncio.run(_play(pg_url, {}, "kaksi-erilaista-pakkaa", seed, seed, seed, 3,
                                 120)) > 0
