"""An identity across devices (issue 58; ristiseiska/identity, web/identity_api.py): transfer
codes (single use, ten minutes, rate-limited), passkeys (a wrong origin refused), deletion of
everything tied to a player, forged ids refused, and the migration from revision 0004."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

import pg_kit  # noqa: E402
from identity_kit import SoftPasskey, b64  # noqa: E402
from ristiseiska import identity  # noqa: E402
from ristiseiska.ratings import Rating, standings  # noqa: E402
from ristiseiska.store import SeatRow, Store  # noqa: E402
from ristiseiska.store import migrate as migrations  # noqa: E402
from ristiseiska.store import ratings as stored  # noqa: E402
from ristiseiska.web.seats import check_device  # noqa: E402
from ristiseiska.web.security import Limits, RateLimiter  # noqa: E402
from test_web import app_for  # noqa: E402

_n = iter(range(10_000))


def device() -> str:
    """A new device key."""
    return f"identity-test-device-{next(_n):05d}"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("identity") / "web.db"
    with TestClient(app_for(f"sqlite+aiosqlite:///{db}", limits=Limits())) as c:
        yield c


@pytest.fixture
def clock(client: TestClient) -> Iterator[list[float]]:
    """The identity's clock, moved by the test."""
    now = [1_800_000_000.0]
    client.app.state.identity_clock = lambda: now[0]  # type: ignore[attr-defined]
    fresh(client)
    yield now
    client.app.state.identity_clock = None  # type: ignore[attr-defined]
    fresh(client)


def fresh(client: TestClient) -> None:
    """Fresh rate limits (each test's own)."""
    client.app.state.identity_links = None  # type: ignore[attr-defined]
    client.app.state.identity_secrets = None  # type: ignore[attr-defined]


def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[attr-defined, no-any-return]


def call(client: TestClient, fn: Any, *args: Any) -> Any:
    return client.portal.call(fn, *args)  # type: ignore[union-attr]


def post(client: TestClient, path: str, **body: Any) -> Any:
    return client.post(f"/api/identity/{path}", json=body)


def rate_once(client: TestClient, dev: str, match: str) -> None:
    """A rated match the device's player won against two new players."""
    player = call(client, identity.player_of, store(client), check_device(dev))
    call(client, stored.rate_match, store(client), match, "ristiseiska",
         [player, Rating(), Rating()], standings([0, 5, 9]))


def rating(client: TestClient, dev: str) -> dict[str, Any]:
    r = client.post("/api/ratings/mine", json={"device": dev})
    assert r.status_code == 200, r.text
    return dict(r.json()["ratings"]["ristiseiska"])


def test_a_transfer_code_moves_the_identity_once(client: TestClient, clock: list[float]) -> None:
    a, b, c = device(), device(), device()
    rate_once(client, a, "m-transfer")
    got = post(client, "code", device=a).json()
    assert len(got["code"]) == 9 and got["code"][4] == "-"
    assert got["expires"] == clock[0] + 600
    assert rating(client, b)["matches"] == 0
    r = post(client, "link", device=b, code=got["code"].lower().replace("-", " "))
    assert r.status_code == 200, r.text
    assert r.json() == {"player": identity.device_player(check_device(a)), "devices": 2,
                        "passkeys": 0, "linked": True}
    assert rating(client, b) == rating(client, a) and rating(client, b)["matches"] == 1
    # replayed: refused, C unchanged
    r = post(client, "link", device=c, code=got["code"])
    assert (r.status_code, r.json()["error"]) == (409, "used-code")
    assert post(client, "mine", device=c).json()["linked"] is False
    # the code's own device gets a clear word
    other = post(client, "code", device=a).json()["code"]
    r = post(client, "link", device=a, code=other)
    assert r.json()["error"] == "already-yours"
    # the stored secret is a hash, never the code
    rows = sqlite3.connect(store(client).file).execute(  # type: ignore[arg-type]
        "SELECT hash FROM rs_identity_secrets").fetchall()
    assert rows and all(other.replace("-", "") not in h for (h,) in rows)


