"""Issue 63: ``serve --log-format json`` writes one JSON object a log line."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ristiseiska.ops.logs import JsonFormatter, configure


def test_a_record_is_one_json_object_with_its_extra_fields() -> None:
    out = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure("json", out)
        logging.getLogger("ristiseiska.web").warning("table %s: saving failed", "abc",
                                                     extra={"table": "abc"})
        try:
            raise ValueError("boom\nsecond line")
        except ValueError:
            logging.getLogger("ristiseiska.store").exception("it broke")
        logging.getLogger("ristiseiska.web").info("below the level: not written")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    lines = out.getvalue().splitlines()
    assert len(lines) == 2, lines  # one line each, the traceback's newlines escaped
    first, second = map(json.loads, lines)
    assert first["level"] == "warning" and first["logger"] == "ristiseiska.web"
    assert first["message"] == "table abc: saving failed" and first["table"] == "abc"
    assert first["time"].endswith("+00:00") and "T" in first["time"]
    assert second["level"] == "error" and "ValueError: boom" in second["exception"]
    with pytest.raises(ValueError, match="text, json"):
        configure("xml")


def test_the_formatter_survives_fields_json_cannot_hold() -> None:
    rec = logging.LogRecord("x", logging.WARNING, __file__, 1, "m", None, None)
    rec.path = Path("/tmp/a")  # type: ignore[attr-defined]
    rec.obj = object()  # type: ignore[attr-defined]
    data = json.loads(JsonFormatter().format(rec))
    assert data["path"] == "/tmp/a" and data["obj"].startswith("<object")


def test_serve_logs_json_lines(tmp_path: Path) -> None:
    """A real server with --log-format json: its database file deleted under it, the
    operator's log line (an error naming the file) comes as JSON on stderr."""
    db = tmp_path / "games.db"
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0", "--log-format",
         "json", "--database-url", f"sqlite:///{db}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert line.startswith("ristiseiska: http://127.0.0.1:"), line
        with urllib.request.urlopen(line.split()[1] + "healthz", timeout=20) as r:
            assert json.loads(r.read())["status"] == "ok"
        db.unlink()
        for raw in proc.stderr:  # the server notices within a second or so
            if not raw.startswith("{"):
                continue  # e.g. "ristiseiska: NOTE: …" lines are not log records
            rec = json.loads(raw)
            assert {"time", "level", "logger", "message"} <= set(rec)
            if rec["logger"] == "ristiseiska.store" and str(db) in rec["message"]:
                assert rec["level"] == "error"
                break
        else:
            raise AssertionError("no JSON log line about the deleted database")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_refuses_an_unknown_log_format(tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(tmp_path), RISTISEISKA_LOG_FORMAT="xml")
    r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "text or json" in r.stderr and "Traceback" not in r.stderr
