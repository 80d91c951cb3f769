"""Issue 47, the offline lobby: every preset's rules in both languages come from one small
endpoint the service worker keeps in its app shell, so the lobby shows them with no network."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.rules import PRESETS  # noqa: E402
from ristiseiska.web import pwa  # noqa: E402
from ristiseiska.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db: Path = tmp_path_factory.mktemp("offline-lobby") / "o.db"
    with TestClient(create_app(f"sqlite+aiosqlite:///{db}")) as c:
        yield c


def test_every_presets_rules_in_both_languages_are_in_the_app_shell(client: TestClient) -> None:
    shell = pwa.offline().shell
    for name in PRESETS:
        texts = {}
        for lang in ("fi", "en"):
            url = f"/api/rules?preset={name}&lang={lang}"
            assert url in shell  # the very address the lobby asks (ui/lobby_offline.js)
            r = client.get(url)
            assert r.status_code == 200 and r.json()["preset"] == name
            texts[lang] = r.json()["html"] or r.json()["text"]
            assert texts[lang]
        assert texts["fi"] != texts["en"]
    assert "pantti" in client.get("/api/rules?preset=ristiseiska&lang=fi").json()["text"].lower()


@pytest.mark.parametrize("bad", ["nope", "", "x" * 41, "../ristiseiska"])
def test_an_unknown_preset_is_a_clear_error(client: TestClient, bad: str) -> None:
    r = client.get("/api/rules", params={"preset": bad, "lang": "fi"})
    assert r.status_code in (404, 422)
    if r.status_code == 404:
        assert r.json()["error"] == "bad-preset"