def test_an_expired_or_wrong_code_is_refused_and_changes_nothing(client: TestClient,
                                                                 clock: list[float]) -> None:
    a, b = device(), device()
    code = post(client, "code", device=a).json()["code"]
    clock[0] += 600
    r = post(client, "link", device=b, code=code)
    assert (r.status_code, r.json()["error"]) == (410, "expired-code")
    assert "expired" in r.json()["message"]
    fresh = post(client, "code", device=a).json()["code"]
    clock[0] += 599
    wrong = ("ACDE" if fresh[:4] != "ACDE" else "CDEF") + fresh[4:]
    r = post(client, "link", device=b, code=wrong)
    assert (r.status_code, r.json()["error"]) == (404, "wrong-code")
    for bad in ("ACDE-0000", "short", 12345678, None, "ACDE-34671"):
        r = post(client, "link", device=b, code=bad)
        assert (r.status_code, r.json()["error"]) == (400, "bad-code"), bad
    assert post(client, "mine", device=b).json()["linked"] is False
    assert post(client, "link", device=b, code=fresh).status_code == 200  # still good


def test_codes_are_rate_limited_per_address(client: TestClient, clock: list[float]) -> None:
    a, b = device(), device()
    now = [0.0]
    client.app.state.identity_links = RateLimiter(  # type: ignore[attr-defined]
        10 / 60, 3, clock=lambda: now[0])
    code = post(client, "code", device=a).json()["code"]
    for _ in range(3):
        assert post(client, "link", device=b, code="ACDE-ACDE").json()["error"] == "wrong-code"
    r = post(client, "link", device=b, code=code)
    assert (r.status_code, r.json()["error"]) == (429, "rate-limited")
    assert int(r.headers["retry-after"]) >= 1
    now[0] += 6.1  # one try comes back every six seconds
    assert post(client, "link", device=b, code=code).status_code == 200
    # passkey sign-ins count as tries too; the prompts and codes asked for have their own limit
    client.app.state.identity_links = RateLimiter(  # type: ignore[attr-defined]
        10 / 60, 1, clock=lambda: now[0])
    assert post(client, "passkey/login", device=b, credential=None).json()["error"] == "bad-passkey"
    assert post(client, "passkey/login", device=b, credential=None).status_code == 429
    client.app.state.identity_secrets = RateLimiter(  # type: ignore[attr-defined]
        30 / 60, 2, clock=lambda: now[0])
    assert client.post("/api/identity/passkey/login-options").status_code == 200
    assert post(client, "code", device=a).status_code == 200
    for path in ("code", "passkey/register-options", "passkey/login-options"):
        r = post(client, path, device=a)
        assert (r.status_code, r.json()["error"]) == (429, "rate-limited"), path


def test_bad_device_keys_are_refused(client: TestClient) -> None:
    for body in ({"device": "short"}, {}, {"device": 5}):
        r = client.post("/api/identity/code", json=body)
        assert (r.status_code, r.json()["error"]) == (400, "bad-device")
    r = client.post("/api/identity/mine", content=b"[1]",
                    headers={"content-type": "application/json"})
    assert r.status_code == 400


