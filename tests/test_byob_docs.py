"""The commands of the "Bring your own bot" sections (docs/simulation.md, docs/rl.md) run as
typed (issue 59), from a folder holding a copy of examples/: ``pip install`` gets the flags of
an offline install into a folder of its own, put on PYTHONPATH for the commands after it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIP_FLAGS = ["--no-deps", "--no-build-isolation", "--no-index", "--quiet"]


def commands(doc: str) -> list[str]:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    section = text.split("## Bring your own bot", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines()
            if re.match(r"    (pip install|ristiseiska |PYTHONPATH=)", line)]


def test_the_sections_show_their_commands() -> None:
    sim, rl = commands("simulation.md"), commands("rl.md")
    assert sim[0] == "pip install ./examples/plugin-bot"
    assert any(c.startswith("ristiseiska ladder") for c in sim)
    assert any("--move-limit" in c for c in sim)
    assert any("agent_plugin:LinearAgent" in c for c in rl)


@pytest.mark.parametrize("doc", ["simulation.md", "rl.md"])
def test_commands_run_as_typed(doc: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("*.npz", "build", "*.egg-info"))
    site = tmp_path / "site"
    paths = [str(ROOT / "src")]
    for cmd in commands(doc):
        argv = shlex.split(cmd)
        env = dict(os.environ)
        extra: list[str] = []
        while argv and "=" in argv[0] and argv[0].split("=")[0].isupper():
            name, value = argv.pop(0).split("=", 1)
            extra.append(str(tmp_path / value))
        env["PYTHONPATH"] = os.pathsep.join(paths + extra)
        if argv[:2] == ["pip", "install"]:
            run = [sys.executable, "-m", "pip", "install", *PIP_FLAGS, "--target", str(site),
                   *argv[2:]]
            paths.append(str(site))
        else:
            assert argv[0] == "ristiseiska", cmd
            run = [sys.executable, "-c", "import sys; from ristiseiska.cli import main; "
                   "sys.exit(main(sys.argv[1:]))", *argv[1:], "--quiet"]
            if "--workers" not in argv and argv[1] == "tournament":
                run += ["--workers", "1"]  # the suite shares two cores with others
        r = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=900)
        assert r.returncode == 0, f"{cmd}\n{r.stdout}\n{r.stderr}"
        assert "played by the stand-in" not in r.stdout  # sound bots: no faults
    if (tmp_path / "ladder" / "ladder.json").exists():
        data = json.loads((tmp_path / "ladder" / "ladder.json").read_text())
        assert data["format"] == "ristiseiska-ladder"
