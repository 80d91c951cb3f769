"""examples/plugin-bot installs with pip and plays through its entry point (issue 59)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLE = ROOT / "examples" / "plugin-bot"


def _install(tmp_path: Path) -> Path:
    # built from a copy: setuptools writes build/ and *.egg-info next to the sources
    src = tmp_path / "plugin-bot"
    shutil.copytree(EXAMPLE, src)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                    "--no-index", "--quiet", "--target", str(target), str(src)],
                   check=True, capture_output=True, text=True, timeout=600)
    return target


def _run(target: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(target)]))
    return subprocess.run([sys.executable, "-c", "import sys; from ristiseiska.cli import main; "
                           "sys.exit(main(sys.argv[1:]))", *argv],
                          capture_output=True, text=True, env=env, timeout=600)


def test_installed_plugin_plays_a_tournament_and_a_ladder(tmp_path) -> None:
    target = _install(tmp_path)
    assert (target / "opener_bot" / "__init__.py").is_file()
    out = tmp_path / "t.json"
    # two worker processes: each finds the entry point itself
    r = _run(target, "tournament", "--bots", "opener,expert,basic,random", "--games", "4",
             "--workers", "2", "--quiet", "--json", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["results"]["opener"]["deals"] == 4
    assert data["results"]["opener"]["decisions"] > 0
    assert data["results"]["opener"]["faults"] == {}  # a sound plugin: every move its own
    r = _run(target, "ladder", "--bots", "opener,random", "--deals", "2", "--quiet",
             "--out", str(tmp_path / "lad"))
    assert r.returncode == 0, r.stderr
    names = [b["name"] for b in json.loads((tmp_path / "lad" / "ladder.json").read_text())["bots"]]
    assert sorted(names) == ["opener", "random"]


def test_without_the_install_the_name_is_a_clear_error(tmp_path) -> None:
    r = _run(tmp_path, "tournament", "--bots", "opener,expert", "--games", "1")
    assert r.returncode == 2
    assert "unknown bot 'opener'" in r.stderr and "ristiseiska.bots" in r.stderr