def test_a_passkey_signs_in_on_another_device(client: TestClient, clock: list[float]) -> None:
    a, b = device(), device()
    rate_once(client, a, "m-passkey")
    key = SoftPasskey()
    opts = post(client, "passkey/register-options", device=a, name="Aino").json()
    assert opts["rp"]["id"] == "testserver"
    assert opts["authenticatorSelection"]["residentKey"] == "required"
    r = post(client, "passkey/register", device=a, credential=key.create(opts))
    assert r.status_code == 200, r.text
    assert r.json()["passkeys"] == 1
    # the same challenge again: refused
    again = post(client, "passkey/register", device=a, credential=SoftPasskey().create(opts))
    assert again.json()["error"] == "used-challenge"
    login = client.post("/api/identity/passkey/login-options").json()
    r = post(client, "passkey/login", device=b, credential=key.get(login))
    assert r.status_code == 200, r.text
    assert r.json()["linked"] and r.json()["player"] == identity.device_player(check_device(a))
    assert rating(client, b) == rating(client, a)
    # a signature made for another challenge, or replayed, does not sign in
    replay = post(client, "passkey/login", device=device(), credential=key.get(login))
    assert replay.json()["error"] == "used-challenge"
    fresh = client.post("/api/identity/passkey/login-options").json()
    forged = key.get(fresh)
    forged["response"]["signature"] = key.get(login)["response"]["signature"]
    r = post(client, "passkey/login", device=(c := device()), credential=forged)
    assert (r.status_code, r.json()["error"]) == (400, "bad-passkey")
    assert post(client, "mine", device=c).json()["linked"] is False


