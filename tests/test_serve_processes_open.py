"""Open tables and quick game with ``serve --processes 2`` behind Debian's nginx: every
process lists every open table (read from the shared database), a quick game's seat is claimed
by the table's own process (a 307 that nginx pins), players never share a seat, and the bots
sit down after the wait in the table's own process. Skipped where nginx is not installed."""

from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from test_serve_processes import HEADER, _request, _settled_roles, _start, _stop, needs_nginx


def _quick(base: str, name: str, device: str | None = None) -> tuple[dict[str, Any], str]:
    """POST /api/quick the way a browser's fetch does it: a 307 is followed with the body."""
    body = json.dumps({"name": name} if device is None else {"name": name, "device": device}
                      ).encode()
    url = f"{base}/api/quick"
    for _ in range(3):
        req = urllib.request.Request(url, data=body, method="POST",
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read()), r.headers.get(HEADER, "")
        except urllib.error.HTTPError as e:
            if e.code != 307:
                raise
            url = base + e.headers["location"]
    raise AssertionError("too many redirects")


@needs_nginx
def test_two_processes_list_every_open_table_and_seat_quick_players_apart(
        tmp_path: Path) -> None:
    proc, base = _start(tmp_path, "--quick-wait", "4")
    try:
        roles = _settled_roles(proc.pid)
        assert len(roles.get("server", [])) == 2, roles
        seated = [_quick(base, f"Player {i}") for i in range(6)]
        places = {(d["id"], d["seat"]) for d, _who in seated}
        assert len(places) == 6, seated
        by_table: dict[str, list[int]] = {}
        for i, (d, who) in enumerate(seated):
            by_table.setdefault(d["id"], []).append(d["seat"])
            info, owner = _request(f"{base}/api/tables/{d['id']}")
            assert owner == who  # the seat was claimed by the table's own process
            assert info["seats"][d["seat"]]["name"] == f"Player {i}"
        assert sorted(len(s) for s in by_table.values()) == [2, 4]
        time.sleep(2.2)  # every process reads the database again after 2 s
        answers = set()
        for _ in range(8):
            got, who = _request(f"{base}/api/tables?open=1&lang=en")
            answers.add(who)
            listed = {t["id"]: t["free"] for t in got["tables"]}
            half = next(tid for tid, s in by_table.items() if len(s) == 2)
            assert listed == {half: [2, 3]}, (who, listed)  # the full one is not listed
            text = json.dumps(got)
            assert all(d["token"] not in text for d, _who in seated)
            assert '"token"' not in text
        assert len(answers) == 2  # both processes answered (the lobby goes to either)
        # the half table's own process seats the bots after the wait, and the deal starts
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            info, _who = _request(f"{base}/api/tables/{half}")
            if not info["waiting"]:
                break
            time.sleep(0.2)
        assert not info["waiting"]
        assert [s["standin"] for s in info["seats"]] == [False, False, True, True]
    finally:
        _stop(proc, signal.SIGTERM)
    assert proc.returncode == 0


@needs_nginx
def test_two_processes_give_a_device_its_quick_seat_back(tmp_path: Path) -> None:
    """Issue 47 across processes: Quick game from a device that already sits at a quick table
    is sent (307) to that table's own process, which gives the seat back with a new token."""
    proc, base = _start(tmp_path, "--quick-wait", "60")
    try:
        _settled_roles(proc.pid)
        first, who = _quick(base, "Äiti", "a" * 32)
        other, _ = _quick(base, "Äiti", "b" * 32)  # another phone: the same table, numbered
        assert other["id"] == first["id"] and other["seat"] != first["seat"]
        back, who2 = _quick(base, "Äippä", "a" * 32)
        assert (back["id"], back["seat"], back["returned"]) == (first["id"], first["seat"], True)
        assert back["token"] != first["token"] and who2 == who
        info, _ = _request(f"{base}/api/tables/{first['id']}")
        assert [s["name"] for s in info["seats"][:2]] == ["Äiti", "Äiti (2)"]
        assert "a" * 32 not in json.dumps(info)
    finally:
        _stop(proc, signal.SIGTERM)
    assert proc.returncode == 0
