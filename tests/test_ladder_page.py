"""``serve --ladder FILE``: the leaderboard at /ladder and its JSON at /api/ladder (issue 59)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.cli import main  # noqa: E402
from ristiseiska.ladder import run_ladder  # noqa: E402
from ristiseiska.rules import Rules  # noqa: E402
from ristiseiska.web.app import create_app  # noqa: E402
from ristiseiska.web.ladder_page import ladder_router  # noqa: E402
from ristiseiska.web.security import Limits  # noqa: E402


@pytest.fixture(scope="module")
def ladder_data() -> dict:
    return run_ladder(Rules(), ["random", "basic", "expert"], deals=2, seed=1).to_dict()


def test_page_and_json(tmp_path: Path, ladder_data: dict) -> None:
    data = json.loads(json.dumps(ladder_data))
    data["bots"][0]["name"] = "<script>alert(1)</script>"  # a name from whoever wrote it
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps(data))
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'web.db'}", bot_delay=0.0,
                     limits=Limits(per_address=False))
    app.include_router(ladder_router(str(path)))
    with TestClient(app) as client:
        fi = client.get("/ladder")
        assert fi.status_code == 200 and "text/html" in fi.headers["content-type"]
        assert "Rankinglista" in fi.text and "luokitus" in fi.text
        assert "<script>" not in fi.text and "&lt;script&gt;" in fi.text
        en = client.get("/ladder?lang=en")
        assert "Ladder:" in en.text and "rating" in en.text
        assert client.get("/api/ladder").json() == data
        # rewritten by a later run: shown at once; a broken file: the last good copy
        data["bots"][1]["name"] = "renamed"
        path.write_text(json.dumps(data))
        assert "renamed" in client.get("/ladder").text
        path.write_text("{not json")
        assert client.get("/api/ladder").json()["bots"][1]["name"] == "renamed"


def test_serve_refuses_a_file_that_is_not_a_ladder(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something-else"}')
    assert main(["serve", "--port", "0", "--database-url",
                 f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", "--ladder", str(bad)]) == 2
    assert "not a ladder file" in capsys.readouterr().err
    assert main(["serve", "--port", "0", "--ladder", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