def test_a_registration_from_a_wrong_origin_is_refused(client: TestClient,
                                                       clock: list[float]) -> None:
    a = device()
    opts = post(client, "passkey/register-options", device=a).json()
    cred = SoftPasskey().create(opts, origin="https://evil.example")
    r = post(client, "passkey/register", device=a, credential=cred)
    assert (r.status_code, r.json()["error"]) == (403, "wrong-origin")
    assert "evil.example" in r.json()["message"]
    assert post(client, "mine", device=a).json()["passkeys"] == 0
    # a page of another origin cannot even ask (the server's origin check)
    r = client.post("/api/identity/passkey/register-options", json={"device": a},
                    headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    for bad in (None, "x", {"response": {"clientDataJSON": "%%%"}},
                {"response": {"clientDataJSON": b64(b"[]")}}):
        r = post(client, "passkey/register", device=a, credential=bad)
        assert (r.status_code, r.json()["error"]) == (400, "bad-passkey"), bad


def test_deleting_removes_everything_tied_to_the_player(client: TestClient,
                                                       clock: list[float]) -> None:
    a, b, outsider = device(), device(), device()
    rate_once(client, a, "m-delete-1")
    rate_once(client, outsider, "m-delete-2")
    code = post(client, "code", device=a).json()["code"]
    assert post(client, "link", device=b, code=code).status_code == 200
    key = SoftPasskey()
    opts = post(client, "passkey/register-options", device=a).json()
    assert post(client, "passkey/register", device=a, credential=key.create(opts)).status_code == 200
    # a name at a stored table, sat down with the linked device
    t = client.post("/api/tables", json={"preset": "ristiseiska", "seats": [
        {"kind": "friend", "name": "Aino"}, {"kind": "bot", "bot": "basic"}]}).json()["id"]
    assert client.post(f"/api/tables/{t}/seats/0",
                       json={"name": "Aino", "device": b}).status_code == 201
    heard: list[tuple[str, list[str]]] = []

    async def hook(_store: Store, player: str, devices: list[str]) -> dict[str, int]:
        heard.append((player, devices))
        return {"daily results": 2}

    identity.on_forget(hook)
    try:
        player = identity.device_player(check_device(a))
        forged = post(client, "delete", device=outsider, player=player)
        assert (forged.status_code, forged.json()["error"]) == (403, "not-yours")
        for bad in (None, "", "x" * 200):
            assert post(client, "delete", device=b, player=bad).json()["error"] == "bad-player"
        assert rating(client, a)["matches"] == 1 and not heard  # nothing changed
        r = post(client, "delete", device=b, player=player)
        assert r.status_code == 200, r.text
        assert r.json() == {"player": player, "removed": {
            "ratings": 1, "names": 1, "devices": 2, "passkeys": 1, "daily results": 2}}
        assert heard == [(player, [check_device(a), check_device(b)])]
    finally:
        identity._hooks.remove(hook)
    for dev in (a, b):
        assert rating(client, dev)["matches"] == 0
        assert post(client, "mine", device=dev).json()["passkeys"] == 0
    assert post(client, "mine", device=b).json()["linked"] is False
    assert rating(client, outsider)["matches"] == 1  # somebody else's: kept

    async def seat() -> SeatRow | None:
        async with store(client).session() as s:
            return await s.get(SeatRow, (t, 0))
    row = call(client, seat)
    assert row.name == "–" and "|" not in (row.token_hash or "")
    login = client.post("/api/identity/passkey/login-options").json()
    r = post(client, "passkey/login", device=device(), credential=key.get(login))
    assert r.json()["error"] == "unknown-passkey"


# -- the migration ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[str]:
    if not pg_kit.available():
        pytest.skip("PostgreSQL or psycopg is not installed")
    with pg_kit.cluster() as url:
        yield url


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_database_at_revision_0004_is_upgraded_keeping_ratings(
        kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    from sqlalchemy import create_engine, inspect, text

    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    else:
        url = pg_kit.new_database(request.getfixturevalue("pg_cluster"), f"rs_id_{os.getpid()}")
    names = ("rs_identity_devices", "rs_identity_passkeys", "rs_identity_secrets")

    async def make_old() -> None:
        s = Store(url)
        await s.init()
        await stored.rate_match(s, "m-old", "sjuan", ["device:old", Rating()], [1, 2])
        await s.close()
    asyncio.run(make_old())
    engine = create_engine(url.replace("+aiosqlite", ""))
    with engine.begin() as conn:  # as the code of revision 0004 left it
        for name in names:
            conn.execute(text(f"DROP TABLE {name}"))
        conn.execute(text("UPDATE alembic_version SET version_num = '0004'"))

    async def reopen() -> tuple[list[str], float]:
        s = Store(url)
        await s.init()
        got = (await stored.ratings(s, "sjuan", ["device:old"]))["device:old"]
        notes = list(s.notices)
        await s.close()
        return notes, got.matches
    notes, matches = asyncio.run(reopen())
    assert matches == 1
    assert any(migrations.head() in n for n in notes), notes
    with engine.connect() as conn:
        assert set(names) <= set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == migrations.head()
    engine.dispose()


def test_a_failing_database_is_a_clear_answer(client: TestClient,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from ristiseiska.store import StoreError

    async def broken(*_args: Any) -> Any:
        raise StoreError("the database is away")

    monkeypatch.setattr(identity, "summary", broken)
    r = post(client, "mine", device=device())
    assert (r.status_code, r.json()["error"]) == (503, "store")
    assert "away" in r.json()["message"]


def test_codes_and_deletion_on_postgresql(pg_cluster: str) -> None:
    url = pg_kit.new_database(pg_cluster, f"rs_id_logic_{os.getpid()}")

    async def go() -> None:
        s = Store(url)
        await s.init()
        try:
            a, b = check_device("pg-device-a-000001"), check_device("pg-device-b-000001")
            assert a and b
            await stored.rate_match(s, "m-pg", "sjuan", [identity.device_player(a), Rating()],
                                    [1, 2])
            code, _ = await identity.make_code(s, a, now=100.0)
            with pytest.raises(identity.IdentityError, match="expired"):
                await identity.redeem_code(s, b, code, now=700.0)
            code, _ = await identity.make_code(s, a, now=100.0)
            assert await identity.redeem_code(s, b, code, now=101.0) == identity.device_player(a)
            with pytest.raises(identity.IdentityError, match="used already"):
                await identity.redeem_code(s, check_device("pg-device-c-000001") or "", code,
                                           now=102.0)
            assert await identity.player_of(s, b) == identity.device_player(a)
            removed = await identity.forget(s, identity.device_player(a))
            assert removed == {"ratings": 1, "names": 0, "devices": 2, "passkeys": 0}
            assert await identity.player_of(s, b) == identity.device_player(b)
        finally:
            await s.close()
    asyncio.run(go())
