"""Every command of docs/rl.md's "Your agent against ours and against people" runs as typed
(issue 59), from a folder holding a copy of examples/. Substituted: a free port for 8765, and
TABLE and TOKEN by what the commands before printed; ``curl`` is sent with urllib."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from ristiseiska.cli import main; "
       "sys.exit(main(sys.argv[1:]))"]


def commands() -> list[str]:
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    section = text.split("## Your agent against ours and against people", 1)[1]
    section = section.split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines() if re.match(r"    \S", line)]


def test_every_command_of_the_section_runs(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("*.npz", "build", "*.egg-info"))
    cmds = commands()
    kinds = [c.split()[0] if not c.startswith("PYTHONPATH=") else "plugin" for c in cmds]
    assert kinds == ["plugin", "plugin", "ristiseiska", "ristiseiska", "curl", "python"]
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "PYTHONPATH": str(ROOT / "src")}
    server = None
    found: dict[str, str] = {}
    try:
        for cmd in cmds:
            argv = shlex.split(cmd)
            run_env = dict(env)
            if argv[0].startswith("PYTHONPATH="):
                extra = tmp_path / argv.pop(0).split("=", 1)[1]
                run_env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(extra)])
            if argv[:2] == ["ristiseiska", "serve"]:
                argv[argv.index("8765")] = "0"
                server = subprocess.Popen([*CLI, *argv[1:]], cwd=tmp_path, env=run_env,
                                          stdout=subprocess.PIPE, text=True)
                assert server.stdout is not None
                found["url"] = server.stdout.readline().split()[1].rstrip("/")
                continue
            if argv[0] == "curl":
                url = argv[argv.index("-X") + 2].replace("http://127.0.0.1:8765", found["url"])
                req = urllib.request.Request(url, data=argv[argv.index("-d") + 1].encode(),
                                             method="POST",
                                             headers={"content-type": "application/json"})
                with urllib.request.urlopen(req, timeout=30) as r:
                    found["TABLE"] = json.loads(r.read())["id"]
                continue
            if argv[0] == "python":
                argv = [sys.executable, *[{"TABLE": found["TABLE"], "TOKEN": found["TOKEN"]}
                                          .get(a, a.replace("http://127.0.0.1:8765", found["url"])
                                          .replace("ws://127.0.0.1:8765",
                                                   "ws" + found["url"][4:]))
                                          for a in argv[1:]]]
            else:
                argv = [*CLI, *argv[1:]] + (["--quiet"] if argv[1] != "bots" else [])
                if argv[len(CLI)] == "tournament":
                    argv += ["--workers", "1"]
            r = subprocess.run(argv, cwd=tmp_path, env=run_env, capture_output=True, text=True,
                               timeout=600)
            assert r.returncode == 0, f"{cmd}\n{r.stdout}\n{r.stderr}"
            if cmd.startswith("ristiseiska bots add"):
                found["TOKEN"] = r.stdout.splitlines()[-1]
            if argv[0] == sys.executable and "bot_api_client" in cmd:
                assert "match over" in r.stdout
        assert json.loads((tmp_path / "ladder" / "ladder.json").read_text())["bots"]
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
